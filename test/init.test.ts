import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints as demoEndpoints } from '../examples/demo/endpoints.js';
import { resources as demoResources } from '../examples/demo/resources.js';
import { createSchema } from '../examples/demo/schema.js';
import { runInit } from '../src/cli/init.js';
import { datetimeShape } from '../src/init/datetime-storage.js';
import {
  type ConfigPlan,
  type DatabaseModel,
  generateConfig,
  init,
  planConfig,
  type ResourcePlan,
} from '../src/init/index.js';
import type { DatetimeStorage } from '../src/resource/types.js';
import { defineConfig, type StandaloneConfig } from '../src/server/config.js';
import { buildService } from '../src/server/standalone.js';
import { connect } from '../src/sql/connect.js';
import type { DialectName } from '../src/sql/dialect.js';
import { builtAdmin, builtPackage } from './support/built.js';
import { dialects, dropDatabase, freshDatabase } from './support/databases.js';
import { insertFixture } from './support/fixture.js';
import { createFrameworkSchema, type Framework, frameworkDialects } from './support/framework-schemas.js';

const root = fileURLToPath(new URL('..', import.meta.url));
/** Generated modules live inside the repository (so they resolve its packages), never in src. */
const generated = join(root, 'test', '.generated', `init-${process.pid}`);
/** What the generated modules import instead of the package: the repository's own entry point. */
const importFrom = relative(generated, join(root, 'src', 'index.js'))
  .split('\\')
  .join('/');
const run = promisify(execFile);

beforeAll(() => mkdirSync(generated, { recursive: true }));
afterAll(() => {
  rmSync(generated, { recursive: true, force: true });
  try {
    rmSync(dirname(generated)); // only when empty: another run may be using its own folder
  } catch {}
});

/** Writes a generated module (laid out for the repository's biome width) and imports it. */
async function load(name: string, source: string): Promise<StandaloneConfig> {
  const file = join(generated, `${name}.ts`);
  writeFileSync(file, source);
  const module = (await import(pathToFileURL(file).href)) as { default: StandaloneConfig };
  return module.default;
}

/** `belongsTo users by user_id`, `belongsToMany roles via role_user(user_id, role_id)`: relations, briefly. */
function relationsOf(resource: ResourcePlan | undefined): Record<string, string> {
  const described: Record<string, string> = {};
  for (const relation of resource?.relations ?? [])
    described[relation.name] =
      relation.kind === 'belongsToMany'
        ? `belongsToMany ${relation.resource} via ${relation.pivot}(${relation.foreignPivotKey}, ${relation.relatedPivotKey})`
        : `${relation.kind} ${relation.resource} by ${relation.foreignKey}`;
  return described;
}

const resourceOf = (plan: ConfigPlan, name: string) =>
  plan.resources.find((resource) => resource.name === name);
const columnsOf = (
  plan: ConfigPlan,
  name: string,
  test: (column: ResourcePlan['columns'][number]) => boolean,
) => (resourceOf(plan, name)?.columns ?? []).filter(test).map((column) => column.name);

/** Each resource's datetime storage: one value for the resource, or per column when they differ. */
function storagesOf(plan: ConfigPlan): Record<string, DatetimeStorage | Record<string, DatetimeStorage>> {
  const storages: Record<string, DatetimeStorage | Record<string, DatetimeStorage>> = {};
  for (const resource of plan.resources) {
    if (resource.datetimeStorage) storages[resource.name] = resource.datetimeStorage;
    const own = resource.columns.filter((column) => column.storage);
    if (own.length > 0)
      storages[resource.name] = Object.fromEntries(
        own.map((column) => [column.name, column.storage as DatetimeStorage]),
      );
  }
  return storages;
}

interface Expected {
  resources: string[];
  skipped: string[];
  relations: Record<string, Record<string, string>>;
  hidden: Record<string, string[]>;
  softDelete: Record<string, string>;
  json: Record<string, string[]>;
  /** SQLite only: what the sampled values said. */
  storage?: Record<string, DatetimeStorage | Record<string, DatetimeStorage>>;
  /** Facts about single columns: `resource.column` → kind (with options). */
  kinds?: Record<string, Record<string, unknown>>;
  /** GET path → the primary keys of `data`, in order. */
  lists: Record<string, (number | string)[]>;
}

