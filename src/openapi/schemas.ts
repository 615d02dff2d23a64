import {
  DATE_PATTERN,
  DECIMAL_LIMIT,
  decimalRange,
  decimalTextPattern,
  integerRange,
  kinds,
} from '../kinds/index.js';
import {
  type CompiledAggregates,
  type GroupTerm,
  type MetricTerm,
  metricScale,
} from '../plan/aggregate-plan.js';
import type { CompiledEndpoint, FilterScope } from '../plan/endpoint.js';
import { operators, type TargetKind } from '../plan/operators.js';
import type { TotalStrategy } from '../resource/policy.js';
import type { ResolvedColumn, ResolvedResource } from '../resource/registry.js';
import type { InputDeclaration, VisibleWhen } from '../resource/schema-declaration.js';
import type { SchemaDocument, SchemaFilter } from '../schema/types.js';
import { EMAIL_PATTERN, textLengths } from '../schema/update.js';

/** A JSON Schema (2020-12, OpenAPI 3.1's dialect) as plain data. */
export type JsonSchema = { [keyword: string]: unknown };

/** `{ type: [t, 'null'] }` for a schema with one `type`; anything else gets a `null` alternative. */
function orNull(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string') {
    const { enum: values, ...rest } = schema;
    return {
      ...rest,
      type: [schema.type, 'null'],
      ...(Array.isArray(values) ? { enum: [...values, null] } : {}),
    };
  }
  return { anyOf: [schema, { type: 'null' }] };
}

/** The JSON a column's values take in responses (its kind's `schema`, src/kinds/). */
export function columnSchema(column: ResolvedColumn): JsonSchema {
  const schema = kinds[column.type].schema(column);
  const answered = column.nullable && column.type !== 'json' ? orNull(schema) : schema;
  return column.generated ? { ...answered, readOnly: true } : answered;
}

const toMany = (kind: string) => kind === 'hasMany' || kind === 'belongsToMany';

/** `roles.permissions`, `roles` → `{ roles: { permissions: {} } }`. */
interface IncludeTree {
  [relation: string]: IncludeTree;
}

function includeTree(paths: Iterable<string>): IncludeTree {
  const root: IncludeTree = {};
  for (const path of paths) {
    let level = root;
    for (const segment of path.split('.')) {
      level[segment] ??= {};
      level = level[segment] as IncludeTree;
    }
  }
  return root;
}

/**
 * A record as the pipeline answers it: every visible column (always present, maybe null), the
 * `<relation>_count` members a request may ask for, the relations it may include and the
 * `<relation>_total` of those it may limit (present only when asked for). Closed: a member the
 * document does not name is a drift.
 */
function recordOf(
  resource: ResolvedResource,
  includes: IncludeTree,
  counts: readonly string[],
  /** The include paths that may be limited (`includeConstraints`). */
  limitable: ReadonlySet<string>,
  path = '',
): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const column of resource.visibleColumns) properties[column.name] = columnSchema(column);
  for (const name of counts)
    properties[`${name}_count`] = {
      type: 'integer',
      minimum: 0,
      description: `With count=${name}: the number of related ${name}.`,
    };
  for (const [name, children] of Object.entries(includes)) {
    const relation = resource.relations.get(name);
    if (!relation) continue;
    const related = recordOf(relation.target, children, [], limitable, `${path}${name}.`);
    if (limitable.has(`${path}${name}`))
      properties[`${name}_total`] = {
        type: 'integer',
        minimum: 0,
        description: `With include=${path}${name} limited (include_limit, or its maxLimit): the number of related ${name} its filter matches, before the limit.`,
      };
    properties[name] = toMany(relation.kind)
      ? { type: 'array', items: related, description: `With include=${path}${name}.` }
      : { anyOf: [related, { type: 'null' }], description: `With include=${path}${name}.` };
  }
  // A sparse fieldset (`fields[<owner>]`) answers the key and the fields it names: the key is
  // required, every other column is answered unless a fieldset leaves it out (`x-answered`, which
  // the TypeScript types read as present).
  return {
    type: 'object',
    properties,
    required: resource.keyColumns.filter((name) => resource.columns.get(name)?.hidden !== true),
    'x-answered': resource.visibleColumns.map((column) => column.name),
    additionalProperties: false,
  };
}

