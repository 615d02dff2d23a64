import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineEndpoint, defineResource } from '../src/resource/policy.js';
import { buildService } from '../src/server/standalone.js';
import type { Connection } from '../src/sql/connect.js';
import type { DialectName, Statement } from '../src/sql/dialect.js';
import { dialects, dropDatabase, freshDatabase } from './support/databases.js';
import { recordInto } from './support/statements.js';

/**
 * Aggregates through HTTP held to SQL written here by hand for each engine (not the service's
 * compiler): the order of `sort=avg:<column>` against the averages as answered, rounded, with ties
 * between groups answered alike broken by the group keys, and NULL averages of groups without a value
 * and of empty buckets; sums and averages of a decimal(30, 2) past 2^63 units of its scale; and what a
 * parameter given twice means.
 */

/** Declared out of alphabetical order: PostgreSQL and MariaDB order the enum by it, SQLite's text alphabetically. */
const regions = ['north', 'south', 'east', 'west', 'central', 'polar'] as const;
type Region = (typeof regions)[number];

interface Entry {
  id: number;
  region: Region | null;
  label: string | null;
  amount: string | null;
  qty: number | null;
  booked_on: string;
}

/**
 * Groups whose averages tie as answered (6 decimals of an amount, 4 of a quantity) while their exact
 * averages differ: 801/200 = 4.005 and 805/201 = 4.004975… units both answer 4.0050, as -401/200 and
 * -403/201 answer -2.0050. North, the first key of its pair, has the larger exact average (ascending,
 * the order of exact values would put it second); east comes before central in the enum's order and
 * after it alphabetically (SQLite), and has the smaller exact average. Polar's amounts are all NULL;
 * the NULL region has the largest sum and a middling average; west the largest average.
 */
const plan: { region: Region | null; rows: number; units: number | null; month: string }[] = [
  { region: 'north', rows: 200, units: 801, month: '2024-01' },
  { region: 'south', rows: 201, units: 805, month: '2024-02' },
  { region: 'east', rows: 200, units: -401, month: '2024-03' },
  { region: 'polar', rows: 2, units: null, month: '2024-04' },
  { region: 'central', rows: 201, units: -403, month: '2024-05' },
  { region: 'west', rows: 1, units: 300, month: '2024-06' },
];
const cents = (units: number) =>
  `${units < 0 ? '-' : ''}${Math.floor(Math.abs(units) / 100)}.${String(Math.abs(units) % 100).padStart(2, '0')}`;
const entries: Entry[] = [];
for (const { region, rows, units, month } of plan)
  for (let i = 0; i < rows; i++)
    entries.push({
      id: entries.length + 1,
      region,
      label: region,
      amount: units === null ? null : cents(i === 0 ? units : 0),
      qty: units === null ? null : i === 0 ? units : 0,
      booked_on: `${month}-${String(1 + (i % 28)).padStart(2, '0')}`,
    });
// Ten rows of 1.00 without a region, in June with west's.
for (let i = 0; i < 10; i++)
  entries.push({
    id: entries.length + 1,
    region: null,
    label: null,
    amount: '1.00',
    qty: 100,
    booked_on: `2024-06-${String(10 + i).padStart(2, '0')}`,
  });

/** Sums past what a 64-bit integer holds in cents, and one between 2^53 and 2^63. */
const wideRows = [
  { id: 1, grp: 'one', amount: '1234567890123456789.01' }, // 1.2 × 10^20 cents: one value past 2^63
  ...[2, 3, 4].map((id) => ({ id, grp: 'many', amount: '45678901234567890.12' })), // each under, the sum past
  ...[5, 6, 7].map((id) => ({ id, grp: 'mid', amount: '30024000000000.01' })), // the sum 9007200000000003 cents
  { id: 8, grp: 'small', amount: '1.50' },
  { id: 9, grp: 'small', amount: '2.25' },
];

