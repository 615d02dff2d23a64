import { myText, pgText } from './engine-types.js';
import { fail, type Kind } from './kind.js';
import { nullOperators } from './operators.js';

/** A JSON document; filters reach inside it by path (`<column>.<key>`), typed by the client's value. */
export const json: Kind = {
  label: 'json',
  operators: nullOperators,
  ordered: false,
  checksWrites: false,
  coerce: () => fail('compared with a path inside it, such as <column>.<key>'),
  // MariaDB's JSON and JSON kept in text arrive as text; PostgreSQL's json(b) arrives parsed.
  read: (value) => {
    if (typeof value !== 'string') return value ?? null;
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  },
  // Any JSON value, null included.
  schema: () => ({}),
  table: 'json',
  input: 'textarea',
  options: [],
  // MariaDB's JSON is longtext; PostgreSQL casts text to jsonb.
  serves: { postgres: [...pgText, 'json', 'jsonb'], mysql: [...myText, 'json'] },
  declaredFor: { postgres: ['json', 'jsonb'], mysql: ['json'] },
};
