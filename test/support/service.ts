import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll } from 'vitest';
import { resources } from '../../examples/demo/resources.js';
import { FilterValueError } from '../../src/errors/filter-value-error.js';
import { defineEndpoint, Filter, type ServiceConfig } from '../../src/resource/policy.js';
import type { Connection } from '../../src/sql/connect.js';
import type { DialectName } from '../../src/sql/dialect.js';
import { dialects, dropDatabase } from './databases.js';
import {
  type Host,
  type HostName,
  hostNames,
  type InjectOptions,
  type InjectResponse,
  startHost,
} from './hosts.js';
import { fixtureDatabase } from './templates.js';

/**
 * Where a suite runs: every database through the standalone server, and every host adapter on SQLite
 * (the adapters share one core, and the core's database behaviour is covered by the first loop).
 */
export const serviceTargets: { dialect: DialectName; host: HostName }[] = [
  ...dialects.map((dialect) => ({ dialect, host: 'standalone' as const })),
  ...hostNames.filter((host) => host !== 'standalone').map((host) => ({ dialect: 'sqlite' as const, host })),
];

/** A describe title's suffix: the database, and the host when it is not the standalone server. */
export const targetName = ({ dialect, host }: { dialect: DialectName; host: HostName }): string =>
  host === 'standalone' ? dialect : `${dialect} through ${host}`;

/** The context the suites run with unless they say otherwise: an editor, as the demo's rules want. */
export const editorContext = () => ({ sub: 'test-editor', role: 'editor' });

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

/** The suites' service configuration: the demo's resources, the test endpoints, an editor; `overrides` changes it. */
export function testServiceConfig<Ctx = unknown>(overrides: Partial<ServiceConfig<Ctx>> = {}): ServiceConfig {
  return { resources, endpoints: testEndpoints, context: editorContext, ...overrides } as ServiceConfig;
}

export interface TestService {
  /** The standalone server or the host Fastify application; undefined for the other hosts. */
  app: FastifyInstance;
  conn: Connection;
  dialect: DialectName;
  host: HostName;
  inject(options: InjectOptions): Promise<InjectResponse>;
  /** GET and parse JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the service answered and assert on it.
  get(url: string, headers?: Record<string, string>): Promise<{ status: number; body: any }>;
}

/**
 * For a `describe` block: a fresh database of `dialect` with the demo schema and the fixture, and the
 * service over it. `overrides` changes the service configuration (limits, endpoints).
 */
export function useService<Ctx = unknown>(
  dialect: DialectName,
  name: string,
  overrides: Partial<ServiceConfig<Ctx>> = {},
  host: HostName = 'standalone',
): TestService {
  const context = { dialect, host } as TestService;
  const database = `${name}_${dialect}${host === 'standalone' ? '' : `_${host.replace('-', '_')}`}`;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const conn = await fixtureDatabase(dialect, database);
    const config = testServiceConfig(overrides);
    context.conn = conn;
    const started = await startHost(host, config, conn);
    close = () => started.close();
    attach(context, started);
  });
  afterAll(async () => {
    await close?.();
    await context.conn?.db.destroy();
    await dropDatabase(dialect, database);
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

/** Points a test service's `app`, `inject` and `get` at a started host. */
export function attach(context: TestService, started: Host): void {
  if (started.fastify) context.app = started.fastify;
  context.inject = (options) => started.inject(options);
  context.get = async (url, headers) => {
    const response = await started.inject({ method: 'GET', url, ...(headers && { headers }) });
    // A path that is not the service's gets the host's own 404 (HTML from Express, text from Hono).
    const isJson = String(response.headers['content-type'] ?? '').startsWith('application/json');
    return { status: response.statusCode, body: isJson ? response.json() : response.body };
  };
}
