import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ColumnSpec } from '../src/index.js';
import { defineEndpoint, defineResource } from '../src/resource/policy.js';
import { buildService } from '../src/server/standalone.js';
import type { Connection } from '../src/sql/connect.js';
import type { DialectName, Statement } from '../src/sql/dialect.js';
import { dialects, dropDatabase, freshDatabase } from './support/databases.js';
import { recordInto } from './support/statements.js';

/**
 * Containment filters (`has_all`, `has_any`) on JSON columns holding arrays, through HTTP on the three
 * engines: PostgreSQL jsonb and json, MariaDB JSON and JSON kept in longtext, SQLite text declared
 * json. Every answer is held to a predicate over the inserted documents (written here, not taken from
 * the service) and selects some rows but not all. A member matches an element that is the string of
 * its text, or, when the text reads as a number, a number equal to it, or, for true/false, that
 * boolean; a column that holds no array (an object, a scalar, NULL, text that is no JSON) holds nothing.
 */

interface Doc {
  id: number;
  /** The column's JSON text, or NULL. */
  json: string | null;
  /** `json` is text that is no JSON: only in the columns that can hold it (`invalidIn`). */
  invalid?: true;
}

const docs: Doc[] = [
  { id: 1, json: '["a", "b"]' },
  { id: 2, json: '["b", "c"]' },
  { id: 3, json: '[1, 2]' },
  { id: 4, json: '["1", "x"]' },
  { id: 5, json: '[1.0, "a"]' },
  { id: 6, json: '[]' },
  // An object holding "a" as a key, as a value and inside an array: it is no array.
  { id: 7, json: '{"a": 1, "b": ["a"], "c": "a"}' },
  { id: 8, json: null },
  { id: 9, json: '"a"' },
  { id: 10, json: '[true, "c"]' },
  { id: 11, json: '["true", 3]' },
  // An object and a null among the elements are neither strings nor numbers.
  { id: 12, json: '[2.50, {"k": "a"}, null]' },
  { id: 13, json: '1' },
  { id: 14, json: '[-0.5, "Ä", "say \\"a\\"", "a,b"]' },
  { id: 15, json: 'not json', invalid: true },
];

/** What a member's text reads as in JSON besides a string (docs/query-language.md's rule, written again). */
const numberOf = (member: string) => (/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(member) ? Number(member) : undefined);
const elementMatches = (element: unknown, member: string) =>
  element === member ||
  (typeof element === 'number' && element === numberOf(member)) ||
  (typeof element === 'boolean' && String(element) === member);

const parsed = (doc: Doc): unknown => {
  if (doc.json === null || doc.invalid) return null;
  return JSON.parse(doc.json);
};
const holdsAll = (doc: Doc, members: readonly string[]) => {
  const value = parsed(doc);
  return Array.isArray(value) && members.every((m) => value.some((element) => elementMatches(element, m)));
};
const holdsAny = (doc: Doc, members: readonly string[]) => {
  const value = parsed(doc);
  return Array.isArray(value) && members.some((m) => value.some((element) => elementMatches(element, m)));
};

/** Each engine's two columns, and which of them holds text that is no JSON for the invalid row. */
const setups: Record<DialectName, { table: string; invalidIn: readonly ('tags' | 'alt')[]; index?: string }> =
  {
    // jsonb (with a GIN index) and json; neither can hold text that is no JSON.
    postgres: {
      table: 'create table docs (id integer primary key, tags jsonb, alt json)',
      invalidIn: [],
      index: 'create index docs_tags on docs using gin (tags)',
    },
    // JSON (longtext checked by json_valid) and a plain longtext, which holds anything.
    mysql: {
      table: 'create table docs (id integer primary key, tags json, alt longtext)',
      invalidIn: ['alt'],
    },
    // Text, declared json: it holds anything.
    sqlite: {
      table: 'create table docs (id integer primary key, tags text, alt text)',
      invalidIn: ['tags', 'alt'],
    },
  };

