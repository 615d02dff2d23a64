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
