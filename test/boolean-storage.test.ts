import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineEndpoint, defineResource } from '../src/resource/policy.js';
import { buildService } from '../src/server/standalone.js';
import type { Connection } from '../src/sql/connect.js';
import { dialects, dropDatabase, freshDatabase } from './support/databases.js';

/**
 * Booleans kept as 0/1 integers or as 't'/'f' text (schemas that predate a boolean type): filters,
 * sort, cursors, responses and PATCH use the column's own form on every engine.
 */

const values: (boolean | null)[] = [true, false, true, null, false, true];
const asInteger = (value: boolean | null) => (value === null ? null : value ? 1 : 0);
const asText = (value: boolean | null) => (value === null ? null : value ? 't' : 'f');

for (const dialect of dialects) {
  describe(`booleans stored as integers and as t/f text on ${dialect}`, () => {
    let conn: Connection;
    let app: Awaited<ReturnType<typeof buildService>>;
    const name = `bool_storage_${dialect}`;

    beforeAll(async () => {
      conn = await freshDatabase(dialect, name);
      await sql`create table flags (id integer primary key, as_int integer, as_text varchar(1))`.execute(
        conn.db,
      );
      await conn.db
        .insertInto('flags')
        .values(values.map((value, i) => ({ id: i + 1, as_int: asInteger(value), as_text: asText(value) })))
        .execute();
      const flags = defineResource({
        name: 'flags',
        table: 'flags',
        storage: { boolean: 'integer' },
        columns: { id: 'integer', as_int: 'boolean', as_text: { type: 'boolean', storage: 'text' } },
      });
      app = await buildService({
        config: {
          resources: [flags],
          endpoints: [
            defineEndpoint({
              resource: 'flags',
              allowedFilters: ['as_int', 'as_text'],
              allowedSorts: ['as_int', 'as_text'],
              allowAll: 100,
              access: { update: () => true },
              schema: {
                table: { columns: [{ key: 'id' }, { key: 'as_int' }, { key: 'as_text' }] },
                form: {
                  inputs: [
                    { name: 'as_int', type: 'switch' },
                    { name: 'as_text', type: 'checkbox' },
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

    const ids = async (query: string) => {
      const res = await app.inject({ url: `/api/flags?all=true&${query}` });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().map((row: { id: number }) => row.id);
    };
    const where = (predicate: (value: boolean | null) => boolean) =>
      values.flatMap((value, i) => (predicate(value) ? [i + 1] : []));

    it('reads both forms back as booleans', async () => {
      const res = await app.inject({ url: '/api/flags?all=true' });
      expect(res.statusCode, res.body).toBe(200);
      const rows = res.json().sort((a: { id: number }, b: { id: number }) => a.id - b.id);
      expect(rows.map((row: { as_int: unknown }) => row.as_int)).toEqual(values);
      expect(rows.map((row: { as_text: unknown }) => row.as_text)).toEqual(values);
    });

    it.each(['as_int', 'as_text'])('filters %s by the stored form', async (column) => {
      const sorted = (list: number[]) => [...list].sort((a, b) => a - b);
      expect(sorted(await ids(`filter[${column}]=true`))).toEqual(where((v) => v === true));
      expect(sorted(await ids(`filter[${column}]=0`))).toEqual(where((v) => v === false));
      expect(sorted(await ids(`filter[${column}][neq]=true`))).toEqual(where((v) => v === false));
      expect(sorted(await ids(`filter[${column}][in]=true,false`))).toEqual(where((v) => v !== null));
      expect(sorted(await ids(`filter[${column}][is_null]=true`))).toEqual(where((v) => v === null));
    });

    it.each(['as_int', 'as_text'])('sorts by %s and walks it by cursor', async (column) => {
      const seen: { id: number; [key: string]: unknown }[] = [];
      let cursor = '';
      for (let page = 0; page < 10; page++) {
        const res = await app.inject({
          url: `/api/flags?sort=${column}&pagination=cursor&per_page=2${cursor ? `&cursor=${cursor}` : ''}`,
        });
        expect(res.statusCode, res.body).toBe(200);
        const body = res.json();
        seen.push(...body.data);
        if (!body.next_cursor) break;
        cursor = encodeURIComponent(body.next_cursor);
      }
      expect(seen.map((row) => row.id).sort((a, b) => a - b)).toEqual(values.map((_, i) => i + 1));
      const flags = seen.map((row) => row[column]).filter((value) => value !== null);
      expect(flags).toEqual([...flags].sort((a, b) => Number(a) - Number(b)));
    });

    it('writes each column in its own form', async () => {
      const res = await app.inject({
        method: 'PATCH',
        url: '/api/flags/2',
        payload: { as_int: true, as_text: true },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ as_int: true, as_text: true });
      const row = await conn.db.selectFrom('flags').selectAll().where('id', '=', 2).executeTakeFirstOrThrow();
      expect(Number(row.as_int)).toBe(1);
      expect(row.as_text).toBe('t');
      await app.inject({ method: 'PATCH', url: '/api/flags/2', payload: { as_int: false, as_text: false } });
    });
  });
}
