import { describe, expect, it } from 'vitest';
import { resources } from '../examples/demo/resources.js';
import { ConfigurationError } from '../src/errors/configuration-error.js';
import { compileEndpoint } from '../src/plan/endpoint.js';
import { defineEndpoint, defineResource, type EndpointPolicy } from '../src/resource/policy.js';
import { resolveResources } from '../src/resource/resolve.js';
import { dialects } from './support/databases.js';
import { departments, insertUsers, type UserRow, users } from './support/fixture.js';
import { hostNames } from './support/hosts.js';
import { useService } from './support/service.js';

type Rec = Record<string, unknown>;

const metrics = [
  'count',
  'count_distinct:department_id',
  'sum:balance',
  'avg:balance',
  'sum:score',
  'avg:score',
  'min:balance',
  'max:balance',
  'min:score',
  'max:score',
  'min:created_at',
  'max:created_at',
  'min:name',
  'max:name',
  'min:birthday',
  'max:birthday',
];
const units = ['day', 'week', 'month', 'quarter', 'year'] as const;
const stats = defineEndpoint({
  resource: 'users',
  path: 'stats',
  allowedFilters: ['status', 'trashed', 'score'],
  allowedSearch: ['name'],
  aggregates: {
    allowedAggregates: metrics,
    allowedGroupBy: [
      'status',
      'department_id',
      'birthday',
      'department.name',
      ...units.map((unit) => `created_at:${unit}`),
      'birthday:month',
    ],
    maxGroups: 400,
    maxBuckets: 400,
  },
  schema: { table: { columns: [{ key: 'name' }] } },
});
const small = defineEndpoint({
  resource: 'users',
  path: 'stats-small',
  aggregates: {
    allowedAggregates: ['count', 'sum:balance'],
    allowedGroupBy: ['status', 'created_at:day'],
    maxGroups: 2,
    maxBuckets: 5,
  },
});
/** The default maxBuckets (1,000): more bucket numbers than one UNION of SQLite may hold. */
const long = defineEndpoint({
  resource: 'users',
  path: 'stats-long',
  aggregates: { allowedAggregates: ['count'], allowedGroupBy: ['created_at:day'] },
});
const plain = defineEndpoint({
  resource: 'users',
  path: 'plain',
  allowedFilters: ['status'],
  schema: { table: { columns: [{ key: 'name' }] } },
});
const endpoints = [stats, small, long, plain];

/**
 * Users beyond the fixture that make aggregates hard: decimals whose float sum is not exact (0.1 +
 * 0.2), NULL departments, and rows around Berlin's daylight-saving change on 2024-03-31 (01:00 UTC):
 * at local midnight before and after it, at 00:59:59, 01:00, 02:00 and 03:00 UTC, and at the last
 * second of March in local time.
 */
const instants = [
  '2024-02-29T23:00:00.000Z', // 2024-03-01 00:00 in Berlin (CET)
  '2024-03-30T23:00:00.000Z', // 2024-03-31 00:00 CET
  '2024-03-31T00:59:59.000Z', // 01:59:59 CET, the last second before the change
  '2024-03-31T01:00:00.000Z', // 03:00 CEST
  '2024-03-31T02:00:00.000Z',
  '2024-03-31T03:00:00.000Z',
  '2024-03-31T21:59:59.000Z', // 23:59:59 CEST: still March in Berlin, April 1 nowhere
  '2024-03-31T22:00:00.000Z', // 2024-04-01 00:00 CEST, still March in UTC
  '2024-04-01T00:00:00.000Z',
  '2024-04-29T12:00:00.000Z',
];
const extraUsers: UserRow[] = instants.map((created_at, i) => ({
  id: 500 + i,
  name: `Aggregate ${i}`,
  email: `aggregate${i}@example.org`,
  status: (['active', 'inactive', 'banned'] as const)[i % 3] as UserRow['status'],
  score: i * 7 - 20,
  balance: [0.1, 0.2, 0.3, 1234.55, -0.05, 99.99, 0.01, 10, 0.7, 3.33][i] as number,
  is_admin: false,
  birthday: i % 4 === 0 ? null : `1990-0${1 + (i % 3)}-1${i % 9}`,
  settings: null,
  department_id: [1, 2, 3, null][i % 4] ?? null,
  created_at,
  deleted_at: i === 9 ? '2025-01-01T00:00:00.000Z' : null,
}));
const allUsers = [...users, ...extraUsers];
const visible = () => allUsers.filter((user) => user.deleted_at === null);

// ---- The oracle: every expectation computed here from the rows, in plain JavaScript ----

const cents = (value: number) => BigInt(Math.round(value * 100));
function decimal(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const text = scale > 0 ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return negative ? `-${text}` : text;
}
/** The average of whole units at `scale`, answered with 4 more decimals, rounded half away from zero. */
function average(total: bigint, count: number, scale: number): string {
  const scaled = total * 10_000n;
  const sign = scaled < 0n ? -1n : 1n;
  const magnitude = scaled * sign;
  const n = BigInt(count);
  const rounded = magnitude / n + ((magnitude % n) * 2n >= n ? 1n : 0n);
  return decimal(rounded * sign, scale + 4);
}
/**
 * Text order per engine, as docs/databases.md documents it: MariaDB's columns here are utf8mb4_general_ci
 * (case-insensitive), PostgreSQL's test databases and SQLite compare by code point.
 */
