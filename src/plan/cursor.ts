import type { Cursor, CursorValue, SortTerm } from './list-plan.js';

/** The sort a cursor was made for, as `sort` syntax: a cursor is valid only for the same order. */
export function sortSignature(sort: readonly SortTerm[]): string {
  return sort.map((term) => `${term.direction === 'desc' ? '-' : ''}${term.column}`).join(',');
}

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
  value === null || ['string', 'number', 'boolean'].includes(typeof value);

/** The cursor, or a reason it cannot be used with this order. */
export function decodeCursor(text: string, sort: readonly SortTerm[]): Cursor | string {
  let payload: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(text)) throw new Error('not base64url');
    payload = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return 'The cursor is malformed: use the next_cursor or prev_cursor of a previous response.';
  }
  const { s, d, v } = (payload ?? {}) as Partial<CursorPayload>;
  if (typeof s !== 'string' || (d !== 'next' && d !== 'prev') || !Array.isArray(v) || !v.every(isCursorValue))
    return 'The cursor is malformed: use the next_cursor or prev_cursor of a previous response.';
  if (s !== sortSignature(sort) || v.length !== sort.length)
    return `The cursor was made for another sort ("${s}"); this request sorts by "${sortSignature(sort)}".`;
  return { direction: d, values: v };
}
