import { coerceDatetime, isPlainInstant } from './calendar.js';
import { myTemporal, myText, pgTemporal, pgText } from './engine-types.js';
import type { Kind } from './kind.js';
import { calendarOperators, orderOperators } from './operators.js';

const datetimeText = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

/** Any engine's datetime form → `YYYY-MM-DDTHH:MM:SS.sssZ` (UTC, milliseconds). */
function readDatetime(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  const text = String(value);
  // Fast paths for the forms the three engines return in every row (a row has several datetimes).
  if (text.length === 24 && text.charCodeAt(10) === 84 /* T */ && text.endsWith('Z')) return text;
  // `YYYY-MM-DD HH:MM:SS(.f+)` in UTC, as SQLite and MariaDB store it and PostgreSQL sends it (in a UTC
  // session, `+00` cut off); with a `T` it is read the same way.
  const utc = text.endsWith('+00') ? text.slice(0, -3) : text;
  if (isPlainInstant(utc))
    return `${utc.slice(0, 10)}T${utc.slice(11, 19)}.${`${utc.slice(20)}000`.slice(0, 3)}Z`;
  const match = datetimeText.exec(text);
  if (!match) return text;
  const [, date, time, fraction = '', zone = 'Z'] = match;
  const ms = fraction.padEnd(3, '0').slice(0, 3);
  if (zone === 'Z' || /^[+-]00(:?00)?$/.test(zone)) return `${date}T${time}.${ms}Z`;
  const offset = zone.length === 3 ? `${zone}:00` : `${zone.slice(0, 3)}:${zone.slice(-2)}`;
  return new Date(`${date}T${time}.${ms}${offset}`).toISOString();
}

/** An instant, always answered in UTC; how it is stored is the column's `storage` (src/sql/storage.ts). */
export const datetime: Kind = {
  label: 'datetime',
  operators: [...orderOperators, ...calendarOperators],
  ordered: true,
  checksWrites: false,
  coerce: (_column, text) => coerceDatetime(text),
  read: readDatetime,
  schema: () => ({ type: 'string', format: 'date-time' }),
  table: 'datetime',
  input: 'text',
  options: ['storage'],
  serves: { postgres: [...pgText, ...pgTemporal], mysql: [...myText, ...myTemporal] },
  declaredFor: { postgres: ['timestamp', 'timestamptz'], mysql: ['datetime', 'timestamp'] },
};
