import type { ResolvedResource } from '../resource/registry.js';
import { type Cursor, type CursorValue, type SortTerm, sortNullable } from './list-plan.js';
import { coerceForColumn } from './values.js';

/** Signatures by sort: a cached plan hands every request the same sort, whose signature is made once. */
const signatures = new WeakMap<readonly SortTerm[], string>();

/** The sort a cursor was made for, as `sort` syntax: a cursor is valid only for the same order. */
export function sortSignature(sort: readonly SortTerm[]): string {
  let signature = signatures.get(sort);
  if (signature === undefined) {
    signature = sort.map((term) => `${term.direction === 'desc' ? '-' : ''}${term.name}`).join(',');
    signatures.set(sort, signature);
  }
  return signature;
}

const MALFORMED = 'The cursor is malformed: use the next_cursor or prev_cursor of a previous response.';

interface CursorPayload {
  s: string;
  d: 'next' | 'prev';
  v: CursorValue[];
}

/** Opaque to clients: base64url of the order it belongs to, the direction and the stored sort values. */
export function encodeCursor(sort: readonly SortTerm[], cursor: Cursor): string {
  const payload: CursorPayload = { s: sortSignature(sort), d: cursor.direction, v: [...cursor.values] };
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

const isCursorValue = (value: unknown): value is CursorValue =>
  value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

/** The cursor, or a reason it cannot be used with this order. */
export function decodeCursor(text: string, sort: readonly SortTerm[]): Cursor | string {
  let payload: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(text)) throw new Error('not base64url');
    payload = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return MALFORMED;
  }
  const { s, d, v } = (payload ?? {}) as Partial<CursorPayload>;
  if (typeof s !== 'string' || (d !== 'next' && d !== 'prev') || !Array.isArray(v) || !v.every(isCursorValue))
    return MALFORMED;
  if (s !== sortSignature(sort) || v.length !== sort.length)
    return `The cursor was made for another sort ("${s}"); this request sorts by "${sortSignature(sort)}".`;
  return { direction: d, values: v };
}

const MAX_CURSOR_TEXT = 1000;

/**
 * A cursor is client input like any other: each value must be what its sort column holds, or the
 * database would be asked to compare a date with "x" (an error on PostgreSQL, silent nonsense elsewhere).
 */
export function checkCursorValues(
  cursor: Cursor,
  sort: readonly SortTerm[],
  resource: ResolvedResource,
): string | undefined {
  const invalid = MALFORMED;
  for (const [i, term] of sort.entries()) {
    const value = cursor.values[i];
    if (term.through?.kind === 'count') {
      // As the driver gave it: a number, or a bigint's digits.
      const whole =
        typeof value === 'number'
          ? Number.isSafeInteger(value) && value >= 0
          : /^\d{1,15}$/.test(String(value));
      if (value === null || typeof value === 'boolean' || !whole) return invalid;
      continue;
    }
    const column = term.through ? term.through.column : resource.columns.get(term.name);
    if (!column) return invalid;
    if (value === null || value === undefined) {
      // A NOT NULL column (the primary key among them) never gave a cursor a NULL.
      if (!sortNullable(term, resource)) return invalid;
      continue;
    }
    if (column.type === 'boolean') {
      // As the row held it: a boolean, 0/1, or 't'/'f' text.
      const text = column.storage === 'text' && (value === 't' || value === 'f');
      if (typeof value !== 'boolean' && value !== 0 && value !== 1 && !text) return invalid;
      continue;
    }
    if (typeof value === 'boolean') return invalid;
    // A datetime stored as a unix count gave the cursor that count.
    if (column.storage === 'unix-seconds' || column.storage === 'unix-milliseconds') {
      if (typeof value !== 'number' || !Number.isFinite(value)) return invalid;
      continue;
    }
    const text = String(value);
    if (text.length > MAX_CURSOR_TEXT || text.includes('\u0000')) return invalid;
    if (column.type === 'string' ? typeof value !== 'string' : !coerceForColumn(column, text).ok)
      return invalid;
  }
  return undefined;
}
