import { myText, pgText } from './engine-types.js';
import { fail, type Kind, ok } from './kind.js';
import { equalityOperators } from './operators.js';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A UUID: PostgreSQL's `uuid`, MariaDB's `UUID`, or 36 characters of text. Only the canonical
 * hyphenated form is taken, so a malformed value is refused before the database (which would refuse
 * it as a type error) — and a malformed key in a record's path is simply no record (404).
 */
export const uuid: Kind = {
  label: 'uuid',
  operators: equalityOperators,
  ordered: true,
  checksWrites: true,
  coerce: (_column, text) =>
    uuidPattern.test(text) ? ok(text) : fail('a UUID (8-4-4-4-12 hexadecimal digits)'),
  schema: () => ({ type: 'string', format: 'uuid' }),
  table: 'text',
  input: 'text',
  options: [],
  serves: { postgres: ['uuid', ...pgText], mysql: ['uuid', ...myText] },
  declaredFor: { postgres: ['uuid'], mysql: ['uuid'] },
};
