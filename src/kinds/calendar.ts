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

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeap = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;

/**
 * Whether the day exists, in the years every engine stores: the one calendar check of every date and
 * instant. By a table rather than a `Date`, which costs microseconds where every cursor's and filter's
 * instant passes (its property test holds it to `Date`'s calendar).
 */
export function isCalendarDate(year: number, month: number, day: number): boolean {
  if (year < MIN_YEAR || year > MAX_YEAR) return false;
  const days = month === 2 && isLeap(year) ? 29 : MONTH_DAYS[month - 1];
  return days !== undefined && day >= 1 && day <= days;
}

/** The number written by `length` digits of `text` from `at` (known to be digits). */
const digitsAt = (text: string, at: number, length: number): number => {
  let value = 0;
  for (let i = at; i < at + length; i++) value = value * 10 + text.charCodeAt(i) - 48;
  return value;
};

/**
 * An instant written `YYYY-MM-DD HH:MM:SS` (or with a `T`) with an optional fraction: how SQLite and
 * MariaDB store one, PostgreSQL sends one in a UTC session, and a cursor carries one. A test without
 * captures: the instants of every row and cursor pass here, and under load a pattern's captures and a
 * `Date` cost microseconds a page (docs/benchmarks.md).
 */
export const plainInstant = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?$/;

/** `plainInstant`'s first 19 characters: a digit (0), or this separator's code (a space or `T` at 10). */
const INSTANT_SHAPE = [...'0000-00-00 00:00:00'].map((c) => (c === '0' ? 0 : c.charCodeAt(0)));
const isDigitCode = (code: number): boolean => code >= 48 && code <= 57;

/**
 * `plainInstant.test(text)`, by character codes: every datetime of every row is read through it, and
 * the expression's test showed in read-one's profile (docs/benchmarks.md). The calendar's property
 * test holds the two to the same answer.
 */
export function isPlainInstant(text: string): boolean {
  const { length } = text;
  if (length < 19 || length === 20) return false;
  for (let i = 0; i < 19; i++) {
    const code = text.charCodeAt(i);
    const shape = INSTANT_SHAPE[i] as number;
    if (shape === 0 ? !isDigitCode(code) : code !== shape && !((i === 10 && code === 84) /* T */))
      return false;
  }
  if (length === 19) return true;
  if (text.charCodeAt(19) !== 46 /* . */) return false;
  for (let i = 20; i < length; i++) if (!isDigitCode(text.charCodeAt(i))) return false;
  return true;
}
/** `plainInstant` with at most 9 digits of fraction and an optional `Z`, as `coerceDatetime` takes it. */
const plainUtcInput = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z?$/;

/**
 * The UTC instant of `YYYY-MM-DD[T ]HH:MM:SS[.f{1,9}][Z]` as `coerceDatetime` answers it, `fail` when
 * its date or time does not exist, undefined when the text is written another way.
 */
function coercePlainInstant(text: string, expected: string): Coerced<string> | undefined {
  if (!plainUtcInput.test(text)) return undefined;
  if (
    !isCalendarDate(digitsAt(text, 0, 4), digitsAt(text, 5, 2), digitsAt(text, 8, 2)) ||
    digitsAt(text, 11, 2) > 23 ||
    digitsAt(text, 14, 2) > 59 ||
    digitsAt(text, 17, 2) > 59
  )
    return fail(expected);
  const fraction = text.charCodeAt(19) === 46 /* . */ ? text.slice(20, 23).replace('Z', '') : '';
  const ms = fraction.padEnd(3, '0');
  return ok(`${text.slice(0, 10)}T${text.slice(11, 19)}.${ms}Z`);
}

export function coerceDate(text: string): Coerced<string> {
  const match = datePattern.exec(text);
  if (!match || !isCalendarDate(Number(match[1]), Number(match[2]), Number(match[3])))
    return fail('a date in the form YYYY-MM-DD (years 1000 to 9999)');
  return ok(text);
}

const DATETIME_EXPECTED =
  'a date (YYYY-MM-DD) or date-time (YYYY-MM-DDTHH:MM:SS, optional fraction and offset)';

/** An ISO 8601 date or date-time; without an offset it is UTC. Returns `YYYY-MM-DDTHH:MM:SS.sssZ`. */
export function coerceDatetime(text: string): Coerced<string> {
  // The forms the engines store and cursors carry, UTC with seconds, without a pattern or a Date.
  return coercePlainInstant(text, DATETIME_EXPECTED) ?? coerceDatetimeByPattern(text);
}

/** `coerceDatetime` of any form, by the pattern of them all and `Date` (and the fast path's reference). */
export function coerceDatetimeByPattern(text: string): Coerced<string> {
  const expected = DATETIME_EXPECTED;
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
