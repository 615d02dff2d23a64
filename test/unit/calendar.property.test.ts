import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  coerceDatetime,
  coerceDatetimeByPattern,
  isCalendarDate,
  isPlainInstant,
  plainInstant,
} from '../../src/kinds/calendar.js';
import { datetime } from '../../src/kinds/datetime.js';
import { expectEqual } from '../support/equal.js';

/**
 * Instants are read and checked by character codes where they are written the common way (every row's
 * instants, every cursor's). Those fast paths must answer exactly what the general path (a pattern and
 * `Date`) answers, for every text: checked here on texts built from near-misses of the common forms.
 */
const two = fc.integer({ min: 0, max: 99 }).map((n) => String(n).padStart(2, '0'));
const piece = fc.oneof(
  fc.constantFrom('-', ':', ' ', 'T', '.', 'Z', '+00', '+02:00', '-0530', 'x', '١', '０'),
  two,
  fc.integer({ min: 0, max: 9999 }).map((n) => String(n).padStart(4, '0')),
  fc.stringMatching(/^\d{1,12}$/),
);
/** The common form with each part drawn near its range (month 13, day 31 of a short month, hour 24…). */
const instantLike = fc
  .record({
    year: fc.oneof(
      fc.integer({ min: 990, max: 1010 }),
      fc.integer({ min: 1896, max: 2104 }),
      fc.constant(9999),
    ),
    month: fc.integer({ min: 0, max: 13 }),
    day: fc.integer({ min: 0, max: 32 }),
    hour: fc.integer({ min: 0, max: 25 }),
    minute: fc.integer({ min: 0, max: 60 }),
    second: fc.integer({ min: 0, max: 60 }),
    separator: fc.constantFrom(' ', 'T', 't', '_'),
    fraction: fc.oneof(fc.constant(''), fc.constant('.'), fc.stringMatching(/^\.\d{1,12}$/)),
    suffix: fc.constantFrom('', 'Z', 'z', '+00', '+00:00', '-03:30', 'ZZ', ' '),
  })
  .map(
    ({ year, month, day, hour, minute, second, separator, fraction, suffix }) =>
      `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}` +
      `${separator}${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}:` +
      `${String(second).padStart(2, '0')}${fraction}${suffix}`,
  );
const texts = fc.oneof(
  instantLike,
  fc.array(piece, { maxLength: 10 }).map((parts) => parts.join('')),
);

/** What `datetime.read` answers for text, by the pattern of every engine's form (the reference). */
function readByPattern(text: string): string {
  const utc = text.endsWith('+00') ? text.slice(0, -3) : text;
  const match = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d+))?$/.exec(utc);
  return match ? `${match[1]}T${match[2]}.${(match[3] ?? '').padEnd(3, '0').slice(0, 3)}Z` : text;
}

describe('the calendar', () => {
  it("has exactly the days of `Date`'s calendar, in the years 1000 to 9999", () => {
    const exists = (year: number, month: number, day: number) => {
      const date = new Date(Date.UTC(year, month - 1, day));
      return (
        year >= 1000 &&
        year <= 9999 &&
        date.getUTCFullYear() === year &&
        date.getUTCMonth() === month - 1 &&
        date.getUTCDate() === day
      );
    };
    const years = fc.oneof(
      fc.integer({ min: 990, max: 1010 }),
      fc.integer({ min: 1, max: 12_000 }),
      fc.constantFrom(1600, 1700, 1900, 2000, 2100, 2400, 9996, 9999, 10_000),
    );
    fc.assert(
      fc.property(years, fc.integer({ min: -1, max: 14 }), fc.integer({ min: -1, max: 33 }), (y, m, d) => {
        expectEqual(isCalendarDate(y, m, d), exists(y, m, d));
      }),
      { numRuns: 20_000 },
    );
    expect(isCalendarDate(2024, 2, 29)).toBe(true);
    expect(isCalendarDate(2023, 2, 29)).toBe(false);
    expect(isCalendarDate(1900, 2, 29)).toBe(false);
    expect(isCalendarDate(2000, 2, 29)).toBe(true);
  });
});

describe('instants written the common way', () => {
  it('are coerced as the general path coerces them', () => {
    fc.assert(
      fc.property(texts, (text) => {
        expectEqual(coerceDatetime(text), coerceDatetimeByPattern(text));
      }),
      { numRuns: 20_000 },
    );
  });

  it('are recognised by their character codes exactly as the pattern recognises them', () => {
    fc.assert(
      fc.property(texts, (text) => {
        expectEqual(isPlainInstant(text), plainInstant.test(text));
      }),
      { numRuns: 20_000 },
    );
    for (const text of ['2023-01-07 22:50:00', '2023-01-07T22:50:00.1', '2025-06-01 00:00:00.000'])
      expect(isPlainInstant(text)).toBe(true);
    for (const text of [
      '2023-01-07 22:50:00.',
      '2023-01-07t22:50:00',
      '2023-01-07 22:50:0',
      '٢023-01-07 22:50:00',
    ])
      expect(isPlainInstant(text)).toBe(false);
  });

  it('are read from every engine as the pattern reads them', () => {
    fc.assert(
      fc.property(texts, (text) => {
        const expected = readByPattern(text);
        // Texts of other forms (offsets) take the general path, which the kind's own tests cover.
        if (expected !== text) expectEqual(datetime.read?.(text), expected);
      }),
      { numRuns: 20_000 },
    );
  });

  it('keep what the general path keeps of a fraction, and refuse a day that does not exist', () => {
    // Every month's last days, in leap years and in the centuries that are not.
    for (const year of [1000, 1600, 1700, 1900, 2000, 2023, 2024, 2100, 2400, 9999])
      for (let month = 1; month <= 12; month++)
        for (const day of [28, 29, 30, 31, 32]) {
          const text = `${year}-${String(month).padStart(2, '0')}-${day}T23:59:59Z`;
          expect(coerceDatetime(text)).toEqual(coerceDatetimeByPattern(text));
        }
    expect(coerceDatetime('2024-02-29T23:59:59.123456Z')).toEqual({
      ok: true,
      value: '2024-02-29T23:59:59.123Z',
    });
    expect(coerceDatetime('2024-02-29 23:59:59.')).toEqual(coerceDatetimeByPattern('2024-02-29 23:59:59.'));
    expect(coerceDatetime('2023-02-29 10:00:00')).toEqual(coerceDatetimeByPattern('2023-02-29 10:00:00'));
    expect(coerceDatetime('2024-02-29 10:00:00.5Z')).toEqual({ ok: true, value: '2024-02-29T10:00:00.500Z' });
  });
});
