import { myText } from './engine-types.js';
import { fail, type Kind } from './kind.js';
import { nullOperators } from './operators.js';

/** MySQL's `SET`: any number of the declared values, stored as comma-separated text, answered as an array. */
export const set: Kind = {
  label: 'set',
  operators: nullOperators,
  ordered: false,
  checksWrites: false,
  coerce: () => fail('tested only with is_null or is_not_null'),
  read: (value) =>
    value === null || value === undefined ? null : value === '' ? [] : String(value).split(','),
  schema: (column) => ({
    type: 'array',
    items: { type: 'string', enum: [...(column.values ?? [])] },
    uniqueItems: true,
  }),
  table: 'text',
  options: ['values'],
  serves: { postgres: [], mysql: ['set', ...myText] },
};
