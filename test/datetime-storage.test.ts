import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineEndpoint, defineResource } from '../src/resource/policy.js';
import type { DatetimeStorage } from '../src/resource/types.js';
import { buildService } from '../src/server/standalone.js';
import type { Connection } from '../src/sql/connect.js';
import type { DialectName } from '../src/sql/dialect.js';
import { dropDatabase, freshDatabase } from './support/databases.js';

/**
 * Every comparison on every datetime storage convention returns the rows plain JavaScript finds over
 * the instants: rows at and around midnight, ties, fractions written with and without zeros. The
 * answers never come from SQL, so a convention compared in the wrong form (a space sorts before `T`)
 * shows as wrong rows.
 */

const instants: (string | null)[] = [
  '2024-01-15T23:59:59.000Z',
  '2024-01-16T00:00:00.000Z',
  '2024-01-16T00:00:00.000Z', // a tie
  '2024-01-16T00:00:00.500Z',
  '2024-01-16T00:00:01.000Z',
  '2024-01-16T12:00:00.000Z',
  '2024-02-29T10:00:00.000Z',
  '2023-12-31T23:59:59.999Z',
  '2025-01-01T00:00:00.000Z',
  null,
];

/** How each convention's writers store an instant; `text` mixes the forms real writers use. */
function written(storage: DatetimeStorage | 'native', iso: string, index: number): string | number {
  const [date, time] = [iso.slice(0, 10), iso.slice(11, 19)];
  const ms = iso.slice(20, 23);
  switch (storage) {
    case 'text':
      // Laravel/SQLite (no fraction), Rails (six digits, zeros too), Django (six digits when non-zero).
      if (ms !== '000') return `${date} ${time}.${ms}000`;
      return index % 2 === 0 ? `${date} ${time}` : `${date} ${time}.000000`;
    case 'iso':
      return iso;
    case 'unix-seconds':
      return Math.floor(Date.parse(iso) / 1000);
    case 'unix-milliseconds':
      return Date.parse(iso);
    default:
      return `${date} ${time}.${ms}`;
  }
}

interface Convention {
  storage: DatetimeStorage;
  /** The column's SQL type on this engine. */
  type: string;
}

const conventions: Record<DialectName, Convention[]> = {
  sqlite: [
    { storage: 'native', type: 'text' },
    { storage: 'text', type: 'datetime' },
    { storage: 'iso', type: 'text' },
    { storage: 'unix-seconds', type: 'integer' },
    { storage: 'unix-milliseconds', type: 'integer' },
  ],
  postgres: [
    { storage: 'native', type: 'timestamp(3)' },
    { storage: 'native', type: 'timestamptz(3)' },
    { storage: 'text', type: 'varchar(32)' },
    { storage: 'unix-milliseconds', type: 'bigint' },
  ],
  mysql: [
    { storage: 'native', type: 'datetime(3)' },
    { storage: 'native', type: 'timestamp(3) null' },
    { storage: 'iso', type: 'varchar(32)' },
    { storage: 'unix-seconds', type: 'bigint' },
  ],
};

const ms = (iso: string) => Date.parse(iso);
const dayOf = (iso: string) => iso.slice(0, 10);