let textKey: (value: string) => string = (value) => value;
const sortable = (value: unknown) => (typeof value === 'string' ? textKey(value) : (value as number));
const ordered = <T>(values: T[]) =>
  [...values].sort((a, b) => (sortable(a) < sortable(b) ? -1 : sortable(a) > sortable(b) ? 1 : 0));

function metricOf(name: string, rows: UserRow[]): unknown {
  if (name === 'count') return rows.length;
  const [fn, column] = name.split(':') as [string, keyof UserRow];
  const values = rows.map((row) => row[column]).filter((value) => value !== null);
  switch (fn) {
    case 'count_distinct':
      return new Set(values).size;
    case 'sum':
      if (values.length === 0) return null;
      return column === 'balance'
        ? decimal(
            values.reduce((sum: bigint, value) => sum + cents(value as number), 0n),
            2,
          )
        : values.reduce((sum: number, value) => sum + (value as number), 0);
    case 'avg': {
      if (values.length === 0) return null;
      const total =
        column === 'balance'
          ? values.reduce((sum: bigint, value) => sum + cents(value as number), 0n)
          : BigInt(values.reduce((sum: number, value) => sum + (value as number), 0));
      return average(total, values.length, column === 'balance' ? 2 : 0);
    }
    case 'min':
      return values.length === 0 ? null : ordered(values)[0];
    case 'max':
      return values.length === 0 ? null : ordered(values)[values.length - 1];
  }
  throw new Error(name);
}

function keyOf(row: UserRow, name: string): unknown {
  if (name === 'department.name') return departments.find((d) => d.id === row.department_id)?.name ?? null;
  return row[name as keyof UserRow];
}

/** The oracle's groups, in the service's default order: keys ascending, NULL first. */
function grouped(rows: UserRow[], groupBy: string[], names: string[]): Rec[] {
  const groups = new Map<string, UserRow[]>();
  for (const row of rows) {
    const key = JSON.stringify(groupBy.map((name) => keyOf(row, name)));
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  const compare = (a: unknown[], b: unknown[]) => {
    for (const [i, x] of a.entries()) {
      const y = b[i];
      if (x === y) continue;
      if (x === null) return -1;
      if (y === null) return 1;
      return (sortable(x) as string) < (sortable(y) as string) ? -1 : 1;
    }
    return 0;
  };
  return [...groups.entries()]
    .map(([key, members]) => ({ keys: JSON.parse(key) as unknown[], members }))
    .sort((a, b) => compare(a.keys, b.keys))
    .map(({ keys, members }) => ({
      group: Object.fromEntries(groupBy.map((name, i) => [name, keys[i]])),
      ...Object.fromEntries(names.map((name) => [name, metricOf(name, members)])),
    }));
}

/** The local date and time parts of an instant in a zone, by Intl (not the library the service uses). */
function localParts(iso: string, zone: string) {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(iso));
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return { year: part('year'), month: part('month'), day: part('day') };
}

/** One row of metrics over `rows`, without groups. */
const metricRow = (rows: UserRow[]): Rec => ({
  group: {},
  ...Object.fromEntries(metrics.map((name) => [name, metricOf(name, rows)])),
});

interface Bucket {
  start: string;
  label: string;
}
/** The UTC buckets of [from, to) by hand: Date arithmetic, ISO weeks starting on Monday. */
function utcBuckets(from: string, to: string, unit: (typeof units)[number]): Bucket[] {
  const begin = new Date(`${from}T00:00:00Z`);
  const startOf = (date: Date): Date => {
    const y = date.getUTCFullYear();
    const m = date.getUTCMonth();
    if (unit === 'day') return new Date(Date.UTC(y, m, date.getUTCDate()));
    if (unit === 'week') return new Date(Date.UTC(y, m, date.getUTCDate() - ((date.getUTCDay() + 6) % 7)));
    if (unit === 'month') return new Date(Date.UTC(y, m, 1));
    if (unit === 'quarter') return new Date(Date.UTC(y, m - (m % 3), 1));
    return new Date(Date.UTC(y, 0, 1));
  };
  const next = (date: Date): Date => {
    const copy = new Date(date);
    if (unit === 'day') copy.setUTCDate(copy.getUTCDate() + 1);
    else if (unit === 'week') copy.setUTCDate(copy.getUTCDate() + 7);
    else if (unit === 'month') copy.setUTCMonth(copy.getUTCMonth() + 1);
    else if (unit === 'quarter') copy.setUTCMonth(copy.getUTCMonth() + 3);
    else copy.setUTCFullYear(copy.getUTCFullYear() + 1);
    return copy;
  };
  const buckets: Bucket[] = [];
  for (let at = startOf(begin); at < new Date(`${to}T00:00:00Z`); at = next(at)) {
    const iso = at.toISOString();
    buckets.push({
      start: at < begin ? begin.toISOString() : iso,
      label: `${iso.slice(0, 19)}+00:00`,
    });
  }
  return buckets;
}

/** The rows of bucket `index` (the last bucket holds the rest: the rows were cut at the range's end). */
const inBucket = (rows: UserRow[], labels: Bucket[], index: number): UserRow[] =>
  rows.filter(
    (user) =>
      user.created_at >= (labels[index] as Bucket).start &&
      (index + 1 === labels.length || user.created_at < (labels[index + 1] as Bucket).start),
  );

