import { describe, expect, it } from 'vitest';
import { defineEndpoint } from '../src/resource/policy.js';
import { dialects } from './support/databases.js';
import { insertUsers, type UserRow, users } from './support/fixture.js';
import { useService } from './support/service.js';

const units = ['day', 'week', 'month'] as const;
type Unit = (typeof units)[number];

const zoneStats = defineEndpoint({
  resource: 'users',
  path: 'zone-stats',
  aggregates: {
    allowedAggregates: ['count'],
    allowedGroupBy: units.map((unit) => `created_at:${unit}`),
  },
});

/**
 * Rows placed on either side of the day boundaries that a zone's rules move (test/aggregates.test.ts
 * has Berlin's spring-forward): Berlin's fall-back with its repeated hour, Kolkata's half-hour offset,
 * Adelaide's half-hour offset with daylight saving (southern: it ends in April, starts in October),
 * and Santiago, southern too, whose changes fall at midnight (in September that midnight does not
 * exist, and the day starts at 01:00).
 */
const instants = [
  // Europe/Berlin, 2024-10-27 01:00Z: 03:00 CEST becomes 02:00 CET; the day is 25 hours long.
  '2024-10-26T21:59:59.000Z', // 26th 23:59:59 CEST
  '2024-10-26T22:00:00.000Z', // 27th 00:00 CEST, its first instant
  '2024-10-27T00:30:00.000Z', // 02:30 CEST, the first pass of the repeated hour
  '2024-10-27T00:59:59.000Z',
  '2024-10-27T01:00:00.000Z', // 02:00 CET, the hour again
  '2024-10-27T01:30:00.000Z', // 02:30 CET
  '2024-10-27T22:59:59.000Z', // 27th 23:59:59 CET, the 25th hour (the 28th at the summer offset)
  '2024-10-27T23:00:00.000Z', // 28th 00:00 CET
  // Asia/Kolkata, +05:30 all year: local midnight is 18:30Z.
  '2024-06-14T18:29:59.000Z', // 14th 23:59:59 IST
  '2024-06-14T18:30:00.000Z', // 15th 00:00 IST
  '2024-06-15T18:29:59.000Z', // 15th 23:59:59 IST
  '2024-06-30T18:29:59.000Z', // June 30th 23:59:59 IST
  '2024-06-30T18:30:00.000Z', // July 1st 00:00 IST, still June in UTC
  // Australia/Adelaide, 2024-04-06 16:30Z: 03:00 ACDT (+10:30) becomes 02:00 ACST (+09:30).
  '2024-04-06T13:29:59.000Z', // 6th 23:59:59 ACDT
  '2024-04-06T13:30:00.000Z', // 7th 00:00 ACDT
  '2024-04-06T16:00:00.000Z', // 02:30 ACDT
  '2024-04-06T17:00:00.000Z', // 02:30 ACST, the hour again
  '2024-04-07T14:00:00.000Z', // 7th 23:30 ACST (the 8th at the summer offset)
  '2024-04-07T14:30:00.000Z', // 8th 00:00 ACST
  // Australia/Adelaide, 2024-10-05 16:30Z: 02:00 ACST becomes 03:00 ACDT; the day is 23 hours long.
  '2024-10-05T14:29:59.000Z', // 5th 23:59:59 ACST
  '2024-10-05T14:30:00.000Z', // 6th 00:00 ACST
  '2024-10-05T16:29:59.000Z', // 01:59:59 ACST
  '2024-10-05T16:30:00.000Z', // 03:00 ACDT
  '2024-10-06T13:29:59.000Z', // 6th 23:59:59 ACDT
  '2024-10-06T13:30:00.000Z', // 7th 00:00 ACDT
  // America/Santiago, 2024-04-07 03:00Z: midnight -03 becomes 23:00 -04 on the 6th, 25 hours long.
  '2024-04-07T02:30:00.000Z', // 6th 23:30 -03
  '2024-04-07T03:30:00.000Z', // 6th 23:30 -04, the hour again
  '2024-04-07T03:59:59.000Z', // 6th 23:59:59 -04
  '2024-04-07T04:00:00.000Z', // 7th 00:00 -04
  // America/Santiago, 2024-09-08 04:00Z: midnight -04 becomes 01:00 -03; the 8th has no midnight.
  '2024-09-08T03:59:59.000Z', // 7th 23:59:59 -04
  '2024-09-08T04:00:00.000Z', // 8th 01:00 -03, its first instant
  '2024-09-09T02:59:59.000Z', // 8th 23:59:59 -03
  '2024-09-09T03:00:00.000Z', // 9th 00:00 -03
];
const extraUsers: UserRow[] = instants.map((created_at, i) => ({
  id: 700 + i,
  name: `Zone ${i}`,
  email: `zone${i}@example.org`,
  status: 'active',
  score: i,
  balance: 1,
  is_admin: false,
  birthday: null,
  settings: null,
  department_id: null,
  created_at,
  deleted_at: null,
}));
const visible = [...users, ...extraUsers].filter((user) => user.deleted_at === null);

