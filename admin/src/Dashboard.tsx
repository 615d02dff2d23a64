import { useEffect, useMemo, useState } from 'react';
import {
  type AggregateAnswer,
  type AggregateQuery,
  fetchAggregate,
  type ResourceEntry,
  type SchemaDocument,
} from '../../src/client/index.js';
import { type Column, dashboardParts, lastMonths, latestMetric, seriesEnd } from './counts.js';
import { Cell } from './format.js';
import { unauthorizedMessage, useSession } from './session.js';
import { ErrorBox, errorText, Loading, useDocumentTitle } from './ui.js';

/** A bucket key (`2024-03-01T00:00:00+01:00`, or a date column's `2024-03-01`) → "Mar 2024". */
function monthLabel(key: string): string {
  const [year, month] = key.split('-').map(Number);
  return new Intl.DateTimeFormat(undefined, { month: 'short', year: 'numeric', timeZone: 'UTC' }).format(
    Date.UTC(year ?? 1970, (month ?? 1) - 1, 1),
  );
}

type Loaded = { answer: AggregateAnswer } | { error: string };

/** One aggregate request, again when the token changes; aborted when the view goes. */
function useAggregate(entry: ResourceEntry, query: AggregateQuery | undefined): Loaded | undefined {
  const { options, report } = useSession();
  const [loaded, setLoaded] = useState<Loaded>();
  const key = query && JSON.stringify(query);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` is the query, which is a new object on every render
  useEffect(() => {
    if (!query) return;
    const controller = new AbortController();
    fetchAggregate(entry.list, query, { ...options, signal: controller.signal }).then(
      (answer) => setLoaded({ answer }),
      (error: unknown) => {
        if (controller.signal.aborted) return;
        report(error);
        setLoaded({ error: unauthorizedMessage(error) ?? errorText(error) });
      },
    );
    return () => controller.abort();
  }, [entry.list, key, options, report]);
  return loaded;
}

function countOf(group: AggregateAnswer['data'][number]): number {
  return typeof group.count === 'number' ? group.count : 0;
}

/** A resource's dashboard: what `dashboardParts` finds, each part from one aggregate request. */
export function DashboardView({
  entry,
  schema,
  backHref,
}: {
  entry: ResourceEntry;
  schema: SchemaDocument;
  backHref: string;
}) {
  useDocumentTitle(`${schema.table.title} dashboard`);
  const parts = dashboardParts(schema);
  const months = parts?.months ?? 0;
  // The series ends with the data's newest month where the endpoint says it (max:<column>), else today's.
  const latest = parts?.month ? latestMetric(schema, parts.month) : undefined;
  const extent = useAggregate(entry, latest ? { metrics: latest } : undefined);
  const newest = extent && 'answer' in extent && latest ? extent.answer.data[0]?.[latest] : undefined;
  const ready = latest === undefined || extent !== undefined;
  const range = useMemo(
    () => (ready ? lastMonths(months, seriesEnd(newest)) : undefined),
    [ready, newest, months],
  );
  const byBadge = useAggregate(
    entry,
    parts?.badge ? { metrics: 'count', group_by: parts.badge.key, sort: '-count' } : undefined,
  );
  const series = useAggregate(
    entry,
    parts?.month && range ? { metrics: 'count', group_by: parts.month, ...range } : undefined,
  );

  return (
    <section aria-labelledby="dashboard-title" className="dashboard">
      <p>
        <a href={backHref}>← {schema.table.title}</a>
      </p>
      <h2 id="dashboard-title">{schema.table.title}: dashboard</h2>
      {!parts && <p className="muted">This resource offers no counts to show.</p>}
      {parts?.badge && (
        <figure className="panel" data-testid="dashboard-badge">
          <figcaption>
            {schema.table.title} by {parts.badge.label.toLowerCase()}
          </figcaption>
          <BadgeBars column={parts.badge} loaded={byBadge} />
        </figure>
      )}
      {parts?.month && (
        <figure className="panel" data-testid="dashboard-months">
          <figcaption>
            {schema.table.title} by month of {labelOfBucket(schema, parts.month)}
            {range ? `, the ${months} months to ${monthLabel(monthBefore(range.to))} (${range.tz})` : ''}
          </figcaption>
          <MonthBars bucket={parts.month} loaded={series} />
        </figure>
      )}
    </section>
  );
}

/** `2024-04-01` → `2024-03`: the month before a range's exclusive end, its last. */
function monthBefore(date: string): string {
  const [year = 1970, month = 1] = date.split('-').map(Number);
  return month === 1 ? `${year - 1}-12` : `${year}-${String(month - 1).padStart(2, '0')}`;
}

function labelOfBucket(schema: SchemaDocument, bucket: string): string {
  const key = bucket.slice(0, -':month'.length);
  const column = schema.table.columns.find((candidate) => candidate.key === key);
  return (column?.label ?? key).toLowerCase();
}

function BadgeBars({ column, loaded }: { column: Column; loaded: Loaded | undefined }) {
  if (!loaded) return <Loading />;
  if ('error' in loaded) return <ErrorBox message={loaded.error} />;
  const groups = loaded.answer.data;
  const most = Math.max(1, ...groups.map(countOf));
  if (groups.length === 0) return <p className="muted">No records.</p>;
  return (
    <>
      <ul className="bar-list">
        {groups.map((group) => {
          const value = group.group[column.key];
          const count = countOf(group);
          return (
            <li key={String(value)} data-testid="badge-group" data-key={String(value)} data-count={count}>
              <span className="bar-label">
                <Cell value={value} type="badge" colorMap={column.formatOptions.colorMap} />
              </span>
              <span className="bar-track">
                <span className="bar" style={{ width: `${(count / most) * 100}%` }} />
              </span>
              <span className="bar-count">{count}</span>
            </li>
          );
        })}
      </ul>
      {loaded.answer.meta.truncated && (
        <p className="muted">The {groups.length} largest groups are shown; there are more.</p>
      )}
    </>
  );
}

function MonthBars({ bucket, loaded }: { bucket: string; loaded: Loaded | undefined }) {
  if (!loaded) return <Loading />;
  if ('error' in loaded) return <ErrorBox message={loaded.error} />;
  const groups = loaded.answer.data;
  const most = Math.max(1, ...groups.map(countOf));
  return (
    <ol className="month-bars">
      {groups.map((group) => {
        const key = String(group.group[bucket]);
        const count = countOf(group);
        return (
          <li
            key={key}
            data-testid="month"
            data-key={key}
            data-count={count}
            title={`${monthLabel(key)}: ${count}`}
          >
            <span className="month-count">{count}</span>
            <span className="month-track">
              <span className="bar" style={{ height: `${(count / most) * 100}%` }} />
            </span>
            <span className="month-label">{monthLabel(key)}</span>
          </li>
        );
      })}
    </ol>
  );
}
