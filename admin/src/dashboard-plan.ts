import type { SchemaDocument } from '../../src/client/index.js';

/** What a resource's dashboard asks for, decided from its schema document alone (tested without a browser). */

/** A date column the aggregate route buckets, with the units it allows (`created_at:month` → `month`). */
export interface SeriesColumn {
  column: string;
  label: string;
  units: string[];
  /** `min:<column>` and `max:<column>`, when the endpoint allows both: the data's own extent. */
  extent: [string, string] | undefined;
}

export interface DashboardParts {
  series: SeriesColumn[];
  /** Group keys that are not date buckets: a bar of counts by each (`status`, `department.name`). */
  groups: { key: string; label: string }[];
  maxBuckets: number;
}

/** The finest unit first: a unit the user picks from these. */
const unitOrder = ['hour', 'day', 'week', 'month', 'quarter', 'year'];

const labelOf = (schema: SchemaDocument, key: string): string =>
  schema.table.columns.find((column) => column.key === key)?.label ??
  schema.detail.fields.find((field) => field.key === key)?.label ??
  schema.table.filters.find((filter) => filter.name === key)?.label ??
  key;

/**
 * What a resource's dashboard can show: counts by date bucket and by group, each needing the `count`
 * metric. Null when there is nothing to show (no dashboard, no link to one).
 */
export function dashboardParts(schema: SchemaDocument): DashboardParts | null {
  const aggregates = schema.table.aggregates;
  if (!aggregates?.metrics.includes('count')) return null;
  const series = new Map<string, string[]>();
  const groups: DashboardParts['groups'] = [];
  for (const key of aggregates.groupBy) {
    const [column = '', unit] = key.split(':');
    if (unit) series.set(column, [...(series.get(column) ?? []), unit]);
    else groups.push({ key, label: labelOf(schema, key) });
  }
  if (series.size === 0 && groups.length === 0) return null;
  return {
    series: [...series].map(([column, units]) => {
      const min = `min:${column}`;
      const max = `max:${column}`;
      const extent =
        aggregates.metrics.includes(min) && aggregates.metrics.includes(max) ? [min, max] : undefined;
      return {
        column,
        label: labelOf(schema, column),
        units: units.sort((a, b) => unitOrder.indexOf(a) - unitOrder.indexOf(b)),
        extent: extent as [string, string] | undefined,
      };
    }),
    groups,
    maxBuckets: aggregates.maxBuckets,
  };
}

/** `YYYY-MM-DD` of a date in the browser's calendar (the zone the buckets are asked in). */
export const localDate = (date: Date): string =>
  `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;

/** A value of `min:`/`max:` (a `YYYY-MM-DD` date, or an instant) as a date of the browser's calendar. */
export function calendarDate(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const date = day ? new Date(Number(day[1]), Number(day[2]) - 1, Number(day[3])) : new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** How many buckets of `unit` a range spans, at most (the service refuses more than `maxBuckets`). */
function bucketsIn(from: Date, to: Date, unit: string): number {
  const days = (to.getTime() - from.getTime()) / 86_400_000;
  const perBucket: Record<string, number> = {
    hour: 1 / 24,
    day: 1,
    week: 7,
    month: 28,
    quarter: 89,
    year: 365,
  };
  return Math.ceil(days / (perBucket[unit] ?? 1)) + 1;
}

/**
 * The range a dashboard opens on: the data's own extent (its oldest and newest values, `from` the first
 * day, `to` the day after the last, exclusive) when known, else the last year up to today; shortened
 * from its start to what `maxBuckets` of the unit hold.
 */
export function openingRange(
  oldest: unknown,
  newest: unknown,
  unit: string,
  maxBuckets: number,
  now = new Date(),
): { from: string; to: string } {
  const last = calendarDate(newest) ?? now;
  const end = new Date(last.getFullYear(), last.getMonth(), last.getDate() + 1);
  let start = calendarDate(oldest) ?? new Date(end.getFullYear() - 1, end.getMonth(), end.getDate());
  start = new Date(start.getFullYear(), start.getMonth(), start.getDate());
  while (bucketsIn(start, end, unit) > maxBuckets)
    start = new Date(
      start.getFullYear(),
      start.getMonth(),
      start.getDate() + Math.ceil((end.getTime() - start.getTime()) / 86_400_000 / 10),
    );
  return { from: localDate(start), to: localDate(end) };
}

/** The unit a series opens with: months where allowed, else the coarsest finer one, else the first. */
export const openingUnit = (units: readonly string[]): string =>
  units.includes('month')
    ? 'month'
    : (units.filter((unit) => unitOrder.indexOf(unit) < 3).at(-1) ?? units[0] ?? 'month');
