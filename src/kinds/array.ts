import { parse } from 'postgres-array';
import { bigint } from './bigint.js';
import { boolean } from './boolean.js';
import { date } from './date.js';
import { decimal } from './decimal.js';
import { integer, integerRange } from './integer.js';
import { type CatalogType, type Kind, type KindColumn, ok } from './kind.js';
import { containmentOperators, nullOperators } from './operators.js';
import { string } from './string.js';
import { uuid } from './uuid.js';

/**
 * The kinds an array's elements may be (`of`): each member a filter names is coerced as a value of it,
 * so `filter[scores][has_all]=x` on an integer array is a 422 naming the filter, not a database error.
 */
export const arrayElements = { string, integer, bigint, decimal, boolean, date, uuid } as const;

export type ArrayElement = keyof typeof arrayElements;

/**
 * PostgreSQL's element types (an array type's pg_type name is its element's with a leading underscore)
 * whose kind is certain. Any other (an enum, a domain, timestamps) leaves the elements as text: the
 * database casts them, and one it cannot is a 422 keyed `filter`.
 */
const pgElements: Readonly<Record<string, ArrayElement>> = {
  int2: 'integer',
  int4: 'integer',
  int8: 'bigint',
  numeric: 'decimal',
  float4: 'decimal',
  float8: 'decimal',
  text: 'string',
  varchar: 'string',
  bpchar: 'string',
  citext: 'string',
  bool: 'boolean',
  date: 'date',
  uuid: 'uuid',
};

const elementOf = (column: KindColumn): Kind | undefined =>
  column.of !== undefined && Object.hasOwn(arrayElements, column.of)
    ? arrayElements[column.of as ArrayElement]
    : undefined;

/**
 * A PostgreSQL array, answered as a JSON array. node-postgres parses arrays of the types it knows; an
 * array of a type it does not (an enum's) arrives as its text form `{a,b}`, parsed here. Its filters
 * (`has_all`, `has_any`) take members, coerced as its elements' kind; they compile to `@>` and `&&`
 * with the members bound as one array of the column's own type (the catalog's, `fromCatalog`), which a
 * GIN index on the column serves. Only PostgreSQL has arrays: on another engine the dialect has no
 * `holds` for it, and start-up refuses the declaration (`unheldColumns`, src/sql/operators.ts).
 */
export const array: Kind = {
  label: 'array',
  operators: [...nullOperators, ...containmentOperators],
  ordered: false,
  checksWrites: false,
  // A filter's value is one member: an element of the declared (or catalog's) kind, else any text.
  coerce: (column, text) => elementOf(column)?.coerce(column, text) ?? ok(text),
  read: (value) => (typeof value === 'string' && value.startsWith('{') ? parse(value) : (value ?? null)),
  schema: () => ({ type: 'array' }),
  member: (column) => {
    const element = elementOf(column);
    if (!element) return { type: 'string' };
    if (element !== integer) return element.schema(column);
    const { min, max } = integerRange(column);
    return { type: 'integer', minimum: min, maximum: max };
  },
  fromCatalog: (type: CatalogType) => {
    // `_int4` is `int4[]`; anything else is not an array type of PostgreSQL's naming.
    if (!type.name.startsWith('_')) return {};
    const element = type.name.slice(1);
    return {
      catalogType: type,
      ...(Object.hasOwn(pgElements, element) && { of: pgElements[element] }),
    };
  },
  table: 'json',
  options: ['of'],
  // An array's catalog type is its element's with a leading underscore (`_text`): not checked.
  serves: { postgres: [], mysql: [] },
};