describe.each(dialects)('aggregates on %s', (dialect) => {
  const svc = useService(dialect, 'aggregates', { endpoints });

  const get = async (query: string, path = 'stats') => {
    if (!svc.conn.db) throw new Error('no database');
    return svc.get(`/api/${path}/aggregate?${query}`);
  };
  let inserted = false;
  const ready = async () => {
    textKey = dialect === 'mysql' ? (value) => value.toLowerCase() : (value) => value;
    if (!inserted) await insertUsers(svc.conn, extraUsers);
    inserted = true;
  };

  it('counts, sums and averages every row the list shows, exactly', async () => {
    await ready();
    const names = metrics.join(',');
    const response = await get(`metrics=${names}`);
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual(grouped(visible(), [], metrics));
    expect(response.body.meta).toEqual({
      metrics,
      group_by: [],
      tz: 'UTC',
      limit: 400,
      truncated: false,
    });
  });

  it('groups by a column, a NULL key being its own group, and keeps the list filters', async () => {
    await ready();
    const names = ['count', 'sum:balance', 'avg:score', 'min:created_at'];
    for (const group of ['status', 'department_id', 'birthday']) {
      const response = await get(`metrics=${names.join(',')}&group_by=${group}`);
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual(grouped(visible(), [group], names));
    }
    const active = await get('metrics=count,sum:balance&group_by=department_id&filter[status]=active');
    expect(active.body.data).toEqual(
      grouped(
        visible().filter((user) => user.status === 'active'),
        ['department_id'],
        ['count', 'sum:balance'],
      ),
    );
    const searched = await get('metrics=count&group_by=status&search=aggregate');
    expect(searched.body.data).toEqual(
      grouped(
        visible().filter((user) => user.name.toLowerCase().includes('aggregate')),
        ['status'],
        ['count'],
      ),
    );
    const trashed = await get('metrics=count&group_by=status&filter[trashed]=true');
    expect(trashed.body.data).toEqual(grouped(allUsers, ['status'], ['count']));
  });

  it('answers an empty selection with count 0 and NULL for the other metrics', async () => {
    await ready();
    const response = await get(`metrics=${metrics.join(',')}&filter[score][gt]=100000`);
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual([metricRow([])]);
    expect(response.body.data[0]).toMatchObject({ count: 0, 'sum:balance': null, 'avg:balance': null });
    const none = await get('metrics=count&group_by=status&filter[score][gt]=100000');
    expect(none.body.data).toEqual([]);
  });

  it('groups through a to-one relation path', async () => {
    await ready();
    const names = ['count', 'sum:balance'];
    const response = await get(`metrics=${names.join(',')}&group_by=department.name,status`);
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual(grouped(visible(), ['department.name', 'status'], names));
  });

  it('orders by a metric or a key, then by every key', async () => {
    await ready();
    const expected = grouped(visible(), ['department_id', 'status'], ['count', 'sum:balance']);
    const byCount = await get('metrics=count,sum:balance&group_by=department_id,status&sort=-count');
    const stable = [...expected].sort((a, b) => (b.count as number) - (a.count as number));
    expect(byCount.body.data).toEqual(stable);
    const byStatus = await get('metrics=count&group_by=department_id,status&sort=-status');
    const statusKeys = byStatus.body.data.map((row: Rec) => (row.group as Rec).status);
    expect(statusKeys).toEqual(ordered(statusKeys as string[]).reverse());
  });

  it('cuts at limit and says so, never silently', async () => {
    await ready();
    const all = grouped(visible(), ['department_id', 'status'], ['count']);
    const cut = await get('metrics=count&group_by=department_id,status&limit=3');
    expect(cut.body.data).toEqual(all.slice(0, 3));
    expect(cut.body.meta).toMatchObject({ limit: 3, truncated: true });
    const whole = await get(`metrics=count&group_by=department_id,status&limit=${all.length}`);
    expect(whole.body.data).toEqual(all);
    expect(whole.body.meta.truncated).toBe(false);
    // The endpoint's maxGroups (2) cuts without a limit too.
    const capped = await get('metrics=count&group_by=status', 'stats-small');
    expect(capped.body.data).toEqual(grouped(visible(), ['status'], ['count']).slice(0, 2));
    expect(capped.body.meta).toMatchObject({ limit: 2, truncated: true });
  });

  it('keeps the groups whose metrics meet having', async () => {
    await ready();
    const all = grouped(visible(), ['department_id'], ['count', 'sum:balance', 'max:created_at']);
    const cases: [string, (row: Rec) => boolean][] = [
      ['having[count][gte]=5', (row) => (row.count as number) >= 5],
      ['having[count][lt]=5&having[count][neq]=2', (row) => (row.count as number) < 5 && row.count !== 2],
      ['having[sum:balance][gt]=100.5', (row) => Number(row['sum:balance']) > 100.5],
      [
        'having[max:created_at][gte]=2024-04-01T00:00:00Z',
        (row) => String(row['max:created_at']) >= '2024-04-01T00:00:00.000Z',
      ],
    ];
    for (const [having, keep] of cases) {
      const response = await get(`metrics=count,sum:balance,max:created_at&group_by=department_id&${having}`);
      expect(response.status).toBe(200);
      const expected = all.filter(keep);
      expect(expected.length).toBeGreaterThan(0);
      expect(expected.length).toBeLessThan(all.length);
      expect(response.body.data).toEqual(expected);
    }
  });

  it('buckets each unit in UTC, empty buckets as zeros', async () => {
    await ready();
    const from = '2023-12-01';
    const to = '2024-05-01';
    const rows = visible().filter((user) => user.created_at >= `${from}T` && user.created_at < `${to}T`);
    for (const unit of units) {
      const response = await get(
        `metrics=count,sum:balance&group_by=created_at:${unit}&from=${from}&to=${to}`,
      );
      expect(response.status).toBe(200);
      const labels = utcBuckets(from, to, unit);
      const expected = labels.map((label, i) => {
        const members = inBucket(rows, labels, i);
        return {
          group: { [`created_at:${unit}`]: label.label },
          count: members.length,
          'sum:balance': metricOf('sum:balance', members),
        };
      });
      expect(response.body.data).toEqual(expected);
      if (unit === 'day' || unit === 'week') expect(expected.some((row) => row.count === 0)).toBe(true);
    }
  });

  // A series grouped by its buckets alone: SQLite reads each of up to 64 buckets in a UNION ALL branch
  // of its own (SqlDialect.bucketBranches), the others number the rows with a CASE; the answers agree.
  it('measures a series of buckets alone with every metric, empty buckets included, through having, order and limit', async () => {
    await ready();
    const from = '2023-12-01';
    const to = '2024-05-01';
    const rows = visible().filter((user) => user.created_at >= `${from}T` && user.created_at < `${to}T`);
    for (const [unit, filter] of [
      ['week', ''],
      ['month', '&filter[score][gte]=40'],
    ] as const) {
      const labels = utcBuckets(from, to, unit);
      const kept = filter ? rows.filter((user) => user.score !== null && user.score >= 40) : rows;
      const all = labels.map((label, bucket) => {
        const members = inBucket(kept, labels, bucket);
        const answer: Rec = { ...metricRow(members), group: { [`created_at:${unit}`]: label.label } };
        return { bucket, answer };
      });
      if (unit === 'week') expect(all.some((entry) => entry.answer.count === 0)).toBe(true);
      type Entry = (typeof all)[number];
      const count = (entry: Entry) => entry.answer.count as number;
      const cases: [string, (entry: Entry) => boolean, (a: Entry, b: Entry) => number, number][] = [
        ['', () => true, (a, b) => a.bucket - b.bucket, 400],
        ['having[count][lt]=2', (entry) => count(entry) < 2, (a, b) => a.bucket - b.bucket, 400],
        [
          `sort=-count,created_at:${unit}&limit=3`,
          () => true,
          (a, b) => count(b) - count(a) || a.bucket - b.bucket,
          3,
        ],
        [
          `sort=-created_at:${unit}&limit=2&having[count][gte]=1`,
          (entry) => count(entry) >= 1,
          (a, b) => b.bucket - a.bucket,
          2,
        ],
      ];
      for (const [query, keep, order, limit] of cases) {
        const response = await get(
          `metrics=${metrics.join(',')}&group_by=created_at:${unit}&from=${from}&to=${to}${filter}&${query}`,
        );
        expect(response.status, `${unit} ${query}`).toBe(200);
        const expected = all.filter(keep).sort(order);
        expect(response.body.data, `${unit} ${query}`).toEqual(
          expected.slice(0, limit).map((entry) => entry.answer),
        );
        expect(response.body.meta.truncated, `${unit} ${query}`).toBe(expected.length > limit);
      }
    }
  });

  it('answers a series whose filter binds hundreds of values, past what a branch per bucket could bind', async () => {
    await ready();
    // 64 weekly buckets and 600 listed scores: a branch per bucket would bind 64 × 602 values, more than
    // SQLite takes (32,766); the rows are numbered by the CASE instead.
    const from = '2023-06-05';
    const to = '2024-08-26';
    const labels = utcBuckets(from, to, 'week');
    expect(labels).toHaveLength(64);
    const lists = Array.from({ length: 6 }, (_, group) =>
      Array.from({ length: 100 }, (_, i) => -(group * 100 + i + 1)),
    );
    lists[0]?.splice(0, 3, 10, 50, 90);
    const scores = new Set(lists.flat());
    const filter = lists.map((list, group) => `filter[or][${group}][score][in]=${list.join(',')}`).join('&');
    const response = await get(`metrics=count&group_by=created_at:week&from=${from}&to=${to}&${filter}`);
    expect(response.status).toBe(200);
    const rows = visible().filter(
      (user) =>
        user.created_at >= `${from}T` && user.created_at < `${to}T` && scores.has(user.score as number),
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(response.body.data).toEqual(
      labels.map((label, bucket) => ({
        group: { 'created_at:week': label.label },
        count: inBucket(rows, labels, bucket).length,
      })),
    );
  });

  it('answers an empty bucket beside other keys, and applies having, order and limit to it', async () => {
    await ready();
    const from = '2024-03-01';
    const to = '2024-05-01';
    const labels = utcBuckets(from, to, 'day');
    const rows = visible().filter((user) => user.created_at >= `${from}T` && user.created_at < `${to}T`);
    const all = labels.flatMap((label, bucket) => {
      const members = inBucket(rows, labels, bucket);
      const groups =
        members.length === 0
          ? [{ group: { status: null }, count: 0, 'sum:balance': null }]
          : grouped(members, ['status'], ['count', 'sum:balance']);
      return groups.map((group) => ({
        bucket,
        answer: {
          group: { 'created_at:day': label.label, status: (group.group as Rec).status },
          count: group.count as number,
          'sum:balance': group['sum:balance'],
        },
      }));
    });
    type Entry = (typeof all)[number];
    const status = (entry: Entry) => entry.answer.group.status as string | null;
    const byKeys = (a: Entry, b: Entry) => {
      if (a.bucket !== b.bucket) return a.bucket - b.bucket;
      const [x, y] = [status(a), status(b)];
      if (x === y) return 0;
      if (x === null) return -1;
      if (y === null) return 1;
      return sortable(x) < sortable(y) ? -1 : 1;
    };
    const cases: [string, (entry: Entry) => boolean, (a: Entry, b: Entry) => number, number][] = [
      ['', () => true, byKeys, 400],
      ['having[count][lt]=2', (entry) => entry.answer.count < 2, byKeys, 400],
      ['having[sum:balance][gt]=0', (entry) => Number(entry.answer['sum:balance'] ?? 0) > 0, byKeys, 400],
      ['sort=-count&limit=7', () => true, (a, b) => b.answer.count - a.answer.count || byKeys(a, b), 7],
      [
        'sort=count,-created_at:day&limit=5&having[count][lte]=1',
        (entry) => entry.answer.count <= 1,
        (a, b) => a.answer.count - b.answer.count || b.bucket - a.bucket || byKeys(a, b),
        5,
      ],
    ];
    expect(all.some((entry) => entry.answer.count === 0)).toBe(true);
    for (const [query, keep, order, limit] of cases) {
      const response = await get(
        `metrics=count,sum:balance&group_by=created_at:day,status&from=${from}&to=${to}&${query}`,
      );
      expect(response.status, query).toBe(200);
      const expected = all.filter(keep).sort(order);
      expect(response.body.data, query).toEqual(expected.slice(0, limit).map((entry) => entry.answer));
      expect(response.body.meta.truncated, query).toBe(expected.length > limit);
    }
  });

  it('answers as many buckets as the default maxBuckets allows', async () => {
    await ready();
    const from = '2021-12-06';
    const to = '2024-09-01';
    const labels = utcBuckets(from, to, 'day');
    expect(labels.length).toBe(1000);
    const rows = visible().filter((user) => user.created_at >= `${from}T` && user.created_at < `${to}T`);
    const response = await get(`metrics=count&group_by=created_at:day&from=${from}&to=${to}`, 'stats-long');
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual(
      labels.map((label, i) => ({
        group: { 'created_at:day': label.label },
        count: inBucket(rows, labels, i).length,
      })),
    );
    expect(rows.length).toBeGreaterThan(0);
  });

  it('buckets in a zone with a daylight-saving change inside the range', async () => {
    await ready();
    const zone = 'Europe/Berlin';
    const rows = visible().filter(
      (user) => user.created_at >= '2024-02-29T23:00:00.000Z' && user.created_at < '2024-04-30T22:00:00.000Z',
    );
    const monthly = await get(
      `metrics=count&group_by=created_at:month&tz=${zone}&from=2024-03-01&to=2024-05-01`,
    );
    expect(monthly.status).toBe(200);
    const inMonth = (month: number) =>
      rows.filter((user) => localParts(user.created_at, zone).month === month).length;
    expect(monthly.body.data).toEqual([
      { group: { 'created_at:month': '2024-03-01T00:00:00+01:00' }, count: inMonth(3) },
      { group: { 'created_at:month': '2024-04-01T00:00:00+02:00' }, count: inMonth(4) },
    ]);
    expect(monthly.body.meta.tz).toBe(zone);
    const daily = await get(`metrics=count&group_by=created_at:day&tz=${zone}&from=2024-03-30&to=2024-04-02`);
    const onDay = (day: number, month: number) =>
      visible().filter((user) => {
        const local = localParts(user.created_at, zone);
        return local.year === 2024 && local.month === month && local.day === day;
      }).length;
    expect(daily.body.data).toEqual([
      { group: { 'created_at:day': '2024-03-30T00:00:00+01:00' }, count: onDay(30, 3) },
      { group: { 'created_at:day': '2024-03-31T00:00:00+01:00' }, count: onDay(31, 3) },
      { group: { 'created_at:day': '2024-04-01T00:00:00+02:00' }, count: onDay(1, 4) },
    ]);
    // The changeover day is 23 hours long: its six rows, from local midnight to 23:59:59.
    expect(daily.body.data[1].count).toBe(6);
    // ISO weeks (Monday first) across the change: the week of March 25 is an hour shorter.
    const weekly = await get(
      `metrics=count&group_by=created_at:week&tz=${zone}&from=2024-03-25&to=2024-04-08`,
    );
    const localDate = (iso: string) => {
      const local = localParts(iso, zone);
      return `${local.year}-${String(local.month).padStart(2, '0')}-${String(local.day).padStart(2, '0')}`;
    };
    const inWeek = (first: string, next: string) =>
      visible().filter((user) => localDate(user.created_at) >= first && localDate(user.created_at) < next)
        .length;
    expect(weekly.body.data).toEqual([
      {
        group: { 'created_at:week': '2024-03-25T00:00:00+01:00' },
        count: inWeek('2024-03-25', '2024-04-01'),
      },
      {
        group: { 'created_at:week': '2024-04-01T00:00:00+02:00' },
        count: inWeek('2024-04-01', '2024-04-08'),
      },
    ]);
    expect(weekly.body.data[0].count).toBeGreaterThanOrEqual(6);
    // An instant bound with an offset is the same instant.
    const shifted = await get(
      `metrics=count&group_by=created_at:month&tz=${zone}&from=2024-03-01T00:00:00%2B01:00&to=2024-04-01T00:00:00%2B02:00`,
    );
    expect(shifted.body.data).toEqual([monthly.body.data[0]]);
  });

  it('buckets a date column by its dates', async () => {
    await ready();
    const response = await get(
      'metrics=count&group_by=birthday:month&from=1990-01-01&to=1990-04-01&tz=Europe/Berlin',
    );
    expect(response.status).toBe(200);
    const count = (month: string) =>
      visible().filter((user) => user.birthday?.startsWith(`1990-${month}`)).length;
    expect(response.body.data).toEqual([
      { group: { 'birthday:month': '1990-01-01' }, count: count('01') },
      { group: { 'birthday:month': '1990-02-01' }, count: count('02') },
      { group: { 'birthday:month': '1990-03-01' }, count: count('03') },
    ]);
  });

  it('refuses what the whitelist does not allow, keyed by the parameter', async () => {
    await ready();
    const refusals: [string, string, string][] = [
      ['metrics=sum:password_hash', 'metrics', 'sum:password_hash'],
      ['metrics=max:password_hash', 'metrics', 'max:password_hash'],
      ['metrics=median:score', 'metrics', 'median:score'],
      ['group_by=password_hash', 'group_by', 'password_hash'],
      ['group_by=email', 'group_by', 'email'],
      ['group_by=created_at:hour&from=2024-01-01&to=2024-02-01', 'group_by', 'created_at:hour'],
      ['group_by=created_at:month&to=2024-02-01', 'from', 'from'],
      ['group_by=created_at:month&from=2024-01-01', 'to', 'to'],
      ['group_by=created_at:day&from=2023-01-01&to=2025-01-01', 'group_by', '400'],
      [
        'group_by=created_at:month,created_at:day&from=2024-01-01&to=2024-02-01',
        'group_by',
        'one date bucket',
      ],
      ['group_by=created_at:month&from=2024-01-01T00:00:00&to=2024-02-01', 'from', 'offset'],
      ['group_by=created_at:month&from=2024-02-01&to=2024-01-01', 'to', 'after'],
      ['group_by=created_at:month&from=2024-01-01&to=2024-02-01&tz=Mars/Olympus', 'tz', 'Mars/Olympus'],
      ['from=2024-01-01', 'from', 'bucket'],
      ['group_by=birthday:month&from=1990-01-01T00:00:00Z&to=1990-02-01', 'from', 'YYYY-MM-DD'],
      ['group_by=created_at:month&from=2024-13-01&to=2025-01-01', 'from', 'date'],
      ['sort=-score', 'sort', 'score'],
      ['limit=401', 'limit', '400'],
      ['limit=0', 'limit', '400'],
      ['having[count][like]=3', 'having.count', 'gte'],
      ['having[sum:balance][gt]=1', 'having.sum:balance', 'not a requested metric'],
      ['metrics=sum:balance&having[sum:balance][gt]=1.001', 'having.sum:balance', '2 decimals'],
      ['metrics=avg:score&having[avg:score][gt]=1', 'having.avg:score', 'average'],
      ['page=2', 'page', 'aggregates'],
      ['per_page=5', 'per_page', 'aggregates'],
      ['cursor=abc', 'cursor', 'aggregates'],
      ['include=roles', 'include', 'aggregates'],
      ['fields=name', 'fields', 'aggregates'],
      ['all=true', 'all', 'aggregates'],
      ['format=csv', 'format', 'aggregates'],
      ['include_limit[posts]=2', 'include_limit', 'aggregates'],
      ['include_sort[posts]=-id', 'include_sort', 'aggregates'],
      ['include_filter[posts][status]=draft', 'include_filter', 'aggregates'],
      ['filter[email]=x', 'filter.email', 'email'],
      ['bogus=1', 'bogus', 'bogus'],
      ['having[__proto__][gt]=1', 'having.__proto__.gt', '__proto__'],
      ['metrics=', 'metrics', 'at least one'],
    ];
    for (const [query, key, named] of refusals) {
      const response = await get(query);
      expect(response.status, query).toBe(422);
      expect(Object.keys(response.body.errors), query).toEqual([key]);
      expect(response.body.errors[key].join(' '), query).toContain(named);
    }
    const tooMany = await get(
      'metrics=count&group_by=created_at:day&from=2024-01-01&to=2024-01-07',
      'stats-small',
    );
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.errors.group_by[0]).toContain('the limit is 5');
  });

  it('is described by the schema document', async () => {
    const document = await svc.get('/api/v1/stats/schema');
    expect(document.body.table.aggregates).toEqual({
      metrics,
      groupBy: stats.aggregates?.allowedGroupBy,
      maxGroups: 400,
      maxBuckets: 400,
    });
    expect((await svc.get('/api/v1/plain/schema')).body.table.aggregates).toBeNull();
  });

  it('is served only where the policy allows it, and wins over a record named "aggregate"', async () => {
    await ready();
    // Without `aggregates` the route does not exist, and says so (not a record's 404 nor read-one's 422).
    const off = await svc.get('/api/plain/aggregate');
    expect(off.status).toBe(404);
    expect(off.body).toEqual(notEnabled('/api/plain'));
    const body = await svc.inject({
      method: 'POST',
      url: '/api/stats/aggregate/query',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ query: 'metrics=count&group_by=status' }),
    });
    expect(body.statusCode).toBe(200);
    expect(body.json().data).toEqual(grouped(visible(), ['status'], ['count']));
    const post = await svc.inject({ method: 'POST', url: '/api/stats/aggregate' });
    expect(post.statusCode).toBe(405);
  });
});