/** `query string → predicate over the stored instant (null: no value)`. */
const cases: [string, (t: number | null, iso: string | null) => boolean][] = [
  ['filter[at]=2024-01-16T00:00:00Z', (t) => t === ms('2024-01-16T00:00:00Z')],
  ['filter[at][eq]=2024-01-16', (t) => t === ms('2024-01-16T00:00:00Z')],
  ['filter[at][neq]=2024-01-16T00:00:00Z', (t) => t !== null && t !== ms('2024-01-16T00:00:00Z')],
  ['filter[at][gt]=2024-01-16T00:00:00Z', (t) => t !== null && t > ms('2024-01-16T00:00:00Z')],
  ['filter[at][gte]=2024-01-16T00:00:00Z', (t) => t !== null && t >= ms('2024-01-16T00:00:00Z')],
  ['filter[at][lt]=2024-01-16T00:00:00Z', (t) => t !== null && t < ms('2024-01-16T00:00:00Z')],
  ['filter[at][lte]=2024-01-16T00:00:00Z', (t) => t !== null && t <= ms('2024-01-16T00:00:00Z')],
  ['filter[at][gte]=2024-01-15T23:59:59Z', (t) => t !== null && t >= ms('2024-01-15T23:59:59Z')],
  ['filter[at][lt]=2024-01-16T00:00:01Z', (t) => t !== null && t < ms('2024-01-16T00:00:01Z')],
  [
    'filter[at][in]=2024-01-16T00:00:00Z,2024-02-29T10:00:00Z',
    (t) => t === ms('2024-01-16T00:00:00Z') || t === ms('2024-02-29T10:00:00Z'),
  ],
  [
    'filter[at][not_in]=2024-01-16T00:00:00Z,2024-02-29T10:00:00Z',
    (t) => t !== null && t !== ms('2024-01-16T00:00:00Z') && t !== ms('2024-02-29T10:00:00Z'),
  ],
  [
    'filter[at][between]=2024-01-15T23:59:59Z,2024-01-16T00:00:01Z',
    (t) => t !== null && t >= ms('2024-01-15T23:59:59Z') && t <= ms('2024-01-16T00:00:01Z'),
  ],
  [
    'filter[at][not_between]=2024-01-15T23:59:59Z,2024-01-16T00:00:01Z',
    (t) => t !== null && (t < ms('2024-01-15T23:59:59Z') || t > ms('2024-01-16T00:00:01Z')),
  ],
  ['filter[at][date_eq]=2024-01-16', (_t, iso) => iso !== null && dayOf(iso) === '2024-01-16'],
  ['filter[at][date_eq]=2024-01-15', (_t, iso) => iso !== null && dayOf(iso) === '2024-01-15'],
  [
    'filter[at][date_between]=2024-01-01,2024-01-16',
    (_t, iso) => iso !== null && dayOf(iso) >= '2024-01-01' && dayOf(iso) <= '2024-01-16',
  ],
  ['filter[at][year]=2024', (_t, iso) => iso?.startsWith('2024') === true],
  ['filter[at][is_null]=true', (t) => t === null],
  ['filter[at][is_not_null]=true', (t) => t !== null],
];

