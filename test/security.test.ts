import { type JWTPayload, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { syncIdSequence } from '../examples/demo/schema.js';
import { type AccessRules, type Action, defineEndpoint } from '../src/resource/policy.js';
import type { SchemaDeclaration } from '../src/resource/schema-declaration.js';
import { bearerContext } from '../src/server/bearer.js';
import { parseCsv } from './support/csv.js';
import { dialects } from './support/databases.js';
import type { UserRow } from './support/fixture.js';
import { snapshot, useService } from './support/service.js';
import {
  type Claims,
  type CommentRow,
  insertTenancyRows,
  type PostRow,
  tenantOf,
  tenantResources,
  tenantView,
  unscopedView,
  type View,
  world,
} from './support/tenancy.js';

/**
 * A multi-tenant security matrix through HTTP: tenancy is the department (test/support/tenancy.ts),
 * the context comes from real signed JWTs, and every expectation is computed from the fixture in
 * plain JavaScript. Tenant 2 (`other`) must observe no row of tenant 1 by any path: lists, totals,
 * counts, includes, relation filters and search used as oracles, every pagination, PATCH.
 */

const TEST_SECRET = 'security-test-secret-long-enough-for-hs256-keys';

async function sign(
  claims: JWTPayload,
  options: { secret?: string; expires?: number | string } = {},
): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
    .setExpirationTime(options.expires ?? '1h')
    .sign(new TextEncoder().encode(options.secret ?? TEST_SECRET));
}

const tokens = {
  viewer: await sign({ sub: 'viewer', tenant: 1, role: 'viewer' }),
  editor: await sign({ sub: 'editor', tenant: 1, role: 'editor' }),
  other: await sign({ sub: 'other', tenant: 2, role: 'editor' }),
};
type Who = 'anonymous' | keyof typeof tokens;
/** The tenant behind each token. */
const tenantOfWho = { viewer: 1, editor: 1, other: 2 } as const;

const headersOf = (who: Who): Record<string, string> =>
  who === 'anonymous' ? {} : { authorization: `Bearer ${tokens[who]}` };

// Access rules: reading needs an identity, writing the editor role.
const identified = (ctx: Claims) => ctx !== undefined;
const editors = (ctx: Claims) => ctx?.role === 'editor';

const usersSchema: SchemaDeclaration = {
  title: 'Users',
  table: { columns: [{ key: 'id' }, { key: 'name' }, { key: 'score' }] },
  form: {
    inputs: [
      { name: 'name', type: 'text', required: true },
      { name: 'score', type: 'number' },
      // The tenant key itself: a write may not move a record into another tenant.
      { name: 'department_id', type: 'number' },
      { name: 'email', type: 'email' },
      { name: 'status', type: 'text' },
    ],
  },
};
/** Comments: two references, and only `user_id` decides the tenant (a post may be anyone's). */
const commentsSchema: SchemaDeclaration = {
  title: 'Comments',
  table: { columns: [{ key: 'id' }, { key: 'body' }] },
  form: {
    inputs: [
      { name: 'post_id', type: 'number', required: true },
      { name: 'user_id', type: 'number', required: true },
      { name: 'body', type: 'textarea', required: true },
      { name: 'approved', type: 'checkbox' },
    ],
  },
};
const postsSchema: SchemaDeclaration = {
  title: 'Posts',
  table: { columns: [{ key: 'id' }, { key: 'title' }] },
  form: {
    inputs: [
      { name: 'title', type: 'text', required: true },
      { name: 'user_id', type: 'number' },
      { name: 'body', type: 'textarea' },
      { name: 'status', type: 'text' },
    ],
  },
};

/** Users and posts: every records action; identified contexts read, editors write. */
const recordActions: Action[] = ['list', 'read', 'create', 'update', 'delete', 'restore'];
const recordAccess: AccessRules<Claims> = {
  list: identified,
  read: identified,
  create: editors,
  update: editors,
  delete: editors,
  restore: editors,
};

const endpoints = [
  defineEndpoint<Claims>({
    resource: 'users',
    allowedFilters: [
      '*',
      'department.name',
      'posts.title',
      'posts.comments.body',
      'comments.post.title',
      'roles.name',
      'trashed',
    ],
    allowedIncludes: ['posts.comments', 'comments.post', 'department', 'profile', 'roles'],
    includeConstraints: { posts: { allowedSorts: ['created_at'] }, 'posts.comments': {} },
    allowedCounts: ['posts', 'comments', 'roles'],
    allowedSorts: ['name', 'created_at', 'score'],
    allowedSearch: ['name', 'email', 'department.name', 'posts.title'],
    allowAll: 100,
    actions: recordActions,
    access: recordAccess,
    schema: usersSchema,
    aggregates: {
      allowedAggregates: ['count', 'sum:score', 'max:created_at'],
      allowedGroupBy: ['status', 'department.name', 'created_at:year'],
    },
  }),
  defineEndpoint<Claims>({
    resource: 'posts',
    allowedFilters: ['title', 'status', 'author.name', 'comments.body', 'comments.author.name', 'trashed'],
    allowedIncludes: ['author', 'comments.author'],
    includeConstraints: { comments: { allowedFilters: ['approved'], allowedSorts: ['created_at'] } },
    allowedCounts: ['comments'],
    allowedSearch: ['title', 'author.name'],
    allowAll: 'unlimited',
    actions: recordActions,
    access: recordAccess,
    schema: postsSchema,
  }),
  defineEndpoint<Claims>({
    resource: 'comments',
    allowedFilters: ['*', 'post.title', 'post.author.name', 'author.name'],
    allowedIncludes: ['post.author', 'author'],
    allowedSorts: ['post.score', 'post.author.score'],
    allowedSearch: ['body', 'post.title', 'author.name'],
    aggregates: { allowedAggregates: ['count'], allowedGroupBy: ['post.score'] },
    allowAll: 'unlimited',
    actions: ['list', 'read', 'create', 'update'],
    access: recordAccess,
    schema: commentsSchema,
  }),
  defineEndpoint<Claims>({
    resource: 'departments',
    allowedFilters: ['*', 'users.name'],
    allowedCounts: ['users'],
    // Only editors may list departments: the matrix's 403 on a list.
    access: { list: editors },
  }),
  defineEndpoint<Claims>({
    resource: 'profiles',
    allowedFilters: ['*', 'user.name'],
    allowedIncludes: ['user'],
    access: { list: identified },
  }),
  defineEndpoint<Claims>({
    resource: 'roles',
    allowedFilters: ['*', 'users.name'],
    allowedIncludes: ['users', 'permissions'],
    includeConstraints: { users: { allowedFilters: ['status'], allowedSorts: ['name'] } },
    allowedCounts: ['users'],
    allowedSorts: ['users_count'],
    access: { list: identified },
  }),
  // Open to anyone (no rules): an anonymous context reaches the scopes, which must give it nothing.
  defineEndpoint<Claims>({ resource: 'users', path: 'public-users', allowedFilters: ['*'] }),
  defineEndpoint<Claims>({ resource: 'roles', path: 'public-roles', allowedCounts: ['users'] }),
  // Global roles whose members (tenant-scoped users) an editor sets: a many-to-many write.
  defineEndpoint<Claims>({
    resource: 'roles',
    path: 'roles-members',
    allowedIncludes: ['users'],
    actions: ['read', 'update'],
    access: { read: identified, update: editors },
    schema: {
      table: { columns: [{ key: 'id' }, { key: 'name' }] },
      form: { inputs: [{ name: 'users', type: 'references' }] },
    },
  }),
  // Defaults that are a function of the context: the plan cache must key on them.
  defineEndpoint<Claims>({
    resource: 'users',
    path: 'users-tenant-default',
    allowedFilters: ['status'],
    allowedSorts: ['name'],
    defaultFilters: {
      status: (ctx) => {
        const tenant = tenantOf(ctx);
        return tenant === 1 ? 'active' : tenant === 2 ? 'inactive' : undefined;
      },
    },
    access: { list: identified },
  }),
  // Permissions reach no scope, so their SQL is compiled once per shape and reused across contexts.
  defineEndpoint<Claims>({
    resource: 'permissions',
    path: 'permissions-mine',
    allowedFilters: ['name', 'id'],
    defaultFilters: {
      name: (ctx) => {
        const tenant = tenantOf(ctx);
        return tenant === 1 ? 'posts.create' : tenant === 2 ? 'users.manage' : undefined;
      },
    },
    access: { list: identified },
  }),
];

// ---------------------------------------------------------------------------------------------------
// Expectations in plain JavaScript.

type Row = { id: number };
/** The default order of every list: `-id`. */
const idsDesc = (rows: readonly Row[]): number[] => rows.map((row) => row.id).sort((a, b) => b - a);
const idsAsc = (rows: readonly Row[]): number[] => rows.map((row) => row.id).sort((a, b) => a - b);
const contains = (text: string | null, term: string): boolean =>
  text?.toLowerCase().includes(term.toLowerCase()) ?? false;
