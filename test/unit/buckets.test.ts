import type { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { makeBuckets, readBound } from '../../src/plan/buckets.js';

/**
 * Bounds and buckets are kept once worked out (a dashboard asks for the same range again and again):
 * what they were made of must be all that decides them — the zone, the column's kind, the unit and the
 * limit as much as the texts.
 */
const bound = (text: string, zone: string, dateColumn = false): DateTime => {
  const value = readBound(text, zone, dateColumn);
  if (typeof value === 'string') throw new Error(`${text}: ${value}`);
  return value;
};

describe('date buckets, asked for again', () => {
  it('are kept where short, and made again where long (the memory they may hold is bounded)', () => {
    const from = bound('2023-01-01', 'UTC');
    expect(bound('2023-01-01', 'UTC')).toBe(from);
    const year = makeBuckets(from, bound('2024-01-01', 'UTC'), 'day', false, 1000);
    expect(makeBuckets(from, bound('2024-01-01', 'UTC'), 'day', false, 1000)).toBe(year);
    const twoYears = makeBuckets(from, bound('2025-01-01', 'UTC'), 'day', false, 1000);
    const again = makeBuckets(from, bound('2025-01-01', 'UTC'), 'day', false, 1000);
    expect(again).not.toBe(twoYears);
    expect(again).toEqual(twoYears);
    expect('labels' in again && again.labels.length).toBe(731);
  });

  it('read a bound in the zone asked for each time', () => {
    expect(bound('2024-03-01', 'UTC').toISO()).toBe('2024-03-01T00:00:00.000Z');
    expect(bound('2024-03-01', 'Europe/Berlin').toISO()).toBe('2024-03-01T00:00:00.000+01:00');
    expect(bound('2024-03-01', 'UTC').toISO()).toBe('2024-03-01T00:00:00.000Z');
    // An instant's text is refused for a date column, and read for a datetime column, whatever came first.
    expect(readBound('2024-03-01T00:00:00Z', 'UTC', true)).toBe('a date (YYYY-MM-DD)');
    expect(bound('2024-03-01T00:00:00Z', 'UTC').toMillis()).toBe(Date.UTC(2024, 2, 1));
    expect(readBound('2024-03-01T00:00:00Z', 'UTC', true)).toBe('a date (YYYY-MM-DD)');
  });

  it('give the same buckets again, and the limit of each request', () => {
    const from = bound('2023-01-01', 'UTC');
    const to = bound('2024-01-01', 'UTC');
    const first = makeBuckets(from, to, 'month', false, 100);
    expect(first).toEqual(
      makeBuckets(bound('2023-01-01', 'UTC'), bound('2024-01-01', 'UTC'), 'month', false, 100),
    );
    expect('labels' in first && first.labels.length).toBe(12);
    // The same range under a smaller limit is refused; under the first limit it is served again.
    expect(makeBuckets(from, to, 'month', false, 5)).toEqual({ over: 5 });
    expect(makeBuckets(from, to, 'month', false, 100)).toEqual(first);
    // Another unit, another zone, a date column: other buckets.
    expect(makeBuckets(from, to, 'quarter', false, 100)).toMatchObject({ labels: { length: 4 } });
    const berlin = makeBuckets(
      bound('2023-01-01', 'Europe/Berlin'),
      bound('2024-01-01', 'Europe/Berlin'),
      'month',
      false,
      100,
    );
    expect('labels' in berlin && berlin.labels[0]).toBe('2023-01-01T00:00:00+01:00');
    expect('ranges' in berlin && berlin.ranges[0]).toEqual([
      '2022-12-31T23:00:00.000Z',
      '2023-01-31T23:00:00.000Z',
    ]);
    const dates = makeBuckets(
      bound('2023-01-01', 'UTC', true),
      bound('2024-01-01', 'UTC', true),
      'month',
      true,
      100,
    );
    expect('ranges' in dates && dates.ranges[0]).toEqual(['2023-01-01', '2023-02-01']);
  });
});
