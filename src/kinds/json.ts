import { decimalPattern } from './decimal.js';
import { myText, pgText } from './engine-types.js';
import { type Kind, ok } from './kind.js';
import { containmentOperators, nullOperators } from './operators.js';

/**
 * What a member of a filter on a JSON array (`has_all`, `has_any`) matches besides the JSON string of
 * its text: text that reads as a number also matches the JSON numbers equal to it (`1` matches `1`,
 * `1.0` and `"1"`), `true`/`false` also the JSON boolean — the reading of a path's value
 * (plan/values.ts `jsonTypeOf`), member by member and never instead of the string. Undefined: only the
 * string. `json` is the JSON text of that value (a number's digits as written, normalized to JSON:
 * `+007.50` → `7.50`, so an engine with exact numbers compares them exactly), `number` it as a double.
 *
 * Exactly the members whose value class is `text` (src/sql/slots.ts `classOf`) have a reading, so a
 * statement shaped by the members' classes has a place for each reading's parameters.
 */
export type JsonReading =
  | { readonly type: 'number'; readonly json: string; readonly number: number }
  | { readonly type: 'boolean'; readonly json: 'true' | 'false' };

export function jsonReading(text: string): JsonReading | undefined {
  if (text === 'true' || text === 'false') return { type: 'boolean', json: text };
  if (!decimalPattern.test(text)) return undefined;
  const [, sign = '', whole = '', fraction = ''] = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text) ?? [];
  const digits = whole.replace(/^0+(?=\d)/, '') || '0';
  return {
    type: 'number',
    json: `${sign === '-' ? '-' : ''}${digits}${fraction === '' ? '' : `.${fraction}`}`,
    number: Number(text),
  };
}

/**
 * A JSON document. Filters reach inside it by path (`<column>.<key>`, typed by the client's value);
 * the column itself takes `has_all`/`has_any` when it holds an array of scalars: each member is any
 * text, matched as `jsonReading` says. A column holding anything but an array (an object, a scalar,
 * NULL, text that is no JSON) matches neither. Each engine's SQL is its dialect's `KindSql.holds`.
 */
export const json: Kind = {
  label: 'json',
  operators: [...nullOperators, ...containmentOperators],
  ordered: false,
  checksWrites: false,
  // A filter's value is one member of the array: any text (its JSON readings are the dialect's).
  coerce: (_column, text) => ok(text),
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
  // A member is the client's text: a string, or a number or true/false, which match the string too.
  member: () => ({ type: ['string', 'number', 'boolean'] }),
  table: 'json',
  input: 'textarea',
  options: [],
  // MariaDB's JSON is longtext; PostgreSQL casts text to jsonb.
  serves: { postgres: [...pgText, 'json', 'jsonb'], mysql: [...myText, 'json'] },
  declaredFor: { postgres: ['json', 'jsonb'], mysql: ['json'] },
};