/** The record schema of an endpoint; a `response` transformer's shape is the configuration's to declare. */
export function recordSchema(endpoint: CompiledEndpoint): JsonSchema {
  const { policy } = endpoint;
  if (policy.response)
    return (
      policy.openapi?.record ?? {
        type: 'object',
        description:
          "Shaped by the endpoint's response transformer (declare its schema with the endpoint's openapi.record).",
      }
    );
  const record = recordOf(
    endpoint.resource,
    includeTree(endpoint.allowedIncludes),
    [...endpoint.allowedCounts.keys()],
    new Set(endpoint.includeConstraints.keys()),
  );
  // The relations a `references` input sets: a write answers the keys linked (src/core/records.ts).
  const properties = record.properties as Record<string, JsonSchema>;
  for (const input of endpoint.policy.schema?.form?.inputs ?? []) {
    if (input.type !== 'references') continue;
    const relation = input.relation ?? input.name;
    const keys = { type: 'array', items: keySchema(endpoint.resource, relation) };
    const written = `In the answer of create, PATCH and restore: the keys of the ${relation} linked, in key order.`;
    const included = properties[relation];
    if (included) {
      const { description, ...records } = included;
      properties[relation] = { anyOf: [records, keys], description: `${String(description)} ${written}` };
    } else properties[relation] = { ...keys, description: written };
  }
  return record;
}

/** The column a filter name reaches (`score`, `department.name`), when it names one. */
function columnAt(resource: ResolvedResource, name: string): ResolvedColumn | undefined {
  const segments = name.split('.');
  let current = resource;
  for (const segment of segments.slice(0, -1)) {
    const relation = current.relations.get(segment);
    if (!relation) return undefined;
    current = relation.target;
  }
  return current.columns.get(segments.at(-1) ?? '');
}

/** The bounds validation puts on a number of this column, filter value or input (src/plan/values.ts). */
function numberBounds(column: ResolvedColumn | undefined, kind: 'integer' | 'decimal'): JsonSchema {
  if (kind === 'integer') {
    const { min, max, zero } = integerRange(column ?? { big: false });
    const bounds = { minimum: min, maximum: max };
    return zero ? { type: 'integer', anyOf: [bounds, { const: 0 }] } : { type: 'integer', ...bounds };
  }
  return { type: 'number', minimum: -DECIMAL_LIMIT, maximum: DECIMAL_LIMIT };
}

/** What the value of one filter is, by the schema document's `value` (a column kind, json-path, …). */
function filterValueSchema(filter: SchemaFilter, column: ResolvedColumn | undefined): JsonSchema {
  const kind = filter.value as TargetKind | 'custom';
  if (kind === 'json-path') return { type: ['string', 'number', 'boolean'] };
  if (kind === 'datetime') return datetimeValue;
  if (kind === 'custom') return {};
  if (kind === 'date') return dateSchema;
  // A collection's filters (has_all, has_any) take its members (a JSON column's: its array's).
  const member = kinds[kind].member;
  if (member) return member(column ?? { big: false });
  const schema =
    kind === 'integer' || kind === 'decimal'
      ? numberBounds(column, kind)
      : kinds[kind].schema(column ?? { big: false });
  if (filter.options && (kind === 'string' || kind === 'integer' || kind === 'decimal'))
    schema.enum = filter.options.map((option) => option.value);
  return schema;
}

const dateSchema: JsonSchema = {
  type: 'string',
  format: 'date',
  pattern: DATE_PATTERN,
  description: 'YYYY-MM-DD, years 1000 to 9999.',
};
/**
 * An instant as a filter takes it (src/kinds/calendar.ts `coerceDatetime`): a date, or a date-time
 * (RFC 3339: seconds and Z or an offset; the service also takes shorter forms, which the document
 * leaves out), years 1000 to 9999.
 */
const datetimeValue: JsonSchema = {
  anyOf: [
    dateSchema,
    {
      type: 'string',
      format: 'date-time',
      pattern:
        '^[1-9][0-9]{3}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?(Z|[+-][0-9]{2}:[0-9]{2})$',
    },
  ],
  description: 'YYYY-MM-DD (midnight UTC), or an ISO 8601 date-time with Z or an offset; years 1000 to 9999.',
};

