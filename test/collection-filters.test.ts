import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ColumnSpec } from '../src/index.js';
import { kinds } from '../src/kinds/index.js';
import { defineEndpoint, defineResource } from '../src/resource/policy.js';
import type { ResolvedColumn } from '../src/resource/registry.js';
import { resolveResources } from '../src/resource/resolve.js';
import { buildService } from '../src/server/standalone.js';
import type { Connection } from '../src/sql/connect.js';
import type { Statement } from '../src/sql/dialect.js';
import { dropDatabase, freshDatabase } from './support/databases.js';
import { recordInto } from './support/statements.js';

/**
 * Containment filters on collection columns (`has_all`, `has_any`), through HTTP on real databases:
 * PostgreSQL arrays (text[], integer[], an enum's array) and MariaDB SET. Each answer is held to a
 * predicate over the inserted rows, and each operator selects some rows but not all; NULL holds nothing.
 */

interface Film {
  id: number;
  features: string[] | null;
  scores: number[] | null;
  moods: string[] | null;
}

/** PostgreSQL's rows: an element with a comma and one with a quote, empty arrays and NULLs. */
const pgFilms: Film[] = [
  { id: 1, features: ['Trailers', 'Commentaries'], scores: [1, 2, 3], moods: ['happy'] },
  { id: 2, features: ['Trailers'], scores: [3], moods: ['sad', 'ok'] },
  { id: 3, features: ['Commentaries', 'Deleted Scenes'], scores: [], moods: [] },
  { id: 4, features: null, scores: null, moods: null },
  { id: 5, features: [], scores: [2, 5], moods: ['ok', 'happy'] },
  {
    id: 6,
    features: ['Behind the Scenes', 'Trailers', 'Commentaries'],
    scores: [5, 1],
    moods: ['happy', 'sad'],
  },
  { id: 7, features: ['Comma, Inc', 'Say "cheese"'], scores: [-7], moods: ['ok'] },
];

const setValues = ['Trailers', 'Commentaries', 'Deleted Scenes', 'Behind the Scenes'] as const;

/** MariaDB's rows: a SET's members have no comma. */
const setFilms: Film[] = [
  { id: 1, features: ['Trailers', 'Commentaries'], scores: null, moods: null },
  { id: 2, features: ['Trailers'], scores: null, moods: null },
  { id: 3, features: ['Commentaries', 'Deleted Scenes'], scores: null, moods: null },
  { id: 4, features: null, scores: null, moods: null },
  { id: 5, features: [], scores: null, moods: null },
  { id: 6, features: ['Behind the Scenes', 'Trailers', 'Commentaries'], scores: null, moods: null },
];

type Column = 'features' | 'scores' | 'moods';

const holdsAll = (held: readonly unknown[] | null, members: readonly unknown[]) =>
  held !== null && members.every((member) => held.includes(member));
const holdsAny = (held: readonly unknown[] | null, members: readonly unknown[]) =>
  held !== null && members.some((member) => held.includes(member));

