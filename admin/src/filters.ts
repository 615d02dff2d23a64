import {
  type FilterLeaf,
  type FilterOperator,
  operatorShape,
  type SchemaDocument,
  type SchemaFilter,
} from '../../src/client/index.js';

/** One condition of the filter panel, as edited (strings, like the inputs). */
export interface Condition {
  id: number;
  /** A name of `table.filters` (maybe `settings.*`). */
  filter: string;
  /** The key path for a `<json column>.*` filter. */
  path: string;
  op: string;
  value: string;
  value2: string;
  /** `in`/`not_in` over a filter with options. */
  values: string[];
}

let nextId = 1;

export function newCondition(filter: SchemaFilter): Condition {
  return {
    id: nextId++,
    filter: filter.name,
    path: '',
    op: filter.operators[0] ?? 'eq',
    value: '',
    value2: '',
    values: [],
  };
}

/** The filters the panel offers: `trashed` has its own toggle. */
export function panelFilters(schema: SchemaDocument): SchemaFilter[] {
  return schema.table.filters.filter((filter) => filter.name !== 'trashed');
}

/** A condition as a leaf of the client's ListQuery, or nothing while it is incomplete. */
export function toLeaf(condition: Condition, schema: SchemaDocument): FilterLeaf | undefined {
  const filter = schema.table.filters.find((candidate) => candidate.name === condition.filter);
  if (!filter?.operators.includes(condition.op)) return undefined;
  let name = filter.name;
  if (name.endsWith('.*')) {
    const path = condition.path.trim();
    if (!/^[\w-]+(\.[\w-]+)*$/.test(path)) return undefined;
    name = `${name.slice(0, -1)}${path}`;
  }
  const op = condition.op as FilterOperator;
  switch (operatorShape(op)) {
    case 'flag':
      return { name, op, value: condition.value === 'false' ? 'false' : 'true' };
    case 'pair':
    case 'datePair':
      return condition.value !== '' && condition.value2 !== ''
        ? { name, op, value: [condition.value, condition.value2] }
        : undefined;
    case 'list': {
      const values = filter.options
        ? condition.values
        : condition.value
            .split(',')
            .map((item) => item.trim())
            .filter((item) => item !== '');
      return values.length > 0 ? { name, op, value: values } : undefined;
    }
    default:
      return condition.value !== ''
        ? { name, ...(op === 'eq' ? {} : { op }), value: condition.value }
        : undefined;
  }
}

/** The input type for one value of a filter kind. */
export function valueInputType(filter: SchemaFilter, op: string): string {
  const shape = operatorShape(op as FilterOperator);
  if (shape === 'date' || shape === 'datePair') return 'date';
  if (shape === 'year') return 'number';
  if (shape === 'text') return 'text';
  switch (filter.value) {
    case 'integer':
    case 'decimal':
      return 'number';
    case 'date':
      return 'date';
    case 'datetime':
      return 'datetime-local';
    default:
      return 'text';
  }
}

const operatorLabels: Record<string, string> = {
  eq: 'is',
  neq: 'is not',
  gt: '>',
  gte: '≥',
  lt: '<',
  lte: '≤',
  in: 'is one of',
  not_in: 'is none of',
  date_eq: 'on day',
  date_between: 'days between',
};

/** `gte` → "≥", `starts_with` → "starts with". */
export function operatorLabel(op: string): string {
  return operatorLabels[op] ?? op.replaceAll('_', ' ');
}

/** The schema filter a leaf name belongs to, and the key path of a `<json column>.*` filter. */
function filterOf(name: string, schema: SchemaDocument): { filter: SchemaFilter; path: string } | undefined {
  const filters = panelFilters(schema);
  const exact = filters.find((candidate) => candidate.name === name);
  if (exact) return { filter: exact, path: '' };
  for (const candidate of filters) {
    const prefix = candidate.name.endsWith('.*') ? candidate.name.slice(0, -1) : undefined;
    if (prefix && name.startsWith(prefix) && name.length > prefix.length)
      return { filter: candidate, path: name.slice(prefix.length) };
  }
  return undefined;
}

const texts = (value: unknown): string[] | undefined =>
  Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : undefined;

/** One leaf of the filter grammar back as a panel condition, or nothing when the panel cannot offer it. */
function conditionOf(
  name: string,
  op: string,
  value: unknown,
  schema: SchemaDocument,
): Condition | undefined {
  const found = filterOf(name, schema);
  if (!found?.filter.operators.includes(op)) return undefined;
  const condition = { ...newCondition(found.filter), path: found.path, op };
  const list = texts(value);
  switch (operatorShape(op as FilterOperator)) {
    case 'pair':
    case 'datePair':
      return list?.length === 2 ? { ...condition, value: list[0] ?? '', value2: list[1] ?? '' } : undefined;
    case 'list': {
      const values = list ?? (typeof value === 'string' ? [value] : undefined);
      if (!values) return undefined;
      return found.filter.options ? { ...condition, values } : { ...condition, value: values.join(', ') };
    }
    default:
      return typeof value === 'string' ? { ...condition, value } : undefined;
  }
}

/**
 * The conditions of a parsed `filter` object (qs's shape of `filter[name][op]=value`), the inverse of
 * `toLeaf` over the list grammar. An `and` group is flattened (the panel ANDs every condition anyway);
 * an `or` group has no place in the panel and is dropped.
 */
export function conditionsFromFilter(
  filter: unknown,
  schema: SchemaDocument,
): { conditions: Condition[]; trashed: boolean } {
  const conditions: Condition[] = [];
  let trashed = false;
  const walk = (clause: unknown) => {
    if (typeof clause !== 'object' || clause === null || Array.isArray(clause)) return;
    for (const [name, value] of Object.entries(clause)) {
      if (name === 'or') continue;
      if (name === 'and') {
        for (const member of Array.isArray(value) ? value : Object.values(value ?? {})) walk(member);
        continue;
      }
      if (name === 'trashed') {
        trashed = value === 'true' || value === '1';
        continue;
      }
      if (typeof value === 'string') {
        const condition = conditionOf(name, 'eq', value, schema);
        if (condition) conditions.push(condition);
        continue;
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
      for (const [op, operand] of Object.entries(value)) {
        const condition = conditionOf(name, op, operand, schema);
        if (condition) conditions.push(condition);
      }
    }
  };
  walk(filter);
  return { conditions, trashed };
}