/**
 * `from` and `to` of an aggregate's date buckets (src/plan/buckets.ts `readBound`): a date, or on a
 * datetime column also an instant with Z or an offset.
 */
export function boundSchema(dateOnly: boolean): JsonSchema {
  if (dateOnly) return dateSchema;
  return {
    anyOf: [
      dateSchema,
      {
        type: 'string',
        format: 'date-time',
        pattern:
          '^[1-9][0-9]{3}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]{1,9})?)?(Z|[+-][0-9]{2}:[0-9]{2})$',
      },
    ],
  };
}

const pair = (item: JsonSchema): JsonSchema => ({
  type: 'array',
  prefixItems: [item, item],
  items: false,
  minItems: 2,
  description: 'Two values, from and to (also written as one comma-separated value).',
});

/** The schema of one operator's value, by its shape (src/plan/operators.ts). */
function operatorSchema(op: keyof typeof operators, value: JsonSchema, maxList: number): JsonSchema {
  switch (operators[op].shape) {
    case 'scalar':
      return value;
    case 'text':
      return { type: 'string' };
    case 'flag':
      return { type: 'boolean', description: 'true applies the operator, false inverts it.' };
    case 'date':
      return dateSchema;
    case 'year':
      return { type: 'integer', minimum: 1000, maximum: 9999 };
    case 'list':
      return {
        type: 'array',
        items: value,
        minItems: 1,
        maxItems: maxList,
        description: 'One or more values (also written as one comma-separated value).',
      };
    case 'pair':
      return pair(value);
    case 'datePair':
      return pair(dateSchema);
  }
}

const jsonKey = '[A-Za-z0-9_-]{1,64}';
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * `filter` as an object: each allowed filter name, its operators and their values (the bare value is
 * the `eq` shorthand), `meta.*` as a pattern, and `and` / `or` groups of the same object.
 */
export function filterSchema(endpoint: FilterScope, filters: readonly SchemaFilter[], self: string) {
  const properties: Record<string, JsonSchema> = {};
  const patternProperties: Record<string, JsonSchema> = {};
  for (const filter of filters) {
    const value = filterValueSchema(filter, columnAt(endpoint.resource, filter.name));
    let schema: JsonSchema;
    if (filter.value === 'custom')
      schema = {
        ...endpoint.customSchemas.get(filter.name),
        description: 'A custom filter: its value as the filter reads it.',
      };
    else if (filter.value === 'boolean' && filter.operators.length === 1) schema = { type: 'boolean' };
    else {
      const ops: Record<string, JsonSchema> = {};
      for (const op of filter.operators)
        ops[op] = operatorSchema(op as keyof typeof operators, value, endpoint.limits.maxListLength);
      const byOperator = { type: 'object', properties: ops, additionalProperties: false, minProperties: 1 };
      schema = filter.operators.includes('eq') ? { anyOf: [value, byOperator] } : byOperator;
    }
    if (filter.name.endsWith('.*')) {
      const owner = filter.name.slice(0, -1);
      patternProperties[`^${escapeRegExp(owner)}${jsonKey}(\\.${jsonKey}){0,7}$`] = {
        ...schema,
        'x-key-prefix': owner,
      };
    } else properties[filter.name] = schema;
  }
  const group: JsonSchema = { type: 'array', items: { $ref: `#/components/schemas/${self}` }, minItems: 1 };
  properties.and = { ...group, description: 'Every member matches.' };
  properties.or = { ...group, description: 'At least one member matches.' };
  return {
    type: 'object',
    properties,
    ...(Object.keys(patternProperties).length > 0 ? { patternProperties } : {}),
    additionalProperties: false,
  };
}

type FormInput = SchemaDocument['form']['inputs'][number];

