import { myNumbers, pgNumbers } from './engine-types.js';
import { fail, type Kind, type KindColumn, ok } from './kind.js';
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

/**
 * The whole numbers an integer column takes, in filters and inputs alike (and what the OpenAPI
 * document gives as minimum and maximum): 32-bit, the common `int`; with `big`, what a JSON number
 * holds exactly (±2^53 − 1). A 64-bit column whose values go past that is the `bigint` kind.
 */
export function integerRange(column: Pick<KindColumn, 'big'>): { min: number; max: number } {
  return column.big
    ? { min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }
    : { min: -INT32, max: INT32 - 1 };
}

export const integer: Kind = {
  label: 'integer',
  operators: orderOperators,
  ordered: true,
  checksWrites: false,
  coerce: (column, text) => {
    const { min, max } = integerRange(column);
    const value = Number(text);
    if (!isIntegerText(text) || value > max || value < min)
      return fail(`a whole number between ${min} and ${max}`);
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
  serves: { postgres: pgNumbers, mysql: myNumbers },
  declaredFor: {
    postgres: ['int2', 'int4'],
    mysql: ['tinyint', 'smallint', 'mediumint', 'year', 'int', 'integer'],
  },
};