for (const dialect of ['sqlite', 'postgres', 'mysql'] as const) {
  for (const [index, convention] of conventions[dialect].entries()) {
    const { storage, type } = convention;
    // Unix seconds hold no milliseconds: its rows are the whole-second instants.
    const stored = instants.map((iso) =>
      iso !== null && storage === 'unix-seconds' && !iso.endsWith('.000Z') ? null : iso,
    );
    describe(`datetimes stored as ${storage} (${type}) on ${dialect}`, () => {
      let conn: Connection;
      let app: Awaited<ReturnType<typeof buildService>>;
      const name = `dt_${index}_${dialect}`;

      beforeAll(async () => {
        conn = await freshDatabase(dialect, name);
        await sql`create table events (id integer primary key, at ${sql.raw(type)})`.execute(conn.db);
        await conn.db
          .insertInto('events')
          .values(
            stored.map((iso, i) => ({
              id: i + 1,
              at:
                iso === null
                  ? null
                  : storage === 'native'
                    ? conn.dialect.bindDatetime(iso)
                    : written(storage, iso, i),
            })),
          )
          .execute();
        const events = defineResource({
          name: 'events',
          table: 'events',
          columns: { id: 'integer', at: storage === 'native' ? 'datetime' : { type: 'datetime', storage } },
        });
        app = await buildService({
          config: {
            resources: [events],
            endpoints: [
              defineEndpoint({
                resource: 'events',
                allowedFilters: ['at'],
                allowedSorts: ['at'],
                allowAll: 100,
                aggregates: {
                  allowedAggregates: ['count', 'min:at', 'max:at'],
                  allowedGroupBy: ['at:day', 'at:month'],
                },
              }),
            ],
          },
          connection: conn,
        });
      });
      afterAll(async () => {
        await app?.close();
        await conn?.db.destroy();
        await dropDatabase(dialect, name);
      });

      const list = async (query: string) => {
        const res = await app.inject({ url: `/api/events?${query}` });
        expect(res.statusCode, res.body).toBe(200);
        return res.json();
      };

      it('reads every value back as the instant it stores', async () => {
        const body = await list('all=true');
        const byId = new Map(body.map((row: { id: number; at: string | null }) => [row.id, row.at]));
        for (const [i, iso] of stored.entries()) expect(byId.get(i + 1), `id ${i + 1}`).toBe(iso);
      });

      it.each(cases)('%s returns the rows JavaScript finds', async (query, predicate) => {
        const body = await list(`${query}&all=true`);
        const expected = stored
          .map((iso, i) => ({ id: i + 1, iso }))
          .filter(({ iso }) => predicate(iso === null ? null : ms(iso), iso))
          .map(({ id }) => id)
          .sort((a, b) => a - b);
        expect(body.map((row: { id: number }) => row.id).sort((a: number, b: number) => a - b)).toEqual(
          expected,
        );
      });

      it('buckets and measures the instants: boundaries bound as a filter binds them', async () => {
        const aggregate = async (query: string) => {
          const res = await app.inject({ url: `/api/events/aggregate?${query}` });
          expect(res.statusCode, res.body).toBe(200);
          return res.json().data as {
            group: Record<string, string>;
            count: number;
            'min:at': string | null;
            'max:at': string | null;
          }[];
        };
        const present = stored.filter((iso): iso is string => iso !== null);
        const days = await aggregate(
          'metrics=count,min:at,max:at&group_by=at:day&from=2024-01-15&to=2024-01-18',
        );
        expect(days).toEqual(
          ['2024-01-15', '2024-01-16', '2024-01-17'].map((day) => {
            const rows = present.filter((iso) => dayOf(iso) === day).sort();
            return {
              group: { 'at:day': `${day}T00:00:00+00:00` },
              count: rows.length,
              'min:at': rows[0] ?? null,
              'max:at': rows[rows.length - 1] ?? null,
            };
          }),
        );
        // Months in New York: a row at 2024-01-01T00:00 UTC is still December there.
        const zone = 'America/New_York';
        const month = (iso: string) =>
          new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit' }).format(
            new Date(iso),
          );
        const months = await aggregate(
          `metrics=count&group_by=at:month&tz=${zone}&from=2023-12-01&to=2025-01-01`,
        );
        expect(months).toHaveLength(13);
        for (const row of months) {
          const label = row.group['at:month'] as string;
          expect(label).toMatch(/^20\d\d-\d\d-01T00:00:00-0[45]:00$/);
          expect(row.count, label).toBe(present.filter((iso) => month(iso) === label.slice(0, 7)).length);
        }
        expect(months.reduce((sum, row) => sum + row.count, 0)).toBe(
          present.filter((iso) => iso >= '2023-12-01T05:00:00.000Z' && iso < '2025-01-01T05:00:00.000Z')
            .length,
        );
      });

      it('sorts by the instant and walks every row once by cursor, both ways', async () => {
        for (const sort of ['at', '-at']) {
          const seen: { id: number; at: string | null }[] = [];
          let cursor = '';
          for (let page = 0; page < 20; page++) {
            const body = await list(
              `sort=${sort}&pagination=cursor&per_page=2${cursor ? `&cursor=${cursor}` : ''}`,
            );
            seen.push(...body.data);
            if (!body.next_cursor) break;
            cursor = encodeURIComponent(body.next_cursor);
          }
          expect(seen.map((row) => row.id).sort((a, b) => a - b)).toEqual(stored.map((_, i) => i + 1));
          const times = seen.filter((row) => row.at !== null).map((row) => ms(row.at as string));
          const ordered = [...times].sort((a, b) => (sort === 'at' ? a - b : b - a));
          expect(times).toEqual(ordered);
        }
      });
    });
  }
}