/** The service over `films`, with the answers' ids and refusals read through HTTP. */
function harness(rows: readonly Film[]) {
  const state: { app?: Awaited<ReturnType<typeof buildService>> } = {};
  const app = () => state.app as Awaited<ReturnType<typeof buildService>>;
  const get = (query: string, path = 'films') =>
    app().inject({ url: `/api/${path}?per_page=100&sort=id&${query}` });
  const ids = async (query: string, path?: string) => {
    const res = await get(query, path);
    expect(res.statusCode, res.body).toBe(200);
    return (res.json().data as Film[]).map((row) => row.id);
  };
  /** The ids of the rows `predicate` holds for, checked to be some rows but not every one. */
  const expected = (column: Column, predicate: (held: readonly unknown[] | null) => boolean) => {
    const matching = rows.filter((row) => predicate(row[column])).map((row) => row.id);
    expect(matching.length).toBeGreaterThan(0);
    expect(matching.length).toBeLessThan(rows.length);
    // NULL holds nothing: a row whose column is NULL is never among them.
    for (const row of rows) if (row[column] === null) expect(matching).not.toContain(row.id);
    return matching;
  };
  const check = async (column: Column, op: 'has_all' | 'has_any', members: readonly (string | number)[]) => {
    const want = expected(column, (held) =>
      op === 'has_all' ? holdsAll(held, members) : holdsAny(held, members),
    );
    const csv = members.map((member) => encodeURIComponent(String(member))).join(',');
    expect(await ids(`filter[${column}][${op}]=${csv}`)).toEqual(want);
    // The bracket forms are the same list.
    const brackets = members
      .map((member) => `filter[${column}][${op}][]=${encodeURIComponent(String(member))}`)
      .join('&');
    expect(await ids(brackets)).toEqual(want);
    return want;
  };
  /** A 422 whose only key is the filter's, with a message containing `text`. */
  const refused = async (query: string, column: string, text: string, path?: string) => {
    const res = await get(query, path);
    expect(res.statusCode, res.body).toBe(422);
    const { errors } = res.json() as { errors: Record<string, string[]> };
    expect(Object.keys(errors)).toEqual([`filter.${column}`]);
    expect(errors[`filter.${column}`]?.join(' ')).toContain(text);
  };
  /** The operators the schema document lists for each filter, and the OpenAPI filter's operators. */
  const described = async () => {
    const schema = await app().inject({ url: '/api/v1/films/schema' });
    expect(schema.statusCode, schema.body).toBe(200);
    const filters = schema.json().table.filters as { name: string; operators: string[] }[];
    const openapi = await app().inject({ url: '/api/openapi.json' });
    expect(openapi.statusCode, openapi.body).toBe(200);
    const filter = openapi.json().components.schemas.FilmsFilter as {
      properties: Record<string, { properties: Record<string, Record<string, unknown>> }>;
    };
    return {
      operators: (name: string) => filters.find((entry) => entry.name === name)?.operators,
      openapi: (name: string) => filter.properties[name]?.properties ?? {},
    };
  };
  return { state, app, ids, check, refused, described };
}

const endpoint = (columns: readonly string[]) =>
  defineEndpoint({
    resource: 'films',
    allowedFilters: [...columns],
    allowedSorts: ['id'],
    schema: { table: { columns: [{ key: 'id' }, ...columns.map((key) => ({ key }))] } },
  });

