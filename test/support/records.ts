import { sql } from 'kysely';
import { afterAll, beforeAll } from 'vitest';
import { posts, resources } from '../../examples/demo/resources.js';
import { createSchema, dropSchema, syncIdSequence } from '../../examples/demo/schema.js';
import type { ContextRequest, ServiceConfig } from '../../src/resource/policy.js';
import { defineResource } from '../../src/resource/policy.js';
import type { ResourceDefinition } from '../../src/resource/types.js';
import type { Connection } from '../../src/sql/connect.js';
import type { DialectName } from '../../src/sql/dialect.js';
import { dropDatabase, freshDatabase } from './databases.js';
import { insertFixture } from './fixture.js';
import { startHost } from './hosts.js';
import { attach, editorContext, type TestService } from './service.js';

/** Who asks, in the records suites: the editor unless the `x-test-role` header names another role. */
export interface RecordsContext {
  sub: string;
  role: string;
}

/** `x-test-role: anonymous` → no identity (401); `x-test-role: <role>` → that role; else the editor. */
export function contextFromHeaders(request: ContextRequest): RecordsContext | null {
  const role = request.headers['x-test-role'];
  if (role === 'anonymous') return null;
  return typeof role === 'string' ? { sub: `test-${role}`, role } : editorContext();
}

/** The demo's posts with a version column (`"v<n>"` ETags); the other resources as the demo has them. */
export const versionedPosts: ResourceDefinition = {
  ...posts,
  columns: { ...posts.columns, version: 'integer' },
  versionColumn: 'version',
};
/**
 * A table of this suite's own, every column optional: `label` nullable, `version` a nullable integer
 * without a default (the version column), `created_at` the current time by default.
 */
export const tags = defineResource({
  name: 'tags',
  table: 'tags',
  columns: { id: 'integer', label: 'string', version: 'integer', created_at: 'datetime' },
  versionColumn: 'version',
});
export const recordsResources: ResourceDefinition[] = [
  ...resources.map((resource) => (resource.name === 'posts' ? versionedPosts : resource)),
  tags,
];

/** The rows of `assets`: each references a department with a foreign key that refuses its deletion. */
export const assets = [{ id: 1, department_id: 3 }];

/** The demo columns given a database default here, so a create may omit them. */
export const userDefaults = {
  score: 0,
  balance: 0,
  is_admin: false,
  password_hash: '',
} as const;

/**
 * What the demo schema lacks for these suites (its timestamps and hidden-input columns already have
 * defaults): posts.version (default 1), and a table `assets` whose foreign key to departments has no
 * ON DELETE action (the demo's keys cascade or set null, so nothing there refuses a delete).
 */
async function prepareDatabase(conn: Connection): Promise<void> {
  const { db } = conn;
  const name = conn.dialect.name;
  await sql`alter table posts add column version integer not null default 1`.execute(db);
  let assetsTable = db.schema
    .createTable('assets')
    .addColumn('id', 'integer', (column) => column.primaryKey())
    .addColumn('department_id', 'integer', (column) => column.notNull())
    .addForeignKeyConstraint('assets_department_id_foreign', ['department_id'], 'departments', ['id']);
  if (name === 'mysql') assetsTable = assetsTable.modifyEnd(sql`engine = InnoDB`);
  await assetsTable.execute();
  const now = { postgres: sql`now()`, mysql: sql`current_timestamp(3)`, sqlite: sql`CURRENT_TIMESTAMP` }[
    name
  ];
  await db.schema
    .createTable('tags')
    .addColumn('id', name === 'postgres' ? 'serial' : 'integer', (column) =>
      name === 'postgres' ? column.primaryKey() : column.primaryKey().autoIncrement(),
    )
    .addColumn('label', 'varchar(255)')
    .addColumn('version', 'integer')
    .addColumn(
      'created_at',
      name === 'postgres' ? 'timestamptz' : name === 'mysql' ? 'datetime(3)' : 'text',
      (column) => column.notNull().defaultTo(now),
    )
    .execute();
}

/**
 * `useService` for the records suites: a fresh database of `dialect` with the demo schema prepared for
 * creates (above), the fixture, one `assets` row, id sequences past the fixture's ids, and the
 * standalone server over it with `recordsResources` and `contextFromHeaders` unless `config` says otherwise.
 */
export function useRecordsService(
  dialect: DialectName,
  name: string,
  config: Partial<ServiceConfig<RecordsContext | null>>,
): TestService {
  const context = { dialect, host: 'standalone' } as TestService;
  const database = `records_${name}_${dialect}`;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const conn = await freshDatabase(dialect, database);
    context.conn = conn;
    for (const table of ['assets', 'tags']) await conn.db.schema.dropTable(table).ifExists().execute();
    await dropSchema(conn);
    await createSchema(conn);
    await prepareDatabase(conn);
    await insertFixture(conn);
    await conn.db.insertInto('assets').values(assets).execute();
    for (const table of ['departments', 'users', 'posts', 'comments'] as const)
      await syncIdSequence(conn, table);
    const started = await startHost(
      'standalone',
      {
        resources: recordsResources,
        endpoints: [],
        context: contextFromHeaders,
        ...config,
      } as ServiceConfig,
      conn,
    );
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

/**
 * A datetime as the database holds it (text on SQLite and MariaDB, text with an offset from
 * PostgreSQL here) → milliseconds since 1970, or NaN when it is none of these forms.
 */
export function storedInstant(value: unknown): number {
  if (value instanceof Date) return value.getTime();
  if (typeof value !== 'string') return Number.NaN;
  const match = /^(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d(?:\.\d+)?)(Z|[+-]\d\d(?::?\d\d)?)?$/.exec(value);
  if (!match) return Number.NaN;
  const [, date, time, zone = 'Z'] = match;
  const offset = zone === 'Z' ? 'Z' : zone.length === 3 ? `${zone}:00` : zone;
  return Date.parse(`${date}T${time}${offset}`);
}
