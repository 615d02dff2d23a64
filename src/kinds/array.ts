import { parse } from 'postgres-array';
import { fail, type Kind } from './kind.js';
import { nullOperators } from './operators.js';

/**
 * A PostgreSQL array, answered as a JSON array. node-postgres parses arrays of the types it knows; an
 * array of a type it does not (an enum's) arrives as its text form `{a,b}`, parsed here.
 */
export const array: Kind = {
  label: 'array',
  operators: nullOperators,
  ordered: false,
  checksWrites: false,
  coerce: () => fail('tested only with is_null or is_not_null'),
  read: (value) => (typeof value === 'string' && value.startsWith('{') ? parse(value) : (value ?? null)),
  schema: () => ({ type: 'array' }),
  table: 'json',
  options: [],
  // An array's catalog type is its element's with a leading underscore (`_text`): not checked.
  serves: { postgres: [], mysql: [] },
};
