/**
 * The filter operators by name, with the form of the value each takes. Which kinds an operator applies
 * to is said by each kind (`Kind.operators`); the groups below are what kinds compose their lists from.
 *
 * Value forms:
 * - `scalar`: one value of the column's kind;
 * - `text`: one string (pattern operators);
 * - `flag`: `true`/`1` (or `false`/`0`, which inverts the operator);
 * - `date`: one `YYYY-MM-DD`; `year`: one 4-digit year;
 * - `list`: one or more values (CSV, `[]` or indexed); `pair` and `datePair`: exactly two. A list of a
 *   collection kind's operators (`has_all`, `has_any`) holds members of the collection: each value is
 *   coerced by the kind as one member (an array's element, one of a set's values, any text for a JSON
 *   column's array).
 */
export type ValueShape = 'scalar' | 'text' | 'flag' | 'date' | 'year' | 'list' | 'pair' | 'datePair';

export const operatorShapes = {
  eq: 'scalar',
  neq: 'scalar',
  gt: 'scalar',
  gte: 'scalar',
  lt: 'scalar',
  lte: 'scalar',
  contains: 'text',
  not_contains: 'text',
  starts_with: 'text',
  not_starts_with: 'text',
  ends_with: 'text',
  not_ends_with: 'text',
  is_null: 'flag',
  is_not_null: 'flag',
  is_empty: 'flag',
  is_not_empty: 'flag',
  date_eq: 'date',
  date_between: 'datePair',
  year: 'year',
  in: 'list',
  not_in: 'list',
  between: 'pair',
  not_between: 'pair',
  has_all: 'list',
  has_any: 'list',
} as const satisfies Record<string, ValueShape>;

export type OperatorName = keyof typeof operatorShapes;

/** Every column can be tested for NULL. */
export const nullOperators = ['is_null', 'is_not_null'] as const satisfies readonly OperatorName[];
/** Equal or not, one of a list or not. */
export const equalityOperators = [
  'eq',
  'neq',
  'in',
  'not_in',
  ...nullOperators,
] as const satisfies readonly OperatorName[];
/** Comparisons and ranges, for kinds whose order every engine agrees on. */
export const orderOperators = [
  ...equalityOperators,
  'gt',
  'gte',
  'lt',
  'lte',
  'between',
  'not_between',
] as const satisfies readonly OperatorName[];
/** Pattern and emptiness operators on text. */
export const textOperators = [
  'contains',
  'not_contains',
  'starts_with',
  'not_starts_with',
  'ends_with',
  'not_ends_with',
  'is_empty',
  'is_not_empty',
] as const satisfies readonly OperatorName[];
/** Calendar operators on dates and instants. */
export const calendarOperators = [
  'date_eq',
  'date_between',
  'year',
] as const satisfies readonly OperatorName[];
/**
 * Containment, for kinds whose value is a collection (PostgreSQL arrays, MariaDB SETs, a JSON column's
 * array): the column holds every one of the listed members (`has_all`) or at least one of them
 * (`has_any`). NULL holds nothing; nor does a JSON column that holds no array.
 */
export const containmentOperators = ['has_all', 'has_any'] as const satisfies readonly OperatorName[];
