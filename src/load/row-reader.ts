import type { ResourceRecord } from '../resource/policy.js';
import type { ResolvedResource } from '../resource/registry.js';
import type { ColumnType } from '../resource/types.js';
import { objectMaker } from '../sql/object-maker.js';
import { textBooleanReader, unixReader } from '../sql/storage.js';

const datetimeText = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

/** `YYYY-MM-DD HH:MM:SS(.f+)` in UTC, as PostgreSQL (in a UTC session, `+00` cut off) and MariaDB send it. */
const utcText = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?$/;

/** Any engine's datetime form → `YYYY-MM-DDTHH:MM:SS.sssZ` (UTC, milliseconds). */
function datetime(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  const text = String(value);
  // Fast paths for the forms the three engines return in every row (a row has several datetimes).
  if (text.length === 24 && text.charCodeAt(10) === 84 /* T */ && text.endsWith('Z')) return text;
  const utc = text.endsWith('+00') ? text.slice(0, -3) : text;
  if (utcText.test(utc))
    return `${utc.slice(0, 10)}T${utc.slice(11, 19)}.${`${utc.slice(20)}000`.slice(0, 3)}Z`;
  const match = datetimeText.exec(text);
  if (!match) return text;
  const [, date, time, fraction = '', zone = 'Z'] = match;
  const ms = fraction.padEnd(3, '0').slice(0, 3);
  if (zone === 'Z' || /^[+-]00(:?00)?$/.test(zone)) return `${date}T${time}.${ms}Z`;
  const offset = zone.length === 3 ? `${zone}:00` : `${zone.slice(0, 3)}:${zone.slice(-2)}`;
  return new Date(`${date}T${time}.${ms}${offset}`).toISOString();
}

/** One reader per column kind: the same JSON whatever the engine returned. */
const readers: Record<ColumnType, (value: unknown) => unknown> = {
  string: (value) => value,
  integer: (value) => (typeof value === 'string' || typeof value === 'bigint' ? Number(value) : value),
  decimal: (value) => (value === null || value === undefined ? null : Number(value)),
  boolean: (value) =>
    value === null || value === undefined ? null : typeof value === 'boolean' ? value : Number(value) !== 0,
  date: (value) =>
    value instanceof Date
      ? value.toISOString().slice(0, 10)
      : value === null
        ? null
        : String(value).slice(0, 10),
  datetime,
  json: (value) => {
    if (typeof value !== 'string') return value ?? null;
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  },
};

/** The reader of one column: by its kind, and for datetimes and booleans by how they are stored. */
const readerOf = (column: ResolvedResource['visibleColumns'][number]): ((value: unknown) => unknown) =>
  (column.type === 'datetime' ? unixReader(column.storage) : undefined) ??
  (column.type === 'boolean' ? textBooleanReader(column.storage) : undefined) ??
  readers[column.type];

/** Builds, once per resource, the function that turns a database row into a record (see `objectMaker`). */
export function rowReader(resource: ResolvedResource): (row: Record<string, unknown>) => ResourceRecord {
  // A string column's reader is the identity: its value is taken as it is.
  return objectMaker(
    resource.visibleColumns.map((column) => ({
      key: column.name,
      from: column.name,
      ...(column.type !== 'string' && { read: readerOf(column) }),
    })),
  );
}