describe('has_all and has_any on PostgreSQL arrays (text[], integer[], an enum’s array)', () => {
  const name = 'collection_filters_pg';
  let conn: Connection;
  const statements: Statement[] = [];
  const films = harness(pgFilms);
  const { ids, check, refused } = films;
  let bare: Awaited<ReturnType<typeof buildService>>;

  beforeAll(async () => {
    conn = await freshDatabase('postgres', name);
    await sql`create type mood as enum ('sad', 'ok', 'happy')`.execute(conn.db);
    await sql`create table films (id integer primary key, features text[], scores integer[], moods mood[])`.execute(
      conn.db,
    );
    await sql`create index films_features on films using gin (features)`.execute(conn.db);
    for (const film of pgFilms)
      await sql`insert into films values (${film.id}, ${film.features}, ${film.scores}, ${
        film.moods === null ? null : `{${film.moods.join(',')}}`
      }::mood[])`.execute(conn.db);
    await sql`analyze films`.execute(conn.db);
    const columns: Record<string, ColumnSpec> = {
      id: 'integer',
      features: 'array',
      scores: 'array',
      moods: 'array',
    };
    // Every statement the service runs, to inspect the ones a request made.
    const recording = recordInto(conn, statements);
    films.state.app = await buildService({
      config: {
        resources: [defineResource({ name: 'films', table: 'films', columns })],
        endpoints: [endpoint(['features', 'scores', 'moods'])],
      },
      connection: recording,
    });
    // Without the catalog: the elements' kind is declared, and the bound array is left to take the
    // column's type from the operator.
    bare = await buildService({
      config: {
        introspect: false,
        resources: [
          defineResource({
            name: 'films',
            table: 'films',
            columns: { ...columns, scores: { type: 'array', of: 'integer' } },
          }),
        ],
        endpoints: [endpoint(['features', 'scores', 'moods'])],
      },
      connection: conn,
    });
  });
  afterAll(async () => {
    await films.state.app?.close();
    await bare?.close();
    await conn?.db.destroy();
    await dropDatabase('postgres', name);
  });

  it('has_all with one and with two members, on text[]; the database agrees', async () => {
    const one = await check('features', 'has_all', ['Trailers']);
    const byHand = await sql<{
      id: number;
    }>`select id from films where 'Trailers' = any(features) order by id`.execute(conn.db);
    expect(byHand.rows.map((row) => row.id)).toEqual(one);
    await check('features', 'has_all', ['Trailers', 'Commentaries']);
    // Members with a comma (in a bracket form) and a quote are members like any other.
    expect(
      await ids(
        `filter[features][has_all][]=${encodeURIComponent('Comma, Inc')}&filter[features][has_all][]=Say%20%22cheese%22`,
      ),
    ).toEqual([7]);
  });

  it('has_any with two members, on text[], integer[] and an enum’s array', async () => {
    await check('features', 'has_any', ['Deleted Scenes', 'Behind the Scenes']);
    await check('scores', 'has_any', [2, 5]);
    await check('moods', 'has_any', ['sad', 'ok']);
  });

  it('has_all on integer[] and on an enum’s array', async () => {
    await check('scores', 'has_all', [3]);
    await check('scores', 'has_all', [1, 3]);
    await check('scores', 'has_any', [-7]);
    await check('moods', 'has_all', ['happy']);
    await check('moods', 'has_all', ['happy', 'sad']);
  });

  it('combines with other operators and groups', async () => {
    expect(await ids('filter[features][has_any]=Trailers&filter[scores][has_all]=1')).toEqual(
      pgFilms
        .filter((film) => holdsAny(film.features, ['Trailers']) && holdsAll(film.scores, [1]))
        .map((film) => film.id),
    );
    expect(await ids('filter[or][0][moods][has_all]=sad&filter[or][1][features][is_null]=1')).toEqual(
      pgFilms
        .filter((film) => holdsAll(film.moods, ['sad']) || film.features === null)
        .map((film) => film.id),
    );
  });

  it('refuses an empty list, a member integer[] cannot hold, and an enum value the type lacks', async () => {
    await refused('filter[features][has_all]=,', 'features', 'at least one value');
    await refused('filter[scores][has_any]=,,', 'scores', 'at least one value');
    await refused('filter[scores][has_all]=1,x', 'scores', 'a whole number');
    await refused('filter[scores][has_any]=2.5', 'scores', 'a whole number');
    await refused('filter[scores][has_any]=99999999999', 'scores', 'a whole number');
    // An empty value is no filter at all, as for every filter (docs/query-language.md, Filters).
    expect(await ids('filter[features][has_all]=')).toEqual(pgFilms.map((film) => film.id));
    await refused('filter[features][eq]=Trailers', 'features', 'has_all, has_any');
    // An enum's labels are the database's: one it lacks is its refusal, a 422 on the filter.
    const res = await films.app().inject({ url: '/api/films?filter[moods][has_any]=angry' });
    expect(res.statusCode, res.body).toBe(422);
    expect(Object.keys(res.json().errors)).toEqual(['filter']);
  });

  it('binds the members as one array of the column’s own type, which a GIN index serves', async () => {
    statements.length = 0;
    expect(await ids('filter[features][has_all]=Deleted%20Scenes')).toEqual([3]);
    const statement = statements.find((run) => run.sql.includes('@>'));
    expect(statement?.sql).toMatch(/"features" @> \$1::"pg_catalog"."_text"/);
    expect(statement?.parameters).toContainEqual(['Deleted Scenes']);
    statements.length = 0;
    await ids('filter[moods][has_any]=sad');
    expect(statements.find((run) => run.sql.includes('&&'))?.sql).toMatch(/&& \$1::"public"."_mood"/);
    // The plan of that very statement, with sequential scans priced out: the index answers it.
    const explained = await conn.db.connection().execute(async (session) => {
      await sql`set enable_seqscan = off`.execute(session);
      const plan = await session.executeQuery<Record<string, string>>(
        CompiledQuery.raw(`explain ${statement?.sql}`, [...(statement?.parameters ?? [])]),
      );
      await sql`reset enable_seqscan`.execute(session);
      return plan.rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    expect(explained).toContain('films_features');
  });

  it('without the catalog: the declared element kind coerces, the untyped array takes the column’s type', async () => {
    const bareIds = async (query: string) => {
      const res = await bare.inject({ url: `/api/films?per_page=100&sort=id&${query}` });
      expect(res.statusCode, res.body).toBe(200);
      return (res.json().data as Film[]).map((row) => row.id);
    };
    expect(await bareIds('filter[scores][has_all]=1,3')).toEqual(
      pgFilms.filter((film) => holdsAll(film.scores, [1, 3])).map((film) => film.id),
    );
    expect(await bareIds('filter[moods][has_any]=ok')).toEqual(
      pgFilms.filter((film) => holdsAny(film.moods, ['ok'])).map((film) => film.id),
    );
    const res = await bare.inject({ url: '/api/films?filter[scores][has_all]=one' });
    expect(res.statusCode).toBe(422);
    expect(Object.keys(res.json().errors)).toEqual(['filter.scores']);
  });

  it('lists has_all and has_any in the schema document and the OpenAPI document, with members’ schemas', async () => {
    const { operators, openapi } = await films.described();
    for (const column of ['features', 'scores', 'moods'])
      expect(operators(column)).toEqual(['is_null', 'is_not_null', 'has_all', 'has_any']);
    expect(openapi('scores').has_all).toMatchObject({
      type: 'array',
      minItems: 1,
      items: { type: 'integer', minimum: -(2 ** 31), maximum: 2 ** 31 - 1 },
    });
    expect(openapi('features').has_any).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(openapi('moods').has_any).toMatchObject({ type: 'array', items: { type: 'string' } });
  });
});

describe('has_all and has_any on MariaDB SET', () => {
  const name = 'collection_filters_mysql';
  let conn: Connection;
  const films = harness(setFilms);
  const { check, refused } = films;

  beforeAll(async () => {
    conn = await freshDatabase('mysql', name);
    await sql`create table films (id integer primary key,
      features set('Trailers', 'Commentaries', 'Deleted Scenes', 'Behind the Scenes'))`.execute(conn.db);
    for (const film of setFilms)
      await sql`insert into films values (${film.id}, ${film.features === null ? null : film.features.join(',')})`.execute(
        conn.db,
      );
    films.state.app = await buildService({
      config: {
        resources: [
          defineResource({
            name: 'films',
            table: 'films',
            columns: { id: 'integer', features: { type: 'set', values: [...setValues] } },
          }),
        ],
        endpoints: [endpoint(['features'])],
      },
      connection: conn,
    });
  });
  afterAll(async () => {
    await films.state.app?.close();
    await conn?.db.destroy();
    await dropDatabase('mysql', name);
  });

  it('has_all with one and with two members; the database agrees', async () => {
    const one = await check('features', 'has_all', ['Trailers']);
    const byHand = await sql<{
      id: number;
    }>`select id from films where features like '%Trailers%' order by id`.execute(conn.db);
    expect(byHand.rows.map((row) => row.id)).toEqual(one);
    await check('features', 'has_all', ['Trailers', 'Commentaries']);
    await check('features', 'has_all', ['Deleted Scenes', 'Commentaries']);
  });

  it('has_any with two members', async () => {
    await check('features', 'has_any', ['Deleted Scenes', 'Behind the Scenes']);
    await check('features', 'has_any', ['Trailers', 'Deleted Scenes']);
  });

  it('refuses an empty list, a value outside the declared ones (naming them), and a member with a comma', async () => {
    await refused('filter[features][has_all]=,', 'features', 'at least one value');
    await refused(
      'filter[features][has_any]=Trailers,Bloopers',
      'features',
      'one of Trailers, Commentaries, Deleted Scenes, Behind the Scenes',
    );
    // Values are the declared ones exactly, as an enum's are.
    await refused('filter[features][has_all]=trailers', 'features', 'one of Trailers');
    await refused('filter[features][has_any][]=Trailers,Commentaries', 'features', 'never contains a comma');
    await refused('filter[features][eq]=Trailers', 'features', 'has_all, has_any');
  });

  it('lists has_all and has_any in the schema document and the OpenAPI document, with the declared values', async () => {
    const { operators, openapi } = await films.described();
    expect(operators('features')).toEqual(['is_null', 'is_not_null', 'has_all', 'has_any']);
    for (const op of ['has_all', 'has_any'])
      expect(openapi('features')[op]).toMatchObject({
        type: 'array',
        minItems: 1,
        items: { type: 'string', enum: [...setValues] },
      });
  });
});

describe('the declared kind of an array’s elements (of)', () => {
  const declare = (spec: ColumnSpec) => () =>
    resolveResources([{ name: 'films', table: 'films', columns: { id: 'integer', scores: spec } }]);

  it('is one of the element kinds, on array columns only', () => {
    expect(declare({ type: 'array', of: 'uuid' })).not.toThrow();
    expect(declare({ type: 'array', of: 'json' as never })).toThrow(
      /of is the kind of the array's elements, one of string, integer, bigint, decimal, boolean, date, uuid/,
    );
    expect(declare({ type: 'string', of: 'integer' })).toThrow(
      /of \(the kind of its elements\) is for array columns/,
    );
  });

  it('coerces members as that kind, and describes them so', () => {
    const column = resolveResources([
      { name: 'films', table: 'films', columns: { id: 'integer', days: { type: 'array', of: 'date' } } },
    ])
      .get('films')
      ?.columns.get('days');
    expect(column?.of).toBe('date');
    const kind = kinds.array;
    expect(kind.coerce(column as ResolvedColumn, '2024-02-30')).toMatchObject({ ok: false });
    expect(kind.coerce(column as ResolvedColumn, '2024-02-29')).toEqual({ ok: true, value: '2024-02-29' });
    expect(kind.member?.(column as ResolvedColumn)).toMatchObject({ format: 'date' });
  });
});

describe('a collection kind on an engine without such columns is refused at start-up', () => {
  /** `buildService` over `films` with these columns, with and without the catalog: its refusal. */
  const refusal = async (conn: Connection, columns: Record<string, ColumnSpec>, introspect = true) => {
    const built = buildService({
      config: {
        ...(!introspect && { introspect: false }),
        resources: [
          defineResource({ name: 'films', table: 'films', columns: { id: 'integer', ...columns } }),
        ],
        endpoints: [endpoint(Object.keys(columns))],
      },
      connection: conn,
    });
    await expect(built).rejects.toMatchObject({ name: 'ConfigurationError' });
    return ((await built.catch((error: unknown) => error)) as Error).message;
  };
  const tags: Record<string, ColumnSpec> = { tags: 'array' };
  const flags: Record<string, ColumnSpec> = { flags: { type: 'set', values: ['a', 'b'] } };

  describe('SQLite: neither arrays nor SETs', () => {
    const name = 'collection_filters_unheld_sqlite';
    let conn: Connection;
    beforeAll(async () => {
      conn = await freshDatabase('sqlite', name);
      await sql`create table films (id integer primary key, tags text, flags text)`.execute(conn.db);
      await sql`insert into films values (1, '["a"]', 'a')`.execute(conn.db);
    });
    afterAll(async () => {
      await conn?.db.destroy();
    });

    it('an array column: named with its resource, and why, with what to declare instead', async () => {
      for (const introspect of [true, false])
        expect(await refusal(conn, tags, introspect)).toBe(
          'Resource "films": column "films.tags" is declared array, but SQLite has no array columns, so its filters (has_all, has_any) could never run; declare it as what the column stores (json or string).',
        );
    });

    it('a set column, and both at once in one error', async () => {
      expect(await refusal(conn, flags)).toMatch(
        /^Resource "films": column "films\.flags" is declared set, but SQLite has no set columns, .*\(json or string\)\.$/,
      );
      const both = await refusal(conn, { ...tags, ...flags });
      expect(both).toMatch(/^2 columns are of kinds SQLite has no columns of:\n/);
      expect(both).toContain('- Resource "films": column "films.tags" is declared array');
      expect(both).toContain('- Resource "films": column "films.flags" is declared set');
    });

    it('the same columns declared as what SQLite stores serve', async () => {
      const app = await buildService({
        config: {
          resources: [
            defineResource({
              name: 'films',
              table: 'films',
              columns: { id: 'integer', tags: 'json', flags: 'string' },
            }),
          ],
          endpoints: [endpoint(['tags', 'flags'])],
        },
        connection: conn,
      });
      try {
        const res = await app.inject({ url: '/api/films?filter[flags][eq]=a' });
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json().data).toEqual([{ id: 1, tags: ['a'], flags: 'a' }]);
      } finally {
        await app.close();
      }
    });
  });

  describe('PostgreSQL: no SETs', () => {
    const name = 'collection_filters_unheld_postgres';
    let conn: Connection;
    beforeAll(async () => {
      conn = await freshDatabase('postgres', name);
      await sql`create table films (id integer primary key, flags text[], note text)`.execute(conn.db);
    });
    afterAll(async () => {
      await conn?.db.destroy();
      await dropDatabase('postgres', name);
    });

    it('a set column over an array type, which the catalog check cannot tell: refused, pointing to array', async () => {
      for (const introspect of [true, false])
        expect(await refusal(conn, flags, introspect)).toBe(
          'Resource "films": column "films.flags" is declared set, but PostgreSQL has no set columns, so its filters (has_all, has_any) could never run; declare it as what the column stores (array, json or string).',
        );
    });

    it('a set column over text: the catalog check refuses it first', async () => {
      expect(await refusal(conn, { note: { type: 'set', values: ['a'] } })).toMatch(
        /column "films\.note" is declared set, but the database's column is text, which cannot hold it/,
      );
    });
  });

  describe('MariaDB: no arrays', () => {
    const name = 'collection_filters_unheld_mysql';
    let conn: Connection;
    beforeAll(async () => {
      conn = await freshDatabase('mysql', name);
      await sql`create table films (id integer primary key, tags json)`.execute(conn.db);
    });
    afterAll(async () => {
      await conn?.db.destroy();
      await dropDatabase('mysql', name);
    });

    it('the catalog check refuses an array column over JSON; without the catalog, the engine check does', async () => {
      expect(await refusal(conn, tags)).toMatch(
        /column "films\.tags" is declared array, but the database's column is longtext, which cannot hold it/,
      );
      expect(await refusal(conn, tags, false)).toBe(
        'Resource "films": column "films.tags" is declared array, but MariaDB/MySQL has no array columns, so its filters (has_all, has_any) could never run; declare it as what the column stores (set, json or string).',
      );
    });
  });
});