/** The 404 of `<list>/aggregate` on an endpoint without aggregates. */
const notEnabled = (path: string) => ({
  message: `Aggregates are not enabled on ${path}.`,
  errors: { path: [`Aggregates are not enabled on ${path}.`] },
});

/** Departments keyed by their code, a text: one of them is coded "aggregate". */
const codes = defineResource({
  name: 'codes',
  table: 'departments',
  primaryKey: 'code',
  columns: { code: 'string', name: 'string' },
});
const codesEndpoint = defineEndpoint({
  resource: 'codes',
  allowedFilters: ['code'],
  actions: ['list', 'read', 'update', 'delete'],
  access: { update: () => true, delete: () => true },
  schema: { table: { columns: [{ key: 'name' }] }, form: { inputs: [{ name: 'name', type: 'text' }] } },
});

describe.each(dialects)('<list>/aggregate without aggregates, on %s', (dialect) => {
  const svc = useService(dialect, 'aggregates_absent', {
    resources: [...resources, codes],
    endpoints: [stats, plain, codesEndpoint],
  });
  const json = { 'content-type': 'application/json' };
  const aggregateDepartment = {
    id: 4,
    name: 'Aggregation',
    code: 'aggregate',
    budget: 1,
    created_at: '2023-01-04T00:00:00.000Z',
  };
  let inserted = false;
  const ready = async () => {
    if (!inserted)
      await svc.conn.db
        .insertInto('departments')
        .values({
          ...aggregateDepartment,
          created_at: svc.conn.dialect.bindDatetime(aggregateDepartment.created_at),
        })
        .execute();
    inserted = true;
  };

  it('answers 404 saying aggregates are not enabled, with or without aggregate parameters', async () => {
    for (const query of [
      '',
      '?metrics=count&group_by=status',
      '?page=2&include=roles',
      '?filter[status]=x',
    ]) {
      const response = await svc.get(`/api/plain/aggregate${query}`);
      expect(response.status, query).toBe(404);
      expect(response.body, query).toEqual(notEnabled('/api/plain'));
    }
    const head = await svc.inject({ method: 'HEAD', url: '/api/plain/aggregate' });
    expect(head.statusCode).toBe(404);
  });

  it('answers the same 404 to the body form and to every other method', async () => {
    const body = await svc.inject({
      method: 'POST',
      url: '/api/plain/aggregate/query',
      headers: json,
      payload: JSON.stringify({ query: 'metrics=count&group_by=status' }),
    });
    expect(body.statusCode, body.body).toBe(404);
    expect(body.json()).toEqual(notEnabled('/api/plain'));
    for (const method of ['POST', 'PATCH', 'DELETE'] as const) {
      const response = await svc.inject({
        method,
        url: '/api/plain/aggregate',
        headers: json,
        payload: '{}',
      });
      expect(response.statusCode, method).toBe(404);
      expect(response.json(), method).toEqual(notEnabled('/api/plain'));
    }
  });

  it('wins over a record keyed "aggregate", which the list finds; other keys are read and written', async () => {
    await ready();
    const read = await svc.get('/api/codes/aggregate');
    expect(read.status).toBe(404);
    expect(read.body).toEqual(notEnabled('/api/codes'));
    const patch = await svc.inject({
      method: 'PATCH',
      url: '/api/codes/aggregate',
      headers: json,
      payload: JSON.stringify({ name: 'Renamed' }),
    });
    expect(patch.statusCode).toBe(404);
    expect(patch.json()).toEqual(notEnabled('/api/codes'));
    const deleted = await svc.inject({ method: 'DELETE', url: '/api/codes/aggregate' });
    expect(deleted.statusCode).toBe(404);
    const listed = await svc.get('/api/codes?filter[code]=aggregate');
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([{ code: 'aggregate', name: 'Aggregation' }]);
    const other = await svc.get('/api/codes/SAL');
    expect(other.status).toBe(200);
    expect(other.body).toEqual({ code: 'SAL', name: 'Sales' });
    const missing = await svc.get('/api/codes/NOPE');
    expect(missing.status).toBe(404);
    expect(missing.body.errors).toEqual({ id: ['No codes record with this id.'] });
  });

  it('leaves the endpoints with aggregates as they are: GET answers, other methods are 405', async () => {
    const answered = await svc.get('/api/stats/aggregate?metrics=count');
    expect(answered.status).toBe(200);
    const patch = await svc.inject({
      method: 'PATCH',
      url: '/api/stats/aggregate',
      headers: json,
      payload: '{}',
    });
    expect(patch.statusCode).toBe(405);
    expect(patch.headers.allow).toBe('GET, HEAD');
  });
});