// ---- The oracle: Intl's time-zone data and calendar arithmetic on dates, not Luxon (the service's) ----

const formats = new Map<string, Intl.DateTimeFormat>();
/** The local date and wall time of an instant in a zone, and its offset (`+05:30`). */
function local(ms: number, zone: string): { date: string; time: string; offset: string } {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'longOffset',
    });
    formats.set(zone, format);
  }
  const parts = format.formatToParts(new Date(ms));
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  const offset = part('timeZoneName').replace(/^GMT$/, 'GMT+00:00').replace('GMT', '');
  return {
    date: `${part('year')}-${part('month')}-${part('day')}`,
    time: `${part('hour')}:${part('minute')}:${part('second')}`,
    offset,
  };
}

/**
 * The first instant whose local date in `zone` is `date` (its midnight, or the first instant after a
 * midnight the zone skips): a search over whole minutes, as a local date never goes back in time.
 */
function dayStart(date: string, zone: string): number {
  const utcMidnight = Date.parse(`${date}T00:00:00Z`);
  let before = utcMidnight - 15 * 3_600_000; // the day before, in any zone
  let after = utcMidnight + 15 * 3_600_000; // that date or a later one, in any zone
  while (after - before > 60_000) {
    const middle = before + Math.floor((after - before) / 120_000) * 60_000;
    if (local(middle, zone).date >= date) after = middle;
    else before = middle;
  }
  return after;
}

