import {
  Alert,
  Box,
  Card,
  CardContent,
  CircularProgress,
  MenuItem,
  TextField,
  Typography,
} from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Title, useDataProvider } from 'react-admin';
import type { AggregateAnswer, AggregateQuery, SchemaDocument } from '../../src/client/index.js';
import type { ServiceDataProvider } from '../../src/providers/react-admin.js';
import {
  type DashboardParts,
  dashboardParts,
  openingRange,
  openingUnit,
  type SeriesColumn,
} from './dashboard-plan.js';

const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** One aggregate request of the dashboard, through the data provider (its token, its errors). */
function useAggregate(
  path: string,
  query: (Omit<AggregateQuery, 'filter'> & { filter?: Record<string, unknown> }) | undefined,
) {
  const dataProvider = useDataProvider<ServiceDataProvider>();
  return useQuery<AggregateAnswer, Error>({
    queryKey: [path, 'aggregate', query],
    queryFn: ({ signal }) => dataProvider.getAggregate(path, { ...query, signal }),
    enabled: query !== undefined,
    retry: false,
  });
}

const countOf = (group: AggregateAnswer['data'][number]): number =>
  typeof group.count === 'number' ? group.count : 0;

/** A bucket's key (`2024-03-01T00:00:00+01:00`, or `2024-03-01`) as its start reads in the unit. */
function bucketLabel(key: string, unit: string): string {
  const [year = 1970, month = 1, day = 1] = key.slice(0, 10).split('-').map(Number);
  const date = Date.UTC(year, month - 1, day);
  const options: Intl.DateTimeFormatOptions =
    unit === 'year'
      ? { year: 'numeric' }
      : unit === 'month' || unit === 'quarter'
        ? { month: 'short', year: 'numeric' }
        : { day: 'numeric', month: 'short', year: 'numeric' };
  return new Intl.DateTimeFormat(undefined, { ...options, timeZone: 'UTC' }).format(date);
}

function Bars({
  rows,
  vertical,
}: {
  rows: { key: string; label: string; count: number }[];
  vertical?: boolean;
}) {
  const most = Math.max(1, ...rows.map((row) => row.count));
  if (rows.length === 0) return <Typography color="text.secondary">No records in this range.</Typography>;
  // Every bucket's count shows on hover; a label under every few bars, so they never overlap.
  const every = Math.max(1, Math.ceil(rows.length / 12));
  if (vertical)
    return (
      <Box
        sx={{ display: 'flex', alignItems: 'flex-end', gap: '2px', height: 240, overflowX: 'auto', pt: 3 }}
      >
        {rows.map((row, index) => (
          <Box
            key={row.key}
            data-testid="bucket"
            data-key={row.key}
            data-count={row.count}
            title={`${row.label}: ${row.count}`}
            sx={{
              flex: '1 0 14px',
              height: '100%',
              display: 'flex',
              flexDirection: 'column',
              justifyContent: 'flex-end',
            }}
          >
            <Box
              sx={{
                height: `${(row.count / most) * 100}%`,
                minHeight: row.count ? 2 : 0,
                bgcolor: 'primary.main',
                borderRadius: '2px 2px 0 0',
              }}
            />
            <Typography
              variant="caption"
              noWrap
              sx={{ height: 20, textAlign: 'center', visibility: index % every === 0 ? 'visible' : 'hidden' }}
            >
              {row.label}
            </Typography>
          </Box>
        ))}
      </Box>
    );
  return (
    <Box component="ul" sx={{ listStyle: 'none', p: 0, m: 0 }}>
      {rows.map((row) => (
        <Box
          component="li"
          key={row.key}
          data-testid="group"
          data-key={row.key}
          data-count={row.count}
          sx={{
            display: 'grid',
            gridTemplateColumns: '10rem 1fr 4rem',
            alignItems: 'center',
            gap: 1,
            py: 0.25,
          }}
        >
          <Typography noWrap variant="body2">
            {row.label}
          </Typography>
          <Box sx={{ height: 14, bgcolor: 'action.hover', borderRadius: 1 }}>
            <Box
              sx={{
                height: '100%',
                width: `${(row.count / most) * 100}%`,
                bgcolor: 'primary.main',
                borderRadius: 1,
              }}
            />
          </Box>
          <Typography variant="body2" align="right">
            {row.count}
          </Typography>
        </Box>
      ))}
    </Box>
  );
}

function Answer({
  loaded,
  children,
}: {
  loaded: { isPending: boolean; error: Error | null };
  children: React.ReactNode;
}) {
  if (loaded.error) return <Alert severity="error">{loaded.error.message}</Alert>;
  if (loaded.isPending) return <CircularProgress size={24} />;
  return <>{children}</>;
}

/** The rows of a range, for the group charts: the series column between `from` and `to` where it filters. */
function rangeFilter(schema: SchemaDocument, column: string, range: { from: string; to: string }) {
  const filter = schema.table.filters.find((candidate) => candidate.name === column);
  if (!filter?.operators.includes('gte') || !filter.operators.includes('lt')) return undefined;
  const instant = (day: string) => (filter.value === 'date' ? day : new Date(`${day}T00:00`).toISOString());
  return { [column]: { gte: instant(range.from), lt: instant(range.to) } };
}