const resources = [
  defineResource({
    name: 'ledger',
    table: 'ledger',
    columns: {
      id: 'integer',
      region: { type: 'enum', values: [...regions] },
      label: 'string',
      amount: { type: 'decimal', precision: 30, scale: 2 },
      qty: 'integer',
      booked_on: 'date',
    },
  }),
  defineResource({
    name: 'wide',
    table: 'wide',
    columns: { id: 'integer', grp: 'string', amount: { type: 'decimal', precision: 30, scale: 2 } },
  }),
  // 64-bit integers whose sum passes 2^53: answered as the string of its digits, as the column's values are.
  defineResource({
    name: 'tally',
    table: 'tally',
    columns: { id: 'integer', grp: 'string', n: { type: 'integer', big: true } },
  }),
  // A double declared a decimal of scale 2: its cents may pass what MariaDB's DECIMAL holds (65 digits).
  defineResource({
    name: 'floats',
    table: 'floats',
    columns: { id: 'integer', grp: 'string', amount: { type: 'decimal', precision: 30, scale: 2 } },
  }),
];
const endpoints = [
  defineEndpoint({
    resource: 'ledger',
    allowedFilters: ['region'],
    aggregates: {
      allowedAggregates: ['count', 'sum:amount', 'avg:amount', 'sum:qty', 'avg:qty'],
      allowedGroupBy: ['region', 'label', 'booked_on:month'],
    },
  }),
  defineEndpoint({
    resource: 'wide',
    allowedFilters: ['grp'],
    allowedSorts: ['amount'],
    aggregates: {
      allowedAggregates: ['count', 'sum:amount', 'avg:amount', 'min:amount', 'max:amount'],
      allowedGroupBy: ['grp'],
    },
  }),
  defineEndpoint({
    resource: 'tally',
    aggregates: { allowedAggregates: ['count', 'sum:n'], allowedGroupBy: ['grp'] },
  }),
  defineEndpoint({
    resource: 'floats',
    allowedFilters: ['grp'],
    aggregates: { allowedAggregates: ['count', 'sum:amount', 'avg:amount'], allowedGroupBy: ['grp'] },
  }),
];

async function createTables(dialect: DialectName, conn: Connection): Promise<void> {
  const list = regions.map((region) => `'${region}'`).join(', ');
  if (dialect === 'postgres') await sql.raw(`create type ledger_region as enum (${list})`).execute(conn.db);
  const region =
    dialect === 'postgres' ? 'ledger_region' : dialect === 'mysql' ? `enum(${list})` : 'varchar(10)';
  const date = dialect === 'sqlite' ? 'text' : 'date';
  await sql
    .raw(
      `create table ledger (id integer primary key, region ${region}, label varchar(20), amount decimal(30, 2), qty integer, booked_on ${date} not null)`,
    )
    .execute(conn.db);
  await sql
    .raw('create table wide (id integer primary key, grp varchar(10) not null, amount decimal(30, 2))')
    .execute(conn.db);
  const double = dialect === 'postgres' ? 'double precision' : dialect === 'mysql' ? 'double' : 'real';
  await sql
    .raw(`create table floats (id integer primary key, grp varchar(10) not null, amount ${double})`)
    .execute(conn.db);
  await conn.db
    .insertInto('floats')
    .values([
      { id: 1, grp: 'huge', amount: 1e70 },
      { id: 2, grp: 'fine', amount: 0.1 },
      { id: 3, grp: 'fine', amount: 0.2 },
    ])
    .execute();
  for (let i = 0; i < entries.length; i += 100)
    await conn.db
      .insertInto('ledger')
      .values(entries.slice(i, i + 100))
      .execute();
  await conn.db.insertInto('wide').values(wideRows).execute();
  await sql
    .raw('create table tally (id integer primary key, grp varchar(10) not null, n bigint)')
    .execute(conn.db);
  await conn.db
    .insertInto('tally')
    .values([
      { id: 1, grp: 'past', n: Number.MAX_SAFE_INTEGER },
      { id: 2, grp: 'past', n: Number.MAX_SAFE_INTEGER - 6 },
      { id: 3, grp: 'safe', n: 2 },
      { id: 4, grp: 'safe', n: 40 },
    ])
    .execute();
}

