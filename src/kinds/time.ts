import { myText, pgText } from './engine-types.js';
import { fail, type Kind, ok } from './kind.js';
import { orderOperators } from './operators.js';

const timePattern = /^([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(\.\d{1,6})?)?$/;

/**
 * A time of day, `HH:MM:SS[.ffffff]`. A client may leave out the seconds; the value is completed so
 * that text storage (SQLite) compares it as the engines with a time type do.
 */
export const time: Kind = {
  label: 'time',
  operators: orderOperators,
  ordered: true,
  checksWrites: true,
  coerce: (_column, text) => {
    const match = timePattern.exec(text);
    if (!match) return fail('a time of day, HH:MM or HH:MM:SS (00:00 to 23:59:59)');
    return ok(`${match[1]}:${match[2]}:${match[3] ?? '00'}${match[4] ?? ''}`);
  },
  read: (value) => (value === null || value === undefined ? null : String(value)),
  schema: () => ({ type: 'string', pattern: '^-?[0-9]{2,3}:[0-9]{2}(:[0-9]{2}(\\.[0-9]+)?)?$' }),
  table: 'text',
  input: 'text',
  options: [],
  serves: { postgres: ['time', ...pgText], mysql: ['time', ...myText] },
  declaredFor: { postgres: ['time'], mysql: ['time'] },
};