describe('aggregates on sqlite past its integers', () => {
  const svc = useService('sqlite', 'aggregates_overflow', { endpoints });

  it('refuses a sum past what SQLite computes (2^63 units) as a 422 keyed metrics, not a 500', async () => {
    // SQLite keeps what a column is given: two balances far past decimal(12, 2) make the units overflow.
    const huge = [901, 902].map((id) => ({ ...(extraUsers[0] as UserRow), id, email: `huge${id}@x.io` }));
    await insertUsers(
      svc.conn,
      huge.map((user) => ({ ...user, status: 'banned', balance: 5e16 })),
    );
    const response = await svc.get('/api/stats/aggregate?metrics=sum:balance');
    expect(response.status).toBe(422);
    expect(response.body.errors.metrics[0]).toContain('beyond the range');
    const fine = await svc.get('/api/stats/aggregate?metrics=sum:balance&filter[status]=active');
    expect(fine.status).toBe(200);
  });
});

describe('aggregates checked at start-up', () => {
  const resolved = resolveResources(resources, undefined);
  const compile = (aggregates: EndpointPolicy['aggregates']) =>
    compileEndpoint({ resource: 'users', aggregates }, resolved, undefined);
  it.each([
    [{ allowedAggregates: ['sum:password_hash'] }, 'not a visible column'],
    [{ allowedAggregates: ['sum:name'] }, 'integer, bigint and decimal'],
    [{ allowedAggregates: ['avg:created_at'] }, 'integer, bigint and decimal'],
    [{ allowedAggregates: ['max:settings'] }, 'ordered kind'],
    [{ allowedAggregates: ['median:score'] }, '<metric>:<column>'],
    [{ allowedAggregates: ['count:id'] }, '<metric>:<column>'],
    [{ allowedGroupBy: ['password_hash'] }, 'neither a visible column'],
    [{ allowedGroupBy: ['settings'] }, 'no sort applies'],
    [{ allowedGroupBy: ['posts.title'] }, 'may match several'],
    [{ allowedGroupBy: ['roles.name'] }, 'may match several'],
    [{ allowedGroupBy: ['name:month'] }, 'date and datetime columns'],
    [{ allowedGroupBy: ['created_at:hour'] }, 'day, week, month, quarter, year'],
    [{ maxGroups: 0 }, 'maxGroups'],
    [{ maxBuckets: 1.5 }, 'maxBuckets'],
  ] as [EndpointPolicy['aggregates'], string][])('refuses %j', (aggregates, message) => {
    expect(() => compile(aggregates)).toThrow(ConfigurationError);
    expect(() => compile(aggregates)).toThrow(message);
  });

  it('refuses a sum of a decimal column whose scale is not declared', () => {
    expect(() =>
      compileEndpoint(
        { resource: 'departments', aggregates: { allowedAggregates: ['sum:budget'] } },
        resolved,
        undefined,
      ),
    ).toThrow('declare "budget"\'s scale');
  });

  it('accepts columns, to-one paths and buckets', () => {
    const compiled = compile({
      allowedAggregates: ['count', 'sum:balance', 'min:created_at'],
      allowedGroupBy: ['status', 'department.name', 'created_at:week', 'birthday:year'],
    });
    expect([...(compiled.aggregates?.groups.keys() ?? [])]).toEqual([
      'status',
      'department.name',
      'created_at:week',
      'birthday:year',
    ]);
    expect(compiled.aggregates?.maxGroups).toBe(1000);
    expect(compile(undefined).aggregates).toBeUndefined();
  });
});

