import { myNumbers, pgNumbers } from './engine-types.js';
import { type CatalogEngine, type CatalogType, fail, type Kind, type KindColumn, ok } from './kind.js';
import { orderOperators } from './operators.js';

const INT32 = 2 ** 31;
export const integerPattern = /^[+-]?\d+$/;

/**
 * `integerPattern.test(text)` by character codes: a record's key is coerced through it on every
 * read-one, where the expression's test showed in the profile (docs/benchmarks.md). A property test
 * holds the two to the same answer.
 */
export function isIntegerText(text: string): boolean {
  const { length } = text;
  const sign = text.charCodeAt(0);
  let i = sign === 43 /* + */ || sign === 45 /* - */ ? 1 : 0;
  if (i >= length) return false;
  for (; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

/** The whole numbers a column takes: `min` to `max`, and 0 too where `zero` says so. */
export interface IntegerRange {
  readonly min: number;
  readonly max: number;
  /** 0 is taken beside `min`..`max` (YEAR's `0000`). */
  readonly zero?: true;
  /** The range as messages say it: "a whole number between -2147483648 and 2147483647". */
  readonly expected: string;
}

const INT: IntegerRange = {
  min: -INT32,
  max: INT32 - 1,
  expected: `a whole number between ${-INT32} and ${INT32 - 1}`,
};
const BIG: IntegerRange = {
  min: -Number.MAX_SAFE_INTEGER,
  max: Number.MAX_SAFE_INTEGER,
  expected: `a whole number between ${-Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`,
};

/**
 * Engine types that hold fewer values than an `integer` declaration, and would store another value
 * than the one sent: MariaDB's (and MySQL's) YEAR holds 1901 to 2155 and 0, refuses the rest in strict
 * mode and turns 1–99 into 2001–2069 and 1970–1999 (a filter `= 5` matches 2005). Their values are
 * bounded by the type, in writes and filters alike, when start-up read the catalog (`fromCatalog`).
 */
const narrowTypes: Readonly<Record<CatalogEngine, Readonly<Record<string, IntegerRange>>>> = {
  postgres: {},
  mysql: { year: { min: 1901, max: 2155, zero: true, expected: 'a year between 1901 and 2155, or 0' } },
};

const narrowType = (type: CatalogType | undefined): IntegerRange | undefined =>
  type?.engine === undefined ? undefined : narrowTypes[type.engine][type.name.toLowerCase()];

/**
 * The whole numbers an integer column takes, in filters and inputs alike (and what the OpenAPI
 * document gives as minimum and maximum): 32-bit, the common `int`; with `big`, what a JSON number
 * holds exactly (±2^53 − 1); in a type that holds fewer (`narrowTypes`), that type's. A 64-bit column
 * whose values go past 2^53 − 1 is the `bigint` kind.
 */
export function integerRange(column: Pick<KindColumn, 'big' | 'catalogType'>): IntegerRange {
  return narrowType(column.catalogType) ?? (column.big ? BIG : INT);
}

export const integer: Kind = {
  label: 'integer',
  operators: orderOperators,
  ordered: true,
  checksWrites: false,
  coerce: (column, text) => {
    const range = integerRange(column);
    const value = Number(text);
    if (!isIntegerText(text) || ((value > range.max || value < range.min) && !(range.zero && value === 0)))
      return fail(range.expected);
    return ok(value);
  },
  // Drivers give a 64-bit value past 2^53 − 1 as text: it is answered as that text, never rounded
  // (a column that holds such values is the bigint kind).
  read: (value) => {
    if (typeof value !== 'string' && typeof value !== 'bigint') return value;
    const number = Number(value);
    return Number.isSafeInteger(number) ? number : String(value);
  },
  schema: () => ({ type: 'integer' }),
  table: 'number',
  input: 'number',
  options: ['big'],
  // YEAR beside the numbers, its values bounded to what it holds (`narrowTypes`).
  serves: { postgres: pgNumbers, mysql: [...myNumbers, 'year'] },
  fromCatalog: (type) => (narrowType(type) ? { catalogType: type } : {}),
  declaredFor: {
    postgres: ['int2', 'int4'],
    mysql: ['tinyint', 'smallint', 'mediumint', 'year', 'int', 'integer'],
  },
};
