import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ColumnSpec } from '../src/index.js';
import { defineEndpoint, defineResource } from '../src/resource/policy.js';
import { buildService } from '../src/server/standalone.js';
import type { Connection } from '../src/sql/connect.js';
import type { DialectName } from '../src/sql/dialect.js';
import { dialects, dropDatabase, freshDatabase } from './support/databases.js';

/**
 * The column kinds of real schemas (src/kinds/), on the engine types that hold them: every operator a
 * kind takes gives the rows the data says, every other operator and every value the kind cannot hold is
 * a 422 keyed by the filter, answers are exact (64-bit integers past 2^53, intervals, money, bytes),
 * and a record route given a key its kind cannot hold answers 404.
 */

const moods = ['sad', 'ok', 'happy'] as const;

interface Gadget {
  id: string;
  mood: (typeof moods)[number] | null;
  big: string | null;
  at_time: string | null;
  ip?: string | null;
  span?: string | null;
  price?: number | null;
  tags?: string[] | null;
  flags?: string[] | null;
  raw: string | null;
}

const rows: Gadget[] = [
  {
    id: '0b7e7dee-87ac-4ec4-9a5c-4e0e2a6a8a01',
    mood: 'happy',
    big: '9007199254740993',
    at_time: '08:30:00',
    ip: '2001:db8::1',
    span: 'P1D',
    price: 12.5,
    tags: ['red', 'blue'],
    flags: ['a', 'c'],
    raw: Buffer.from([0, 1, 2, 255]).toString('base64'),
  },
  {
    id: '1c7e7dee-87ac-4ec4-9a5c-4e0e2a6a8a02',
    mood: 'sad',
    big: '9007199254740992',
    at_time: '23:59:59',
    ip: '2001:db8::a',
    span: 'PT2H',
    price: 3,
    tags: [],
    flags: [],
    raw: null,
  },
  {
    id: '2c7e7dee-87ac-4ec4-9a5c-4e0e2a6a8a03',
    mood: null,
    big: '-9007199254740995',
    at_time: '00:00:00',
    ip: '::1',
    span: 'P1DT2H',
    price: 1234.56,
    tags: null,
    flags: null,
    raw: Buffer.from('hi').toString('base64'),
  },
  {
    id: '3c7e7dee-87ac-4ec4-9a5c-4e0e2a6a8a04',
    mood: 'ok',
    big: '1',
    at_time: null,
    ip: null,
    span: null,
    price: null,
    tags: ['green'],
    flags: ['b'],
    raw: null,
  },
  {
    id: '4c7e7dee-87ac-4ec4-9a5c-4e0e2a6a8a05',
    mood: 'happy',
    big: null,
    at_time: '12:00:00',
    ip: '2001:db8::2',
    span: 'PT30M',
    price: 0,
    tags: ['red'],
    flags: ['a'],
    raw: null,
  },
];

/** The engine's table and the columns each engine has a type for. */
async function createGadgets(dialect: DialectName, conn: Connection): Promise<Record<string, ColumnSpec>> {
  const db = conn.db;
  const common: Record<string, ColumnSpec> = {
    id: 'uuid',
    mood: { type: 'enum', values: [...moods] },
    big: 'bigint',
    at_time: 'time',
    raw: 'binary',
  };
  if (dialect === 'postgres') {
    await sql`create type mood as enum ('sad', 'ok', 'happy')`.execute(db);
    await sql`create table gadgets (
      id uuid primary key default gen_random_uuid(), mood mood, big bigint, at_time time, ip inet,
      span interval, price money, tags text[], raw bytea)`.execute(db);
    for (const row of rows)
      await sql`insert into gadgets values (${row.id}, ${row.mood}, ${row.big}, ${row.at_time}, ${row.ip},
        ${row.span}, ${row.price === null ? null : String(row.price)}::numeric::money, ${row.tags},
        ${row.raw === null ? null : Buffer.from(row.raw, 'base64')})`.execute(db);
    return { ...common, ip: 'network', span: 'interval', price: 'money', tags: 'array' };
  }
  if (dialect === 'mysql') {
    await sql`create table gadgets (
      id uuid primary key default uuid(), mood enum('sad', 'ok', 'happy'), big bigint, at_time time,
      ip inet6, flags set('a', 'b', 'c'), raw varbinary(16))`.execute(db);
    for (const row of rows)
      await sql`insert into gadgets values (${row.id}, ${row.mood}, ${row.big === null ? null : sql.raw(row.big)},
        ${row.at_time}, ${row.ip}, ${row.flags === null ? null : (row.flags ?? []).join(',')},
        ${row.raw === null ? null : Buffer.from(row.raw, 'base64')})`.execute(db);
    return { ...common, ip: 'network', flags: { type: 'set', values: ['a', 'b', 'c'] } };
  }
  // A version-4 UUID made by SQLite itself, as a schema with uuid keys on SQLite declares one.
  const uuidV4 = sql.raw(
    "(lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2) || '-a' || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6))))",
  );
  await sql`create table gadgets (id text primary key default ${uuidV4}, mood text, big integer, at_time text, raw blob)`.execute(
    db,
  );
  for (const row of rows)
    await sql`insert into gadgets values (${row.id}, ${row.mood}, ${row.big === null ? null : sql.raw(row.big)},
      ${row.at_time}, ${row.raw === null ? null : Buffer.from(row.raw, 'base64')})`.execute(db);
  return common;
}