/** The decimal text of `units` at `scale` (`-2005`, 3 → `-2.005`). */
function decimal(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const text = scale > 0 ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return negative ? `-${text}` : text;
}

type Row = Record<string, unknown>;

/**
 * The engine's own average of `column` over a group, rounded half away from zero to `decimals`: exact
 * decimal division on PostgreSQL and MariaDB (at 30 decimals, then rounded), whole cents and integer
 * division on SQLite (whose decimals are doubles), there in units of 10^-decimals.
 */
function averageSql(dialect: DialectName, column: string, scale: number, decimals: number): string {
  if (dialect === 'postgres')
    return `round(sum(${column})::numeric(60, 30) / nullif(count(${column}), 0), ${decimals})`;
  if (dialect === 'mysql')
    return `round(cast(sum(${column}) as decimal(60, 30)) / nullif(count(${column}), 0), ${decimals})`;
  const s = `sum(cast(round(${column} * ${10 ** scale}) as integer))`;
  const c = `count(${column})`;
  const extra = 10 ** (decimals - scale);
  return `(case when ${s} >= 0 then (2 * ${s} * ${extra} + ${c}) / (2 * ${c}) else -((-2 * ${s} * ${extra} + ${c}) / (2 * ${c})) end)`;
}

/** One ORDER BY term, NULL the smallest value as the service orders it. */
const term = (dialect: DialectName, expression: string, direction: 'asc' | 'desc') =>
  `${expression} ${direction}${dialect === 'postgres' ? (direction === 'asc' ? ' nulls first' : ' nulls last') : ''}`;

/** A date literal of the engine (SQLite's dates are text). */
const dateLiteral = (dialect: DialectName, date: string) =>
  dialect === 'sqlite' ? `'${date}'` : `date '${date}'`;

const months = ['2024-01', '2024-02', '2024-03', '2024-04', '2024-05', '2024-06', '2024-07', '2024-08'];

