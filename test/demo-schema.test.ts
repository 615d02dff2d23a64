import { type Expression, expressionBuilder, type SqlBool } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoContext } from '../examples/demo/auth.js';
import { demoTokens } from '../examples/demo/auth.js';
import demo from '../examples/demo/config.js';
import { endpoints } from '../examples/demo/endpoints.js';
import { posts, users } from '../examples/demo/resources.js';
import {
  type ColumnKind,
  createSchema,
  demoColumns,
  demoTables,
  dropSchema,
} from '../examples/demo/schema.js';
import { type DemoRow, demoData, isSeeded, seedDemo } from '../examples/demo/seed.js';
import { FilterValueError } from '../src/errors/filter-value-error.js';
import type {
  CustomFilterCallback,
  DynamicExpressionBuilder,
  ResourceDefinition,
  ScopeCallback,
} from '../src/resource/types.js';
import type { SchemaDocument } from '../src/schema/types.js';
import { buildService } from '../src/server/standalone.js';
import type { Connection } from '../src/sql/connect.js';
import type { DialectName } from '../src/sql/dialect.js';
import { dialects, dropDatabase, freshDatabase } from './support/databases.js';

/**
 * The demo schema and seed on the three engines: every table reads back exactly the generated rows
 * (so the engines agree with each other), and the demo's scopes and custom filter give the same
 * answers as plain JavaScript over those rows.
 */

const DATABASE = 'demo_check';
const expected = demoData({ users: 50 });

/** A stored value in the form `demoData` writes it. */
function normalize(kind: ColumnKind, value: unknown): unknown {
  if (value === null) return null;
  switch (kind) {
    case 'id':
    case 'integer':
    case 'decimal':
      return Number(value);
    case 'boolean':
      return Number(value) === 1;
    case 'datetime': {
      // PostgreSQL: `2024-01-15 10:00:00.123+00`; MariaDB and SQLite: `2024-01-15 10:00:00.123` (UTC).
      const text = String(value)
        .replace(' ', 'T')
        .replace(/([+-]\d\d)$/, '$1:00');
      return new Date(/(Z|[+-]\d\d:\d\d)$/.test(text) ? text : `${text}Z`).toISOString();
    }
    case 'json':
      return typeof value === 'string' ? JSON.parse(value) : value;
    default:
      return value;
  }
}

/** By the first two columns: the id, or both keys of a pivot. */
const byKey = (a: Record<string, unknown>, b: Record<string, unknown>) => {
  const [first, second] = Object.values(a).map(Number);
  const [otherFirst, otherSecond] = Object.values(b).map(Number);
  return (first ?? 0) - (otherFirst ?? 0) || (second ?? 0) - (otherSecond ?? 0);
};

async function readTable(
  conn: Connection,
  table: (typeof demoTables)[number],
): Promise<Record<string, unknown>[]> {
  const columns = demoColumns(table);
  const rows = await conn.db.selectFrom(table).selectAll().execute();
  return rows
    .map((row) => Object.fromEntries(columns.map(({ name, kind }) => [name, normalize(kind, row[name])])))
    .sort(byKey);
}

function scope(resource: ResourceDefinition, name: string): ScopeCallback {
  const callback = resource.scopes?.[name];
  if (!callback) throw new Error(`no scope ${resource.name}.${name}`);
  return callback;
}

function customFilter(name: string): CustomFilterCallback<DemoContext> {
  for (const endpoint of endpoints)
    for (const filter of endpoint.allowedFilters ?? [])
      if (typeof filter !== 'string' && filter.name === name) return filter.callback;
  throw new Error(`no custom filter ${name}`);
}