const laravel: Expected = {
  // role_user has columns of its own (timestamps): a resource too, keyed by the pair, read-only.
  resources: ['password_reset_tokens', 'posts', 'role_user', 'roles', 'users'],
  skipped: ['migrations'],
  relations: {
    users: {
      posts: 'hasMany posts by user_id',
      roleUsers: 'hasMany role_user by user_id',
      roles: 'belongsToMany roles via role_user(user_id, role_id)',
    },
    posts: { user: 'belongsTo users by user_id' },
    roles: {
      roleUsers: 'hasMany role_user by role_id',
      users: 'belongsToMany users via role_user(role_id, user_id)',
    },
    role_user: { user: 'belongsTo users by user_id', role: 'belongsTo roles by role_id' },
    password_reset_tokens: {},
  },
  hidden: { users: ['password', 'remember_token'], password_reset_tokens: ['token'] },
  softDelete: { users: 'deleted_at' },
  json: { posts: ['meta'] },
  storage: { users: 'text', posts: 'text', roles: 'text', role_user: 'text', password_reset_tokens: 'text' },
  lists: {
    '/api/users': [2, 1],
    '/api/users?filter[trashed]=true': [3, 2, 1],
    '/api/users?sort=email&count=posts': [1, 2],
    '/api/posts?include=user': [3, 2, 1],
    '/api/posts?filter[user_id]=1': [2, 1],
    '/api/roles?sort=name': [1, 2],
    '/api/password_reset_tokens': ['grace@example.com'],
  },
};

const rails: Expected = {
  resources: ['accounts', 'articles', 'profiles', 'tags'],
  skipped: ['ar_internal_metadata', 'articles_tags', 'schema_migrations'],
  relations: {
    accounts: { articles: 'hasMany articles by account_id', profile: 'hasOne profiles by account_id' },
    articles: {
      account: 'belongsTo accounts by account_id',
      tags: 'belongsToMany tags via articles_tags(article_id, tag_id)',
    },
    tags: { articles: 'belongsToMany articles via articles_tags(tag_id, article_id)' },
    profiles: { account: 'belongsTo accounts by account_id' },
  },
  hidden: { accounts: ['api_key'] },
  softDelete: {},
  json: { profiles: ['preferences'] },
  storage: { accounts: 'text', articles: 'text', profiles: 'text' },
  kinds: {
    'accounts.balance': { type: 'decimal', precision: 12, scale: 2, nullable: false },
    'articles.published': { type: 'boolean', nullable: false },
  },
  lists: {
    '/api/accounts?count=articles&include=profile': [2, 1],
    '/api/articles?filter[published]=true&sort=status': [3, 1],
    '/api/articles?filter[account_id]=1&include=account': [2, 1],
    '/api/profiles': [1],
    '/api/tags?sort=name': [1, 2],
  },
};

const django: Expected = {
  resources: ['auth_group', 'auth_user', 'auth_user_groups', 'blog_entry'],
  skipped: ['django_migrations'],
  relations: {
    auth_user: {
      blogEntries: 'hasMany blog_entry by author_id',
      // The pivot has its own id: a resource too, reached as a hasMany as well.
      authUserGroups: 'hasMany auth_user_groups by user_id',
      authGroups: 'belongsToMany auth_group via auth_user_groups(user_id, group_id)',
    },
    auth_group: {
      authUserGroups: 'hasMany auth_user_groups by group_id',
      authUsers: 'belongsToMany auth_user via auth_user_groups(group_id, user_id)',
    },
    auth_user_groups: { user: 'belongsTo auth_user by user_id', group: 'belongsTo auth_group by group_id' },
    blog_entry: { author: 'belongsTo auth_user by author_id' },
  },
  hidden: { auth_user: ['password'] },
  softDelete: {},
  json: { blog_entry: ['metadata'] },
  storage: { auth_user: 'text', blog_entry: 'text' },
  kinds: {
    'auth_user.is_staff': { type: 'boolean', nullable: false },
    'blog_entry.pub_date': { type: 'date', nullable: false },
  },
  lists: {
    '/api/auth_user?filter[is_staff]=true&count=blogEntries': [3, 1],
    '/api/auth_user?sort=username': [1, 2, 3],
    '/api/auth_group': [2, 1],
    '/api/auth_user_groups?include=user,group&filter[group_id]=1': [3, 1],
    '/api/blog_entry?include=author': [2, 1],
  },
};

const prisma: Expected = {
  resources: ['Category', 'Post', 'Profile', 'User'],
  skipped: ['_CategoryToPost', '_prisma_migrations'],
  relations: {
    User: { posts: 'hasMany Post by authorId', profile: 'hasOne Profile by userId' },
    Post: {
      author: 'belongsTo User by authorId',
      categories: 'belongsToMany Category via _CategoryToPost(B, A)',
    },
    Profile: { user: 'belongsTo User by userId' },
    Category: { posts: 'belongsToMany Post via _CategoryToPost(A, B)' },
  },
  hidden: { User: ['passwordHash'] },
  softDelete: { User: 'deletedAt' },
  json: {},
  storage: { User: 'unix-milliseconds', Post: 'unix-milliseconds' },
  kinds: { 'User.isAdmin': { type: 'boolean', nullable: false } },
  lists: {
    '/api/User?count=posts&include=profile': [2, 1],
    '/api/User?filter[trashed]=true&sort=email': [1, 2, 3],
    '/api/Post?include=author': [2, 1],
    '/api/Category': [2, 1],
    '/api/Profile?include=user': [1],
  },
};