for (const dialect of dialects) {
  describe(`aggregates against hand-written SQL on ${dialect}`, () => {
    const name = 'aggregates_sql_oracle';
    let conn: Connection;
    let app: Awaited<ReturnType<typeof buildService>>;
    const statements: Statement[] = [];

    beforeAll(async () => {
      conn = await freshDatabase(dialect, name);
      await createTables(dialect, conn);
      // Every statement the service runs, to inspect the ones a request made.
      const recording = recordInto(conn, statements);
      app = await buildService({ config: { resources, endpoints }, connection: recording });
    });
    afterAll(async () => {
      await app?.close();
      await conn?.db.destroy();
      await dropDatabase(dialect, name);
    });

    const get = async (url: string) => {
      const response = await app.inject({ url });
      return { status: response.statusCode, body: response.json() };
    };
    const rows = async (query: string): Promise<Row[]> => (await sql.raw<Row>(query).execute(conn.db)).rows;
    /** An average the oracle gave, as the service answers it: text on PostgreSQL and MariaDB, units on SQLite. */
    const answered = (value: unknown, decimals: number) =>
      value === null
        ? null
        : dialect === 'sqlite'
          ? decimal(BigInt(value as number | bigint), decimals)
          : String(value);

    /**
     * The groups by `key` (a column, or the month of booked_on with every month of 2024-01 to 2024-07),
     * ordered by the average of `column` in `direction` then by the key as `keyDirection` says.
     */
    async function oracle(
      key: 'region' | 'label' | 'month',
      column: 'amount' | 'qty',
      direction: 'asc' | 'desc',
      keyDirection: 'asc' | 'desc' = 'asc',
    ): Promise<{ key: unknown; average: string | null; count: number }[]> {
      const scale = column === 'amount' ? 2 : 0;
      const decimals = scale + 4;
      const average = averageSql(dialect, `l.${column}`, scale, decimals);
      const from =
        key === 'month'
          ? `(${months
              .slice(0, -1)
              .map(
                (month, i) =>
                  `select ${dateLiteral(dialect, `${month}-01`)} as lo, ${dateLiteral(dialect, `${months[i + 1]}-01`)} as hi`,
              )
              .join(' union all ')}) m left join ledger l on l.booked_on >= m.lo and l.booked_on < m.hi`
          : 'ledger l';
      const keyColumn = key === 'month' ? 'm.lo' : `l.${key}`;
      const found = await rows(
        `select ${keyColumn} as k, ${average} as a, count(l.id) as n from ${from} group by ${keyColumn} order by ${term(dialect, 'a', direction)}, ${term(dialect, 'k', keyDirection)}`,
      );
      return found.map((row) => ({
        key: row.k === null ? null : String(row.k),
        average: answered(row.a, decimals),
        count: Number(row.n),
      }));
    }

    it('has the ties it means to test, and averages ordered otherwise than sums', async () => {
      const byRegion = await oracle('region', 'amount', 'desc');
      // The enum's order breaks the tie of east and central on PostgreSQL and MariaDB, the text's on SQLite.
      expect(byRegion.map((group) => group.key)).toEqual(
        dialect === 'sqlite'
          ? ['west', null, 'north', 'south', 'central', 'east', 'polar']
          : ['west', null, 'north', 'south', 'east', 'central', 'polar'],
      );
      expect(byRegion.map((group) => group.average)).toEqual([
        '3.000000',
        '1.000000',
        '0.040050',
        '0.040050',
        '-0.020050',
        '-0.020050',
        null,
      ]);
      expect((await oracle('month', 'qty', 'asc')).map((group) => group.average)).toEqual([
        null,
        null,
        '-2.0050',
        '-2.0050',
        '4.0050',
        '4.0050',
        '118.1818',
      ]);
    });

    for (const column of ['amount', 'qty'] as const)
      for (const key of ['region', 'label', 'month'] as const)
        for (const direction of ['asc', 'desc'] as const)
          it(`sorts by avg:${column} ${direction === 'asc' ? 'ascending' : 'descending'} grouped by ${key}, as answered, ties by the key`, async () => {
            const groupBy = key === 'month' ? 'booked_on:month&from=2024-01-01&to=2024-08-01' : key;
            const groupName = key === 'month' ? 'booked_on:month' : key;
            const sign = direction === 'desc' ? '-' : '';
            const expected = await oracle(key, column, direction);
            const response = await get(
              `/api/ledger/aggregate?metrics=count,avg:${column},sum:${column}&group_by=${groupBy}&sort=${sign}avg:${column}`,
            );
            expect(response.status, JSON.stringify(response.body)).toBe(200);
            const answer = response.body.data as Row[];
            expect(
              answer.map((group) => ({
                key: (group.group as Row)[groupName],
                average: group[`avg:${column}`],
                count: group.count,
              })),
            ).toEqual(expected);
            // An empty bucket (July) and a group without a value (polar): NULL, the smallest average.
            expect(expected.filter((group) => group.average === null).length).toBe(key === 'month' ? 2 : 1);
            // With a key descending as the tie-breaker, and cut at a limit.
            const reversed = await oracle(key, column, direction, 'desc');
            const cut = await get(
              `/api/ledger/aggregate?metrics=count,avg:${column}&group_by=${groupBy}&sort=${sign}avg:${column},-${groupName}&limit=4`,
            );
            expect(cut.status, JSON.stringify(cut.body)).toBe(200);
            expect(
              (cut.body.data as Row[]).map((group) => ({
                key: (group.group as Row)[groupName],
                average: group[`avg:${column}`],
                count: group.count,
              })),
            ).toEqual(reversed.slice(0, 4));
            expect(cut.body.meta.truncated).toBe(true);
          });

    /** `sum(amount)` and its rounded average per group, as the engine computes them (PostgreSQL, MariaDB). */
    const wideSums = async () =>
      rows(
        `select grp, cast(sum(amount) as ${dialect === 'postgres' ? 'text' : 'char(60)'}) as s, ${averageSql(dialect, 'amount', 2, 6)} as a, count(*) as n from wide l group by grp order by grp`,
      );

    if (dialect === 'sqlite')
      it('refuses a decimal sum past 2^63 cents as a 422 keyed metrics, one value past it or a sum of several; answers below it exactly', async () => {
        const message =
          'A metric is beyond the range the database computes it in (a sum past its largest integer): narrow the filter.';
        for (const query of [
          'metrics=count,sum:amount&group_by=grp',
          'metrics=avg:amount&filter[grp]=one',
          'metrics=sum:amount&filter[grp]=one',
          'metrics=sum:amount&filter[grp]=many',
          'metrics=avg:amount&group_by=grp&filter[grp]=many',
        ]) {
          const response = await get(`/api/wide/aggregate?${query}`);
          expect(response.status, query).toBe(422);
          expect(response.body, query).toEqual({ message, errors: { metrics: [message] } });
        }
        // Between 2^53 and 2^63 cents: every digit, as SQLite's integers add them.
        const [mid] = await rows(
          "select cast(sum(cast(round(amount * 100) as integer)) as text) as s, count(amount) as n from wide where grp = 'mid'",
        );
        expect(mid?.s).toBe('9007200000000003');
        const response = await get(
          '/api/wide/aggregate?metrics=sum:amount,avg:amount&group_by=grp&filter[grp]=mid',
        );
        expect(response.status).toBe(200);
        expect(response.body.data).toEqual([
          {
            group: { grp: 'mid' },
            'sum:amount': decimal(BigInt(mid?.s as string), 2),
            'avg:amount': decimal((BigInt(mid?.s as string) * 10_000n) / 3n, 6),
          },
        ]);
      });
    else
      it('answers decimal sums and averages past 2^63 cents with the exact digits SQL gives', async () => {
        const expected = await wideSums();
        const response = await get('/api/wide/aggregate?metrics=count,sum:amount,avg:amount&group_by=grp');
        expect(response.status, JSON.stringify(response.body)).toBe(200);
        expect(response.body.data).toEqual(
          expected.map((row) => ({
            group: { grp: row.grp },
            count: Number(row.n),
            'sum:amount': String(row.s),
            'avg:amount': String(row.a),
          })),
        );
        // The cases, by their digits: one value past 2^63 cents, a sum of three each under it, one between 2^53 and 2^63.
        expect(response.body.data.map((group: Row) => group['sum:amount'])).toEqual([
          '137036703703703670.36',
          '90072000000000.03',
          '1234567890123456789.01',
          '3.75',
        ]);
        const sorted = await get(
          '/api/wide/aggregate?metrics=sum:amount,avg:amount&group_by=grp&sort=-avg:amount',
        );
        expect(sorted.body.data.map((group: Row) => (group.group as Row).grp)).toEqual([
          'one',
          'many',
          'mid',
          'small',
        ]);
      });

    it('adds a double declared decimal in exact cents, and refuses cents past what the engine adds exactly', async () => {
      const fine = await get('/api/floats/aggregate?metrics=sum:amount,avg:amount&filter[grp]=fine');
      expect(fine.status, JSON.stringify(fine.body)).toBe(200);
      expect(fine.body.data).toEqual([{ group: {}, 'sum:amount': '0.30', 'avg:amount': '0.150000' }]);
      const huge = await get('/api/floats/aggregate?metrics=sum:amount&filter[grp]=huge');
      if (dialect === 'postgres') {
        // numeric holds 10^72 cents: the double's digits as PostgreSQL converts it.
        const [row] = await rows(
          "select round(sum(amount)::numeric, 2)::text as s from floats where grp = 'huge'",
        );
        expect(huge.status).toBe(200);
        expect(huge.body.data).toEqual([{ group: {}, 'sum:amount': row?.s }]);
        expect(row?.s).toBe(`1${'0'.repeat(70)}.00`);
      } else {
        // SQLite's integers stop at 2^63, MariaDB's DECIMAL at 65 digits: refused, not capped.
        expect(huge.status, JSON.stringify(huge.body)).toBe(422);
        expect(Object.keys(huge.body.errors)).toEqual(['metrics']);
      }
      if (dialect === 'mysql') {
        // The test of 65 digits is made only where the catalog does not name the column a DECIMAL.
        const guarded = (table: string) =>
          statements.some(
            (statement) => statement.sql.includes(`\`${table}\``) && statement.sql.includes('9'.repeat(65)),
          );
        await get('/api/wide/aggregate?metrics=sum:amount');
        expect(guarded('floats')).toBe(true);
        expect(guarded('wide')).toBe(false);
      }
    });

    it('answers an integer sum past 2^53 as the string of its digits, one within it as a number', async () => {
      const sums = await rows(
        `select grp, cast(sum(n) as ${dialect === 'mysql' ? 'char(30)' : 'text'}) as s from tally group by grp order by grp`,
      );
      const response = await get('/api/tally/aggregate?metrics=sum:n&group_by=grp');
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      const answered = (response.body.data as { group: { grp: string }; 'sum:n': unknown }[]).map((group) => [
        group.group.grp,
        group['sum:n'],
      ]);
      expect(answered).toEqual(
        sums.map((row) => [row.grp, row.grp === 'past' ? String(row.s) : Number(row.s)]),
      );
      expect(answered[0]).toEqual(['past', (2n * BigInt(Number.MAX_SAFE_INTEGER) - 6n).toString()]);
    });

    it('answers min and max of the widest values as the list answers those records', async () => {
      const response = await get('/api/wide/aggregate?metrics=count,min:amount,max:amount');
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      const list = await get('/api/wide?sort=amount&per_page=20');
      expect(list.status).toBe(200);
      const amounts = (list.body.data as Row[]).map((record) => record.amount);
      expect(response.body.data).toEqual([
        { group: {}, count: wideRows.length, 'min:amount': amounts[0], 'max:amount': amounts.at(-1) },
      ]);
      expect(amounts.at(-1)).toBe(Number('1234567890123456789.01'));
    });

    it('reads a list parameter given twice (or as an array) as one list, and refuses any other parameter given twice', async () => {
      const same: [string, string][] = [
        ['metrics=count&metrics=sum:amount', 'metrics=count,sum:amount'],
        ['metrics[]=count&metrics[]=sum:amount', 'metrics=count,sum:amount'],
        ['metrics[0]=sum:amount&metrics[1]=count', 'metrics=sum:amount,count'],
        ['metrics=count&group_by=region&group_by=label', 'metrics=count&group_by=region,label'],
        [
          'metrics=count,avg:qty&group_by=region&sort=-avg:qty&sort=-region',
          'metrics=count,avg:qty&group_by=region&sort=-avg:qty,-region',
        ],
      ];
      for (const [repeated, listed] of same) {
        const once = await get(`/api/ledger/aggregate?${listed}`);
        expect(once.status, listed).toBe(200);
        const twice = await get(`/api/ledger/aggregate?${repeated}`);
        expect(twice.status, repeated).toBe(200);
        expect(twice.body, repeated).toEqual(once.body);
      }
      const bucket = 'metrics=count&group_by=booked_on:month';
      const refused: [string, string][] = [
        [`${bucket}&from=2024-01-01&to=2024-08-01&tz=UTC&tz=UTC`, 'tz'],
        [`${bucket}&from=2024-01-01&from=2024-02-01&to=2024-08-01`, 'from'],
        [`${bucket}&from=2024-01-01&to=2024-08-01&to=2024-09-01`, 'to'],
        ['metrics=count&group_by=region&limit=2&limit=3', 'limit'],
        ['metrics=count&group_by=region&having[count][gt]=1&having[count][gt]=2', 'having.count'],
      ];
      for (const [query, key] of refused) {
        const response = await get(`/api/ledger/aggregate?${query}`);
        expect(response.status, query).toBe(422);
        expect(Object.keys(response.body.errors), query).toEqual([key]);
      }
      // The OpenAPI document says the same.
      const document = await get('/api/openapi.json');
      const description = document.body.paths['/api/ledger/aggregate'].get.description as string;
      expect(description).toContain(
        'metrics, group_by and sort are lists: given twice (metrics=count&metrics=sum:x) or in an array form',
      );
      expect(description).toContain(
        'any other parameter given twice (tz, from, to, limit, search, one having[<metric>][<op>]) is a 422 keyed by it',
      );
    });
  });
}
