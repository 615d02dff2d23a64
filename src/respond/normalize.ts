import type { ResourceRecord } from '../resource/policy.js';
import type { ResolvedResource } from '../resource/registry.js';
import type { ColumnType } from '../resource/types.js';
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

/**
 * Builds, once per resource, the function that turns a database row into a record. It runs for every
 * row of every page, so it is generated code that makes each record as one object literal of the
 * resource's columns: a loop of keyed stores and indirect calls took half as long again (13 µs against
 * 8.3 µs for a page of 16 users, measured alone). The code holds only the column names, as JSON
 * string literals; the readers are passed in, never written into it.
 */
export function rowReader(resource: ResolvedResource): (row: Record<string, unknown>) => ResourceRecord {
  const columns = resource.visibleColumns;
  const reads = columns.map(readerOf);
  // A literal's `__proto__:` would set the prototype instead of a property: such a table takes the loop.
  if (columns.some((column) => column.name === '__proto__')) {
    return (row) => {
      const record: ResourceRecord = {};
      for (const [i, column] of columns.entries()) {
        const value = (reads[i] as (value: unknown) => unknown)(row[column.name]);
        Object.defineProperty(record, column.name, {
          value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return record;
    };
  }
  const cells = columns.map((column, i) => {
    const key = JSON.stringify(column.name);
    return column.type === 'string' ? `${key}: row[${key}]` : `${key}: read[${i}](row[${key}])`;
  });
  const make = new Function('read', `"use strict"; return (row) => ({ ${cells.join(', ')} });`);
  return make(reads) as (row: Record<string, unknown>) => ResourceRecord;
}