const endpoint = defineEndpoint({
  resource: 'docs',
  allowedFilters: ['tags', 'alt', 'alt.*'],
  allowedSorts: ['id'],
  schema: { table: { columns: [{ key: 'id' }, { key: 'tags' }, { key: 'alt' }] } },
});

for (const dialect of dialects) {
  describe(`has_all and has_any on JSON arrays on ${dialect}`, () => {
    const name = `json_array_filters_${dialect}`;
    const setup = setups[dialect];
    let conn: Connection;
    let app: Awaited<ReturnType<typeof buildService>>;
    const statements: Statement[] = [];
    /** The rows of each column: a row whose text the column cannot hold is not there (NULL in `tags`). */
    const rowsOf = (column: 'tags' | 'alt'): Doc[] =>
      docs
        .filter((doc) => !doc.invalid || setup.invalidIn.length > 0)
        .map((doc) => (doc.invalid && !setup.invalidIn.includes(column) ? { ...doc, json: null } : doc));

    beforeAll(async () => {
      conn = await freshDatabase(dialect, name);
      await sql.raw(setup.table).execute(conn.db);
      if (setup.index) await sql.raw(setup.index).execute(conn.db);
      const tags = rowsOf('tags');
      const alt = rowsOf('alt');
      for (const [i, doc] of tags.entries())
        await sql`insert into docs values (${doc.id}, ${doc.json}, ${alt[i]?.json ?? null})`.execute(conn.db);
      const columns: Record<string, ColumnSpec> = { id: 'integer', tags: 'json', alt: 'json' };
      // Every statement the service runs, to inspect the ones a request made.
      const recording = recordInto(conn, statements);
      app = await buildService({
        config: {
          resources: [defineResource({ name: 'docs', table: 'docs', columns })],
          endpoints: [endpoint],
        },
        connection: recording,
      });
    });
    afterAll(async () => {
      await app?.close();
      await conn?.db.destroy();
      await dropDatabase(dialect, name);
    });

    const get = (query: string) => app.inject({ url: `/api/docs?per_page=100&sort=id&${query}` });
    const ids = async (query: string) => {
      const res = await get(query);
      expect(res.statusCode, `${query}: ${res.body}`).toBe(200);
      return (res.json().data as { id: number }[]).map((row) => row.id);
    };
    /** The service's answer to `op` with `members` on `column`, in both list forms, against the predicate. */
    const check = async (column: 'tags' | 'alt', op: 'has_all' | 'has_any', members: readonly string[]) => {
      const rows = rowsOf(column);
      const want = rows
        .filter((doc) => (op === 'has_all' ? holdsAll(doc, members) : holdsAny(doc, members)))
        .map((doc) => doc.id);
      expect(want.length, `${op} ${members}: some rows`).toBeGreaterThan(0);
      expect(want.length, `${op} ${members}: not every row`).toBeLessThan(rows.length);
      const brackets = members.map((m) => `filter[${column}][${op}][]=${encodeURIComponent(m)}`).join('&');
      expect(await ids(brackets), `${column} ${op} ${members}`).toEqual(want);
      if (!members.some((m) => m.includes(','))) {
        const csv = members.map(encodeURIComponent).join(',');
        expect(await ids(`filter[${column}][${op}]=${csv}`), `${column} ${op}=${csv}`).toEqual(want);
      }
      return want;
    };

    it('has_all with one and with two members, on both columns', async () => {
      for (const column of ['tags', 'alt'] as const) {
        expect(await check(column, 'has_all', ['a'])).toEqual([1, 5]);
        expect(await check(column, 'has_all', ['a', 'b'])).toEqual([1]);
        await check(column, 'has_all', ['b', 'c']);
        // The same member twice is the member once.
        expect(await check(column, 'has_all', ['b', 'b'])).toEqual([1, 2]);
      }
    });

    it('has_any with two members, on both columns', async () => {
      for (const column of ['tags', 'alt'] as const) {
        expect(await check(column, 'has_any', ['c', 'x'])).toEqual([2, 4, 10]);
        await check(column, 'has_any', ['b', 'Ä']);
        // Commas and quotes inside members (the bracket form).
        expect(await check(column, 'has_any', ['a,b', 'say "a"'])).toEqual([14]);
      }
    });

    it('a member that reads as a number matches the number equal to it and the string of its text', async () => {
      for (const column of ['tags', 'alt'] as const) {
        // 1 matches the number 1, the number 1.0 and the string "1"; never the scalar 1 (row 13).
        expect(await check(column, 'has_any', ['1'])).toEqual([3, 4, 5]);
        expect(await check(column, 'has_all', ['1', 'a'])).toEqual([5]);
        expect(await check(column, 'has_all', ['1', '2'])).toEqual([3]);
        // 01 is the number 1, and a string "01" no row holds; 2.5 is 2.50; -.5 is -0.5.
        expect(await check(column, 'has_any', ['01'])).toEqual([3, 5]);
        expect(await check(column, 'has_any', ['2.5', '3'])).toEqual([11, 12]);
        expect(await check(column, 'has_any', ['-.5'])).toEqual([14]);
        // true matches the boolean true and the string "true".
        expect(await check(column, 'has_any', ['true'])).toEqual([10, 11]);
        expect(await check(column, 'has_all', ['true', 'c'])).toEqual([10]);
        // Mixed lists, where plain and typed members share a statement.
        expect(await check(column, 'has_any', ['x', '2', 'false'])).toEqual([3, 4]);
        expect(await ids(`filter[${column}][has_all]=a,b,1`)).toEqual([]);
      }
    });

    it('objects, scalars, NULL, text that is no JSON, and null or object elements never match', async () => {
      const never = [7, 8, 9, 12, 13, 15];
      for (const column of ['tags', 'alt'] as const)
        for (const query of [
          `filter[${column}][has_any]=a,b,c,1,k,true,${encodeURIComponent('not json')}`,
          `filter[${column}][has_all]=a`,
          `filter[${column}][has_any]=null`,
        ]) {
          const found = await ids(query);
          for (const id of never) expect(found, query).not.toContain(id);
        }
      // NULL holds nothing, and an OR group reaches it only through is_null.
      expect(await ids('filter[or][0][tags][has_any]=x&filter[or][1][tags][is_null]=1')).toEqual(
        rowsOf('tags')
          .filter((doc) => holdsAny(doc, ['x']) || doc.json === null)
          .map((doc) => doc.id),
      );
    });

    it('answers odd members with rows, never an error', async () => {
      const odd = ['\\', '"', "'", '😀', '9'.repeat(400), `1${'0'.repeat(400)}`, '-0', '.', '1e5', 'null'];
      for (const op of ['has_all', 'has_any'])
        for (const member of odd)
          expect(await ids(`filter[tags][${op}][]=${encodeURIComponent(member)}`)).toEqual([]);
      // Bytes that are no UTF-8 (a lone surrogate's): read as U+FFFD or refused, never a server error.
      const res = await get('filter[tags][has_any]=%ED%A0%80');
      expect(res.statusCode, res.body).toBeLessThan(500);
      // +1 is the number 1, -0 the number 0 (equal to 0).
      expect(await ids('filter[tags][has_any]=%2B1')).toEqual([3, 5]);
    });

    it('refuses an empty list, and keeps the other operators out', async () => {
      for (const [query, key] of [
        ['filter[tags][has_all]=,', 'filter.tags'],
        ['filter[alt][has_any]=,,', 'filter.alt'],
      ] as const) {
        const res = await get(query);
        expect(res.statusCode, `${query}: ${res.body}`).toBe(422);
        const errors = res.json().errors as Record<string, string[]>;
        expect(Object.keys(errors)).toEqual([key]);
        expect(errors[key]?.join(' ')).toContain('at least one value');
      }
      // An empty value is no filter at all, as for every filter (docs/query-language.md, Filters).
      expect(await ids('filter[tags][has_all]=')).toEqual(rowsOf('tags').map((doc) => doc.id));
      const eq = await get('filter[tags][eq]=a');
      expect(eq.statusCode).toBe(422);
      expect(eq.json().errors['filter.tags'].join(' ')).toContain('is_null, is_not_null, has_all, has_any');
    });

    it('leaves paths inside the column as they were', async () => {
      if (dialect !== 'sqlite') expect(await ids('filter[alt.c]=a')).toEqual([7]);
      else {
        // SQLite's json_extract refuses text that is no JSON, which its column here holds: as
        // PostgreSQL's cast does, a 422 keyed filter, never a server error.
        const malformed = await get('filter[alt.c]=a');
        expect(malformed.statusCode, malformed.body).toBe(422);
        expect(Object.keys(malformed.json().errors)).toEqual(['filter']);
      }
      const res = await get('filter[alt.c][has_any]=a');
      expect(res.statusCode).toBe(422);
      const [, listed] = res.json().errors['filter.alt.c'].join(' ').split('Operators for it:');
      expect(listed).toContain('contains');
      expect(listed).not.toContain('has_any');
    });

    it('lists has_all and has_any in the schema document and the OpenAPI document', async () => {
      const schema = await app.inject({ url: '/api/v1/docs/schema' });
      expect(schema.statusCode, schema.body).toBe(200);
      const filters = schema.json().table.filters as { name: string; operators: string[] }[];
      for (const column of ['tags', 'alt'])
        expect(filters.find((filter) => filter.name === column)?.operators).toEqual([
          'is_null',
          'is_not_null',
          'has_all',
          'has_any',
        ]);
      const openapi = await app.inject({ url: '/api/openapi.json' });
      expect(openapi.statusCode, openapi.body).toBe(200);
      const filter = openapi.json().components.schemas.DocsFilter.properties.tags.properties;
      for (const op of ['has_all', 'has_any'])
        expect(filter[op]).toMatchObject({
          type: 'array',
          minItems: 1,
          items: { type: ['string', 'number', 'boolean'] },
        });
    });

    it('binds every member, and looks at the top level of the array only', async () => {
      statements.length = 0;
      const member = "x') or 1=1 --";
      expect(await ids(`filter[tags][has_any]=${encodeURIComponent(member)}`)).toEqual([]);
      const statement = statements.find((run) => run.parameters.some((p) => String(p).includes(member)));
      expect(statement?.sql).not.toContain(member);
      // An element that is itself an array: PostgreSQL's @> and SQLite's json_each look at the
      // array's own elements; MariaDB's JSON_CONTAINS also looks inside nested arrays (docs/databases.md).
      await sql`insert into docs (id, tags) values (99, ${'[["nested"]]'})`.execute(conn.db);
      try {
        expect(await ids('filter[tags][has_any]=nested')).toEqual(dialect === 'mysql' ? [99] : []);
      } finally {
        await sql`delete from docs where id = 99`.execute(conn.db);
      }
    });

    if (dialect === 'postgres')
      it('on jsonb, each @> is served by a GIN index on the column', async () => {
        for (const query of ['filter[tags][has_all]=a,b', 'filter[tags][has_any]=c,1']) {
          statements.length = 0;
          await ids(query);
          const statement = statements.find((run) => run.sql.includes('@>'));
          expect(statement?.sql).toMatch(/"tags"\)::jsonb @> \$\d+::jsonb/);
          const explained = await conn.db.connection().execute(async (session) => {
            await sql`set enable_seqscan = off`.execute(session);
            const plan = await session.executeQuery<Record<string, string>>(
              CompiledQuery.raw(`explain ${statement?.sql}`, [...(statement?.parameters ?? [])]),
            );
            await sql`reset enable_seqscan`.execute(session);
            return plan.rows.map((row) => row['QUERY PLAN']).join('\n');
          });
          expect(explained, query).toContain('docs_tags');
        }
      });
  });
}
