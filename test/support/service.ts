import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll } from 'vitest';
import { resources } from '../../examples/demo/resources.js';
import { createSchema, dropSchema } from '../../examples/demo/schema.js';
import { buildService } from '../../src/http/server.js';
import { FilterValueError } from '../../src/resource/filter-value-error.js';
import { defineEndpoint, Filter, type ServiceConfig } from '../../src/resource/policy.js';
import type { Connection } from '../../src/sql/connect.js';
import type { DialectName } from '../../src/sql/dialect.js';
import { dropDatabase, freshDatabase } from './databases.js';
import { insertFixture } from './fixture.js';

/** Endpoints made for the tests: each exercises one part of the policy language. */
export const testEndpoints = [
  defineEndpoint({
    resource: 'users',
    allowedFilters: [
      '*',
      'department.name',
      'roles.name',
      'roles.permissions.name',
      'posts.*',
      'profile.website',
      'settings.*',
      'active',
      'trashed',
      Filter.custom('email_domain', ({ eb, column, value }) => {
        if (typeof value !== 'string')
          throw new FilterValueError('The email_domain filter takes one domain.');
        return eb(column('email'), 'like', `%@${value}`);
      }),
    ],
    allowedSorts: ['name', 'score', 'created_at', 'birthday'],
  }),
  defineEndpoint({ resource: 'users', path: 'users-star', allowedFilters: ['*'] }),
  defineEndpoint({ resource: 'users', path: 'users-roles-wild', allowedFilters: ['roles.*', 'status'] }),
  defineEndpoint({
    resource: 'users',
    path: 'users-default-status',
    allowedFilters: ['status', 'score'],
    defaultFilters: { status: 'active' },
  }),
  defineEndpoint({
    resource: 'posts',
    allowedFilters: [
      'title',
      'status',
      'score',
      'published_at',
      'created_at',
      'meta.*',
      'author.name',
      'comments.body',
      'trashed',
    ],
    defaultFilters: { status: 'published' },
  }),
  defineEndpoint({ resource: 'comments', allowedFilters: ['*', 'post.title', 'author.name'] }),
  defineEndpoint({
    resource: 'users',
    path: 'users-loaded',
    allowedFilters: ['status', 'trashed'],
    allowedIncludes: ['roles.permissions', 'posts', 'department', 'profile', 'posts.comments'],
    allowedCounts: ['posts', 'roles', 'comments'],
    allowedSorts: ['name', 'score', 'created_at', 'birthday', 'balance'],
    allowedSearch: ['name', 'email', 'department.name'],
    allowAll: 5,
    response: (user) => ({ ...user, label: `${String(user.name)} <${String(user.email)}>` }),
  }),
  defineEndpoint({
    resource: 'users',
    path: 'users-unlimited',
    allowedFilters: ['status', 'trashed'],
    allowedIncludes: ['roles'],
    allowedCounts: ['posts'],
    allowedSorts: ['name', 'created_at'],
    allowAll: 'unlimited',
    response: (user) => ({
      id: user.id,
      upper: String(user.name).toUpperCase(),
      roles: user.roles,
      posts_count: user.posts_count,
    }),
  }),
];

export interface TestService {
  app: FastifyInstance;
  conn: Connection;
  dialect: DialectName;
  /** GET and parse JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the service answered and assert on it.
  get(url: string): Promise<{ status: number; body: any }>;
}

/**
 * For a `describe` block: a fresh database of `dialect` with the demo schema and the fixture, and the
 * service over it. `overrides` changes the service configuration (limits, endpoints).
 */
export function useService(
  dialect: DialectName,
  name: string,
  overrides: Partial<ServiceConfig> = {},
): TestService {
  const context = { dialect } as TestService;
  beforeAll(async () => {
    const conn = await freshDatabase(dialect, `${name}_${dialect}`);
    await dropSchema(conn);
    await createSchema(conn);
    await insertFixture(conn);
    const config: ServiceConfig = { resources, endpoints: testEndpoints, ...overrides };
    context.conn = conn;
    context.app = await buildService({ config, connection: conn });
    context.get = async (url) => {
      const response = await context.app.inject({ method: 'GET', url });
      return { status: response.statusCode, body: response.json() };
    };
  });
  afterAll(async () => {
    await context.app?.close();
    await context.conn?.db.destroy();
    await dropDatabase(dialect, `${name}_${dialect}`);
  });
  return context;
}

/** Every row of every table, to prove a request changed nothing. */
export async function snapshot(conn: Connection): Promise<string> {
  const tables = [
    'departments',
    'users',
    'profiles',
    'roles',
    'permissions',
    'role_user',
    'permission_role',
    'posts',
    'comments',
  ];
  const parts: string[] = [];
  for (const table of tables) {
    const rows = await conn.db.selectFrom(table).selectAll().orderBy(sql.raw('1, 2')).execute();
    parts.push(JSON.stringify(rows));
  }
  return parts.join('\n');
}