/** A number input's value: the written column's kind and range, and its scale (src/schema/update.ts). */
function numberInput(column: ResolvedColumn | undefined): { schema: JsonSchema; note?: string } {
  if (column?.type === 'integer') return { schema: numberBounds(column, 'integer') };
  if (column?.type !== 'decimal') return { schema: { type: 'number' } };
  const { min, max } = decimalRange(column);
  if (column.precision === undefined) return { schema: { type: 'number', minimum: min, maximum: max } };
  const scale = column.scale ?? 0;
  const exact = decimalTextPattern(column);
  if (scale === 0 || !exact) return { schema: { type: 'integer', minimum: min, maximum: max } };
  // The scale of a JSON number has no form validators agree on: `multipleOf: 0.01` fails on binary
  // fractions (0.07 / 0.01 is 7.000000000000001 to ajv and to Python's jsonschema alike). So the
  // document gives the two forms they check exactly — the decimal as text, and a whole number — and
  // says the third the service also takes, a JSON number of at most `scale` decimals.
  const places = `${scale} decimal place${scale === 1 ? '' : 's'}`;
  return {
    schema: {
      anyOf: [
        { type: 'string', pattern: exact },
        { type: 'integer', minimum: Math.ceil(min), maximum: Math.floor(max) },
      ],
    },
    note: `A decimal from ${min} to ${max} with at most ${places}: exactly as text ("12.50"), or a whole number. A JSON number with at most ${places} (12.5) is taken too; it is not in the schema because validators cannot count its decimals exactly.`,
  };
}

/**
 * One form input's value in a create or PATCH body, as src/schema/update.ts checks it. Empty (`""`
 * or `null`) is refused for a required input (so text has `minLength` 1) and for a NOT NULL column;
 * elsewhere it clears the column, or leaves a password as it is.
 */
function inputSchema(
  input: FormInput,
  declaration: InputDeclaration | undefined,
  resource: ResolvedResource,
): JsonSchema {
  if (input.references) return referencesSchema(input, declaration, resource);
  const column = resource.columns.get(declaration?.column ?? input.name);
  const optional = !input.required && (input.type === 'password' || column?.nullable !== false);
  const notes: string[] = [];
  let schema: JsonSchema;
  switch (input.type) {
    case 'checkbox':
    case 'switch':
      schema = { type: 'boolean' };
      break;
    case 'select':
      schema = { enum: (input.options ?? []).map((option) => option.value) };
      break;
    case 'date':
      schema = { ...dateSchema };
      break;
    case 'number': {
      const number = numberInput(column);
      schema = number.schema;
      if (number.note) notes.push(number.note);
      break;
    }
    default: {
      // The lengths validation enforces, declared or default (255, 65,535 for a textarea, 8+ for a password).
      const { min, max } = textLengths(declaration ?? input);
      const least = Math.max(min, optional ? 0 : 1);
      schema = {
        type: 'string',
        ...(input.type === 'email'
          ? { format: 'email', pattern: EMAIL_PATTERN, description: 'With a dot in its domain.' }
          : {}),
        ...(least > 0 ? { minLength: least } : {}),
        maxLength: max,
      };
    }
  }
  // A reference: the database's foreign key refuses an id no record has (a 422 keyed by the input).
  const reference = [...resource.relations.values()].find(
    (relation) => relation.kind === 'belongsTo' && relation.parentKey === column?.name,
  );
  if (reference)
    notes.push(
      `The id of an existing ${reference.target.name} record; another is a 422 keyed ${input.name}.`,
    );
  if (input.visibleWhen)
    notes.push(
      `Only read when ${input.visibleWhen.field} ${input.visibleWhen.operator ?? '==='} ${JSON.stringify(input.visibleWhen.is)} (else ignored, though a value of another shape is still refused).`,
    );
  if (optional)
    schema = orEmpty(
      schema,
      input.type === 'password' ? 'leaves the password as it is' : 'clears the column (NULL)',
    );
  const described = [schema.description, ...notes].filter((note) => note !== undefined).join(' ');
  return {
    ...schema,
    ...(declaration?.label !== undefined ? { title: declaration.label } : {}),
    ...(described !== '' ? { description: described } : {}),
  };
}

/** A related record's key as a `references` input takes it: its column's kind, never null. */
function keySchema(resource: ResolvedResource, relation: string): JsonSchema {
  const link = resource.relations.get(relation);
  const key = link?.target.columns.get(link.childKey);
  return key ? kinds[key.type].schema(key) : {};
}

