import { type Coerced, fail, ok } from './kind.js';

/**
 * Years 1000–9999: the range every engine stores (MariaDB's DATE/DATETIME), and one where a day's
 * successor still has four digits except at the very end (see `nextDay`).
 */
const MIN_YEAR = 1000;
const MAX_YEAR = 9999;

/** Dates of the years every engine stores, 1000 to 9999 (`coerceDate`), as a pattern beside `format: date`. */
export const DATE_PATTERN = '^[1-9][0-9]{3}-[0-9]{2}-[0-9]{2}$';
const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;
const datetimePattern =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

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

/** The day after a `YYYY-MM-DD`, for half-open date ranges; undefined after 9999-12-31 (no upper bound). */
export function nextDay(date: string): string | undefined {
  const next = new Date(`${date}T00:00:00.000Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return next.getUTCFullYear() > MAX_YEAR ? undefined : next.toISOString().slice(0, 10);
}