/** Rows of `table` matching a condition built like the service builds it (columns under the table name). */
async function countWhere(
  conn: Connection,
  table: string,
  condition: (
    eb: DynamicExpressionBuilder,
    column: (name: string) => Expression<unknown>,
  ) => Expression<SqlBool>,
): Promise<number> {
  const row = await conn.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .where((eb) => condition(eb, (name) => eb.ref(`${table}.${name}`)))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

const counts = new Map<DialectName, Record<string, number>>();

describe.each(dialects)('demo schema on %s', (dialect) => {
  let conn: Connection;

  beforeAll(async () => {
    conn = await freshDatabase(dialect, DATABASE);
    expect(await isSeeded(conn)).toBe(false);
    await dropSchema(conn);
    await createSchema(conn);
    expect(await isSeeded(conn)).toBe(false);
    await seedDemo(conn, { users: 50 });
  });

  afterAll(async () => {
    await conn?.db.destroy();
    await dropDatabase(dialect, DATABASE);
  });

  it('reads back exactly the generated rows, table by table', async () => {
    expect(await isSeeded(conn)).toBe(true);
    const tableCounts: Record<string, number> = {};
    for (const table of demoTables) {
      const rows = await readTable(conn, table);
      expect(rows, table).toEqual([...expected[table]].sort(byKey));
      tableCounts[table] = rows.length;
    }
    counts.set(dialect, tableCounts);
  });

  it('continues ids after the seeded rows', async () => {
    await conn.db
      .insertInto('departments')
      .values({
        name: 'Legal',
        code: 'LGL',
        budget: 1,
        created_at: conn.dialect.bindDatetime(new Date(0).toISOString()),
      })
      .execute();
    const row = await conn.db
      .selectFrom('departments')
      .select('id')
      .where('code', '=', 'LGL')
      .executeTakeFirstOrThrow();
    expect(Number(row.id)).toBe(expected.departments.length + 1);
  });

  it.each([true, false])('applies the users and posts scopes (%s) as JavaScript does', async (value) => {
    const cases: [ResourceDefinition, string, (row: DemoRow) => boolean][] = [
      [users, 'active', (row) => row.status === 'active'],
      [users, 'admins', (row) => row.is_admin === true],
      [posts, 'published', (row) => row.status === 'published' && row.published_at !== null],
    ];
    for (const [resource, name, matches] of cases) {
      const count = await countWhere(conn, resource.table, (eb, column) =>
        scope(resource, name)({ eb, column, value, ctx: undefined }),
      );
      const rows = expected[resource.table as 'users' | 'posts'];
      expect(count, `${resource.name}.${name}`).toBe(rows.filter((row) => matches(row) === value).length);
    }
  });

  it('matches email_domain case-insensitively and rejects non-strings', async () => {
    const emailDomain = customFilter('email_domain');
    const count = await countWhere(conn, 'users', (eb, column) =>
      emailDomain({ eb, column, value: 'Example.ORG', ctx: undefined }),
    );
    expect(count).toBe(expected.users.filter((row) => String(row.email).endsWith('@example.org')).length);
    expect(count).toBeGreaterThan(0);
    const eb = expressionBuilder() as DynamicExpressionBuilder;
    expect(() =>
      emailDomain({ eb, column: (name) => eb.ref(name), value: ['example.org'], ctx: undefined }),
    ).toThrow(FilterValueError);
    expect(() => emailDomain({ eb, column: (name) => eb.ref(name), value: '%', ctx: undefined })).toThrow(
      FilterValueError,
    );
  });

  it('creates a user and a post through the demo service from their forms alone (timestamps default)', async () => {
    const app = await buildService({ config: demo, connection: conn });
    try {
      const before = Date.now() - 60_000;
      const post = (url: string, payload: Record<string, unknown>) =>
        app.inject({
          method: 'POST',
          url,
          headers: { authorization: `Bearer ${demoTokens.editor}` },
          payload,
        });
      const user = await post('/api/users', {
        name: 'Ana López',
        email: 'ana.lopez@example.com',
        status: 'active',
        score: 7,
        password: 'correct horse battery',
      });
      expect(user.statusCode, user.body).toBe(201);
      const created = user.json<{ id: number; created_at: string; updated_at: string }>();
      for (const stamp of [created.created_at, created.updated_at])
        expect(Date.parse(stamp), stamp).toBeGreaterThan(before);
      const article = await post('/api/posts', {
        title: 'Created from the form',
        body: 'Body',
        status: 'draft',
        user_id: created.id,
      });
      expect(article.statusCode, article.body).toBe(201);
      const row = await conn.db
        .selectFrom('posts')
        .select(['user_id', 'created_at'])
        .where('id', '=', article.json<{ id: number }>().id)
        .executeTakeFirstOrThrow();
      expect(Number(row.user_id)).toBe(created.id);
      expect(normalize('datetime', row.created_at)).not.toBeNull();
      // Without its author the form refuses the post, naming the field.
      const orphan = await post('/api/posts', { title: 'x', body: 'y', status: 'draft' });
      expect(orphan.statusCode).toBe(422);
      expect(orphan.json<{ errors: Record<string, string[]> }>().errors).toHaveProperty('user_id');
    } finally {
      await app.close();
    }
  });

  it('lists in detail.collections the to-many relations the users endpoint includes, as reads take them', async () => {
    const app = await buildService({ config: demo, connection: conn });
    try {
      const get = (url: string) => app.inject({ method: 'GET', url });
      const schema = await get('/api/v1/users/schema');
      expect(schema.statusCode, schema.body).toBe(200);
      const { collections } = schema.json<SchemaDocument>().detail;
      // Posts: included, counted, constrained without maxLimit; roles: included through roles.permissions,
      // counted, not constrained. Comments are counted but not included: no collection.
      expect(collections).toEqual([
        {
          name: 'posts',
          label: 'Posts',
          resource: 'posts',
          schema: '/api/v1/posts/schema',
          titleColumns: ['title'],
          counted: true,
          limit: 1000,
        },
        {
          name: 'roles',
          label: 'Roles',
          resource: 'roles',
          schema: null,
          titleColumns: [],
          counted: true,
          limit: null,
        },
      ]);
      expect((await get('/api/users/1?include=comments')).statusCode).toBe(422);
      expect((await get('/api/v1/posts/schema')).statusCode).toBe(200);
      for (const { name, counted, limit } of collections) {
        const read = await get(`/api/users/1?include=${name}&count=${name}`);
        expect(read.statusCode, `${name}: ${read.body}`).toBe(counted ? 200 : 422);
        if (counted)
          expect(read.json<Record<string, unknown>>()[`${name}_count`]).toEqual(expect.any(Number));
        const limited = (n: number) => get(`/api/users?include=${name}&include_limit[${name}]=${n}`);
        if (limit === null) expect((await limited(1)).statusCode, `${name} takes no limit`).toBe(422);
        else {
          expect((await limited(limit)).statusCode, `${name} up to ${limit}`).toBe(200);
          expect((await limited(limit + 1)).statusCode, `${name} past ${limit}`).toBe(422);
        }
      }
    } finally {
      await app.close();
    }
  });

  it('answers the extent of the users’ created_at (min and max) on the demo’s aggregate route', async () => {
    const app = await buildService({ config: demo, connection: conn });
    try {
      const answer = await app.inject({
        method: 'GET',
        url: '/api/users/aggregate?metrics=count,min:created_at,max:created_at',
      });
      expect(answer.statusCode, answer.body).toBe(200);
      const live = await conn.db
        .selectFrom('users')
        .select('created_at')
        .where('deleted_at', 'is', null)
        .execute();
      const instants = live.map((row) => Date.parse(normalize('datetime', row.created_at) as string));
      const [extent] = answer.json<{ data: Record<string, unknown>[] }>().data;
      expect(extent?.count).toBe(live.length);
      expect(Date.parse(String(extent?.['min:created_at']))).toBe(Math.min(...instants));
      expect(Date.parse(String(extent?.['max:created_at']))).toBe(Math.max(...instants));
    } finally {
      await app.close();
    }
  });

  it('drops every table, and dropping again is harmless', async () => {
    await dropSchema(conn);
    await dropSchema(conn);
    expect(await isSeeded(conn)).toBe(false);
    const left = (await conn.db.introspection.getTables()).map((table) => table.name);
    expect(left.filter((name) => (demoTables as string[]).includes(name))).toEqual([]);
  });
});

describe('demo data across engines', () => {
  it('has the same row counts on every engine', () => {
    expect([...counts.keys()].sort()).toEqual([...dialects].sort());
    const [first, ...rest] = [...counts.values()];
    for (const other of rest) expect(other).toEqual(first);
    expect(first?.users).toBe(50);
  });
});