/**
 * A `references` input's value (src/schema/update.ts `planLinks`): the whole set of the related keys,
 * each once, at most `maxItems`; `[]` clears the links; null is refused.
 */
function referencesSchema(
  input: FormInput,
  declaration: InputDeclaration | undefined,
  resource: ResolvedResource,
): JsonSchema {
  const references = input.references as NonNullable<FormInput['references']>;
  const required = input.required ? { minItems: 1 } : {};
  const notes = [
    `The keys of the ${references.resource} records linked by ${references.relation}: the whole set, replacing the links (the ones kept are left as they are, new ones get the link table's defaults, an empty list clears them).`,
    `A key no ${references.resource} record in your reach has (missing, soft-deleted, another scope's) is a 422 keyed ${input.name}.`,
  ];
  if (input.visibleWhen)
    notes.push(
      `Only read when ${input.visibleWhen.field} ${input.visibleWhen.operator ?? '==='} ${JSON.stringify(input.visibleWhen.is)} (else ignored, though a value of another shape is still refused).`,
    );
  return {
    type: 'array',
    items: keySchema(resource, references.relation),
    uniqueItems: true,
    ...required,
    maxItems: references.maxItems,
    ...(declaration?.label !== undefined ? { title: declaration.label } : {}),
    description: notes.join(' '),
  };
}

/** A value, or empty (`""` or `null`) with what empty does. */
function orEmpty(schema: JsonSchema, effect: string): JsonSchema {
  const { description, ...value } = schema;
  const plainText =
    value.type === 'string' &&
    value.minLength === undefined &&
    value.format === undefined &&
    value.pattern === undefined;
  if (plainText) return { ...orNull(value), ...(description !== undefined ? { description } : {}) };
  if (Array.isArray(value.enum)) return { enum: [...new Set([...value.enum, null, ''])] };
  return {
    anyOf: [value, { enum: ['', null] }],
    description: [description, `Empty ("" or null) ${effect}.`]
      .filter((note) => note !== undefined)
      .join(' '),
  };
}

/**
 * When the server shows an input (src/schema/visible-when.ts) as a condition on the body: `true`
 * always, `false` never, else a schema the body matches exactly when the input is shown.
 */
function shownWhen(visibleWhen: VisibleWhen | undefined): JsonSchema | boolean {
  if (!visibleWhen) return true;
  const { field, is } = visibleWhen;
  const equal = { properties: { [field]: { const: is } }, required: [field] };
  switch (visibleWhen.operator ?? '===') {
    case '===':
      return equal;
    case '!==':
      return { not: equal };
    case 'in':
      return Array.isArray(is) ? { properties: { [field]: { enum: is } }, required: [field] } : false;
    default:
      return true;
  }
}

/**
 * The body of POST (create) or PATCH (update): the form's inputs, nothing else. A required input that
 * `visibleWhen` may hide is required when it is shown (`if`/`then`), as the server requires it.
 */
export function bodySchema(
  endpoint: CompiledEndpoint,
  document: SchemaDocument,
  mode: 'create' | 'update',
): JsonSchema {
  const declarations = endpoint.policy.schema?.form?.inputs ?? [];
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const conditions: JsonSchema[] = [];
  document.form.inputs.forEach((input, index) => {
    properties[input.name] = inputSchema(input, declarations[index], endpoint.resource);
    if (mode !== 'create' || !input.required) return;
    const shown = shownWhen(input.visibleWhen);
    if (shown === true) required.push(input.name);
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's then, never awaited.
    else if (shown !== false) conditions.push({ if: shown, then: { required: [input.name] } });
  });
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    ...(conditions.length > 0 ? { allOf: conditions } : {}),
    additionalProperties: false,
  };
}

/** The error envelope of every 4xx and 503 (src/errors/error-bag.ts). */
export const errorEnvelope: JsonSchema = {
  type: 'object',
  properties: {
    message: { type: 'string' },
    errors: {
      type: 'object',
      additionalProperties: { type: 'array', items: { type: 'string' }, minItems: 1 },
      description: 'Messages by the parameter or field they concern (`filter.score`, `include`, `email`).',
    },
  },
  required: ['message', 'errors'],
  additionalProperties: false,
  examples: [
    {
      message: 'The filter "password" is not authorized for this resource (users).',
      errors: { 'filter.password': ['The filter "password" is not authorized for this resource (users).'] },
    },
  ],
};

