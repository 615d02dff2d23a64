import type { AggregateQuery, SchemaDocument } from '../../src/client/index.js';

/** What the dashboard asks for, decided from the schema document alone (tested without a browser). */

export type Column = SchemaDocument['table']['columns'][number];

/** The most months the series shows: a year. */
const MONTHS = 12;

/**
 * What a resource's dashboard can show, from its schema document: a count by the table's first badge
 * column the aggregate route may group by, and a monthly count by the first `<column>:month` key it
 * allows, over the last 12 months (fewer when the endpoint's `maxBuckets` is lower). Each needs the
 * `count` metric. Null when neither applies (no dashboard, no link to one).
 */
export function dashboardParts(
  schema: SchemaDocument,
): { badge: Column | undefined; month: string | undefined; months: number } | null {
  const aggregates = schema.table.aggregates;
  if (!aggregates?.metrics.includes('count')) return null;
  const badge = schema.table.columns.find(
    (column) => column.type === 'badge' && aggregates.groupBy.includes(column.key),
  );
  const month = aggregates.groupBy.find((key) => key.endsWith(':month'));
  if (!badge && !month) return null;
  return { badge, month, months: Math.min(MONTHS, aggregates.maxBuckets) };
}

/** `YYYY-MM-DD` of a local date (the browser's zone, as the series is asked in it). */
const localDate = (date: Date) =>
  `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;

/**
 * The last months up to this one in the browser's time zone: `from` the first day of the earliest,
 * `to` the first day of the next month (exclusive), `tz` the zone the service makes the buckets in.
 */
export function lastMonths(
  count: number,
  now = new Date(),
): Required<Pick<AggregateQuery, 'from' | 'to' | 'tz'>> {
  return {
    from: localDate(new Date(now.getFullYear(), now.getMonth() - (count - 1), 1)),
    to: localDate(new Date(now.getFullYear(), now.getMonth() + 1, 1)),
    tz: Intl.DateTimeFormat().resolvedOptions().timeZone,
  };
}

/**
 * The metric that gives the newest value of a month series' column (`max:created_at`), when the
 * endpoint allows it: the series then ends with the data's own last month, not today's.
 */
export function latestMetric(schema: SchemaDocument, month: string): string | undefined {
  const metric = `max:${month.slice(0, -':month'.length)}`;
  return schema.table.aggregates?.metrics.includes(metric) ? metric : undefined;
}

/**
 * When a series ends: the month of `latest` (the newest value, a date `YYYY-MM-DD` read in the browser's
 * calendar, or an instant), else `now`'s.
 */
export function seriesEnd(latest: unknown, now = new Date()): Date {
  if (typeof latest !== 'string') return now;
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(latest);
  const end = date ? new Date(Number(date[1]), Number(date[2]) - 1, Number(date[3])) : new Date(latest);
  return Number.isNaN(end.getTime()) ? now : end;
}