const roleIds = (userId: number): number[] => world.userRoles[userId] ?? [];
const nameOf = (view: View, userId: number) => view.users.find((row) => row.id === userId)?.name ?? null;
const titleOf = (view: View, postId: number) => view.posts.find((row) => row.id === postId)?.title ?? null;

/**
 * A list query used as an oracle. `answer(base, related)`: the ids the list gives when `base` is what
 * the reader may list and `related` what its relation filters / search reach. A correct service
 * answers with `related = base` (the same tenant); a scope forgotten on a related resource would
 * answer as with `related = unscopedView`. `detects`: that would change tenant 2's answer.
 */
interface Oracle {
  url: string;
  answer: (base: View, related: View) => number[];
  detects?: boolean;
}

const usersWhere =
  (test: (user: UserRow, related: View) => boolean) =>
  (base: View, related: View): number[] =>
    idsDesc(base.users.filter((user) => test(user, related)));
const postsWhere =
  (test: (post: PostRow, related: View) => boolean) =>
  (base: View, related: View): number[] =>
    idsDesc(base.posts.filter((post) => test(post, related)));
const commentsWhere =
  (test: (comment: View['comments'][number], related: View) => boolean) =>
  (base: View, related: View): number[] =>
    idsDesc(base.comments.filter((comment) => test(comment, related)));

const hasPostTitled = (title: string) =>
  usersWhere((user, r) => r.posts.some((post) => post.user_id === user.id && post.title === title));
const hasCommentOnPost = (body: string) =>
  usersWhere((user, r) =>
    r.posts.some(
      (post) => post.user_id === user.id && r.comments.some((c) => c.post_id === post.id && c.body === body),
    ),
  );
const usersSearch = (term: string) =>
  usersWhere(
    (user, r) =>
      contains(user.name, term) ||
      contains(user.email, term) ||
      r.departments.some((d) => d.id === user.department_id && contains(d.name, term)) ||
      r.posts.some((post) => post.user_id === user.id && contains(post.title, term)),
  );
const postsWithComment = (body: string) =>
  postsWhere((post, r) => r.comments.some((c) => c.post_id === post.id && c.body === body));
const rolesWithUser = (name: string) => (_base: View, r: View) =>
  [...world.roles]
    .filter((role) => r.users.some((user) => user.name === name && roleIds(user.id).includes(role.id)))
    .map((role) => role.id)
    .sort((a, b) => b - a);

const oracles: Oracle[] = [
  // users, through their posts, the posts' comments, their comments' posts, department, roles
  { url: '/api/users?filter[posts.title]=Hello World', answer: hasPostTitled('Hello World') },
  {
    url: '/api/users?filter[posts.comments.body]=Cross-tenant remark',
    answer: hasCommentOnPost('Cross-tenant remark'),
    detects: true,
  },
  {
    url: '/api/users?filter[posts.comments.body]=Agreed with kickoff',
    answer: hasCommentOnPost('Agreed with kickoff'),
  },
  {
    url: '/api/users?filter[comments.post.title]=Hello World',
    answer: usersWhere((user, r) =>
      r.comments.some((c) => c.user_id === user.id && titleOf(r, c.post_id) === 'Hello World'),
    ),
    detects: true,
  },
  {
    url: '/api/users?filter[department.name]=Engineering',
    answer: usersWhere((user, r) =>
      r.departments.some((d) => d.id === user.department_id && d.name === 'Engineering'),
    ),
  },
  {
    url: '/api/users?filter[department.name]=Sales',
    answer: usersWhere((user, r) =>
      r.departments.some((d) => d.id === user.department_id && d.name === 'Sales'),
    ),
  },
  {
    url: '/api/users?filter[roles.name]=viewer',
    answer: usersWhere((user) => roleIds(user.id).includes(4)),
  },
  { url: '/api/users?search=Engineering', answer: usersSearch('Engineering') },
  { url: '/api/users?search=Hello', answer: usersSearch('Hello') },
  { url: '/api/users?search=Anna', answer: usersSearch('Anna') },
  { url: '/api/users?search=kickoff', answer: usersSearch('kickoff') },
  // posts, through their author and comments (and the comments' authors)
  {
    url: '/api/posts?filter[author.name]=Anna Smith',
    answer: postsWhere((post, r) => nameOf(r, post.user_id) === 'Anna Smith'),
  },
  {
    url: '/api/posts?filter[comments.body]=Cross-tenant remark',
    answer: postsWithComment('Cross-tenant remark'),
    detects: true,
  },
  {
    url: '/api/posts?filter[comments.body]=Agreed with kickoff',
    answer: postsWithComment('Agreed with kickoff'),
  },
  {
    url: '/api/posts?filter[comments.author.name]=Anna Smith',
    answer: postsWhere((post, r) =>
      r.comments.some((c) => c.post_id === post.id && nameOf(r, c.user_id) === 'Anna Smith'),
    ),
    detects: true,
  },
  {
    url: '/api/posts?search=Anna',
    answer: postsWhere(
      (post, r) => contains(post.title, 'Anna') || contains(nameOf(r, post.user_id), 'Anna'),
    ),
  },
  // comments, through their post (and its author) and their author
  {
    url: '/api/comments?filter[post.title]=Hello World',
    answer: commentsWhere((c, r) => titleOf(r, c.post_id) === 'Hello World'),
    detects: true,
  },
  {
    url: '/api/comments?filter[post.author.name]=Anna Smith',
    answer: commentsWhere((c, r) => {
      const post = r.posts.find((p) => p.id === c.post_id);
      return post !== undefined && nameOf(r, post.user_id) === 'Anna Smith';
    }),
    detects: true,
  },
  {
    url: '/api/comments?filter[author.name]=Anna Smith',
    answer: commentsWhere((c, r) => nameOf(r, c.user_id) === 'Anna Smith'),
  },
  ...['roadmap', 'Hello World', 'kickoff'].map(
    (term): Oracle => ({
      url: `/api/comments?search=${term}`,
      answer: commentsWhere(
        (c, r) =>
          contains(c.body, term) ||
          contains(titleOf(r, c.post_id), term) ||
          contains(nameOf(r, c.user_id), term),
      ),
      detects: term !== 'kickoff',
    }),
  ),
  // profiles through their user; global roles through their users; departments
  {
    url: '/api/profiles?filter[user.name]=Anna Smith',
    answer: (base, r) =>
      idsDesc(base.profiles.filter((profile) => nameOf(r, profile.user_id) === 'Anna Smith')),
  },
  { url: '/api/roles?filter[users.name]=Anna Smith', answer: rolesWithUser('Anna Smith'), detects: true },
  { url: '/api/roles?filter[users.name]=Greta Sales', answer: rolesWithUser('Greta Sales') },
  {
    url: '/api/departments?filter[users.name]=Anna Smith',
    answer: (base, r) =>
      idsDesc(
        base.departments.filter((d) =>
          r.users.some((u) => u.department_id === d.id && u.name === 'Anna Smith'),
        ),
      ),
  },
  {
    url: '/api/departments?filter[name]=Engineering',
    answer: (base) => idsDesc(base.departments.filter((d) => d.name === 'Engineering')),
  },
];

/**
 * Every row a response carries, recognized by its columns, must belong to `tenant`: users by
 * department, posts/comments/profiles by their user, departments by id. Roles and permissions are
 * global. Returns the rows that do not.
 */
function foreignRows(body: unknown, tenant: number): unknown[] {
  const found: unknown[] = [];
  const tenantOfUser = (id: unknown) => world.users.find((row) => row.id === id)?.department_id;
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    const row = value as Record<string, unknown>;
    const foreign =
      ('email' in row && 'department_id' in row && row.department_id !== tenant) ||
      ('title' in row && 'user_id' in row && tenantOfUser(row.user_id) !== tenant) ||
      ('post_id' in row && 'body' in row && tenantOfUser(row.user_id) !== tenant) ||
      ('bio' in row && 'user_id' in row && tenantOfUser(row.user_id) !== tenant) ||
      ('code' in row && 'budget' in row && row.id !== tenant);
    if (foreign) found.push(row);
    for (const child of Object.values(row)) visit(child);
  };
  visit(body);
  return found;
}