const link: JsonSchema = {
  type: 'object',
  properties: { url: { type: ['string', 'null'] }, label: { type: 'string' }, active: { type: 'boolean' } },
  required: ['url', 'label', 'active'],
  additionalProperties: false,
};
const nullableInteger = { type: ['integer', 'null'] };
const nullableString = { type: ['string', 'null'] };

/**
 * What a length-aware page says of its total under the endpoint's count strategy
 * (docs/count-strategies.md): a count (`exact`), a count or the planner's estimate, marked
 * (`exactUpTo`, `estimated`), or nothing (`none`: total, last page and its URL are null).
 */
function totalMembers(total: TotalStrategy): { properties: Record<string, unknown>; description: string } {
  const integer = (description: string) => ({ type: 'integer', minimum: 0, description });
  if (total === 'none')
    return {
      description: 'The endpoint reports no total (count strategy `none`): `total` and `last_page` are null.',
      properties: { last_page: { type: 'null' }, last_page_url: { type: 'null' }, total: { type: 'null' } },
    };
  const lastPage = { last_page: { type: 'integer', minimum: 1 }, last_page_url: { type: 'string' } };
  if (total === 'exact')
    return {
      description: 'Counted exactly (count strategy `exact`).',
      properties: { ...lastPage, total: integer('The number of matching records.') },
    };
  const when =
    total === 'estimated'
      ? "the database planner's estimate unless the page itself shows where the list ends"
      : `counted exactly up to ${total.exactUpTo} records, past that the database planner's estimate`;
  return {
    description: `Count strategy ${total === 'estimated' ? '`estimated`' : '`exactUpTo`'}: ${when}.`,
    properties: {
      ...lastPage,
      total: integer(`The number of matching records: ${when}.`),
      total_is_estimate: { type: 'boolean', description: 'True when `total` is an estimate, not a count.' },
    },
  };
}

/** The three page envelopes (src/respond/length-aware.ts, simple-and-cursor.ts) around a record schema. */
export function pageSchemas(
  record: JsonSchema,
  total: TotalStrategy,
): Record<'lengthAware' | 'simple' | 'cursor', JsonSchema> {
  const data = { type: 'array', items: record };
  const offsetPage = {
    current_page: { type: 'integer', minimum: 1 },
    data,
    first_page_url: { type: 'string' },
    from: nullableInteger,
    next_page_url: nullableString,
    path: { type: 'string' },
    per_page: { type: 'integer', minimum: 1 },
    prev_page_url: nullableString,
    to: nullableInteger,
  };
  const closed = (properties: Record<string, unknown>) => ({
    type: 'object',
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  });
  const counted = totalMembers(total);
  return {
    lengthAware: {
      ...closed({ ...offsetPage, links: { type: 'array', items: link }, ...counted.properties }),
      description: counted.description,
    },
    simple: closed(offsetPage),
    cursor: closed({
      data,
      path: { type: 'string' },
      per_page: { type: 'integer', minimum: 1 },
      next_cursor: nullableString,
      next_page_url: nullableString,
      prev_cursor: nullableString,
      prev_page_url: nullableString,
    }),
  };
}

/** A decimal answered as an exact string of `scale` decimals. */
const decimalString = (scale: number): JsonSchema => ({
  type: 'string',
  pattern: scale > 0 ? `^-?[0-9]+\\.[0-9]{${scale}}$` : '^-?[0-9]+$',
  description: `An exact decimal with ${scale} decimal${scale === 1 ? '' : 's'}, as a string.`,
});

