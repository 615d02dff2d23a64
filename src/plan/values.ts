import type { ResolvedColumn } from '../resource/registry.js';
import type { JsonValueType, Scalar } from './list-plan.js';

/** A coerced value, or the reason the text cannot be one (completes "… must be <reason>"). */
export type Coerced<T> = { ok: true; value: T } | { ok: false; expected: string };

const ok = <T>(value: T): Coerced<T> => ({ ok: true, value });
const fail = (expected: string): Coerced<never> => ({ ok: false, expected });

const INT32 = 2 ** 31;

/**
 * The whole numbers an integer column takes, in filters and inputs alike (and what the OpenAPI
 * document gives as minimum and maximum): 32-bit, the common `int`; with `big`, what a JSON number
 * holds exactly (±2^53 − 1: a 64-bit key beyond it could not be written without losing digits).
 */
export function integerRange(column: Pick<ResolvedColumn, 'big'>): { min: number; max: number } {
  return column.big
    ? { min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }
    : { min: -INT32, max: INT32 - 1 };
}

/**
 * The largest magnitude of a decimal filter value or input without a declared precision: past it a
 * double no longer holds every cent.
 */
export const DECIMAL_LIMIT = 1e15;

/** The range a decimal input takes: its `numeric(precision, scale)` when declared, else ±DECIMAL_LIMIT. */
export function decimalRange(column: Pick<ResolvedColumn, 'precision' | 'scale'>): {
  min: number;
  max: number;
  /** The bound as written in messages (`9999999999.99`), exactly. */
  text: string;
} {
  const { precision, scale = 0 } = column;
  if (precision === undefined)
    return { min: -DECIMAL_LIMIT, max: DECIMAL_LIMIT, text: String(DECIMAL_LIMIT) };
  const text = `${'9'.repeat(precision - scale) || '0'}${scale > 0 ? `.${'9'.repeat(scale)}` : ''}`;
  return { min: -Number(text), max: Number(text), text };
}

/** Dates of the years every engine stores, 1000 to 9999 (`coerceDate`), as a pattern beside `format: date`. */
export const DATE_PATTERN = '^[1-9][0-9]{3}-[0-9]{2}-[0-9]{2}$';
const integerPattern = /^[+-]?\d+$/;
const decimalPattern = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;
const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;
const datetimePattern =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

export function coerceBoolean(text: string): Coerced<boolean> {
  if (text === 'true' || text === '1') return ok(true);
  if (text === 'false' || text === '0') return ok(false);
  return fail('true, false, 1 or 0');
}

/**
 * Years 1000–9999: the range every engine stores (MariaDB's DATE/DATETIME), and one where a day's
 * successor still has four digits except at the very end (see `nextDay`).
 */
const MIN_YEAR = 1000;
const MAX_YEAR = 9999;

function isCalendarDate(year: number, month: number, day: number): boolean {
  if (year < MIN_YEAR || year > MAX_YEAR) return false;
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

export function coerceDate(text: string): Coerced<string> {
  const match = datePattern.exec(text);
  if (!match || !isCalendarDate(Number(match[1]), Number(match[2]), Number(match[3])))
    return fail('a date in the form YYYY-MM-DD (years 1000 to 9999)');
  return ok(text);
}

/** An ISO 8601 date or date-time; without an offset it is UTC. Returns `YYYY-MM-DDTHH:MM:SS.sssZ`. */
export function coerceDatetime(text: string): Coerced<string> {
  const expected = 'a date (YYYY-MM-DD) or date-time (YYYY-MM-DDTHH:MM:SS, optional fraction and offset)';
  const match = datetimePattern.exec(text);
  if (!match) return fail(expected);
  const [, y, mo, d, h = '00', mi = '00', s = '00', fraction = '', offset = 'Z'] = match;
  if (
    !isCalendarDate(Number(y), Number(mo), Number(d)) ||
    Number(h) > 23 ||
    Number(mi) > 59 ||
    Number(s) > 59
  )
    return fail(expected);
  const ms = fraction.padEnd(3, '0').slice(0, 3);
  const zone = offset === 'Z' ? 'Z' : `${offset.slice(0, 3)}:${offset.length > 3 ? offset.slice(-2) : '00'}`;
  const instant = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}${zone}`);
  if (
    Number.isNaN(instant.getTime()) ||
    instant.getUTCFullYear() < MIN_YEAR ||
    instant.getUTCFullYear() > MAX_YEAR
  )
    return fail(expected);
  return ok(instant.toISOString());
}

export function coerceYear(text: string): Coerced<number> {
  if (!/^\d{4}$/.test(text) || Number(text) < MIN_YEAR) return fail('a 4-digit year (1000 to 9999)');
  return ok(Number(text));
}

/** Coerces one value to a column's kind. */
export function coerceForColumn(column: ResolvedColumn, text: string): Coerced<Scalar> {
  switch (column.type) {
    case 'string':
      return ok(text);
    case 'integer': {
      const { min, max } = integerRange(column);
      const value = Number(text);
      if (!integerPattern.test(text) || value > max || value < min)
        return fail(`a whole number between ${min} and ${max}`);
      return ok(value);
    }
    case 'decimal': {
      const value = Number(text);
      if (!decimalPattern.test(text) || !Number.isFinite(value)) return fail('a number');
      if (Math.abs(value) > DECIMAL_LIMIT)
        return fail(`a number between -${DECIMAL_LIMIT} and ${DECIMAL_LIMIT}`);
      return ok(value);
    }
    case 'boolean':
      return coerceBoolean(text);
    case 'date':
      return coerceDate(text);
    case 'datetime':
      return coerceDatetime(text);
    case 'json':
      return fail('compared with a path inside it, such as <column>.<key>');
  }
}

/** Inside JSON the client's text says the type: numbers compare as numbers, true/false as booleans. */
export function jsonTypeOf(texts: readonly string[], allowBoolean: boolean): JsonValueType {
  if (texts.every((text) => decimalPattern.test(text) && Number.isFinite(Number(text)))) return 'number';
  if (allowBoolean && texts.every((text) => text === 'true' || text === 'false')) return 'boolean';
  return 'string';
}

/**
 * Text that no JSON number or boolean renders as: equality with it can only match a JSON string, on
 * every engine, so it needs no type test (a mixed list such as `in=5,abc` does).
 */
export function isPlainJsonText(value: Scalar): boolean {
  return typeof value === 'string' && value !== 'true' && value !== 'false' && !decimalPattern.test(value);
}

export function coerceForJson(type: JsonValueType, text: string): Scalar {
  if (type === 'number') return Number(text);
  if (type === 'boolean') return text === 'true';
  return text;
}

/** The day after a `YYYY-MM-DD`, for half-open date ranges; undefined after 9999-12-31 (no upper bound). */
export function nextDay(date: string): string | undefined {
  const next = new Date(`${date}T00:00:00.000Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return next.getUTCFullYear() > MAX_YEAR ? undefined : next.toISOString().slice(0, 10);
}
