import { myText } from './engine-types.js';
import { fail, type Kind, ok } from './kind.js';
import { containmentOperators, nullOperators } from './operators.js';

/**
 * MySQL's `SET`: any number of the declared values, stored as comma-separated text, answered as an
 * array. Its filters (`has_all`, `has_any`) take members: each one of the declared values (a 422
 * naming them otherwise); a text with a comma never is one, since a SET's members cannot hold one.
 * Only MariaDB and MySQL have SETs: elsewhere start-up refuses the declaration (`unheldColumns`,
 * src/sql/operators.ts).
 */
export const set: Kind = {
  label: 'set',
  operators: [...nullOperators, ...containmentOperators],
  ordered: false,
  checksWrites: false,
  coerce: (column, text) => {
    const values = column.values ?? [];
    if (values.includes(text) && !text.includes(',')) return ok(text);
    return fail(
      `${text.includes(',') ? 'a single member (a SET member never contains a comma): ' : ''}one of ${values.join(', ')}`,
    );
  },
  read: (value) =>
    value === null || value === undefined ? null : value === '' ? [] : String(value).split(','),
  schema: (column) => ({
    type: 'array',
    items: { type: 'string', enum: [...(column.values ?? [])] },
    uniqueItems: true,
  }),
  member: (column) => ({ type: 'string', enum: [...(column.values ?? [])] }),
  table: 'text',
  options: ['values'],
  serves: { postgres: [], mysql: ['set', ...myText] },
};