const drizzle: Expected = {
  resources: ['posts', 'users'],
  skipped: ['__drizzle_migrations'],
  relations: {
    users: { posts: 'hasMany posts by author_id' },
    posts: { author: 'belongsTo users by author_id' },
  },
  hidden: { users: ['session_token'] },
  softDelete: { posts: 'deleted_at' },
  json: { posts: ['settings'] },
  // Milliseconds and seconds side by side: per column; archived_at (no values) follows its table.
  storage: {
    users: { created_at: 'unix-milliseconds', last_login_at: 'unix-seconds' },
    posts: 'unix-milliseconds',
  },
  kinds: {
    'users.is_verified': { type: 'boolean', nullable: false },
    // No values tell seconds from milliseconds, and the table's datetimes disagree: left an integer.
    'users.banned_at': { type: 'integer' },
    'posts.archived_at': { type: 'datetime' },
  },
  lists: {
    '/api/users?count=posts': [2, 1],
    '/api/posts?include=author': [3, 1],
    '/api/posts?filter[trashed]=true&filter[author_id]=2': [2],
  },
};

const expectations: Record<Framework, Expected> = { laravel, rails, django, prisma, drizzle };

/** Checks the plan against what the framework's tables should give. */
function checkPlan(plan: ConfigPlan, expected: Expected, dialect: DialectName): void {
  expect(plan.resources.map((resource) => resource.name).sort()).toEqual([...expected.resources].sort());
  expect(plan.skipped.map((skip) => skip.table).sort()).toEqual([...expected.skipped].sort());
  for (const [name, relations] of Object.entries(expected.relations))
    expect(relationsOf(resourceOf(plan, name)), `${name} relations`).toEqual(relations);
  for (const resource of plan.resources) {
    expect(
      columnsOf(plan, resource.name, (column) => column.hidden),
      `${resource.name} hidden`,
    ).toEqual(expected.hidden[resource.name] ?? []);
    expect(resource.softDeleteColumn, `${resource.name} soft delete`).toBe(
      expected.softDelete[resource.name],
    );
    expect(
      columnsOf(plan, resource.name, (column) => column.type === 'json'),
      `${resource.name} json`,
    ).toEqual(expected.json[resource.name] ?? []);
  }
  // Native datetimes on PostgreSQL and MariaDB: no storage written.
  expect(storagesOf(plan)).toEqual(dialect === 'sqlite' ? (expected.storage ?? {}) : {});
  for (const [path, kind] of Object.entries(expected.kinds ?? {})) {
    const [name, column] = path.split('.') as [string, string];
    const found = resourceOf(plan, name)?.columns.find((candidate) => candidate.name === column);
    expect(found, path).toMatchObject(kind);
  }
}

/** GETs every generated endpoint (200) and the expected lists; hidden columns never appear. */
async function checkService(app: FastifyInstance, plan: ConfigPlan, expected: Expected): Promise<void> {
  for (const resource of plan.resources) {
    const response = await app.inject({ method: 'GET', url: `/api/${resource.name}` });
    expect(response.statusCode, `${resource.name}: ${response.body}`).toBe(200);
  }
  for (const [url, keys] of Object.entries(expected.lists)) {
    const response = await app.inject({ method: 'GET', url });
    expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
    const name = (/^\/api\/([^?]+)/.exec(url)?.[1] ?? '') as string;
    const resource = resourceOf(plan, name) as ResourcePlan;
    const rows = response.json().data as Record<string, unknown>[];
    expect(
      rows.map((row) => row[resource.primaryKey as string]),
      url,
    ).toEqual(keys);
    const hidden = expected.hidden[name] ?? [];
    for (const row of rows)
      for (const column of hidden) expect(row, `${url} shows ${column}`).not.toHaveProperty(column);
  }
}

/** The generated modules (under `generated`) and the width they are laid out for: checked together at the end. */
const typecheckTargets: { file: string; width: 80 | 110 }[] = [];