/** The JSON one metric is answered as (docs/aggregates.md): counts, exact sums and averages, or a column's value. */
function metricSchema(metric: MetricTerm): JsonSchema {
  const { column } = metric;
  if (!column || metric.fn === 'count' || metric.fn === 'count_distinct')
    return { type: 'integer', minimum: 0 };
  if (metric.fn === 'min' || metric.fn === 'max') return orNull(kinds[column.type].schema(column));
  const scale = metricScale(metric);
  if (scale !== undefined) return orNull(decimalString(scale));
  if (column.type === 'bigint') return orNull(kinds.bigint.schema(column));
  return orNull({
    anyOf: [
      { type: 'integer', minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
      {
        type: 'string',
        pattern: '^-?[0-9]+$',
        description: 'A sum past 2^53 − 1: the string of its digits.',
      },
    ],
  });
}

/** The JSON a group key takes: its column's value or null, a bucket's start (in the zone, with its offset). */
function groupSchema(group: GroupTerm): JsonSchema {
  if (group.kind !== 'bucket') return orNull(kinds[group.column.type].schema(group.column));
  return group.column.type === 'date'
    ? { type: 'string', format: 'date', description: `The first day of the ${group.unit}.` }
    : {
        type: 'string',
        format: 'date-time',
        description: `The ${group.unit}'s first instant in the requested time zone, with its offset.`,
      };
}

/** A `having` value of one metric, as src/plan/aggregate.ts `havingValue` reads it. */
function havingValueSchema(metric: MetricTerm): JsonSchema {
  const { column } = metric;
  if (!column || metric.fn === 'count' || metric.fn === 'count_distinct')
    return { type: 'integer', minimum: 0, maximum: 999_999_999_999_999 };
  if (metric.fn === 'sum') {
    const scale = metricScale(metric) ?? 0;
    // Compared exactly in the column's smallest unit, which must stay a safe integer: 15 digits in all.
    return scale === 0
      ? { type: 'integer', minimum: -999_999_999_999_999, maximum: 999_999_999_999_999 }
      : {
          type: 'string',
          pattern: `^-?[0-9]{1,${15 - scale}}(\\.[0-9]{1,${scale}})?$`,
          description: `A number with at most ${scale} decimals.`,
        };
  }
  return filterValueSchema({ value: column.type } as SchemaFilter, column);
}

/**
 * `having`: per metric it applies to (not an average), the comparisons of the group's value. Only a
 * metric the request names in `metrics` may be used (a 422 keyed having.<metric> otherwise).
 */
export function havingSchema(aggregates: CompiledAggregates): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const metric of aggregates.metrics.values()) {
    if (metric.fn === 'avg') continue;
    const value = havingValueSchema(metric);
    properties[metric.name] = {
      type: 'object',
      properties: Object.fromEntries(['eq', 'neq', 'gt', 'gte', 'lt', 'lte'].map((op) => [op, value])),
      additionalProperties: false,
      minProperties: 1,
    };
  }
  return { type: 'object', properties, additionalProperties: false };
}

/** The answer of `GET <list>/aggregate`: the groups, and what was computed. */
export function aggregateSchema(aggregates: CompiledAggregates): JsonSchema {
  const groups = [...aggregates.groups.values()];
  const metrics = [...aggregates.metrics.values()];
  return {
    type: 'object',
    properties: {
      data: {
        type: 'array',
        maxItems: aggregates.maxGroups,
        items: {
          type: 'object',
          properties: {
            group: {
              type: 'object',
              description: 'The group keys the request named (group_by), by name.',
              properties: Object.fromEntries(groups.map((group) => [group.name, groupSchema(group)])),
              additionalProperties: false,
            },
            ...Object.fromEntries(metrics.map((metric) => [metric.name, metricSchema(metric)])),
          },
          required: ['group'],
          additionalProperties: false,
        },
      },
      meta: {
        type: 'object',
        properties: {
          metrics: { type: 'array', items: { enum: metrics.map((metric) => metric.name) } },
          group_by: { type: 'array', items: { enum: groups.map((group) => group.name) } },
          tz: { type: 'string', description: 'The IANA time zone of the date buckets.' },
          limit: { type: 'integer', minimum: 1, description: 'The most groups this answer could hold.' },
          truncated: {
            type: 'boolean',
            description:
              'More groups matched than limit: the answer holds the first limit in the requested order.',
          },
        },
        required: ['metrics', 'group_by', 'tz', 'limit', 'truncated'],
        additionalProperties: false,
      },
    },
    required: ['data', 'meta'],
    additionalProperties: false,
  };
}