/** A calendar date `days` later (negative: earlier). */
const plusDays = (date: string, days: number): string =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/** The first date of the unit that holds `date` (ISO weeks start on Monday). */
function unitStart(date: string, unit: Unit): string {
  if (unit === 'day') return date;
  if (unit === 'month') return `${date.slice(0, 7)}-01`;
  return plusDays(date, -((new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7));
}
function nextUnit(date: string, unit: Unit): string {
  if (unit === 'day') return plusDays(date, 1);
  if (unit === 'week') return plusDays(date, 7);
  const [year, month] = date.split('-').map(Number) as [number, number];
  return month === 12 ? `${year + 1}-01-01` : `${year}-${String(month + 1).padStart(2, '0')}-01`;
}

/** The answer the oracle expects: each bucket of [from, to) with its label and the visible rows in it. */
function expected(zone: string, unit: Unit, from: string, to: string) {
  const [low, high] = [dayStart(from, zone), dayStart(to, zone)];
  const buckets: { group: Record<string, string>; count: number }[] = [];
  for (let date = unitStart(from, unit); date < to; date = nextUnit(date, unit)) {
    const start = dayStart(date, zone);
    const end = dayStart(nextUnit(date, unit), zone);
    const { date: day, time, offset } = local(start, zone);
    const count = visible.filter((user) => {
      const at = Date.parse(user.created_at);
      return at >= Math.max(start, low) && at < Math.min(end, high);
    }).length;
    buckets.push({ group: { [`created_at:${unit}`]: `${day}T${time}${offset}` }, count });
  }
  return buckets;
}

/** The requests: each zone's transitions inside the range, by day, and by week or month around them. */
const series: [zone: string, unit: Unit, from: string, to: string][] = [
  ['Europe/Berlin', 'day', '2024-10-25', '2024-10-30'],
  ['Europe/Berlin', 'week', '2024-10-21', '2024-11-04'],
  ['Europe/Berlin', 'month', '2024-10-01', '2024-12-01'],
  ['Asia/Kolkata', 'day', '2024-06-13', '2024-06-17'],
  ['Asia/Kolkata', 'month', '2024-06-01', '2024-08-01'],
  ['Australia/Adelaide', 'day', '2024-04-05', '2024-04-09'],
  ['Australia/Adelaide', 'day', '2024-10-04', '2024-10-08'],
  ['Australia/Adelaide', 'month', '2024-03-01', '2024-11-01'],
  ['America/Santiago', 'day', '2024-04-05', '2024-04-09'],
  ['America/Santiago', 'day', '2024-09-06', '2024-09-11'],
  ['America/Santiago', 'week', '2024-09-02', '2024-09-16'],
  ['America/Santiago', 'month', '2024-03-01', '2024-10-01'],
];

describe('the oracle', () => {
  it('knows the transitions the rows are placed around', () => {
    const hours = (date: string, zone: string) =>
      (dayStart(plusDays(date, 1), zone) - dayStart(date, zone)) / 3_600_000;
    expect(hours('2024-10-27', 'Europe/Berlin')).toBe(25);
    expect(hours('2024-04-07', 'Australia/Adelaide')).toBe(25);
    expect(hours('2024-10-06', 'Australia/Adelaide')).toBe(23);
    expect(hours('2024-04-06', 'America/Santiago')).toBe(25);
    expect(hours('2024-09-08', 'America/Santiago')).toBe(23);
    expect(hours('2024-06-15', 'Asia/Kolkata')).toBe(24);
    expect(new Date(dayStart('2024-06-15', 'Asia/Kolkata')).toISOString()).toBe('2024-06-14T18:30:00.000Z');
    expect(new Date(dayStart('2024-09-08', 'America/Santiago')).toISOString()).toBe(
      '2024-09-08T04:00:00.000Z',
    );
    expect(expected('America/Santiago', 'day', '2024-09-07', '2024-09-09').map((b) => b.group)).toEqual([
      { 'created_at:day': '2024-09-07T00:00:00-04:00' },
      { 'created_at:day': '2024-09-08T01:00:00-03:00' },
    ]);
    expect(expected('Australia/Adelaide', 'month', '2024-04-01', '2024-06-01').map((b) => b.group)).toEqual([
      { 'created_at:month': '2024-04-01T00:00:00+10:30' },
      { 'created_at:month': '2024-05-01T00:00:00+09:30' },
    ]);
  });
});

describe.each(dialects)('date buckets in zones with unusual days on %s', (dialect) => {
  const svc = useService(dialect, 'time_zone_buckets', { endpoints: [zoneStats] });
  let inserted = false;
  const get = async (query: string) => {
    if (!inserted) await insertUsers(svc.conn, extraUsers);
    inserted = true;
    return svc.get(`/api/zone-stats/aggregate?${query}`);
  };

  it.each(series)('buckets %s by %s from %s to %s as the oracle does', async (zone, unit, from, to) => {
    const response = await get(`metrics=count&group_by=created_at:${unit}&tz=${zone}&from=${from}&to=${to}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.meta.tz).toBe(zone);
    const buckets = expected(zone, unit, from, to);
    // Rows sit in the range, so a bucket placed an hour off would move some.
    expect(buckets.some((bucket) => bucket.count > 0)).toBe(true);
    expect(response.body.data).toEqual(buckets);
  });

  it('counts both passes of a repeated hour in its one day, and a day that starts after a skipped midnight', async () => {
    const berlin = await get(
      'metrics=count&group_by=created_at:day&tz=Europe/Berlin&from=2024-10-27&to=2024-10-28',
    );
    // Midnight CEST, both 02:30s, 02:59:59 CEST and 02:00 CET either side of the change, 23:59:59 CET:
    // 6 rows in 25 hours (a 24-hour day would have lost the last to the 28th).
    expect(berlin.body.data).toEqual([
      { group: { 'created_at:day': '2024-10-27T00:00:00+02:00' }, count: 6 },
    ]);
    const santiago = await get(
      'metrics=count&group_by=created_at:day&tz=America/Santiago&from=2024-09-08&to=2024-09-09',
    );
    // 01:00 -03 and 23:59:59 -03; 23:59:59 -04 the second before belongs to the 7th.
    expect(santiago.body.data).toEqual([
      { group: { 'created_at:day': '2024-09-08T01:00:00-03:00' }, count: 2 },
    ]);
  });
});