// Through Fastify, and as the CLI's server answers GET requests (past Fastify, server/direct.ts).
for (const dialect of dialects)
  for (const host of ['standalone', 'standalone-direct'] as const) {
    describe(`tenancy and access through HTTP on ${dialect}${host === 'standalone' ? '' : ` through ${host}`}`, () => {
      const svc = useService<Claims>(
        dialect,
        'security',
        {
          resources: tenantResources,
          endpoints,
          context: bearerContext({ secret: TEST_SECRET }),
        },
        host,
      );
      beforeAll(async () => {
        await insertTenancyRows(svc.conn);
        // The fixture's rows carry explicit ids: creates continue after them.
        for (const table of ['users', 'posts', 'comments'] as const) await syncIdSequence(svc.conn, table);
      });

      const call = (who: Who, method: string, url: string, payload?: unknown) =>
        svc.inject({ method, url, headers: headersOf(who), ...(payload !== undefined && { payload }) });
      /** GET as a tenant's token: 200, and no row of another tenant anywhere in the body. */
      // biome-ignore lint/suspicious/noExplicitAny: the JSON the service answered.
      const read = async (who: keyof typeof tokens, url: string): Promise<any> => {
        const res = await call(who, 'GET', url);
        expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
        const body = res.json();
        expect(foreignRows(body, tenantOfWho[who]), url).toEqual([]);
        return body;
      };
      const ids = (body: { data: Row[] } | Row[]): number[] =>
        (Array.isArray(body) ? body : body.data).map((row) => row.id);
      const scoreOf = async (id: number): Promise<number> => {
        const row = await svc.conn.db
          .selectFrom('users')
          .select('score')
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        return Number(row.score);
      };

      describe('the access matrix', () => {
        type Cell = { who: Who; status: 200 | 401 | 403 | 404 };
        const row = (statuses: [number, number, number, number]): Cell[] =>
          (['anonymous', 'viewer', 'editor', 'other'] as const).map((who, i) => ({
            who,
            status: statuses[i] as Cell['status'],
          }));

        const expectDenial = (res: Awaited<ReturnType<typeof call>>, status: number) => {
          const body = res.json();
          expect(typeof body.message).toBe('string');
          if (status === 401) {
            expect(Object.keys(body.errors)).toEqual(['authorization']);
            expect(body.errors.authorization).toEqual([body.message]);
            expect(res.headers['www-authenticate']).toBe('Bearer');
          } else {
            expect(Object.keys(body.errors)).toEqual(['access']);
            expect(body.errors.access).toEqual([body.message]);
            expect(res.headers['www-authenticate']).toBeUndefined();
          }
        };

        for (const { who, status } of row([401, 200, 200, 200]))
          it(`list users as ${who} → ${status}`, async () => {
            const res = await call(who, 'GET', '/api/users');
            expect(res.statusCode, res.body).toBe(status);
            if (status !== 200) return expectDenial(res, status);
            const view = tenantView(tenantOfWho[who as keyof typeof tokens]);
            expect(ids(res.json())).toEqual(idsDesc(view.users));
          });

        for (const { who, status } of row([401, 403, 200, 200]))
          it(`list departments as ${who} → ${status}`, async () => {
            const res = await call(who, 'GET', '/api/departments');
            expect(res.statusCode, res.body).toBe(status);
            if (status !== 200) return expectDenial(res, status);
            expect(ids(res.json())).toEqual([tenantOfWho[who as keyof typeof tokens]]);
          });

        for (const { who, status } of row([401, 200, 200, 200]))
          it(`read the users schema as ${who} → ${status}`, async () => {
            const res = await call(who, 'GET', '/api/v1/users/schema');
            expect(res.statusCode, res.body).toBe(status);
            if (status !== 200) return expectDenial(res, status);
            const { form } = res.json();
            if (who === 'viewer') {
              expect(form.readOnly).toBe(true);
              expect(form.inputs).toEqual([]);
            } else {
              expect(form.readOnly).toBe(false);
              expect(form.inputs.map((input: { name: string }) => input.name)).toEqual([
                'name',
                'score',
                'department_id',
                'email',
                'status',
              ]);
            }
            expect(form.endpoint).toBe('/api/users');
          });

        // PATCH one record of tenant 1 (Ingrid, 103): the other tenant's editor may update, but not this.
        for (const [i, { who, status }] of row([401, 403, 200, 404]).entries())
          it(`update a tenant-1 user as ${who} → ${status}`, async () => {
            const before = await scoreOf(103);
            const score = 200 + i;
            const res = await call(who, 'PATCH', '/api/users/103', { score });
            expect(res.statusCode, res.body).toBe(status);
            if (status === 200) {
              expect(res.json()).toMatchObject({ id: 103, score });
              expect(await scoreOf(103)).toBe(score);
              return;
            }
            expect(await scoreOf(103)).toBe(before);
            if (status === 404) {
              expect(res.json()).toEqual({
                message: 'No users record with this id.',
                errors: { id: ['No users record with this id.'] },
              });
              return;
            }
            expectDenial(res, status);
          });

        it('lists in the schema index only what the context may read', async () => {
          const anonymous = await call('anonymous', 'GET', '/api/v1/schema');
          expect(anonymous.statusCode).toBe(200);
          expect(anonymous.json()).toEqual({ resources: [] });
          for (const who of ['viewer', 'other'] as const) {
            const res = await read(who, '/api/v1/schema');
            expect(res.resources.map((entry: { resource: string }) => entry.resource)).toEqual([
              'users',
              'posts',
              'comments',
              'roles',
            ]);
          }
        });
      });

      describe('tokens', () => {
        const routes: [string, string, unknown?][] = [
          ['GET', '/api/users'],
          ['GET', '/api/public-users'],
          ['GET', '/api/v1/users/schema'],
          ['PATCH', '/api/users/1', { score: 1 }],
        ];
        const none = Buffer.from('{"alg":"none"}').toString('base64url');
        const claims = Buffer.from('{"tenant":1,"role":"editor"}').toString('base64url');

        it.each([
          [
            'signed with another secret',
            () =>
              sign({ tenant: 1, role: 'editor' }, { secret: 'another-secret-of-the-same-length-padding!' }),
            'The bearer token is not valid.',
          ],
          [
            'expired',
            () => sign({ tenant: 1, role: 'editor' }, { expires: Math.floor(Date.now() / 1000) - 60 }),
            'The bearer token has expired.',
          ],
          ['unsigned (alg none)', async () => `${none}.${claims}.`, 'The bearer token is not valid.'],
          ['not a JWT', async () => 'not-a-jwt', 'The bearer token is not valid.'],
        ])('a token %s is 401 on every route, and changes nothing', async (_name, make, message) => {
          const token = await make();
          const before = await snapshot(svc.conn);
          for (const [method, url, payload] of routes) {
            const res = await svc.inject({
              method,
              url,
              headers: { authorization: `Bearer ${token}` },
              ...(payload !== undefined && { payload }),
            });
            expect(res.statusCode, `${method} ${url}`).toBe(401);
            expect(res.json()).toEqual({ message, errors: { authorization: [message] } });
            expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
          }
          expect(await snapshot(svc.conn)).toBe(before);
        });

        it('refuses an Authorization header that is not a bearer token', async () => {
          const res = await svc.inject({
            url: '/api/public-users',
            headers: { authorization: `Basic ${tokens.editor}` },
          });
          expect(res.statusCode).toBe(401);
          expect(Object.keys(res.json().errors)).toEqual(['authorization']);
        });

        it('gives a context without a tenant no tenant rows at all, on open and closed endpoints', async () => {
          const anonymous = await svc.get('/api/public-users');
          expect(anonymous.status).toBe(200);
          expect(anonymous.body).toMatchObject({ data: [], total: 0 });
          const roles = await svc.get('/api/public-roles?count=users');
          expect(roles.status).toBe(200);
          expect(roles.body.data.map((role: { users_count: number }) => role.users_count)).toEqual(
            world.roles.map(() => 0),
          );
          // A valid token with no tenant claim, or one of the wrong type ("1" is not 1).
          for (const tenant of [undefined, '1', 1.5, null]) {
            const token = await sign({
              sub: 'stray',
              role: 'editor',
              ...(tenant !== undefined && { tenant }),
            });
            const headers = { authorization: `Bearer ${token}` };
            for (const url of [
              '/api/users?filter[trashed]=true',
              '/api/posts?include=comments',
              '/api/comments',
              '/api/profiles',
              '/api/departments',
              '/api/users-tenant-default',
            ]) {
              const res = await svc.get(url, headers);
              expect(res.status, url).toBe(200);
              expect(res.body).toMatchObject({ data: [], total: 0 });
            }
            const counted = await svc.get('/api/roles?count=users&include=users', headers);
            expect(
              counted.body.data.map((role: { users_count: number; users: unknown[] }) => [
                role.users_count,
                role.users,
              ]),
            ).toEqual(world.roles.map(() => [0, []]));
            const patch = await svc.inject({
              method: 'PATCH',
              url: '/api/users/1',
              headers,
              payload: { score: 3 },
            });
            expect(patch.statusCode).toBe(404);
          }
        });
      });

      describe('tenant 2 observes no row of tenant 1', () => {
        it('in lists, totals and trashed lists', async () => {
          for (const who of ['other', 'editor'] as const) {
            const tenant = tenantOfWho[who];
            const list = await read(who, '/api/users');
            expect(ids(list)).toEqual(idsDesc(tenantView(tenant).users));
            expect(list.total).toBe(tenantView(tenant).users.length);
            const trashed = await read(who, '/api/users?filter[trashed]=true');
            expect(ids(trashed)).toEqual(idsDesc(tenantView(tenant, true).users));
            for (const resource of ['posts', 'comments', 'profiles', 'departments'] as const) {
              const res = await read(who, `/api/${resource}`);
              expect(ids(res), resource).toEqual(idsDesc(tenantView(tenant)[resource]));
              expect(res.total, resource).toBe(tenantView(tenant)[resource].length);
            }
          }
          // The model is not trivial: each tenant sees rows, and not the same ones.
          expect(tenantView(2).users.length).toBeGreaterThan(2);
          expect(tenantView(2).comments.length).toBeGreaterThan(2);
        });

        it('through a query in the body (POST <list>/query, QUERY): the same answers, the same denials', async () => {
          const viaBody = (who: Who, method: 'POST' | 'QUERY', path: string, query: string) =>
            svc.inject({
              method,
              url: method === 'POST' ? `${path}/query` : path,
              headers: { ...headersOf(who), 'content-type': 'application/json' },
              payload: { query },
            });
          for (const { url } of oracles)
            for (const who of ['other', 'editor'] as const) {
              // The query string as a client sends it in the URL (encoded), links then the same.
              const { pathname: path, search } = new URL(url, 'http://localhost');
              const query = search.slice(1);
              const expected = await read(who, url);
              for (const method of ['POST', 'QUERY'] as const) {
                const res = await viaBody(who, method, path, query);
                expect(res.statusCode, `${method} ${url}`).toBe(200);
                expect(res.json(), `${who} ${method} ${url}`).toEqual(expected);
              }
            }
          // Access is decided before the body is read: a body the service would refuse changes nothing.
          for (const [who, path, status] of [
            ['anonymous', '/api/users', 401],
            ['viewer', '/api/departments', 403],
          ] as const)
            for (const method of ['POST', 'QUERY'] as const) {
              const denied = await viaBody(who, method, path, '');
              expect(denied.statusCode, `${who} ${method} ${path}`).toBe(status);
              const garbled = await svc.inject({
                method,
                url: method === 'POST' ? `${path}/query` : path,
                headers: { ...headersOf(who), 'content-type': 'text/plain' },
                payload: 'not a query',
              });
              expect(garbled.statusCode).toBe(status);
              expect(garbled.json()).toEqual(denied.json());
            }
        });

        it('through sparse fieldsets, and read-one with fields', async () => {
          for (const who of ['other', 'editor'] as const) {
            const view = tenantView(tenantOfWho[who]);
            const res = await call(
              who,
              'GET',
              '/api/users?fields[users]=name&include=posts.comments&fields[posts]=title&fields[posts.comments]=body',
            );
            expect(res.statusCode, res.body).toBe(200);
            const data = res.json().data as { id: number; posts: { id: number; comments: Row[] }[] }[];
            expect(
              data.map((u) => ({
                id: u.id,
                posts: u.posts.map((p) => ({ id: p.id, comments: ids(p.comments) })),
              })),
            ).toEqual(
              idsDesc(view.users).map((id) => ({
                id,
                posts: idsAsc(view.posts.filter((p) => p.user_id === id)).map((postId) => ({
                  id: postId,
                  comments: idsAsc(view.comments.filter((c) => c.post_id === postId)),
                })),
              })),
            );
          }
          const missing = await call('other', 'GET', '/api/users/99999?fields[users]=name');
          for (const id of [1, 103]) {
            const res = await call('other', 'GET', `/api/users/${id}?fields[users]=name`);
            expect(res.statusCode).toBe(404);
            expect(res.json()).toEqual(missing.json());
            expect(res.headers.etag).toBeUndefined();
          }
        });

        it("through conditional reads: another tenant's ETag never gives a 304, and no answer is shared", async () => {
          for (const url of [
            '/api/users',
            '/api/posts?fields[posts]=title',
            '/api/comments?search=roadmap',
          ]) {
            const mine = await call('editor', 'GET', url);
            const theirs = await call('other', 'GET', url);
            expect(theirs.headers['cache-control']).toBe('private, no-cache');
            expect(String(theirs.headers.vary)).toMatch(/Authorization/);
            expect(theirs.headers.etag).not.toBe(mine.headers.etag);
            const probe = await svc.inject({
              method: 'GET',
              url,
              headers: { ...headersOf('other'), 'if-none-match': String(mine.headers.etag) },
            });
            expect(probe.statusCode, url).toBe(200);
            expect(probe.json()).toEqual(theirs.json());
          }
        });

        it.each(oracles.map((oracle) => [oracle.url, oracle] as const))(
          'relation filters and search as oracles: %s',
          async (_url, { url, answer, detects }) => {
            for (const who of ['other', 'editor'] as const) {
              const view = tenantView(tenantOfWho[who]);
              const res = await read(who, url);
              expect(ids(res), `${who} ${url}`).toEqual(answer(view, view));
              expect(res.total).toBe(res.data.length);
            }
            const mine = tenantView(2);
            if (detects)
              expect(answer(mine, unscopedView), 'a leak would show').not.toEqual(answer(mine, mine));
          },
        );

        it('names no tenant-1 row in any oracle the brief names', async () => {
          for (const url of [
            '/api/users?filter[posts.title]=Hello World',
            '/api/posts?filter[author.name]=Anna Smith',
            '/api/comments?filter[author.name]=Anna Smith',
            '/api/users?filter[department.name]=Engineering',
            '/api/users?search=Anna Smith',
            '/api/posts?search=Anna Smith',
            '/api/comments?search=Anna Smith',
          ]) {
            const res = await read('other', url);
            expect(res.data, url).toEqual([]);
            expect(res.total, url).toBe(0);
            // …while tenant 1 finds something with the same query: the filter itself works.
            const own = await read('editor', url);
            expect(own.data.length, url).toBeGreaterThan(0);
          }
        });

        it('in counts', async () => {
          for (const who of ['other', 'editor'] as const) {
            const view = tenantView(tenantOfWho[who]);
            const users = await read(who, '/api/users?count=posts,comments,roles');
            expect(
              users.data.map((u: Record<string, number>) => [
                u.id,
                u.posts_count,
                u.comments_count,
                u.roles_count,
              ]),
            ).toEqual(
              idsDesc(view.users).map((id) => [
                id,
                view.posts.filter((p) => p.user_id === id).length,
                view.comments.filter((c) => c.user_id === id).length,
                roleIds(id).length,
              ]),
            );
            const posts = await read(who, '/api/posts?count=comments');
            const commentCounts = (related: View) =>
              idsDesc(view.posts).map((id) => [id, related.comments.filter((c) => c.post_id === id).length]);
            expect(posts.data.map((p: Record<string, number>) => [p.id, p.comments_count])).toEqual(
              commentCounts(view),
            );
            if (who === 'other') expect(commentCounts(unscopedView)).not.toEqual(commentCounts(view));
            const roles = await read(who, '/api/roles?count=users');
            expect(roles.data.map((r: Record<string, number>) => [r.id, r.users_count])).toEqual(
              idsDesc(world.roles).map((id) => [
                id,
                view.users.filter((u) => roleIds(u.id).includes(id)).length,
              ]),
            );
            const departments = await read(who, '/api/departments?count=users');
            expect(departments.data).toMatchObject([
              { id: tenantOfWho[who], users_count: view.users.length },
            ]);
          }
        });

        it('through sorts by a relation: a hidden related record sorts as none, a count counts only the tenant', async () => {
          type Value = number | null;
          /** Ascending by `value`, NULL first, ties by id descending: the service's order. */
          const order = (rows: readonly Row[], value: (row: Row) => Value, sign: 1 | -1) =>
            [...rows]
              .sort((a, b) => {
                const x = value(a);
                const y = value(b);
                if (x === y) return b.id - a.id;
                if (x === null) return -sign;
                if (y === null) return sign;
                return (x < y ? -1 : 1) * sign;
              })
              .map((row) => row.id);
          for (const who of ['other', 'editor'] as const) {
            const view = tenantView(tenantOfWho[who]);
            const postScore = (posts: View['posts']) => (comment: Row) =>
              posts.find((post) => post.id === (comment as CommentRow).post_id)?.score ?? null;
            for (const [sort, sign] of [
              ['post.score', 1],
              ['-post.score', -1],
            ] as const) {
              const comments = await read(who, `/api/comments?all=true&sort=${sort}`);
              expect(ids(comments), `${who} ${sort}`).toEqual(
                order(view.comments, postScore(view.posts), sign),
              );
              if (who === 'other')
                expect(ids(comments)).not.toEqual(order(view.comments, postScore(unscopedView.posts), sign));
              const walked: number[] = [];
              let url: string | null = `/api/comments?pagination=cursor&per_page=2&sort=${sort}`;
              while (url) {
                const page = await read(who, url.replace(/^https?:\/\/[^/]+/, ''));
                walked.push(...ids(page));
                url = page.next_page_url;
              }
              expect(walked, `${who} ${sort} by cursor`).toEqual(ids(comments));
            }
            const usersOf = (users: View['users']) => (role: Row) =>
              users.filter((user) => roleIds(user.id).includes(role.id)).length;
            const roles = await read(who, '/api/roles?sort=-users_count');
            expect(ids(roles), who).toEqual(order(world.roles, usersOf(view.users), -1));
            expect(roles.data.every((role: Record<string, unknown>) => !('users_count' in role))).toBe(true);
          }
        });

        it('in aggregates: counts, sums and buckets of its own rows, a hidden related record grouped as none', async () => {
          type Group = { group: Record<string, unknown>; [metric: string]: unknown };
          /** The oracle: groups of `rows` by `key`, keys ascending with NULL first. */
          const groups = (
            rows: readonly Row[],
            key: (row: Row) => unknown,
            name: string,
            metrics: (rows: Row[]) => Record<string, unknown>,
          ) => {
            const byKey = new Map<unknown, Row[]>();
            for (const row of rows) byKey.set(key(row), [...(byKey.get(key(row)) ?? []), row]);
            return [...byKey.entries()]
              .sort(([a], [b]) =>
                a === b ? 0 : a === null ? -1 : b === null ? 1 : (a as string) < (b as string) ? -1 : 1,
              )
              .map(([value, members]): Group => ({ group: { [name]: value }, ...metrics(members) }));
          };
          // Earlier tests update scores: each user's score as stored now, read row by row.
          const scores = new Map<number, number>();
          for (const user of tenantView(1, true).users.concat(tenantView(2, true).users))
            scores.set(user.id, await scoreOf(user.id));
          const userMetrics = (rows: Row[]) => ({
            count: rows.length,
            'sum:score': rows.reduce((sum, row) => sum + (scores.get(row.id) as number), 0),
          });
          for (const who of ['other', 'editor'] as const) {
            const tenant = tenantOfWho[who];
            for (const trashed of [false, true]) {
              const users = tenantView(tenant, trashed).users;
              const byStatus = await read(
                who,
                `/api/users/aggregate?metrics=count,sum:score&group_by=status${trashed ? '&filter[trashed]=true' : ''}`,
              );
              expect(byStatus.data, `${who} trashed=${trashed}`).toEqual(
                groups(users, (row) => (row as UserRow).status, 'status', userMetrics),
              );
            }
            const users = tenantView(tenant).users;
            const total = await read(who, '/api/users/aggregate?metrics=count,sum:score');
            expect(total.data).toEqual([{ group: {}, ...userMetrics(users) }]);
            const yearly = await read(
              who,
              '/api/users/aggregate?metrics=count&group_by=created_at:year&from=2023-01-01&to=2026-01-01',
            );
            expect(yearly.data.map((row: Group) => row.count)).toEqual(
              ['2023', '2024', '2025'].map(
                (year) => users.filter((user) => user.created_at.startsWith(year)).length,
              ),
            );
            const departments = await read(
              who,
              '/api/users/aggregate?metrics=count&group_by=department.name',
            );
            expect(departments.data).toEqual(
              groups(
                users,
                (row) =>
                  tenantView(tenant).departments.find((d) => d.id === (row as UserRow).department_id)?.name ??
                  null,
                'department.name',
                (rows) => ({ count: rows.length }),
              ),
            );
            // A comment of this tenant on another tenant's post: the post is hidden, its score none.
            const view = tenantView(tenant);
            const postScore = (comment: Row) =>
              view.posts.find((post) => post.id === (comment as CommentRow).post_id)?.score ?? null;
            const byScore = await read(who, '/api/comments/aggregate?metrics=count&group_by=post.score');
            expect(byScore.data, who).toEqual(
              groups(view.comments, postScore, 'post.score', (rows) => ({ count: rows.length })),
            );
            if (who === 'other')
              expect(view.comments.some((comment) => postScore(comment) === null)).toBe(true);
          }
          // The list's access rule governs aggregates: no identity, no aggregate.
          const anonymous = await call('anonymous', 'GET', '/api/users/aggregate?metrics=count');
          expect(anonymous.statusCode).toBe(401);
        });

        it('in includes, to-many and to-one, nested', async () => {
          for (const who of ['other', 'editor'] as const) {
            const view = tenantView(tenantOfWho[who]);
            const postsOf = (userId: number) => view.posts.filter((p) => p.user_id === userId);
            const commentsOn = (postId: number) => view.comments.filter((c) => c.post_id === postId);
            const postOrNull = (postId: number) => view.posts.find((p) => p.id === postId)?.id ?? null;

            const users = await read(who, '/api/users?include=posts.comments,comments.post');
            expect(
              users.data.map(
                (u: {
                  id: number;
                  posts: { id: number; comments: Row[] }[];
                  comments: { id: number; post: Row | null }[];
                }) => ({
                  id: u.id,
                  posts: u.posts.map((p) => ({ id: p.id, comments: ids(p.comments) })),
                  comments: u.comments.map((c) => [c.id, c.post?.id ?? null]),
                }),
              ),
            ).toEqual(
              idsDesc(view.users).map((id) => ({
                id,
                posts: idsAsc(postsOf(id)).map((postId) => ({
                  id: postId,
                  comments: idsAsc(commentsOn(postId)),
                })),
                comments: idsAsc(view.comments.filter((c) => c.user_id === id)).map((commentId) => [
                  commentId,
                  postOrNull(view.comments.find((c) => c.id === commentId)?.post_id ?? 0),
                ]),
              })),
            );

            const posts = await read(who, '/api/posts?include=comments.author,author');
            expect(
              posts.data.map(
                (p: { id: number; author: Row | null; comments: { id: number; author: Row | null }[] }) => [
                  p.id,
                  p.author?.id ?? null,
                  p.comments.map((c) => [c.id, c.author?.id ?? null]),
                ],
              ),
            ).toEqual(
              idsDesc(view.posts).map((id) => [
                id,
                view.posts.find((p) => p.id === id)?.user_id,
                idsAsc(commentsOn(id)).map((commentId) => [
                  commentId,
                  view.comments.find((c) => c.id === commentId)?.user_id,
                ]),
              ]),
            );

            const comments = await read(who, '/api/comments?include=post.author,author');
            expect(
              comments.data.map(
                (c: { id: number; post: { id: number; author: Row | null } | null; author: Row | null }) => [
                  c.id,
                  c.post ? [c.post.id, c.post.author?.id ?? null] : null,
                  c.author?.id ?? null,
                ],
              ),
            ).toEqual(
              idsDesc(view.comments).map((id) => {
                const comment = view.comments.find((c) => c.id === id) as View['comments'][number];
                const post = view.posts.find((p) => p.id === comment.post_id);
                return [id, post ? [post.id, post.user_id] : null, comment.user_id];
              }),
            );

            const roles = await read(who, '/api/roles?include=users');
            expect(roles.data.map((r: { id: number; users: Row[] }) => [r.id, ids(r.users)])).toEqual(
              idsDesc(world.roles).map((id) => [
                id,
                idsAsc(view.users.filter((u) => roleIds(u.id).includes(id))),
              ]),
            );

            const profiles = await read(who, '/api/profiles?include=user');
            expect(
              profiles.data.map((p: { id: number; user: Row | null }) => [p.id, p.user?.id ?? null]),
            ).toEqual(
              idsDesc(view.profiles).map((id) => [id, view.profiles.find((p) => p.id === id)?.user_id]),
            );
          }
          // Tenant 2's comments hang on tenant 1's posts, and tenant 1 comments on tenant 2's posts.
          const mine = tenantView(2);
          expect(mine.comments.some((c) => !mine.posts.some((p) => p.id === c.post_id))).toBe(true);
          expect(
            unscopedView.comments.some(
              (c) => mine.posts.some((p) => p.id === c.post_id) && !mine.comments.includes(c),
            ),
          ).toBe(true);
        });

        it('in constrained includes: neither shown nor counted in <relation>_total', async () => {
          for (const who of ['other', 'editor'] as const) {
            const view = tenantView(tenantOfWho[who]);
            const commentsOn = (postId: number) => view.comments.filter((c) => c.post_id === postId);
            // Comments of both tenants hang on the same posts: the limit and the total see the reader's only.
            const posts = await read(
              who,
              '/api/posts?include=comments&include_limit[comments]=1&include_sort[comments]=-created_at&per_page=100',
            );
            expect(
              posts.data.map((p: { id: number; comments: Row[]; comments_total: number }) => [
                p.id,
                ids(p.comments),
                p.comments_total,
              ]),
            ).toEqual(
              idsDesc(view.posts).map((id) => {
                const mine = commentsOn(id);
                const newest = [...mine].sort((a, b) =>
                  a.created_at === b.created_at ? b.id - a.id : a.created_at < b.created_at ? 1 : -1,
                );
                return [id, newest.slice(0, 1).map((c) => c.id), mine.length];
              }),
            );
            // Global roles, scoped users: a role's total counts the reader's tenant alone.
            const roles = await read(
              who,
              '/api/roles?include=users&include_limit[users]=1&include_sort[users]=name',
            );
            expect(
              roles.data.map((r: { id: number; users: Row[]; users_total: number }) => [
                r.id,
                r.users.length,
                r.users_total,
              ]),
            ).toEqual(
              idsDesc(world.roles).map((id) => {
                const members = view.users.filter((u) => roleIds(u.id).includes(id));
                return [id, Math.min(1, members.length), members.length];
              }),
            );
            // Soft-deleted posts are neither among the first nor counted, nested limits included.
            const users = await read(
              who,
              '/api/users?include=posts.comments&include_limit[posts]=1&include_sort[posts]=-created_at&include_limit[posts.comments]=1&per_page=100',
            );
            expect(
              users.data.map(
                (u: { id: number; posts: { comments_total: number; id: number }[]; posts_total: number }) => [
                  u.id,
                  u.posts_total,
                  u.posts.map((p) => [p.id, p.comments_total]),
                ],
              ),
            ).toEqual(
              idsDesc(view.users).map((id) => {
                const mine = view.posts.filter((p) => p.user_id === id);
                const newest = [...mine].sort((a, b) =>
                  a.created_at === b.created_at ? b.id - a.id : a.created_at < b.created_at ? 1 : -1,
                );
                return [id, mine.length, newest.slice(0, 1).map((p) => [p.id, commentsOn(p.id).length])];
              }),
            );
          }
          // The case is not empty: some post carries comments of both tenants.
          expect(
            world.comments.some(
              (c) =>
                tenantView(2).comments.includes(c) &&
                world.comments.some((d) => d.post_id === c.post_id && !tenantView(2).comments.includes(d)),
            ),
          ).toBe(true);
        });

        it('through every pagination: length-aware, simple, cursor, all=true', async () => {
          for (const who of ['other', 'editor'] as const) {
            const view = tenantView(tenantOfWho[who]);
            const expected = idsDesc(view.users);
            const lastPage = Math.max(1, Math.ceil(expected.length / 2));

            const paged: number[] = [];
            for (let page = 1; page <= lastPage; page++) {
              const res = await read(who, `/api/users?per_page=2&page=${page}`);
              expect(res.total).toBe(expected.length);
              expect(res.last_page).toBe(lastPage);
              paged.push(...ids(res));
            }
            expect(paged).toEqual(expected);
            const past = await read(who, `/api/users?per_page=2&page=${lastPage + 1}`);
            expect(past).toMatchObject({ data: [], total: expected.length });

            const simple: number[] = [];
            for (let page = 1; ; page++) {
              const res = await read(who, `/api/users?pagination=simple&per_page=2&page=${page}`);
              simple.push(...ids(res));
              if (res.next_page_url === null) break;
              expect(page).toBeLessThan(10);
            }
            expect(simple).toEqual(expected);

            const cursor: number[] = [];
            let next: string | null = null;
            for (let i = 0; i < 10; i++) {
              const res = await read(
                who,
                `/api/users?pagination=cursor&per_page=2${next ? `&cursor=${encodeURIComponent(next)}` : ''}`,
              );
              cursor.push(...ids(res));
              next = res.next_cursor;
              if (next === null) break;
            }
            expect(cursor).toEqual(expected);

            expect(ids(await read(who, '/api/users?all=true'))).toEqual(expected);
            expect(ids(await read(who, '/api/comments?all=true'))).toEqual(idsDesc(view.comments));
            const streamed = await read(who, '/api/posts?all=true&include=comments&count=comments');
            expect(ids(streamed)).toEqual(idsDesc(view.posts));
          }
        });

        it('through exports: CSV and NDJSON, includes flattened or as JSON, carry only the tenant’s rows', async () => {
          for (const who of ['other', 'editor'] as const) {
            const tenant = tenantOfWho[who];
            const view = tenantView(tenant);
            // NDJSON: the records of the JSON list, streamed (posts allow 'unlimited').
            const posts = await call(
              who,
              'GET',
              '/api/posts?format=ndjson&include=author,comments.author&count=comments',
            );
            expect(posts.statusCode, posts.body).toBe(200);
            const records = posts.body
              .split('\n')
              .filter((line) => line !== '')
              .map((line) => JSON.parse(line));
            expect(ids(records)).toEqual(idsDesc(view.posts));
            expect(foreignRows(records, tenant)).toEqual([]);
            // CSV asked for by Accept, bounded (users allow 100): to-one flattened, to-many one JSON cell.
            const users = await svc.inject({
              method: 'GET',
              url: '/api/users?include=department,posts.comments&fields[users]=name,email,department_id',
              headers: { ...headersOf(who), accept: 'text/csv' },
            });
            expect(users.statusCode, users.body).toBe(200);
            const [header, ...rows] = parseCsv(users.body);
            const column = (name: string) => (header ?? []).indexOf(name);
            expect(column('department.budget')).toBeGreaterThan(0);
            expect(rows.map((row) => Number(row[0]))).toEqual(idsDesc(view.users));
            for (const row of rows) {
              expect(row[column('department_id')]).toBe(String(tenant));
              expect(row[column('department.id')]).toBe(String(tenant));
              const nested = JSON.parse(row[column('posts')] ?? 'null');
              expect(foreignRows(nested, tenant)).toEqual([]);
            }
            // Comments reach users through post.author: every flattened author is the tenant's.
            const comments = await call(who, 'GET', '/api/comments?format=csv&include=post.author,author');
            expect(comments.statusCode, comments.body).toBe(200);
            const [names, ...lines] = parseCsv(comments.body);
            const author = (names ?? []).indexOf('author.department_id');
            const postAuthor = (names ?? []).indexOf('post.author.department_id');
            expect(author).toBeGreaterThan(0);
            expect(postAuthor).toBeGreaterThan(0);
            expect(lines.map((row) => Number(row[0]))).toEqual(idsDesc(view.comments));
            for (const row of lines) {
              expect(row[author]).toBe(String(tenant));
              // A post of another tenant's author is not readable: the whole include is null, its cells empty.
              expect(['', String(tenant)]).toContain(row[postAuthor]);
            }
          }
        });

        it('cannot use a cursor of tenant 1 to reach its rows', async () => {
          const first = await read('editor', '/api/users?pagination=cursor&per_page=1');
          expect(first.next_cursor).not.toBeNull();
          const res = await read(
            'other',
            `/api/users?pagination=cursor&per_page=100&cursor=${encodeURIComponent(first.next_cursor)}`,
          );
          const after = first.data[0].id as number;
          expect(ids(res)).toEqual(idsDesc(tenantView(2).users).filter((id) => id < after));
        });

        it('PATCH of a tenant-1 record is 404, exactly as a missing one, and changes nothing', async () => {
          const missing = await call('other', 'PATCH', '/api/users/99999', { score: 1 });
          expect(missing.statusCode).toBe(404);
          const before = await snapshot(svc.conn);
          const cases: [string, unknown][] = [
            ['/api/users/1', { score: 1 }],
            ['/api/users/103', { name: 'Taken over' }],
            ['/api/users/7', { score: 1 }], // soft-deleted, tenant 1
            ['/api/users/1', { nope: 1 }], // an invalid body is not even looked at
            ['/api/users/1', { score: 'x' }],
            ['/api/posts/1', { title: 'Taken over' }],
            ['/api/posts/104', { title: 'Taken over' }],
          ];
          for (const [url, payload] of cases) {
            const res = await call('other', 'PATCH', url, payload);
            expect(res.statusCode, url).toBe(404);
            expect(res.json(), url).toEqual(
              url.startsWith('/api/posts')
                ? {
                    message: 'No posts record with this id.',
                    errors: { id: ['No posts record with this id.'] },
                  }
                : missing.json(),
            );
          }
          // And the other way round: tenant 1's editor cannot write tenant 2's rows.
          for (const url of ['/api/users/101', '/api/posts/101']) {
            const res = await call('editor', 'PATCH', url, { title: 'Taken over', score: 1 });
            expect(res.statusCode, url).toBe(404);
          }
          expect(await snapshot(svc.conn)).toBe(before);
          // Its own rows it may write.
          const own = await call('other', 'PATCH', '/api/posts/101', { title: 'Sales kickoff' });
          expect(own.statusCode, own.body).toBe(200);
          expect(own.json()).toMatchObject({ id: 101, title: 'Sales kickoff', user_id: 2 });
        });
      });

      describe('records of another tenant: read one, create, delete, restore', () => {
        const notFound = (resource: string) => ({
          message: `No ${resource} record with this id.`,
          errors: { id: [`No ${resource} record with this id.`] },
        });

        it('reads another tenant’s record as 404, exactly as a missing one, whatever the query', async () => {
          for (const query of ['', '?include=posts.comments', '?count=posts', '?filter[trashed]=true']) {
            const missing = await call('other', 'GET', `/api/users/99999${query}`);
            expect(missing.statusCode, query).toBe(404);
            expect(missing.json()).toEqual(notFound('users'));
            for (const id of [1, 103, 7]) {
              const res = await call('other', 'GET', `/api/users/${id}${query}`);
              expect(res.statusCode, `${id}${query}: ${res.body}`).toBe(404);
              expect(res.json()).toEqual(missing.json());
              expect(res.headers.etag).toBeUndefined();
            }
          }
          expect((await call('other', 'GET', '/api/posts/104')).json()).toEqual(notFound('posts'));
          // Its own records it reads, with includes that hold nothing of tenant 1.
          const own = await call('other', 'GET', '/api/users/101?include=posts.comments,roles&count=posts');
          expect(own.statusCode, own.body).toBe(200);
          expect(foreignRows(own.json(), 2)).toEqual([]);
          // Tenant 1's editor reads Ingrid, and a soft-deleted user of its own with filter[trashed].
          expect((await call('editor', 'GET', '/api/users/103')).statusCode).toBe(200);
          expect((await call('editor', 'GET', '/api/users/7?filter[trashed]=true')).statusCode).toBe(200);
          expect((await call('editor', 'GET', '/api/users/101')).statusCode).toBe(404);
          // Without identity: 401 before anything is looked up.
          expect((await call('anonymous', 'GET', '/api/users/103')).statusCode).toBe(401);
        });

        it('refuses a create that would land in another tenant, exactly as a reference to nothing', async () => {
          const before = await snapshot(svc.conn);
          const user = { name: 'Planted', email: 'planted@example.com', status: 'active' };
          const post = { title: 'Planted', body: 'x', status: 'draft' };
          const cases: [string, Record<string, unknown>, Record<string, unknown>, string][] = [
            ['/api/users', { ...user, department_id: 1 }, { ...user, department_id: 99999 }, 'department_id'],
            ['/api/posts', { ...post, user_id: 103 }, { ...post, user_id: 99999 }, 'user_id'],
          ];
          for (const [url, across, nowhere, field] of cases) {
            const res = await call('other', 'POST', url, across);
            const missing = await call('other', 'POST', url, nowhere);
            expect(res.statusCode, `${url} ${JSON.stringify(across)}: ${res.body}`).toBe(422);
            expect(Object.keys(missing.json().errors)).toEqual([field]);
            expect(res.json()).toEqual(missing.json());
            expect(res.headers.location).toBeUndefined();
          }
          // A viewer may not create at all, and an anonymous client is asked who it is.
          expect(
            (await call('viewer', 'POST', '/api/users', { name: 'No', department_id: 1 })).statusCode,
          ).toBe(403);
          expect((await call('anonymous', 'POST', '/api/users', { name: 'No' })).statusCode).toBe(401);
          expect(await snapshot(svc.conn)).toBe(before);
          // In its own tenant the create is answered, and only that tenant sees the row.
          const created = await call('other', 'POST', '/api/users', {
            name: 'Own hire',
            email: 'own.hire@example.com',
            status: 'active',
            department_id: 2,
          });
          expect(created.statusCode, created.body).toBe(201);
          const { id } = created.json();
          expect(created.headers.location).toBe(`/api/users/${id}`);
          expect((await call('other', 'GET', `/api/users/${id}`)).statusCode).toBe(200);
          expect((await call('editor', 'GET', `/api/users/${id}`)).statusCode).toBe(404);
          expect(await svc.conn.db.deleteFrom('users').where('id', '=', id).executeTakeFirst()).toBeDefined();
        });

        it('deletes and restores only within the tenant; another tenant’s ids answer 404 and change nothing', async () => {
          const before = await snapshot(svc.conn);
          for (const [method, url] of [
            ['DELETE', '/api/users/103'],
            ['DELETE', '/api/users/1'],
            ['DELETE', '/api/posts/104'],
            ['POST', '/api/users/7/restore'],
          ] as const) {
            const res = await call('other', method, url);
            expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(404);
            expect(res.json()).toEqual(notFound(url.startsWith('/api/posts') ? 'posts' : 'users'));
          }
          for (const [method, url] of [
            ['DELETE', '/api/users/101'],
            ['DELETE', '/api/posts/101'],
          ] as const)
            expect((await call('editor', method, url)).statusCode, url).toBe(404);
          expect((await call('viewer', 'DELETE', '/api/users/103')).statusCode).toBe(403);
          expect(await snapshot(svc.conn)).toBe(before);
          // Tenant 1's editor deletes Ingrid (soft) and restores her: tenant 2 never sees either step.
          const deleted = await call('editor', 'DELETE', '/api/users/103');
          expect(deleted.statusCode, deleted.body).toBe(204);
          expect((await call('other', 'POST', '/api/users/103/restore')).statusCode).toBe(404);
          const restored = await call('editor', 'POST', '/api/users/103/restore');
          expect(restored.statusCode, restored.body).toBe(200);
          expect(restored.json()).toMatchObject({ id: 103 });
          expect(ids(await read('other', '/api/users'))).toEqual(idsDesc(tenantView(2).users));
        });
      });

      describe('writes stay in the tenant', () => {
        it('refuses a PATCH that would move a record into another tenant, exactly as a reference to nothing', async () => {
          const before = await snapshot(svc.conn);
          const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
            // [url, a change into tenant 2, the same change to a row that does not exist]
            ['/api/users/103', { department_id: 2 }, { department_id: 99999 }],
            ['/api/users/103', { department_id: 3 }, { department_id: 99999 }],
            ['/api/posts/104', { user_id: 101 }, { user_id: 99999 }],
            ['/api/posts/104', { user_id: 5 }, { user_id: 99999 }],
          ];
          for (const [url, across, nowhere] of cases) {
            const res = await call('editor', 'PATCH', url, across);
            const missing = await call('editor', 'PATCH', url, nowhere);
            expect(res.statusCode, `${url} ${JSON.stringify(across)}: ${res.body}`).toBe(422);
            expect(missing.statusCode).toBe(422);
            expect(res.json()).toEqual(missing.json());
          }
          // With other fields: refused whole, nothing of it written, and still exactly as a reference
          // to nothing (no oracle of the other tenant's ids).
          const mixed = await call('editor', 'PATCH', '/api/users/103', {
            department_id: 2,
            score: 1,
            name: 'Moved',
          });
          expect(mixed.statusCode, mixed.body).toBe(422);
          const nowhere = await call('editor', 'PATCH', '/api/users/103', {
            department_id: 99999,
            score: 1,
            name: 'Moved',
          });
          expect(mixed.json()).toEqual(nowhere.json());
          expect(Object.keys(mixed.json().errors)).toEqual(['department_id']);
          expect(await snapshot(svc.conn)).toBe(before);
          expect(ids(await read('other', '/api/users'))).toEqual(idsDesc(tenantView(2).users));
          // Within the tenant the same inputs work.
          const stays = await call('editor', 'PATCH', '/api/posts/104', { user_id: 103 });
          expect(stays.statusCode, stays.body).toBe(200);
          const same = await call('editor', 'PATCH', '/api/users/103', { department_id: 1, score: 65 });
          expect(same.statusCode, same.body).toBe(200);
          expect(same.json()).toMatchObject({ id: 103, department_id: 1, score: 65 });
        });

        /** A write, the fields of its references that lead nowhere the context may read, and who sends it. */
        type Refused = [
          who: keyof typeof tokens,
          method: 'POST' | 'PATCH',
          url: string,
          body: Record<string, unknown>,
          fields: string[],
        ];
        /**
         * Each write is answered exactly as the same write with those references pointed at a row that
         * does not exist: 422, keyed by each field, and nothing written.
         */
        const answerAsNothing = async (cases: Refused[]) => {
          const before = await snapshot(svc.conn);
          for (const [who, method, url, body, fields] of cases) {
            const label = `${who} ${method} ${url} ${JSON.stringify(body)}`;
            const nowhere = { ...body, ...Object.fromEntries(fields.map((field) => [field, 99999])) };
            const res = await call(who, method, url, body);
            const missing = await call(who, method, url, nowhere);
            expect(res.statusCode, `${label}: ${res.body}`).toBe(422);
            expect(missing.statusCode, `${label} (nowhere): ${missing.body}`).toBe(422);
            expect(res.json().errors, label).toEqual(
              Object.fromEntries(fields.map((field) => [field, [`The selected ${field} does not exist.`]])),
            );
            expect(res.json(), label).toEqual(missing.json());
            expect(res.headers.location).toBeUndefined();
          }
          expect(await snapshot(svc.conn)).toBe(before);
        };
        const comment = { body: 'Planted', approved: true };

        it('refuses a reference into another tenant although the written row stays in reach, exactly as a reference to nothing', async () => {
          const before = await snapshot(svc.conn);
          // A comment is in reach through its author: its post is the reference under test.
          await answerAsNothing([
            ['other', 'POST', '/api/comments', { ...comment, user_id: 101, post_id: 104 }, ['post_id']],
            ['editor', 'POST', '/api/comments', { ...comment, user_id: 1, post_id: 101 }, ['post_id']],
            ['other', 'PATCH', '/api/comments/104', { post_id: 3 }, ['post_id']],
            ['editor', 'PATCH', '/api/comments/3', { post_id: 102, body: 'Moved' }, ['post_id']],
          ]);
          // Within the tenant the same writes are answered, and the post reads back through the include.
          const created = await call('other', 'POST', '/api/comments', {
            ...comment,
            user_id: 101,
            post_id: 101,
          });
          expect(created.statusCode, created.body).toBe(201);
          const { id } = created.json();
          const back = await read('other', `/api/comments/${id}?include=post.author,author`);
          expect(back).toMatchObject({ post_id: 101, post: { id: 101 }, author: { id: 101 } });
          await svc.conn.db.deleteFrom('comments').where('id', '=', id).execute();
          const moved = await call('editor', 'PATCH', '/api/comments/3', { post_id: 1 });
          expect(moved.statusCode, moved.body).toBe(200);
          expect((await call('editor', 'PATCH', '/api/comments/3', { post_id: 3 })).statusCode).toBe(200);
          expect(await snapshot(svc.conn)).toBe(before);
        });

        it('answers several references of one write alike on every engine, each keyed by its field', async () => {
          // The author leads out of reach (tenant 1's user on tenant 2's post): keyed by user_id, as an
          // author that does not exist, which SQLite's own foreign-key error cannot name.
          await answerAsNothing([
            ['other', 'POST', '/api/comments', { ...comment, post_id: 101, user_id: 1 }, ['user_id']],
            ['other', 'PATCH', '/api/comments/104', { post_id: 101, user_id: 3 }, ['user_id']],
            // Both references wrong: both named, whether out of reach or missing.
            [
              'other',
              'POST',
              '/api/comments',
              { ...comment, post_id: 104, user_id: 1 },
              ['post_id', 'user_id'],
            ],
            [
              'other',
              'POST',
              '/api/comments',
              { ...comment, post_id: 99999, user_id: 1 },
              ['post_id', 'user_id'],
            ],
          ]);
        });

        it('sets many-to-many links only to rows in reach, answers the others as nothing, and keeps another tenant’s links', async () => {
          const before = await snapshot(svc.conn);
          const live = (tenant: number) =>
            world.users.filter((u) => u.department_id === tenant && u.deleted_at === null).map((u) => u.id);
          const trashed = world.users.find((u) => u.department_id === 1 && u.deleted_at !== null)?.id;
          const [mine = 0] = live(1);
          const [theirs = 0] = live(2);
          const members = (tenant: number, role: number) =>
            live(tenant)
              .filter((id) => world.userRoles[id]?.includes(role))
              .sort((a, b) => a - b);
          // Another tenant's user, a soft-deleted one and none at all: one answer, nothing written.
          const bodies: string[] = [];
          for (const key of [theirs, trashed, 99999]) {
            const res = await call('editor', 'PATCH', '/api/roles-members/2', { users: [mine, key] });
            expect(res.statusCode, res.body).toBe(422);
            bodies.push(res.body);
          }
          expect(new Set(bodies).size).toBe(1);
          expect(JSON.parse(bodies[0] as string).errors).toEqual({
            users: ['The selected users does not exist.'],
          });
          expect(await snapshot(svc.conn)).toBe(before);
          // Within the tenant: tenant 1's members of role 2 replaced, tenant 2's kept and never shown.
          const first = await call('editor', 'GET', '/api/roles-members/2');
          const set = await call('editor', 'PATCH', '/api/roles-members/2', { users: [mine] });
          expect(set.statusCode, set.body).toBe(200);
          expect(set.json().users).toEqual([mine]);
          expect(set.headers.etag).not.toBe(first.headers.etag);
          const seen = await read('other', '/api/roles-members/2?include=users');
          expect(seen.users.map((u: { id: number }) => u.id).sort()).toEqual(members(2, 2));
          // The ETag read before the change is stale now: 412, nothing written.
          const stale = await svc.inject({
            method: 'PATCH',
            url: '/api/roles-members/2',
            headers: { ...headersOf('editor'), 'if-match': String(first.headers.etag) },
            payload: { users: [] },
          });
          expect(stale.statusCode).toBe(412);
          const back = await call('editor', 'PATCH', '/api/roles-members/2', { users: members(1, 2) });
          expect(back.statusCode, back.body).toBe(200);
          expect(await snapshot(svc.conn)).toBe(before);
        });

        it('refuses a new reference to a soft-deleted row as one to nothing, and keeps a stored one', async () => {
          const before = await snapshot(svc.conn);
          // Post 4 is tenant 1's and soft-deleted: a new comment or a move onto it is refused.
          await answerAsNothing([
            ['editor', 'POST', '/api/comments', { ...comment, user_id: 1, post_id: 4 }, ['post_id']],
            ['editor', 'PATCH', '/api/comments/3', { post_id: 4 }, ['post_id']],
          ]);
          // A post deleted after its comments were written: a comment on it is still edited, its post
          // sent back unchanged (as a client sending the whole record does).
          expect((await call('editor', 'DELETE', '/api/posts/1')).statusCode).toBe(204);
          const kept = await call('editor', 'PATCH', '/api/comments/2', { post_id: 1, body: 'Thanks again' });
          expect(kept.statusCode, kept.body).toBe(200);
          expect(kept.json()).toMatchObject({ id: 2, post_id: 1, body: 'Thanks again' });
          await answerAsNothing([['editor', 'PATCH', '/api/comments/3', { post_id: 1 }, ['post_id']]]);
          expect((await call('editor', 'PATCH', '/api/comments/2', { body: 'Thanks' })).statusCode).toBe(200);
          expect((await call('editor', 'POST', '/api/posts/1/restore')).statusCode).toBe(200);
          expect(await snapshot(svc.conn)).toBe(before);
        });
      });

      describe('the prepared-query and plan caches never serve another context', () => {
        const activeByName = (tenant: number) =>
          tenantView(tenant)
            .users.filter((u) => u.status === 'active')
            .sort((a, b) => (a.name < b.name ? -1 : 1))
            .map((u) => u.id);

        it('alternates tenants on one URL of a scoped list', async () => {
          const url = '/api/users?filter[status]=active&sort=name';
          expect(activeByName(1)).not.toEqual(activeByName(2));
          for (let round = 0; round < 4; round++)
            for (const who of ['editor', 'other', 'viewer'] as const)
              expect(ids(await read(who, url)), `${who}, round ${round}`).toEqual(
                activeByName(tenantOfWho[who]),
              );
          // And interleaved, in flight together.
          const whos = Array.from(
            { length: 12 },
            (_, i) => (i % 2 === 0 ? 'editor' : 'other') as 'editor' | 'other',
          );
          const answers = await Promise.all(whos.map((who) => read(who, url)));
          answers.forEach((answer, i) => {
            const who = whos[i] as 'editor' | 'other';
            expect(ids(answer), who).toEqual(activeByName(tenantOfWho[who]));
          });
        });

        it('keys cached plans on default filters that depend on the context', async () => {
          const byName = (rows: UserRow[]) =>
            [...rows].sort((a, b) => (a.name < b.name ? -1 : 1)).map((u) => u.id);
          const expected = {
            1: byName(tenantView(1).users.filter((u) => u.status === 'active')),
            2: byName(tenantView(2).users.filter((u) => u.status === 'inactive')),
          };
          expect(expected[1].length).toBeGreaterThan(0);
          expect(expected[2].length).toBeGreaterThan(0);
          for (let round = 0; round < 3; round++)
            for (const who of ['other', 'editor'] as const) {
              const res = await read(who, '/api/users-tenant-default?sort=name');
              expect(ids(res), `${who}, round ${round}`).toEqual(expected[tenantOfWho[who]]);
            }
          // The client's own status replaces the default, for each context alike.
          for (const who of ['other', 'editor'] as const) {
            const res = await read(who, '/api/users-tenant-default?sort=name&filter[status]=banned');
            expect(ids(res)).toEqual(
              byName(tenantView(tenantOfWho[who]).users.filter((u) => u.status === 'banned')),
            );
          }
        });

        it('binds context-dependent default values into SQL shapes compiled once (no scope reached)', async () => {
          const expected = { 1: [1], 2: [3] }; // posts.create, users.manage
          for (const url of ['/api/permissions-mine', '/api/permissions-mine?filter[id][gte]=1']) {
            for (let round = 0; round < 3; round++)
              for (const who of ['editor', 'other'] as const)
                expect(ids(await read(who, url)), `${who} ${url}`).toEqual(expected[tenantOfWho[who]]);
            const whos = ['other', 'editor', 'other', 'editor', 'viewer', 'other'] as const;
            const answers = await Promise.all(whos.map((who) => read(who, url)));
            answers.forEach((answer, i) => {
              const who = whos[i] as keyof typeof tokens;
              expect(ids(answer), who).toEqual(expected[tenantOfWho[who]]);
            });
          }
        });
      });
    });
  }