/** `P1DT2H` → seconds, for the interval oracle (days of 24 hours, as PostgreSQL compares them). */
function seconds(iso: string): number {
  const match = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/.exec(iso);
  const [d = 0, h = 0, m = 0, s = 0] = (match ?? []).slice(1).map((part) => Number(part ?? 0));
  return ((d * 24 + h) * 60 + m) * 60 + s;
}

for (const dialect of dialects) {
  describe(`column kinds of real schemas on ${dialect}`, () => {
    let conn: Connection;
    let app: Awaited<ReturnType<typeof buildService>>;
    let columns: Record<string, ColumnSpec>;
    const name = `column_kinds_${dialect}`;

    beforeAll(async () => {
      conn = await freshDatabase(dialect, name);
      columns = await createGadgets(dialect, conn);
      const filtered = Object.keys(columns);
      // PostgreSQL: the types above declared as plain strings, as a hand-written configuration may.
      const loose =
        dialect === 'postgres'
          ? [
              defineResource({
                name: 'loose',
                table: 'loose',
                columns: { id: 'integer', code: 'string', mood: 'string', key: 'string', ip: 'string' },
              }),
            ]
          : [];
      if (dialect === 'postgres') {
        await sql`create table loose (id integer primary key, code char(8), mood mood, key uuid, ip inet)`.execute(
          conn.db,
        );
        await sql`insert into loose values (1, 'German', 'happy', ${rows[0]?.id}, '10.0.0.1'),
          (2, 'French', 'sad', ${rows[1]?.id}, '192.168.0.1')`.execute(conn.db);
      }
      app = await buildService({
        config: {
          resources: [defineResource({ name: 'gadgets', table: 'gadgets', columns }), ...loose],
          endpoints: [
            ...loose.map(() =>
              defineEndpoint({ resource: 'loose', allowedFilters: ['code', 'mood', 'key', 'ip'] }),
            ),
            // The same resource with a bare schema: what an enum shows without declared options or colors.
            defineEndpoint({
              resource: 'gadgets',
              path: 'gadgets-bare',
              allowedFilters: ['mood', 'id'],
              schema: { table: { columns: [{ key: 'id' }, { key: 'mood' }] } },
            }),
            defineEndpoint({
              resource: 'gadgets',
              allowedFilters: filtered,
              allowedSorts: ['id', 'mood', 'big', 'at_time'],
              allowAll: 100,
              aggregates: {
                allowedAggregates: [
                  'count',
                  'sum:big',
                  'avg:big',
                  'min:big',
                  'max:big',
                  'count_distinct:big',
                ],
              },
              actions: ['list', 'read', 'create', 'update', 'delete'],
              access: { update: () => true, create: () => true, delete: () => true },
              schema: {
                table: { columns: Object.keys(columns).map((key) => ({ key })) },
                form: {
                  inputs: [
                    {
                      name: 'mood',
                      type: 'select',
                      options: moods.map((value) => ({ value, label: value })),
                    },
                    { name: 'big', type: 'text' },
                    { name: 'at_time', type: 'text' },
                  ],
                },
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

    const get = (query: string) => app.inject({ url: `/api/gadgets?all=true&${query}` });
    const ids = async (query: string) => {
      const res = await get(query);
      expect(res.statusCode, res.body).toBe(200);
      return (res.json() as Gadget[]).map((row) => row.id).sort();
    };
    const where = (predicate: (row: Gadget) => boolean) =>
      rows
        .filter(predicate)
        .map((row) => row.id)
        .sort();
    /** A 422 whose only key is the filter's, with a message containing `text`. */
    const refused = async (query: string, filter: string, text: string) => {
      const res = await get(query);
      expect(res.statusCode, res.body).toBe(422);
      const { errors } = res.json() as { errors: Record<string, string[]> };
      expect(Object.keys(errors)).toEqual([`filter.${filter}`]);
      expect(errors[`filter.${filter}`]?.join(' ')).toContain(text);
    };

    it('answers every kind in its documented form, exactly', async () => {
      const res = await get('sort=id');
      expect(res.statusCode, res.body).toBe(200);
      const answered = res.json() as Gadget[];
      expect(answered.map((row) => row.id)).toEqual(rows.map((row) => row.id));
      for (const [i, row] of rows.entries()) {
        const expected: Record<string, unknown> = {};
        for (const column of Object.keys(columns)) expected[column] = row[column as keyof Gadget] ?? null;
        expect(answered[i]).toEqual(expected);
      }
    });

    it('exports every kind as a CSV cell: numbers untouched (a negative 64-bit one too), lists as JSON', async () => {
      const res = await app.inject({ url: '/api/gadgets?format=csv&sort=id' });
      expect(res.statusCode, res.body).toBe(200);
      const names = Object.keys(columns);
      const numbers = new Set(['big', 'price']);
      const cell = (name: string, value: unknown): string => {
        if (value === null || value === undefined) return '';
        const text = Array.isArray(value) ? JSON.stringify(value) : String(value);
        const safe = !numbers.has(name) && /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
        return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
      };
      expect(res.body).toBe(
        [names, ...rows.map((row) => names.map((name) => cell(name, row[name as keyof Gadget])))]
          .map((line) => `${line.join(',')}\r\n`)
          .join(''),
      );
      expect(res.body).toContain(',-9007199254740995,');
    });

    it('compares uuids by equality; other operators and malformed uuids are 422s keyed by the filter', async () => {
      const [first, second] = rows as [Gadget, Gadget];
      expect(await ids(`filter[id]=${first.id}`)).toEqual([first.id]);
      expect(await ids(`filter[id][in]=${first.id},${second.id}`)).toEqual([first.id, second.id].sort());
      expect(await ids(`filter[id][neq]=${first.id}`)).toEqual(where((row) => row.id !== first.id));
      await refused('filter[id]=nope', 'id', 'a UUID');
      await refused('filter[id][in]=a,b', 'id', 'a UUID');
      await refused(
        'filter[id][contains]=a',
        'id',
        'Operators for it: eq, neq, is_null, is_not_null, in, not_in',
      );
    });

    it('takes an enum’s values only, naming them', async () => {
      expect(await ids('filter[mood]=happy')).toEqual(where((row) => row.mood === 'happy'));
      expect(await ids('filter[mood][in]=sad,ok')).toEqual(
        where((row) => row.mood === 'sad' || row.mood === 'ok'),
      );
      expect(await ids('filter[mood][is_null]=1')).toEqual(where((row) => row.mood === null));
      await refused('filter[mood]=XXX', 'mood', 'one of sad, ok, happy');
      await refused('filter[mood][contains]=pg', 'mood', 'cannot be used');
      await refused('filter[mood][is_empty]=1', 'mood', 'cannot be used');
    });

    it('compares 64-bit integers exactly past 2^53, in filters, sorts and cursors', async () => {
      const big = (predicate: (value: bigint) => boolean) =>
        where((row) => row.big !== null && predicate(BigInt(row.big)));
      expect(await ids('filter[big]=9007199254740993')).toEqual(big((v) => v === 9007199254740993n));
      expect(await ids('filter[big][gt]=9007199254740992')).toEqual(big((v) => v > 9007199254740992n));
      expect(await ids('filter[big][lte]=9007199254740992')).toEqual(big((v) => v <= 9007199254740992n));
      expect(await ids('filter[big][in]=1,-9007199254740995')).toEqual(
        big((v) => v === 1n || v === -9007199254740995n),
      );
      await refused('filter[big]=1.5', 'big', 'a whole number');
      await refused('filter[big]=99999999999999999999', 'big', 'a whole number');

      const sorted = rows
        .filter((row) => row.big !== null)
        .sort((a, b) => (BigInt(a.big as string) < BigInt(b.big as string) ? -1 : 1))
        .map((row) => row.big);
      const seen: (string | null)[] = [];
      let url = '/api/gadgets?sort=big&pagination=cursor&per_page=1&filter[big][is_not_null]=1';
      for (let page = 0; page < 10 && url; page++) {
        const res = await app.inject({ url });
        expect(res.statusCode, res.body).toBe(200);
        const body = res.json() as { data: Gadget[]; next_page_url: string | null };
        seen.push(...body.data.map((row) => row.big));
        url = body.next_page_url
          ? new URL(body.next_page_url, 'http://x').pathname + new URL(body.next_page_url, 'http://x').search
          : '';
      }
      expect(seen).toEqual(sorted);
    });

    it('sums, averages and bounds 64-bit integers exactly in aggregates, past 2^53', async () => {
      const res = await app.inject({
        url: '/api/gadgets/aggregate?metrics=count,sum:big,avg:big,min:big,max:big,count_distinct:big',
      });
      expect(res.statusCode, res.body).toBe(200);
      const values = rows.filter((row) => row.big !== null).map((row) => BigInt(row.big as string));
      const sum = values.reduce((total, value) => total + value, 0n);
      // The average with 4 decimals, rounded half away from zero, by hand.
      const scaled = sum * 10_000n;
      const n = BigInt(values.length);
      const magnitude = scaled < 0n ? -scaled : scaled;
      const rounded = (magnitude / n + ((magnitude % n) * 2n >= n ? 1n : 0n)) * (scaled < 0n ? -1n : 1n);
      const digits = rounded.toString().padStart(5, '0');
      const sorted = [...values].sort((a, b) => (a < b ? -1 : 1));
      expect(res.json().data).toEqual([
        {
          group: {},
          count: rows.length,
          'sum:big': sum.toString(),
          'avg:big': `${digits.slice(0, -4)}.${digits.slice(-4)}`,
          'min:big': String(sorted[0]),
          'max:big': String(sorted[sorted.length - 1]),
          'count_distinct:big': new Set(values).size,
        },
      ]);
      // Past 2^53 a double would have rounded the sum.
      expect(
        sum > BigInt(Number.MAX_SAFE_INTEGER) ||
          sum < -BigInt(Number.MAX_SAFE_INTEGER) ||
          values.some((value) => value > BigInt(Number.MAX_SAFE_INTEGER)),
      ).toBe(true);
    });

    it('compares times of day, completing a time written without seconds', async () => {
      expect(await ids('filter[at_time][gte]=08:30')).toEqual(
        where((row) => row.at_time !== null && row.at_time >= '08:30:00'),
      );
      expect(await ids('filter[at_time]=12:00:00')).toEqual(where((row) => row.at_time === '12:00:00'));
      await refused('filter[at_time]=25:00', 'at_time', 'a time of day');
      await refused('filter[at_time][contains]=3', 'at_time', 'cannot be used');
    });

    it('tests bytes for NULL only', async () => {
      expect(await ids('filter[raw][is_null]=0')).toEqual(where((row) => row.raw !== null));
      await refused('filter[raw]=aGk=', 'raw', 'cannot be used');
    });

    it('reads one record by its uuid, and answers 404 for a key its kind cannot hold', async () => {
      const [first] = rows as [Gadget];
      const found = await app.inject({ url: `/api/gadgets/${first.id}` });
      expect(found.statusCode, found.body).toBe(200);
      expect(found.json().id).toBe(first.id);
      for (const id of ['not-a-uuid', '5c7e7dee-87ac-4ec4-9a5c-4e0e2a6a8a99']) {
        const res = await app.inject({ url: `/api/gadgets/${id}` });
        expect(res.statusCode, res.body).toBe(404);
      }
    });

    it('writes an enum, a 64-bit integer and a time, refusing values their kinds cannot hold', async () => {
      const [, second] = rows as [Gadget, Gadget];
      const patch = (payload: Record<string, unknown>) =>
        app.inject({ method: 'PATCH', url: `/api/gadgets/${second.id}`, payload });
      const res = await patch({ mood: 'ok', big: '-9223372036854775808', at_time: '07:05' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ mood: 'ok', big: '-9223372036854775808', at_time: '07:05:00' });
      const bad = await patch({ big: '12x', at_time: '24:00' });
      expect(bad.statusCode, bad.body).toBe(422);
      expect(Object.keys(bad.json().errors).sort()).toEqual(['at_time', 'big']);
      const back = await patch({ mood: second.mood, big: second.big, at_time: second.at_time });
      expect(back.statusCode, back.body).toBe(200);
    });

    it('creates a record whose uuid key the database makes, and reads it back by its Location', async () => {
      const res = await app.inject({
        method: 'POST',
        url: '/api/gadgets',
        payload: { mood: 'ok', big: '9007199254740995', at_time: '06:00' },
      });
      expect(res.statusCode, res.body).toBe(201);
      const created = res.json() as Gadget;
      expect(created.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(created).toMatchObject({ mood: 'ok', big: '9007199254740995', at_time: '06:00:00' });
      const back = await app.inject({ url: res.headers.location as string });
      expect(back.statusCode, back.body).toBe(200);
      expect(back.json()).toEqual(created);
      const gone = await app.inject({ method: 'DELETE', url: `/api/gadgets/${created.id}` });
      expect(gone.statusCode, gone.body).toBe(204);
    });

    it('describes each kind in the schema document and the OpenAPI document', async () => {
      const schema = await app.inject({ url: '/api/v1/gadgets/schema' });
      expect(schema.statusCode, schema.body).toBe(200);
      const columnsShown = schema.json().table.columns as { key: string; type: string }[];
      expect(columnsShown.find((column) => column.key === 'mood')?.type).toBe('badge');
      const bare = (await app.inject({ url: '/api/v1/gadgets-bare/schema' })).json();
      const mood = (bare.table.columns as { key: string; formatOptions: { colorMap?: object } }[]).find(
        (column) => column.key === 'mood',
      );
      expect(mood?.formatOptions.colorMap).toEqual({ sad: 'blue', ok: 'green', happy: 'orange' });
      const filters = bare.table.filters as {
        name: string;
        operators: string[];
        options?: { value: string }[];
      }[];
      expect(
        filters.find((filter) => filter.name === 'mood')?.options?.map((option) => option.value),
      ).toEqual([...moods]);
      expect(filters.find((filter) => filter.name === 'id')?.operators).toEqual([
        'eq',
        'neq',
        'is_null',
        'is_not_null',
        'in',
        'not_in',
      ]);
      const openapi = await app.inject({ url: '/api/openapi.json' });
      const record = openapi.json().components.schemas.GadgetsRecord;
      const properties = (record as { properties: Record<string, Record<string, unknown>> }).properties;
      expect(properties.id).toMatchObject({ type: 'string', format: 'uuid' });
      expect(properties.mood?.enum).toEqual([...moods, null]);
      expect(properties.big).toMatchObject({ type: ['string', 'null'], pattern: '^-?[0-9]{1,19}$' });
    });

    if (dialect === 'postgres')
      it('compares intervals, network addresses and money; answers arrays', async () => {
        expect(await ids('filter[span][gt]=PT3H')).toEqual(
          where((row) => row.span != null && seconds(row.span) > 3 * 3600),
        );
        expect(await ids('filter[ip]=2001:db8::1')).toEqual(where((row) => row.ip === '2001:db8::1'));
        expect(await ids('filter[ip][in]=::1,2001:db8::2')).toEqual(
          where((row) => row.ip === '::1' || row.ip === '2001:db8::2'),
        );
        expect(await ids('filter[price][gte]=10')).toEqual(
          where((row) => row.price != null && row.price >= 10),
        );
        expect(await ids('filter[tags][is_null]=1')).toEqual(where((row) => row.tags === null));
        await refused('filter[ip]=10.0.0.300', 'ip', 'an IPv4 or IPv6 address');
        await refused('filter[ip][starts_with]=10', 'ip', 'cannot be used');
        await refused('filter[span]=1 day', 'span', 'an ISO 8601 duration');
      });

    if (dialect === 'postgres')
      it('matches patterns on such types declared as strings, as text; a value the type refuses is a 422 on filter', async () => {
        const loose = async (query: string) => {
          const res = await app.inject({ url: `/api/loose?${query}` });
          expect(res.statusCode, res.body).toBe(200);
          return (res.json().data as { id: number }[]).map((row) => row.id).sort();
        };
        // char(n) padding does not hide a suffix, as it does not hide equality.
        expect(await loose('filter[code][ends_with]=man')).toEqual([1]);
        expect(await loose('filter[code]=German')).toEqual([1]);
        expect(await loose('filter[mood][contains]=app')).toEqual([1]);
        expect(await loose(`filter[key][starts_with]=${rows[1]?.id.slice(0, 4)}`)).toEqual([2]);
        expect(await loose('filter[ip][starts_with]=10.')).toEqual([1]);
        for (const query of ['filter[mood]=XXX', 'filter[key]=nope', 'filter[key][in]=a,b']) {
          const res = await app.inject({ url: `/api/loose?${query}` });
          expect(res.statusCode, res.body).toBe(422);
          expect(Object.keys(res.json().errors)).toEqual(['filter']);
        }
      });

    if (dialect === 'mysql')
      it('compares INET6 addresses; answers SET columns as arrays', async () => {
        expect(await ids('filter[ip]=2001:db8::1')).toEqual(where((row) => row.ip === '2001:db8::1'));
        expect(await ids('filter[flags][is_null]=1')).toEqual(where((row) => row.flags === null));
        // An IPv4 address is a network address, but not one INET6 holds: no row has it.
        expect(await ids('filter[ip]=10.0.0.1')).toEqual([]);
        await refused('filter[flags]=a', 'flags', 'cannot be used');
      });
  });
}