for (const dialect of dialects) {
  describe(`init on ${dialect}`, () => {
    for (const framework of (Object.keys(frameworkDialects) as Framework[]).filter((name) =>
      frameworkDialects[name].includes(dialect),
    )) {
      it(`reads ${framework}'s tables into resources and endpoints that serve them`, async () => {
        const name = `init_${framework}`;
        const conn = await freshDatabase(dialect, name);
        let app: FastifyInstance | undefined;
        try {
          await createFrameworkSchema(conn, framework);
          const result = await init({ connection: conn, out: false, importFrom, lineWidth: 110 });
          checkPlan(result.plan, expectations[framework], dialect);
          expect(result.source).toBe(generateConfig(result.model, { importFrom, lineWidth: 110 }));
          const config = await load(`${framework}-${dialect}`, result.source);
          typecheckTargets.push({ file: `${framework}-${dialect}.ts`, width: 110 });
          expect(config.resources.map((resource) => resource.name).sort()).toEqual(
            [...expectations[framework].resources].sort(),
          );
          app = await buildService({ config, connection: conn });
          await checkService(app, result.plan, expectations[framework]);
        } finally {
          await app?.close();
          await conn.db.destroy();
          await dropDatabase(dialect, name);
        }
      });
    }

    it("finds the demo's relations, hidden column, soft delete and JSON, and answers as the demo's own configuration", async () => {
      const name = 'init_demo';
      const conn = await freshDatabase(dialect, name);
      const apps: FastifyInstance[] = [];
      try {
        await createSchema(conn);
        await insertFixture(conn);
        const { plan, source } = await init({ connection: conn, out: false, importFrom, lineWidth: 110 });
        expect(relationsOf(resourceOf(plan, 'users'))).toEqual({
          department: 'belongsTo departments by department_id',
          comments: 'hasMany comments by user_id',
          posts: 'hasMany posts by user_id',
          profile: 'hasOne profiles by user_id',
          roles: 'belongsToMany roles via role_user(user_id, role_id)',
        });
        expect(relationsOf(resourceOf(plan, 'roles'))).toEqual({
          permissions: 'belongsToMany permissions via permission_role(role_id, permission_id)',
          users: 'belongsToMany users via role_user(role_id, user_id)',
        });
        expect(columnsOf(plan, 'users', (column) => column.hidden)).toEqual(['password_hash']);
        expect(resourceOf(plan, 'users')?.softDeleteColumn).toBe('deleted_at');
        expect(resourceOf(plan, 'posts')?.softDeleteColumn).toBe('deleted_at');
        expect(columnsOf(plan, 'users', (column) => column.type === 'json')).toEqual(['settings']);
        expect(columnsOf(plan, 'posts', (column) => column.type === 'json')).toEqual(['meta']);
        expect(resourceOf(plan, 'users')?.endpoint).toMatchObject({
          allowedCounts: ['comments', 'posts', 'roles'],
          defaultSort: '-id',
        });
        expect(
          resourceOf(plan, 'users')?.endpoint.allowedIncludes.filter((path) => !path.includes('.')),
        ).toEqual(['department', 'comments', 'posts', 'profile', 'roles']);
        expect(resourceOf(plan, 'users')?.endpoint.allowedIncludes).toEqual(
          expect.arrayContaining(['posts.comments', 'roles.permissions']),
        );
        expect(plan.skipped.map((skip) => skip.table).sort()).toEqual(['permission_role', 'role_user']);

        const generatedConfig = await load(`demo-${dialect}`, source);
        typecheckTargets.push({ file: `demo-${dialect}.ts`, width: 110 });
        const generatedApp = await buildService({ config: generatedConfig, connection: conn });
        apps.push(generatedApp);
        const demoApp = await buildService({
          config: defineConfig({ resources: demoResources, endpoints: demoEndpoints }),
          connection: conn,
        });
        apps.push(demoApp);
        // Demo URLs that use only what the generated endpoints allow.
        for (const url of [
          '/api/users?filter[status]=active',
          '/api/users?filter[status]=active&sort=-created_at',
          '/api/users?filter[trashed]=true&sort=email',
          '/api/users?filter[score][gte]=80&filter[department_id]=1',
          '/api/users?count=posts,comments&filter[status]=banned',
          '/api/users?include=department,profile&per_page=3&page=2',
          '/api/posts?filter[status]=draft&sort=-created_at',
          '/api/posts?filter[trashed]=true&filter[status]=published&count=comments',
          '/api/departments?count=users',
          '/api/comments?filter[post_id]=1',
          // A path inside a JSON column.
          '/api/users?filter[settings.theme]=dark',
        ]) {
          const ours = await generatedApp.inject({ method: 'GET', url });
          const theirs = await demoApp.inject({ method: 'GET', url });
          expect(ours.statusCode, `${url}: ${ours.body}`).toBe(200);
          expect(theirs.statusCode, `${url}: ${theirs.body}`).toBe(200);
          const ids = (response: typeof ours) =>
            (response.json().data as { id: number }[]).map((row) => row.id);
          expect(ids(ours), url).toEqual(ids(theirs));
          expect(ids(ours).length, `${url} finds rows`).toBeGreaterThan(0);
          const counts = (response: typeof ours) =>
            (response.json().data as Record<string, unknown>[]).map((row) =>
              Object.entries(row).filter(([key]) => key.endsWith('_count')),
            );
          expect(counts(ours), url).toEqual(counts(theirs));
        }
        const users = (await generatedApp.inject({ method: 'GET', url: '/api/users?filter[id]=1' })).json()
          .data as Record<string, unknown>[];
        expect(users[0]).not.toHaveProperty('password_hash');
        expect(users[0]?.settings).toMatchObject({ theme: 'dark', notifications: { email: true } });
      } finally {
        for (const app of apps) await app.close();
        await conn.db.destroy();
        await dropDatabase(dialect, name);
      }
    });
  });
}

