/**
 * Date buckets made in the service: the boundaries of each day, ISO week, month, quarter or year in an
 * IANA time zone, as UTC instants (or dates, for a date column). The SQL compares the column with
 * them, so no engine's time-zone tables matter, a daylight-saving day is as long as it is, and an
 * index on the column serves. Luxon does the calendar arithmetic in the zone (Intl's time-zone data);
 * only the walk from one boundary to the next is ours.
 */
import { DateTime } from 'luxon';
import { BoundedMap } from './bounded-map.js';

export const bucketUnits = ['day', 'week', 'month', 'quarter', 'year'] as const;
export type BucketUnit = (typeof bucketUnits)[number];

/** Buckets of `[from, to)`: each one's label and the range of values it counts, clipped to the request's. */
export interface Buckets {
  /** Each bucket's start: in the zone with its offset (`2024-03-01T00:00:00+01:00`), or a date. */
  readonly labels: readonly string[];
  /** `[low, high)` of each bucket: UTC instants `YYYY-MM-DDTHH:MM:SS.sssZ`, or `YYYY-MM-DD` dates. */
  readonly ranges: readonly (readonly [string, string])[];
}

/**
 * The zone names already checked: making an `Intl.DateTimeFormat` costs more than the rest of an
 * aggregate request's planning (docs/benchmarks.md); bounded, as the names come from clients.
 */
const checkedZones = new BoundedMap<string, boolean>(256);

/** Whether an IANA zone name is one this runtime knows (`Intl.DateTimeFormat` refuses the others). */
export function isTimeZone(zone: string): boolean {
  let known = checkedZones.get(zone);
  if (known === undefined) {
    try {
      new Intl.DateTimeFormat('en', { timeZone: zone });
      known = true;
    } catch {
      known = false;
    }
    checkedZones.set(zone, known);
  }
  return known;
}

const datePattern = /^\d{4}-\d{2}-\d{2}$/;
/** An instant must say which: `Z` or an offset (a bare local time would be read in some zone silently). */
const instantPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * The bounds and the buckets already worked out, by what they were made of: Luxon's calendar work for
 * a year of months costs about 120 µs a request, and a dashboard asks for the same range again and
 * again (docs/benchmarks.md). Both are immutable (Luxon's `DateTime`s, and the arrays here are never
 * changed once made). Bounded in memory, as the ranges come from clients: only bounds that read (a
 * refused text is refused by a pattern, at once), and only series of at most `KEPT_BUCKETS` buckets
 * (a longer one is made again; its statement costs far more) — at most about 4 MB in all.
 */
const boundsRead = new BoundedMap<string, DateTime>(256);
const bucketsMade = new BoundedMap<string, Buckets | { readonly over: number }>(64);
const KEPT_BUCKETS = 400;

/**
 * A `from` or `to` bound: a date (`YYYY-MM-DD`, midnight in the zone, or the date itself for a date
 * column) or, for a datetime column, an ISO instant with `Z` or an offset. A string: why not.
 */
export function readBound(text: string, zone: string, dateColumn: boolean): DateTime | string {
  const key = `${dateColumn ? 'date' : 'instant'} ${zone} ${text}`;
  const kept = boundsRead.get(key);
  if (kept !== undefined) return kept;
  const bound = readBoundNow(text, zone, dateColumn);
  if (typeof bound !== 'string') boundsRead.set(key, bound);
  return bound;
}

function readBoundNow(text: string, zone: string, dateColumn: boolean): DateTime | string {
  const expected = dateColumn
    ? 'a date (YYYY-MM-DD)'
    : 'a date (YYYY-MM-DD) or an instant with Z or an offset (2024-03-01T00:00:00Z)';
  const isDate = datePattern.test(text);
  if (!isDate && (dateColumn || !instantPattern.test(text))) return expected;
  const value = DateTime.fromISO(text, { zone: dateColumn ? 'UTC' : zone });
  if (!value.isValid || value.year < 1000 || value.year > 9999) return expected;
  return value;
}

/**
 * The buckets from the one holding `from` to the one holding the instant before `to`, or the number
 * past `max` (the request is then refused, naming the limit).
 */
export function makeBuckets(
  from: DateTime,
  to: DateTime,
  unit: BucketUnit,
  dateColumn: boolean,
  max: number,
): Buckets | { readonly over: number } {
  // Both bounds were read in the one zone; a DateTime keeps its instant, so these are cheap to ask.
  const key = `${from.toMillis()} ${to.toMillis()} ${from.zoneName} ${unit} ${dateColumn} ${max}`;
  const kept = bucketsMade.get(key);
  if (kept !== undefined) return kept;
  const made = makeBucketsNow(from, to, unit, dateColumn, max);
  if (!('labels' in made) || made.labels.length <= KEPT_BUCKETS) bucketsMade.set(key, made);
  return made;
}

function makeBucketsNow(
  from: DateTime,
  to: DateTime,
  unit: BucketUnit,
  dateColumn: boolean,
  max: number,
): Buckets | { readonly over: number } {
  const labels: string[] = [];
  const ranges: [string, string][] = [];
  const form = (value: DateTime): string =>
    dateColumn ? (value.toISODate() as string) : (value.toUTC().toISO() as string);
  // Luxon's weeks are ISO weeks (Monday first); `startOf` after `plus` keeps each start at the unit's
  // first instant even where a zone skips midnight.
  let start = from.startOf(unit);
  while (start < to) {
    if (labels.length === max) return { over: max };
    const end = start.plus({ [`${unit}s`]: 1 }).startOf(unit);
    labels.push(
      dateColumn
        ? (start.toISODate() as string)
        : (start.toISO({ suppressMilliseconds: true }) as string).replace(/Z$/, '+00:00'),
    );
    ranges.push([form(start < from ? from : start), form(end > to ? to : end)]);
    start = end;
  }
  return { labels, ranges };
}