describe.each(hostNames.filter((host) => host !== 'standalone'))('aggregates through the %s host', (host) => {
  const svc = useService('sqlite', `aggregates_${host.replace('-', '_')}`, { endpoints }, host);
  it('answers GET <list>/aggregate and the body form alike', async () => {
    const get = await svc.get('/api/stats/aggregate?metrics=count,sum:balance&group_by=status');
    expect(get.status).toBe(200);
    expect(get.body.data).toEqual(
      grouped(
        users.filter((user) => user.deleted_at === null),
        ['status'],
        ['count', 'sum:balance'],
      ),
    );
    const post = await svc.inject({
      method: 'POST',
      url: '/api/stats/aggregate/query',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ query: 'metrics=count,sum:balance&group_by=status' }),
    });
    expect(post.statusCode, post.body).toBe(200);
    expect(post.json()).toEqual(get.body);
  });

  it('answers <list>/aggregate of an endpoint without aggregates with its 404', async () => {
    const get = await svc.get('/api/plain/aggregate?metrics=count');
    expect(get.status).toBe(404);
    expect(get.body).toEqual(notEnabled('/api/plain'));
    const post = await svc.inject({
      method: 'POST',
      url: '/api/plain/aggregate/query',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ query: 'metrics=count' }),
    });
    expect(post.statusCode).toBe(404);
    expect(post.json()).toEqual(notEnabled('/api/plain'));
  });
});
