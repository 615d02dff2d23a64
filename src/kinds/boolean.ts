import { myNumbers } from './engine-types.js';
import { type Coerced, fail, type Kind, ok } from './kind.js';
import { equalityOperators } from './operators.js';

export function coerceBoolean(text: string): Coerced<boolean> {
  if (text === 'true' || text === '1') return ok(true);
  if (text === 'false' || text === '0') return ok(false);
  return fail('true, false, 1 or 0');
}

export const boolean: Kind = {
  label: 'boolean',
  operators: equalityOperators,
  ordered: true,
  checksWrites: false,
  coerce: (_column, text) => coerceBoolean(text),
  read: (value) =>
    value === null || value === undefined ? null : typeof value === 'boolean' ? value : Number(value) !== 0,
  schema: () => ({ type: 'boolean' }),
  table: 'boolean',
  input: 'checkbox',
  options: ['storage'],
  // PostgreSQL compares a boolean with nothing but a boolean; MariaDB's BOOLEAN is tinyint(1).
  serves: { postgres: ['bool'], mysql: myNumbers },
  declaredFor: { postgres: ['bool'] },
};