describe('the generator, from hand-written models', () => {
  const column = (
    name: string,
    type: string,
    extra: Partial<DatabaseModel['tables'][number]['columns'][number]> = {},
  ) => ({
    name,
    type,
    baseType: type.replace(/\(.*$/, ''),
    nullable: false,
    autoIncrement: false,
    hasDefault: false,
    ...extra,
  });
  const model: DatabaseModel = {
    dialect: 'mysql',
    schema: 'shop',
    tables: [
      {
        name: 'categories',
        isView: false,
        columns: [
          column('id', 'int(11)', { autoIncrement: true }),
          column('parent_id', 'int(11)', { nullable: true }),
          column('name', 'varchar(50)'),
        ],
        primaryKey: ['id'],
        foreignKeys: [{ columns: ['parent_id'], referencedTable: 'categories', referencedColumns: ['id'] }],
        indexes: [],
      },
      {
        name: 'class',
        isView: false,
        columns: [
          column('id', 'int(11)'),
          column('first name', 'varchar(50)'),
          column('photo', 'blob'),
          column('spot', 'geometry'),
        ],
        primaryKey: ['id'],
        foreignKeys: [],
        indexes: [],
      },
      {
        name: 'order_lines',
        isView: false,
        columns: [
          column('order_id', 'int(11)'),
          column('line', 'int(11)'),
          column('amount', 'decimal(10,2)', { precision: 10, scale: 2 }),
        ],
        primaryKey: ['order_id', 'line'],
        foreignKeys: [{ columns: ['order_id'], referencedTable: 'orders', referencedColumns: ['id'] }],
        indexes: [],
      },
      {
        name: 'orders',
        isView: false,
        columns: [
          column('id', 'bigint(20) unsigned', { autoIncrement: true }),
          column('customer', 'varchar(50)'),
          column('customer_id', 'int(11)'),
          column('clerk_id', 'int(11)', { nullable: true }),
          column('reviewer_id', 'int(11)', { nullable: true }),
          column('category_id', 'int(11)', { nullable: true }),
          column('placed_at', 'datetime(3)'),
          column('deleted_at', 'datetime(3)', { nullable: true }),
        ],
        primaryKey: ['id'],
        foreignKeys: [
          { columns: ['customer_id'], referencedTable: 'people', referencedColumns: ['id'] },
          { columns: ['clerk_id'], referencedTable: 'people', referencedColumns: ['id'] },
          { columns: ['reviewer_id'], referencedTable: 'people', referencedColumns: ['id'] },
          { columns: ['category_id'], referencedTable: 'categories', referencedColumns: ['id'] },
        ],
        indexes: [{ name: 'orders_placed_at', columns: ['placed_at', 'id'], unique: false }],
      },
      {
        name: 'people',
        isView: false,
        columns: [
          column('id', 'int(11)'),
          column('email', 'varchar(50)'),
          column('api_key', 'varchar(50)'),
          column('team_code', 'varchar(8)', { nullable: true }),
        ],
        primaryKey: ['id'],
        foreignKeys: [{ columns: ['team_code'], referencedTable: 'teams', referencedColumns: ['code'] }],
        indexes: [{ name: 'people_email', columns: ['email'], unique: true }],
      },
      {
        name: 'teams',
        isView: false,
        columns: [column('id', 'int(11)'), column('code', 'varchar(8)')],
        primaryKey: ['id'],
        foreignKeys: [],
        indexes: [{ name: 'teams_code', columns: ['code'], unique: true }],
      },
      {
        name: 'follows',
        isView: false,
        columns: [
          column('follower_id', 'int(11)'),
          column('followee_id', 'int(11)'),
          column('created_at', 'datetime'),
        ],
        primaryKey: ['follower_id', 'followee_id'],
        foreignKeys: [
          { columns: ['follower_id'], referencedTable: 'people', referencedColumns: ['id'] },
          { columns: ['followee_id'], referencedTable: 'people', referencedColumns: ['id'] },
        ],
        indexes: [],
      },
      {
        name: 'order_totals',
        isView: true,
        columns: [column('total', 'decimal(10,2)')],
        primaryKey: [],
        foreignKeys: [],
        indexes: [],
      },
      {
        name: 'knex_migrations',
        isView: false,
        columns: [column('id', 'int(11)')],
        primaryKey: ['id'],
        foreignKeys: [],
        indexes: [],
      },
    ],
  };

  it('names relations without collisions, skips what it cannot serve and says why', () => {
    const plan = planConfig(model);
    expect(relationsOf(resourceOf(plan, 'orders'))).toEqual({
      // `customer` is a column: the relation takes the related table's singular.
      person: 'belongsTo people by customer_id',
      orderLines: 'hasMany order_lines by order_id',
      clerk: 'belongsTo people by clerk_id',
      reviewer: 'belongsTo people by reviewer_id',
      category: 'belongsTo categories by category_id',
    });
    expect(relationsOf(resourceOf(plan, 'people'))).toEqual({
      team: 'belongsTo teams by team_code',
      customerOrders: 'hasMany orders by customer_id',
      clerkOrders: 'hasMany orders by clerk_id',
      reviewerOrders: 'hasMany orders by reviewer_id',
      // follows has a created_at of its own: a resource too, reached by each of its keys.
      followerFollows: 'hasMany follows by follower_id',
      followeeFollows: 'hasMany follows by followee_id',
      // A pivot between a table and itself: named after the other key.
      followees: 'belongsToMany people via follows(follower_id, followee_id)',
      followers: 'belongsToMany people via follows(followee_id, follower_id)',
    });
    // A key to a unique column other than the primary key says which.
    expect(resourceOf(plan, 'people')?.relations[0]).toMatchObject({ ownerKey: 'code' });
    expect(resourceOf(plan, 'teams')?.relations).toEqual([
      { kind: 'hasMany', name: 'people', resource: 'people', foreignKey: 'team_code', localKey: 'code' },
    ]);
    expect(relationsOf(resourceOf(plan, 'categories'))).toEqual({
      parent: 'belongsTo categories by parent_id',
      children: 'hasMany categories by parent_id',
      orders: 'hasMany orders by category_id',
    });
    // Composite keys are resources (read-only): order_lines, and the follows pivot with its created_at.
    expect(resourceOf(plan, 'order_lines')).toMatchObject({
      primaryKey: ['order_id', 'line'],
      endpoint: { defaultSort: '-order_id,-line', actions: ['list', 'read'] },
    });
    expect(resourceOf(plan, 'follows')?.primaryKey).toEqual(['follower_id', 'followee_id']);
    expect(plan.skipped).toEqual([
      { table: 'knex_migrations', reason: "Knex's migration log." },
      {
        table: 'order_totals',
        reason:
          'a view without a key to page by (no column named id or order_total_id or order_id): declare it by hand, with primaryKey naming a column unique in the view.',
      },
    ]);
    expect(resourceOf(plan, 'class')?.skippedColumns).toEqual([
      { name: 'spot', reason: 'geometry: no column kind for type geometry' },
    ]);
    const orders = resourceOf(plan, 'orders')?.endpoint;
    const oneLevel = (names: string[] | undefined) =>
      (names ?? []).filter((name) => name.split('.').length < 3);
    expect(orders).toMatchObject({
      resource: 'orders',
      // Every column of an ordered kind, each to-one relation's label, each count.
      allowedSorts: [
        'id',
        'customer',
        'customer_id',
        'clerk_id',
        'reviewer_id',
        'category_id',
        'placed_at',
        'deleted_at',
        'person.email',
        'clerk.email',
        'reviewer.email',
        'category.name',
        'orderLines_count',
      ],
      allowedCounts: ['orderLines'],
      allowedSearch: ['customer'],
      allowAll: 10_000,
      allowExport: 'unlimited',
      defaultSort: '-id',
      actions: ['list', 'read'],
    });
    expect(oneLevel(orders?.allowedFilters)).toEqual([
      'id',
      'customer',
      'customer_id',
      'clerk_id',
      'reviewer_id',
      'category_id',
      'placed_at',
      'deleted_at',
      'trashed',
      // Each related resource's key and label column.
      'person.id',
      'person.email',
      'clerk.id',
      'clerk.email',
      'reviewer.id',
      'reviewer.email',
      'category.id',
      'category.name',
      // A composite key: each of its columns.
      'orderLines.order_id',
      'orderLines.line',
    ]);
    // Two relations away, through to-one and to-many hops, but never straight back.
    expect(orders?.allowedFilters).toEqual(
      expect.arrayContaining(['person.team.code', 'category.parent.name', 'category.children.name']),
    );
    expect(orders?.allowedFilters).not.toContain('person.customerOrders.id');
    expect(orders?.allowedFilters).not.toContain('orderLines.order.id');
    expect(oneLevel(orders?.allowedIncludes).filter((path) => !path.includes('.'))).toEqual([
      'person',
      'clerk',
      'reviewer',
      'category',
      'orderLines',
    ]);
    expect(orders?.allowedIncludes).toEqual(expect.arrayContaining(['person.team', 'category.children']));
    expect(orders?.allowedIncludes).not.toContain('person.customerOrders');
    // To-many includes are constrained, by the related resource's columns, and cut at 100 per record.
    expect(orders?.includeConstraints.orderLines).toEqual({
      allowedFilters: ['order_id', 'line', 'amount'],
      allowedSorts: ['order_id', 'line', 'amount'],
      maxLimit: 100,
    });
    expect(Object.keys(orders?.includeConstraints ?? {})).not.toContain('person');
    // Aggregates: no measure here (every integer is a key or a reference); each datetime's extent
    // (where a dashboard's range starts and ends) and its buckets.
    expect(orders?.aggregates.allowedAggregates).toEqual([
      'count',
      'min:placed_at',
      'max:placed_at',
      'min:deleted_at',
      'max:deleted_at',
    ]);
    expect(orders?.aggregates.allowedGroupBy).toEqual([
      'person.email',
      'clerk.email',
      'reviewer.email',
      'category.name',
      ...['placed_at', 'deleted_at'].flatMap((column) =>
        ['day', 'week', 'month', 'quarter', 'year'].map((unit) => `${column}:${unit}`),
      ),
    ]);
    // The sorts no index leads, and the statements that would serve them (printed, never run).
    expect(orders?.unindexedSorts).toEqual([
      'customer',
      'customer_id',
      'clerk_id',
      'reviewer_id',
      'category_id',
      'deleted_at',
    ]);
    expect(plan.indexAdvice).toContain('CREATE INDEX `orders_customer_id_idx` ON `orders` (`customer_id`);');
    const people = resourceOf(plan, 'people')?.endpoint;
    expect(people?.allowedIncludes.filter((path) => !path.includes('.'))).toEqual([
      'team',
      'customerOrders',
      'clerkOrders',
      'reviewerOrders',
      'followerFollows',
      'followeeFollows',
      'followees',
      'followers',
    ]);
    expect(people?.allowedCounts).toEqual([
      'customerOrders',
      'clerkOrders',
      'reviewerOrders',
      'followerFollows',
      'followeeFollows',
      'followees',
      'followers',
    ]);
    expect(columnsOf(plan, 'people', (candidate) => candidate.hidden)).toEqual(['api_key']);
    expect(resourceOf(plan, 'orders')?.columns[0]).toMatchObject({ type: 'integer', big: true });
  });

  it('writes quoted keys and safe variable names, laid out for the line width asked', () => {
    const source = generateConfig(model, { importFrom, lineWidth: 80 });
    expect(source).toContain("'first name': { type: 'string', nullable: false }");
    expect(source).toContain('const classTable = defineResource({');
    expect(source).toMatch(/^ {2}primaryKey: \['order_id', 'line'\],$/m);
    // Comments included: one that does not fit after its entry goes above it.
    expect(Math.max(...source.split('\n').map((line) => line.length))).toBeLessThanOrEqual(80);
    mkdirSync(join(generated, 'width-80'), { recursive: true });
    writeFileSync(
      join(generated, 'width-80', 'shop.ts'),
      source.replace(`'${importFrom}'`, `'../${importFrom}'`),
    );
    typecheckTargets.push({ file: 'width-80/shop.ts', width: 80 });
  });

  it('reads datetime storage from sampled values, conservatively', () => {
    expect(datetimeShape(['2024-01-15 10:00:00', '2024-01-15 10:00:00.123456']).storage).toBe('text');
    expect(datetimeShape(['2024-01-15T10:00:00.000Z']).storage).toBe('iso');
    expect(datetimeShape([1_700_000_000, 1_600_000_000]).storage).toBe('unix-seconds');
    expect(datetimeShape([1_700_000_000_000]).storage).toBe('unix-milliseconds');
    expect(datetimeShape([1_700_000_000, 1_700_000_000_000]).storage).toBeUndefined();
    const mixed = datetimeShape(['2024-01-15 10:00:00', '2024-01-15T10:00:00.000Z']);
    expect(mixed.storage).toBeUndefined();
    expect(mixed.other).toBe('2024-01-15T10:00:00.000Z');
    expect(datetimeShape(['yesterday']).other).toBe('yesterday');
  });
});

describe('the init command', () => {
  let out: string;
  let database: string;
  beforeAll(async () => {
    // The command as users run it: the package's build (npm test makes it before the tests).
    out = builtPackage();
    database = join(mkdtempSync(join(tmpdir(), 'rqs-init-')), 'laravel.db');
    const conn = connect(`sqlite:${database}`);
    await createFrameworkSchema(conn, 'laravel');
    await conn.db.destroy();
  });
  afterAll(() => {
    if (database) rmSync(dirname(database), { recursive: true, force: true });
  });

  it('writes rqs.config.ts importing the package, the same module as the programmatic init', async () => {
    const dir = join(generated, 'cli');
    mkdirSync(dir, { recursive: true });
    const { stdout } = await run(
      process.execPath,
      [join(out, 'src/cli/main.js'), 'init', '--database-url', `sqlite:${database}`],
      { cwd: dir },
    );
    expect(stdout).toContain(`Wrote ${join(dir, 'rqs.config.ts')}: 5 resources and endpoints`);
    expect(stdout).toContain('not a resource: migrations: a migration log (Laravel, TypeORM).');
    const written = readFileSync(join(dir, 'rqs.config.ts'), 'utf8');
    expect(written).toMatch(/\} from 'resource-query-service';\n/);
    const { source } = await init({ databaseUrl: `sqlite:${database}`, out: false });
    expect(written).toBe(source);
    // The same text with the repository's entry point: it typechecks like the others.
    writeFileSync(
      join(dir, 'rqs.config.ts'),
      written.replace("'resource-query-service'", `'../${importFrom}'`),
    );
    typecheckTargets.push({ file: 'cli/rqs.config.ts', width: 80 });
  });

  it('serves what it wrote, unchanged, from a folder without the package, by the command it prints', async () => {
    // A folder outside the repository: no node_modules on its way up, no package next to the file.
    const dir = mkdtempSync(join(tmpdir(), 'rqs-init-elsewhere-'));
    // The package's admin UI, where an installed package has it (admin/dist beside dist/).
    builtAdmin();
    try {
      const file = join(dir, 'conf', 'x.ts');
      const { stdout } = await run(
        process.execPath,
        [join(out, 'src/cli/main.js'), 'init', '--database-url', `sqlite:${database}`, '--out', file],
        { cwd: dir },
      );
      const printed =
        /Review it, then serve it:\n {2}DATABASE_URL=(\S+) npx resource-query-service (.*)\n/.exec(stdout);
      expect(printed, stdout).not.toBeNull();
      const [, url = '', args = ''] = printed ?? [];
      const child = spawn(
        process.execPath,
        [join(out, 'src/cli/main.js'), ...args.split(' '), '--port', '0'],
        {
          cwd: dir,
          env: { ...process.env, DATABASE_URL: url },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      try {
        let said = '';
        const address = await new Promise<string>((resolve, reject) => {
          const read = (chunk: Buffer) => {
            said += chunk.toString();
            const found = /Admin UI: (http:\/\/\S+)\/admin\//.exec(said);
            if (found) resolve(found[1] as string);
          };
          child.stdout.on('data', read);
          child.stderr.on('data', read);
          child.on('exit', (code) => reject(new Error(`exited ${code}: ${said}`)));
        });
        const list = await fetch(`${address}/api/users`);
        expect(list.status).toBe(200);
        expect(((await list.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);
        const admin = await fetch(`${address}/admin/`);
        expect(admin.status).toBe(200);
        expect(await admin.text()).toContain('<div id="root">');
      } finally {
        child.kill();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('refuses to overwrite a file unless --force, and explains its usage', async () => {
    const file = join(generated, 'cli', 'existing.ts');
    writeFileSync(file, '// mine\n');
    const messages: string[] = [];
    const io = { log: (m: string) => messages.push(m), error: (m: string) => messages.push(m) };
    const args = ['--database-url', `sqlite:${database}`, '--out', file];
    expect(await runInit(args, io)).toBe(1);
    expect(messages.join('\n')).toContain('exists: pass --force to overwrite it');
    expect(readFileSync(file, 'utf8')).toBe('// mine\n');
    expect(
      await runInit([...args, '--force', '--line-width', '110', '--import-from', `../${importFrom}`], io),
    ).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('export default defineConfig({');
    typecheckTargets.push({ file: 'cli/existing.ts', width: 110 });
    messages.length = 0;
    expect(await runInit(['--bogus'], io)).toBe(2);
    expect(messages.join('\n')).toContain('Usage: resource-query-service init');
  });
});

describe('the generated modules', () => {
  it('typecheck under the project’s strict options, and are formatted as biome formats them', async () => {
    expect(typecheckTargets.length).toBeGreaterThan(3 * dialects.length);
    const biome = join(root, 'node_modules/.bin/biome');
    const files = (width: number) =>
      typecheckTargets
        .filter((target) => target.width === width)
        .map((target) => join(generated, target.file));
    // Lint and format with the repository's configuration (line width 110)…
    // The generated folder is git-ignored, and biome follows .gitignore unless told otherwise.
    await run(biome, ['check', '--vcs-use-ignore-file=false', ...files(110)], { cwd: root });
    // …and the 80-column layout (the command's default, biome's and prettier's too).
    await run(biome, ['check', '--vcs-use-ignore-file=false', '--line-width', '80', ...files(80)], {
      cwd: root,
    });

    // Type-checked against the package as it is published (dist/'s declarations), as an application
    // importing it checks them: the import, once laid out and formatted, names the build's entry.
    const built = builtPackage();
    for (const { file } of typecheckTargets) {
      const path = join(generated, file);
      const entry = relative(dirname(path), join(built, 'src', 'index.js'))
        .split('\\')
        .join('/');
      const source = readFileSync(path, 'utf8');
      const [specifier] = /'(?:\.\.\/)+src\/index\.js'/.exec(source) ?? [];
      expect(specifier, `${file} imports the package`).toBeDefined();
      writeFileSync(path, source.replace(specifier as string, `'${entry}'`));
    }
    writeFileSync(
      join(generated, 'tsconfig.json'),
      JSON.stringify({
        extends: relative(generated, join(root, 'tsconfig.json')).split('\\').join('/'),
        compilerOptions: { noEmit: true, rootDir: relative(generated, root).split('\\').join('/') },
        include: typecheckTargets.map((target) => target.file),
      }),
    );
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    await expect(
      run(process.execPath, [tsc, '-p', join(generated, 'tsconfig.json')], { cwd: root }),
    ).resolves.toBeDefined();
  }, 60_000);
});