function Series({
  path,
  series,
  parts,
  schema,
}: {
  path: string;
  series: SeriesColumn;
  parts: DashboardParts;
  schema: SchemaDocument;
}) {
  const [unit, setUnit] = useState(() => openingUnit(series.units));
  const extent = useAggregate(path, series.extent ? { metrics: series.extent } : undefined);
  const [range, setRange] = useState<{ from: string; to: string }>();
  // The opening range is the data's own extent (min and max of the column), once it is known.
  useEffect(() => {
    if (range || (series.extent && extent.isPending)) return;
    const row = extent.data?.data[0];
    setRange(
      openingRange(row?.[series.extent?.[0] ?? ''], row?.[series.extent?.[1] ?? ''], unit, parts.maxBuckets),
    );
  }, [range, series.extent, extent.isPending, extent.data, unit, parts.maxBuckets]);
  const answer = useAggregate(
    path,
    range
      ? { metrics: 'count', group_by: `${series.column}:${unit}`, from: range.from, to: range.to, tz: zone }
      : undefined,
  );
  const groupFilter = range ? rangeFilter(schema, series.column, range) : undefined;
  return (
    <>
      <Card sx={{ mb: 2 }}>
        <CardContent>
          <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 2, alignItems: 'center', mb: 1 }}>
            <Typography variant="h6" component="h2" sx={{ flex: '1 1 auto' }}>
              {schema.table.title} by {series.label.toLowerCase()}
            </Typography>
            <TextField
              select
              size="small"
              label="Per"
              value={unit}
              sx={{ width: 130 }}
              onChange={(event) => setUnit(event.target.value)}
            >
              {series.units.map((name) => (
                <MenuItem key={name} value={name}>
                  {name}
                </MenuItem>
              ))}
            </TextField>
            <TextField
              size="small"
              type="date"
              label="From"
              sx={{ width: 170 }}
              value={range?.from ?? ''}
              slotProps={{ inputLabel: { shrink: true } }}
              onChange={(event) =>
                range && event.target.value && setRange({ ...range, from: event.target.value })
              }
            />
            <TextField
              size="small"
              type="date"
              label="To (exclusive)"
              sx={{ width: 170 }}
              value={range?.to ?? ''}
              slotProps={{ inputLabel: { shrink: true } }}
              onChange={(event) =>
                range && event.target.value && setRange({ ...range, to: event.target.value })
              }
            />
          </Box>
          <Typography variant="body2" color="text.secondary" data-testid="time-zone">
            Buckets in {zone}
            {series.extent && extent.data
              ? `; the data spans ${String(extent.data.data[0]?.[series.extent[0]] ?? '—')} to ${String(extent.data.data[0]?.[series.extent[1]] ?? '—')}`
              : ''}
          </Typography>
          <Answer loaded={answer}>
            <Bars
              vertical
              rows={(answer.data?.data ?? []).map((group) => {
                const key = String(group.group[`${series.column}:${unit}`]);
                return { key, label: bucketLabel(key, unit), count: countOf(group) };
              })}
            />
          </Answer>
        </CardContent>
      </Card>
      {parts.groups.map((group) => (
        <GroupCard
          key={group.key}
          path={path}
          schema={schema}
          group={group}
          filter={groupFilter}
          range={range}
        />
      ))}
    </>
  );
}

function GroupCard({
  path,
  schema,
  group,
  filter,
  range,
}: {
  path: string;
  schema: SchemaDocument;
  group: DashboardParts['groups'][number];
  filter: Record<string, unknown> | undefined;
  range: { from: string; to: string } | undefined;
}) {
  const answer = useAggregate(path, {
    metrics: 'count',
    group_by: group.key,
    sort: '-count',
    ...(filter ? { filter } : {}),
  });
  return (
    <Card sx={{ mb: 2 }} data-testid={`group-${group.key}`}>
      <CardContent>
        <Typography variant="h6" component="h2">
          {schema.table.title} by {group.label.toLowerCase()}
        </Typography>
        <Typography variant="body2" color="text.secondary" gutterBottom>
          {filter && range ? `From ${range.from} to ${range.to} (exclusive)` : 'All records'}
        </Typography>
        <Answer loaded={answer}>
          <Bars
            rows={(answer.data?.data ?? []).map((row) => ({
              key: String(row.group[group.key]),
              label: String(row.group[group.key] ?? '—'),
              count: countOf(row),
            }))}
          />
          {answer.data?.meta.truncated && (
            <Typography color="text.secondary">The largest groups are shown; there are more.</Typography>
          )}
        </Answer>
      </CardContent>
    </Card>
  );
}

/** A resource's dashboard from its aggregates: counts over time in a picked range, and by each group. */
export function DashboardPage({ path, schema }: { path: string; schema: SchemaDocument }) {
  const parts = dashboardParts(schema);
  const [column, setColumn] = useState(parts?.series[0]?.column);
  const series = parts?.series.find((candidate) => candidate.column === column);
  return (
    <Box sx={{ mt: 2 }}>
      <Title title={`${schema.table.title} dashboard`} />
      {!parts && <Alert severity="info">This resource offers no counts to show.</Alert>}
      {parts && parts.series.length > 1 && (
        <TextField
          select
          size="small"
          label="Over"
          value={column}
          sx={{ width: 220, mb: 2 }}
          onChange={(event) => setColumn(event.target.value)}
        >
          {parts.series.map((candidate) => (
            <MenuItem key={candidate.column} value={candidate.column}>
              {candidate.label}
            </MenuItem>
          ))}
        </TextField>
      )}
      {parts && series && (
        <Series key={series.column} path={path} series={series} parts={parts} schema={schema} />
      )}
      {parts &&
        !series &&
        parts.groups.map((group) => (
          <GroupCard
            key={group.key}
            path={path}
            schema={schema}
            group={group}
            filter={undefined}
            range={undefined}
          />
        ))}
    </Box>
  );
}
