import { describe, expect, it } from 'vitest';
import type { Action, EndpointPolicy } from '../src/resource/policy.js';
import type { InputDeclaration } from '../src/resource/schema-declaration.js';
import { dialects } from './support/databases.js';
import { comments, departments, posts, roles, type UserRow, userRoles, users } from './support/fixture.js';
import type { InjectResponse } from './support/hosts.js';
import { type RecordsContext, storedInstant, useRecordsService, userDefaults } from './support/records.js';
import { snapshot, type TestService } from './support/service.js';

type Rec = Record<string, unknown>;
type Ctx = RecordsContext | null;

/** An access rule that allows the roles named (the default context is the editor). */
const roleIn =
  (...names: string[]) =>
  (ctx: Ctx) =>
    ctx !== null && names.includes(ctx.role);
const editors = roleIn('editor');
const allActions: Action[] = ['list', 'read', 'create', 'update', 'delete', 'restore'];

const statusOptions = ['active', 'inactive', 'banned'].map((value) => ({ value, label: value }));
const userInputs: InputDeclaration[] = [
  { name: 'name', type: 'text', required: true },
  { name: 'email', type: 'email', required: true },
  { name: 'status', type: 'select', required: true, options: statusOptions },
  // Banned users keep no score, and only active and inactive ones a balance: hidden inputs.
  {
    name: 'score',
    type: 'number',
    required: true,
    visibleWhen: { field: 'status', operator: '!==', is: 'banned' },
  },
  {
    name: 'balance',
    type: 'number',
    visibleWhen: { field: 'status', operator: 'in', is: ['active', 'inactive'] },
  },
  { name: 'is_admin', type: 'switch' },
  { name: 'birthday', type: 'date' },
  { name: 'department_id', label: 'department', type: 'number' },
  { name: 'password', type: 'password', column: 'password_hash' },
];

/** Every action; writes for editors and authors, delete and restore for editors only. */
const usersEndpoint: EndpointPolicy<Ctx> = {
  resource: 'users',
  allowedFilters: ['status', 'trashed'],
  allowedIncludes: ['department', 'roles'],
  allowedCounts: ['posts'],
  allowedSorts: ['name'],
  actions: allActions,
  access: {
    create: roleIn('editor', 'author'),
    update: roleIn('editor', 'author'),
    delete: editors,
    restore: editors,
  },
  response: (user) => ({ ...user, label: `${String(user.name)} <${String(user.email)}>` }),
  schema: {
    title: 'Users',
    recordTitle: 'name',
    table: { columns: [{ key: 'id' }, { key: 'name' }, { key: 'email' }, { key: 'department_id' }] },
    form: { inputs: userInputs },
    detail: { fields: [{ key: 'id' }, { key: 'name' }, { key: 'email' }, { key: 'department_id' }] },
  },
};

const postsEndpoint: EndpointPolicy<Ctx> = {
  resource: 'posts',
  allowedFilters: ['status', 'trashed'],
  allowedIncludes: ['author'],
  allowedCounts: ['comments'],
  actions: allActions,
  access: { create: editors, update: editors, delete: editors, restore: editors },
  schema: {
    title: 'Posts',
    recordTitle: 'title',
    table: { columns: [{ key: 'id' }, { key: 'title' }, { key: 'user_id' }] },
    form: {
      inputs: [
        { name: 'title', type: 'text', required: true },
        // Optional in the form, NOT NULL without a default in the table: the database refuses its absence.
        { name: 'body', type: 'textarea' },
        {
          name: 'status',
          type: 'select',
          required: true,
          options: ['draft', 'published', 'archived'].map((value) => ({ value, label: value })),
        },
        { name: 'score', type: 'number' },
        { name: 'user_id', label: 'author', type: 'number', required: true },
      ],
    },
  },
};

/** No soft deletes: DELETE removes the row; no restore. */
const commentsEndpoint: EndpointPolicy<Ctx> = {
  resource: 'comments',
  allowedFilters: ['*'],
  allowedIncludes: ['post'],
  actions: ['list', 'read', 'create', 'update', 'delete'],
  access: { create: editors, update: editors, delete: editors },
  schema: {
    table: { columns: [{ key: 'id' }, { key: 'body' }, { key: 'post_id' }, { key: 'user_id' }] },
    form: {
      inputs: [
        { name: 'body', type: 'textarea', required: true },
        { name: 'approved', type: 'switch' },
      ],
    },
  },
};

/** A schema without a form: delete only (the `assets` table's foreign key refuses department 3's). */
const departmentsEndpoint: EndpointPolicy<Ctx> = {
  resource: 'departments',
  allowedFilters: ['*'],
  actions: ['list', 'read', 'delete'],
  access: { delete: editors },
  schema: { title: 'Departments', recordTitle: 'name', table: { columns: [{ key: 'id' }, { key: 'name' }] } },
};

/** The defaults: list, read and (with a form) update, no access rule, so update is closed. */
const defaultsEndpoint: EndpointPolicy<Ctx> = {
  resource: 'users',
  path: 'users-defaults',
  allowedFilters: ['status'],
  schema: {
    recordTitle: 'name',
    table: { columns: [{ key: 'id' }, { key: 'name' }] },
    form: { inputs: [{ name: 'name', type: 'text' }] },
  },
};

const strictEndpoint: EndpointPolicy<Ctx> = {
  resource: 'users',
  path: 'users-strict',
  allowedFilters: ['status'],
  actions: ['list', 'read', 'update', 'delete'],
  access: { update: editors, delete: editors },
  requireIfMatch: true,
  schema: {
    recordTitle: 'name',
    table: { columns: [{ key: 'id' }, { key: 'name' }] },
    form: { inputs: [{ name: 'name', type: 'text' }] },
  },
};

/** Records are created and addressed at the form's endpoint, which is not the list's path. */
const tagsEndpoint: EndpointPolicy<Ctx> = {
  resource: 'tags',
  allowedFilters: ['*'],
  actions: ['list', 'read', 'create', 'update', 'delete'],
  access: { create: editors, update: editors, delete: editors },
  schema: {
    recordTitle: 'label',
    table: { columns: [{ key: 'id' }, { key: 'label' }] },
    form: { endpoint: '/api/tag-records', inputs: [{ name: 'label', type: 'text' }] },
  },
};

/** Create without list, at the list's own path: GET there is 405, and POST is what Allow names. */
const inboxEndpoint: EndpointPolicy<Ctx> = {
  resource: 'comments',
  path: 'inbox',
  actions: ['read', 'create'],
  access: { create: editors },
  schema: {
    table: { columns: [{ key: 'id' }] },
    form: { inputs: [{ name: 'body', type: 'textarea', required: true }] },
  },
};

/** Only active users exist here: the others are outside the endpoint's reach (404, never written). */
const activeEndpoint: EndpointPolicy<Ctx> = {
  resource: 'users',
  path: 'users-active',
  allowedFilters: ['trashed'],
  baseQuery: ({ eb, column }) => eb(column('status'), '=', 'active'),
  actions: ['list', 'read', 'update', 'delete', 'restore'],
  access: { update: editors, delete: editors, restore: editors },
  schema: {
    table: { columns: [{ key: 'id' }, { key: 'name' }] },
    form: {
      inputs: [
        { name: 'name', type: 'text' },
        { name: 'status', type: 'text' },
      ],
    },
  },
};

const endpoints = [
  usersEndpoint,
  postsEndpoint,
  commentsEndpoint,
  departmentsEndpoint,
  defaultsEndpoint,
  strictEndpoint,
  tagsEndpoint,
  inboxEndpoint,
  activeEndpoint,
];

/** A user of the fixture as the users endpoint answers it (its transformer adds `label`). */
function expectedUser(user: UserRow): Rec {
  const { created_at } = user;
  return { ...user, updated_at: created_at, label: `${user.name} <${user.email}>` };
}
function fixtureUser(id: number): UserRow {
  const user = users.find((candidate) => candidate.id === id);
  if (!user) throw new Error(`no user ${id} in the fixture`);
  return user;
}
/** A post of the fixture as the posts endpoint answers it (with the version column, 1 until updated). */
function expectedPost(id: number): Rec {
  const post = posts.find((candidate) => candidate.id === id);
  if (!post) throw new Error(`no post ${id} in the fixture`);
  return { ...post, body: `Body of ${post.title}`, version: 1 };
}
const liveUsers = users.filter((user) => user.deleted_at === null);

const etagOf = (res: InjectResponse): string => String(res.headers.etag ?? '');
/** A content ETag: the base64url SHA-1 of the record, quoted. */
const contentEtag = /^"[A-Za-z0-9_-]{27}"$/;
const allowOf = (res: InjectResponse): string[] =>
  String(res.headers.allow ?? '')
    .split(',')
    .map((method) => method.trim())
    .filter(Boolean)
    .sort();

function expectEnvelope(res: InjectResponse, status: number, keys?: string[]) {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json();
  expect(typeof body.message).toBe('string');
  expect(body.message.length).toBeGreaterThan(0);
  expect(typeof body.errors).toBe('object');
  for (const messages of Object.values(body.errors as Record<string, unknown>)) {
    expect(Array.isArray(messages)).toBe(true);
    for (const message of messages as unknown[]) expect(typeof message).toBe('string');
  }
  if (keys) expect(Object.keys(body.errors).sort()).toEqual([...keys].sort());
  return body;
}

/** Within five minutes of now: a value the database or the service set on this request. */
function expectRecent(ms: number) {
  expect(Number.isNaN(ms)).toBe(false);
  expect(Math.abs(ms - Date.now())).toBeLessThan(5 * 60_000);
}

function helpers(svc: TestService) {
  const send = (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    svc.inject({
      method,
      url,
      headers: payload === undefined ? headers : { 'content-type': 'application/json', ...headers },
      ...(payload !== undefined && { payload: JSON.stringify(payload) }),
    });
  const row = async (table: string, id: number) =>
    (await svc.conn.db.selectFrom(table).selectAll().where('id', '=', id).executeTakeFirst()) as
      | Rec
      | undefined;
  const countRows = async (table: string) => {
    const { n } = (await svc.conn.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow()) as { n: unknown };
    return Number(n);
  };
  const listIds = async (url: string) => {
    const res = await svc.get(url);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return (res.body.data as Rec[]).map((record) => record.id as number);
  };
  return { send, row, countRows, listIds };
}

for (const dialect of dialects) {
  describe(`reading one record, on ${dialect}`, () => {
    const svc = useRecordsService(dialect, 'read', { endpoints });
    const { send } = helpers(svc);

    it('answers the record the list has, through the transformer, with the fixture’s values', async () => {
      const list = await svc.get('/api/users?per_page=100');
      expect(list.status).toBe(200);
      expect(list.body.data).toHaveLength(liveUsers.length);
      for (const user of liveUsers) {
        const res = await send('GET', `/api/users/${user.id}`);
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json()).toEqual(expectedUser(user));
        expect(res.json()).toEqual(list.body.data.find((record: Rec) => record.id === user.id));
        expect(res.body).not.toContain('password_hash');
      }
      const post = await send('GET', '/api/posts/1');
      expect(post.statusCode).toBe(200);
      expect(post.json()).toEqual(expectedPost(1));
      expect(etagOf(post)).toBe('"v1"');
    });

    it('loads includes and counts under the endpoint’s whitelists, and refuses others with 422', async () => {
      for (const id of [1, 3, 4]) {
        const res = await svc.get(`/api/users/${id}?include=department,roles&count=posts`);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        const user = fixtureUser(id);
        const department = departments.find((d) => d.id === user.department_id) ?? null;
        expect(res.body.department).toEqual(department);
        expect((res.body.roles as Rec[]).map((role) => role.name).sort(), `roles of user ${id}`).toEqual(
          roles
            .filter((role) => userRoles[id]?.includes(role.id))
            .map((role) => role.name)
            .sort(),
        );
        expect(res.body.posts_count).toBe(posts.filter((p) => p.user_id === id && !p.deleted_at).length);
        expect(res.body.label).toBe(`${user.name} <${user.email}>`);
        // The same record as the list answers it with the same includes and counts.
        const list = await svc.get('/api/users?include=department,roles&count=posts&per_page=100');
        expect(res.body).toEqual(list.body.data.find((record: Rec) => record.id === id));
      }
      const post = await svc.get('/api/posts/3?include=author&count=comments');
      expect(post.status).toBe(200);
      expect(post.body.author.name).toBe(fixtureUser(3).name);
      expect(post.body.comments_count).toBe(comments.filter((c) => c.post_id === 3).length);

      expectEnvelope(await send('GET', '/api/users/1?include=profile'), 422, ['include']);
      expectEnvelope(await send('GET', '/api/users/1?count=roles'), 422, ['count']);
      expectEnvelope(await send('GET', '/api/posts/1?include=comments'), 422, ['include']);
    });

    it('answers 404 with the envelope for an unknown, soft-deleted or malformed id', async () => {
      const deleted = users.find((user) => user.deleted_at !== null)?.id as number;
      for (const id of [99999, deleted, 'abc', '1.5', '0x1']) {
        const res = await send('GET', `/api/users/${id}`);
        const body = expectEnvelope(res, 404, ['id']);
        expect(JSON.stringify(body)).not.toContain('Eve');
      }
      const deletedPost = posts.find((post) => post.deleted_at !== null)?.id as number;
      expectEnvelope(await send('GET', `/api/posts/${deletedPost}`), 404, ['id']);
    });

    it('finds a soft-deleted record with filter[trashed]=true where the endpoint allows trashed', async () => {
      const eve = users.find((user) => user.deleted_at !== null) as UserRow;
      const res = await svc.get(`/api/users/${eve.id}?filter[trashed]=true`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual(expectedUser(eve));
      expect((await svc.get('/api/users/1?filter[trashed]=true')).body).toEqual(expectedUser(fixtureUser(1)));
      expect((await svc.get(`/api/users/${eve.id}?filter[trashed]=false`)).status).toBe(404);
      const post = await svc.get('/api/posts/4?filter[trashed]=1');
      expect(post.status).toBe(200);
      expect(post.body).toEqual(expectedPost(4));
      // An endpoint whose allowedFilters has no `trashed`.
      expectEnvelope(await send('GET', `/api/users-defaults/${eve.id}?filter[trashed]=true`), 422);
      expectEnvelope(await send('GET', '/api/users-defaults/1?filter[trashed]=true'), 422);
    });

    it('refuses every other query parameter with 422 naming it', async () => {
      for (const query of [
        'page=1',
        'per_page=5',
        'sort=name',
        'filter[status]=active',
        'pagination=cursor',
        'all=true',
        'foo=1',
        'include=department&include=department&bar=2',
      ]) {
        const res = await send('GET', `/api/users/1?${query}`);
        const body = expectEnvelope(res, 422);
        const names = query.split('&').map((pair) => pair.split(/[[=]/)[0] as string);
        const unexpected = names.filter((name) => name !== 'include');
        for (const name of unexpected)
          expect(
            Object.keys(body.errors).some((key) => key === name || key.startsWith(`${name}.`)),
            `${query} → ${JSON.stringify(body.errors)}`,
          ).toBe(true);
        // Each refusal says what a read-one request may carry instead.
        for (const messages of Object.values(body.errors) as string[][])
          for (const message of messages)
            expect(message).toContain('include, count, fields and filter[trashed]');
      }
      // The same refused query is refused again (a refused plan is never cached), a valid one answers.
      expectEnvelope(await send('GET', '/api/users/1?sort=name'), 422, ['sort']);
      expect((await send('GET', '/api/users/1?include=department')).statusCode).toBe(200);
      expect((await send('GET', '/api/users/1?include=department')).statusCode).toBe(200);
    });

    it('sends an ETag that is stable across reads and changes with the record', async () => {
      const first = await send('GET', '/api/users/4');
      const second = await send('GET', '/api/users/4');
      expect(etagOf(first)).toMatch(contentEtag);
      expect(etagOf(second)).toBe(etagOf(first));
      const head = await send('HEAD', '/api/users/4');
      expect(head.statusCode).toBe(200);
      expect(head.body).toBe('');
      expect(etagOf(head)).toBe(etagOf(first));
      // Another record, another ETag.
      expect(etagOf(await send('GET', '/api/users/5'))).not.toBe(etagOf(first));

      const patched = await send('PATCH', '/api/users/4', { score: 42 });
      expect(patched.statusCode, patched.body).toBe(200);
      expect(patched.json().score).toBe(42);
      expect(etagOf(patched)).toMatch(contentEtag);
      expect(etagOf(patched)).not.toBe(etagOf(first));
      expect(etagOf(await send('GET', '/api/users/4'))).toBe(etagOf(patched));
      // The content is the ETag: the same values again, the same ETag again.
      const back = await send('PATCH', '/api/users/4', { score: fixtureUser(4).score });
      expect(etagOf(back)).toBe(etagOf(first));

      // A version column: "v<version>", incremented by each update.
      expect(etagOf(await send('GET', '/api/posts/2'))).toBe('"v1"');
      const post = await send('PATCH', '/api/posts/2', { score: 4 });
      expect(post.statusCode, post.body).toBe(200);
      expect(post.json().version).toBe(2);
      expect(etagOf(post)).toBe('"v2"');
      expect(etagOf(await send('GET', '/api/posts/2'))).toBe('"v2"');
    });
  });

  describe(`creating records, on ${dialect}`, () => {
    const svc = useRecordsService(dialect, 'create', { endpoints });
    const { send, row, countRows } = helpers(svc);
    const valid = { name: 'Grace Hopper', email: 'grace@example.com', status: 'active', score: 12 };

    it('answers 201 with the record, a Location that reads it back, and an ETag', async () => {
      const sent = {
        ...valid,
        balance: 3.5,
        is_admin: true,
        birthday: '1906-12-09',
        department_id: 2,
        password: 'correct horse battery',
      };
      const res = await send('POST', '/api/users', sent);
      expect(res.statusCode, res.body).toBe(201);
      const record = res.json();
      const { password: _, ...columns } = sent;
      expect(record).toMatchObject({ ...columns, label: 'Grace Hopper <grace@example.com>' });
      expect(Number.isInteger(record.id)).toBe(true);
      expect(users.some((user) => user.id === record.id)).toBe(false);
      expect(res.body).not.toMatch(/password|scrypt/);
      expect(res.headers.location).toBe(`/api/users/${record.id}`);
      expect(etagOf(res)).toMatch(contentEtag);

      const again = await send('GET', String(res.headers.location));
      expect(again.statusCode).toBe(200);
      expect(again.json()).toEqual(record);
      expect(etagOf(again)).toBe(etagOf(res));
      // The row: the password hashed into its column, the timestamps from the database's defaults.
      const stored = (await row('users', record.id)) as Rec;
      expect(String(stored.password_hash)).toMatch(/^scrypt\$/);
      expectRecent(Date.parse(record.created_at));
      expectRecent(Date.parse(record.updated_at));
      expect(record.deleted_at).toBeNull();
      expect(record.settings).toBeNull();
      expect((await svc.get('/api/users?per_page=100')).body.data.map((u: Rec) => u.id)).toContain(record.id);
    });

    it('applies database defaults to omitted columns; a nullable one stays null', async () => {
      const res = await send('POST', '/api/posts', {
        title: 'A new post',
        body: 'Its text',
        status: 'draft',
        score: 5,
        user_id: 2,
      });
      expect(res.statusCode, res.body).toBe(201);
      const record = res.json();
      expect(record).toMatchObject({
        title: 'A new post',
        body: 'Its text',
        status: 'draft',
        score: 5,
        user_id: 2,
        meta: null,
        published_at: null,
        deleted_at: null,
        version: 1,
      });
      expectRecent(Date.parse(record.created_at));
      expect(res.headers.location).toBe(`/api/posts/${record.id}`);
      expect(etagOf(res)).toBe('"v1"');
      const again = await send('GET', `/api/posts/${record.id}`);
      expect(again.json()).toEqual(record);
      expect(etagOf(again)).toBe('"v1"');

      // Users: the form leaves out the balance, the switch and the password; their defaults apply.
      const user = await send('POST', '/api/users', { ...valid, email: 'defaults@example.com' });
      expect(user.statusCode, user.body).toBe(201);
      expect(user.json()).toMatchObject({
        balance: userDefaults.balance,
        is_admin: userDefaults.is_admin,
        birthday: null,
        department_id: null,
      });
      expect((await row('users', user.json().id))?.password_hash).toBe(userDefaults.password_hash);
    });

    it('enforces required inputs, every problem at once keyed by field, and stores nothing', async () => {
      const before = await snapshot(svc.conn);
      const empty = expectEnvelope(await send('POST', '/api/users', {}), 422, [
        'name',
        'email',
        'status',
        'score',
      ]);
      expect(empty.errors.name[0]).toContain('required');
      expect(empty.message).toContain('(and 3 more errors)');
      const blanks = expectEnvelope(
        await send('POST', '/api/users', { name: '', email: null, status: 'active', score: 1 }),
        422,
        ['name', 'email'],
      );
      expect(blanks.errors.email[0]).toContain('required');
      // Validation as PATCH has it, all at once.
      expectEnvelope(
        await send('POST', '/api/users', {
          name: 'X',
          email: 'not-an-email',
          status: 'deleted',
          score: '12',
          is_admin: 'yes',
          birthday: '2024-02-30',
          password: 'short',
        }),
        422,
        ['email', 'status', 'score', 'is_admin', 'birthday', 'password'],
      );
      expect(await snapshot(svc.conn)).toBe(before);
    });

    it('neither requires nor stores inputs hidden by visibleWhen', async () => {
      // Banned: score and balance are hidden; score is not required, and neither value is written.
      const res = await send('POST', '/api/users', {
        name: 'Banned At Birth',
        email: 'banned.new@example.com',
        status: 'banned',
        score: 99,
        balance: 7,
      });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({
        status: 'banned',
        score: userDefaults.score,
        balance: userDefaults.balance,
      });
      const stored = (await row('users', res.json().id)) as Rec;
      expect(Number(stored.score)).toBe(userDefaults.score);
      expect(Number(stored.balance)).toBe(userDefaults.balance);
      const omitted = await send('POST', '/api/users', {
        name: 'No Score',
        email: 'no.score@example.com',
        status: 'banned',
      });
      expect(omitted.statusCode, omitted.body).toBe(201);
    });

    it('refuses fields the form does not have with 422 on each, and stores nothing', async () => {
      const before = await snapshot(svc.conn);
      expectEnvelope(
        await send('POST', '/api/users', {
          ...valid,
          email: 'unknown.fields@example.com',
          id: 50,
          password_hash: 'x',
          nickname: 'n',
          deleted_at: '2024-01-01T00:00:00Z',
        }),
        422,
        ['id', 'password_hash', 'nickname', 'deleted_at'],
      );
      expectEnvelope(await send('POST', '/api/users', [valid]), 422, ['body']);
      expect(await snapshot(svc.conn)).toBe(before);
    });

    it('answers a taken unique value with 409 keyed by the field, other refusals with 422', async () => {
      const before = await snapshot(svc.conn);
      const userCount = await countRows('users');
      const taken = await send('POST', '/api/users', { ...valid, email: fixtureUser(1).email });
      expect(taken.statusCode, taken.body).toBe(409);
      expect(taken.json()).toEqual({
        message: 'This email is already taken.',
        errors: { email: ['This email is already taken.'] },
      });
      const nowhere = await send('POST', '/api/users', {
        ...valid,
        email: 'nowhere@example.com',
        department_id: 999,
      });
      expect(nowhere.statusCode, nowhere.body).toBe(422);
      expect(nowhere.json().errors).toEqual({ department_id: ['The selected department does not exist.'] });
      // posts.body is NOT NULL without a default, and its input is optional.
      const noBody = await send('POST', '/api/posts', { title: 'No body', status: 'draft', user_id: 1 });
      expect(noBody.statusCode, noBody.body).toBe(422);
      expect(Object.keys(noBody.json().errors)).toEqual(['body']);
      expect(await countRows('users')).toBe(userCount);
      expect(await snapshot(svc.conn)).toBe(before);
    });

    it('takes a null reference where the column is nullable, and refuses one to a soft-deleted row as one to nothing', async () => {
      const before = await snapshot(svc.conn);
      const post = { title: 'By a deleted author', body: 'x', status: 'draft' };
      const deleted = users.find((user) => user.deleted_at !== null) as UserRow;
      const toDeleted = await send('POST', '/api/posts', { ...post, user_id: deleted.id });
      const toNothing = await send('POST', '/api/posts', { ...post, user_id: 99999 });
      expectEnvelope(toDeleted, 422, ['user_id']);
      expect(toDeleted.json().errors).toEqual({ user_id: ['The selected author does not exist.'] });
      expect(toDeleted.json()).toEqual(toNothing.json());
      const moved = await send('PATCH', '/api/posts/1', { user_id: deleted.id });
      expect(moved.json()).toEqual(toNothing.json());
      expect(await snapshot(svc.conn)).toBe(before);
      // Null is no reference: taken where the column is nullable, as before.
      const created = await send('POST', '/api/users', {
        ...valid,
        email: 'no.department@example.com',
        department_id: null,
      });
      expect(created.statusCode, created.body).toBe(201);
      expect(created.json()).toMatchObject({ department_id: null });
      const assigned = await send('PATCH', `/api/users/${created.json().id}`, { department_id: 1 });
      expect(assigned.json()).toMatchObject({ department_id: 1 });
      const again = await send('PATCH', `/api/users/${created.json().id}`, { department_id: null });
      expect(again.statusCode, again.body).toBe(200);
      expect(again.json()).toMatchObject({ department_id: null });
    });

    it('creates at the form’s endpoint when it is not the list’s path, and reads at both', async () => {
      const res = await send('POST', '/api/tag-records', { label: 'first' });
      expect(res.statusCode, res.body).toBe(201);
      const record = res.json();
      expect(record).toMatchObject({ label: 'first' });
      expect(res.headers.location).toBe(`/api/tag-records/${record.id}`);
      for (const url of [`/api/tag-records/${record.id}`, `/api/tags/${record.id}`]) {
        const read = await send('GET', url);
        expect(read.statusCode, url).toBe(200);
        expect(read.json()).toEqual(record);
      }
      expect(allowOf(await send('POST', '/api/tags', { label: 'x' }))).toEqual(['GET', 'HEAD', 'QUERY']);
      const schema = await svc.get('/api/v1/tags/schema');
      expect(schema.body.form.endpoint).toBe('/api/tag-records');
    });

    it('creates a record from an empty body when every input is optional (INSERT of defaults only)', async () => {
      const res = await send('POST', '/api/tag-records', {});
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({ label: null });
      expectRecent(Date.parse(res.json().created_at));
    });

    it('gives a created record a version, so that its next update changes the ETag', async () => {
      // tags.version is a nullable integer without a default.
      const res = await send('POST', '/api/tag-records', { label: 'versioned' });
      expect(res.statusCode, res.body).toBe(201);
      const etag = etagOf(res);
      expect(etag).toMatch(/^"v\d+"$/);
      const url = `/api/tag-records/${res.json().id}`;
      const first = await send('PATCH', url, { label: 'one' }, { 'if-match': etag });
      expect(first.statusCode, first.body).toBe(200);
      expect(etagOf(first)).not.toBe(etag);
      const lost = await send('PATCH', url, { label: 'two' }, { 'if-match': etag });
      expect(lost.statusCode, lost.body).toBe(412);
      expect((await send('GET', url)).json().label).toBe('one');
    });
  });

  describe(`deleting and restoring, on ${dialect}`, () => {
    const svc = useRecordsService(dialect, 'delete', { endpoints });
    const { send, row, countRows, listIds } = helpers(svc);

    it('soft-deletes, then restores, a record of a resource with soft deletes', async () => {
      const carl = fixtureUser(5);
      const deleted = await send('DELETE', `/api/users/${carl.id}`);
      expect(deleted.statusCode, deleted.body).toBe(204);
      expect(deleted.body).toBe('');
      // The row stays, its deleted_at set to now in the column's storage form.
      const stored = (await row('users', carl.id)) as Rec;
      expect(stored.name).toBe(carl.name);
      const form = {
        sqlite: /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{6})?$/,
        mysql: /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{1,6})?$/,
        postgres: /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{1,6})?\+00$/,
      }[dialect];
      expect(String(stored.deleted_at)).toMatch(form);
      expectRecent(storedInstant(stored.deleted_at));

      expect(await listIds('/api/users?per_page=100')).not.toContain(carl.id);
      expectEnvelope(await send('GET', `/api/users/${carl.id}`), 404, ['id']);
      const trashed = await svc.get(`/api/users/${carl.id}?filter[trashed]=true`);
      expect(trashed.status).toBe(200);
      expect(trashed.body.deleted_at).toBe(new Date(storedInstant(stored.deleted_at)).toISOString());
      expect(await listIds('/api/users?per_page=100&filter[trashed]=true')).toContain(carl.id);
      // Deleted already: not found, by DELETE and PATCH alike.
      expectEnvelope(await send('DELETE', `/api/users/${carl.id}`), 404, ['id']);
      expectEnvelope(await send('PATCH', `/api/users/${carl.id}`, { score: 1 }), 404, ['id']);

      const restored = await send('POST', `/api/users/${carl.id}/restore`);
      expect(restored.statusCode, restored.body).toBe(200);
      expect(restored.json()).toEqual(expectedUser(carl));
      expect(etagOf(restored)).toMatch(contentEtag);
      const read = await send('GET', `/api/users/${carl.id}`);
      expect(read.json()).toEqual(expectedUser(carl));
      expect(etagOf(read)).toBe(etagOf(restored));
      expect(await listIds('/api/users?per_page=100')).toContain(carl.id);
      expect((await row('users', carl.id))?.deleted_at).toBeNull();

      // Restoring what is not soft-deleted, or does not exist: 404.
      expectEnvelope(await send('POST', `/api/users/${carl.id}/restore`), 404);
      expectEnvelope(await send('POST', '/api/users/99999/restore'), 404);
      expectEnvelope(await send('POST', '/api/users/abc/restore'), 404);
      // A record the fixture soft-deleted.
      const eve = users.find((user) => user.deleted_at !== null) as UserRow;
      const back = await send('POST', `/api/users/${eve.id}/restore`);
      expect(back.statusCode, back.body).toBe(200);
      expect(back.json()).toEqual(expectedUser({ ...eve, deleted_at: null }));
    });

    it('soft-deletes a post without touching its comments', async () => {
      const before = await countRows('comments');
      expect((await send('DELETE', '/api/posts/1')).statusCode).toBe(204);
      expect(await countRows('comments')).toBe(before);
      expect((await row('posts', 1))?.deleted_at).not.toBeNull();
      expect(await listIds('/api/posts?per_page=100')).not.toContain(1);
      const restored = await send('POST', '/api/posts/1/restore');
      expect(restored.statusCode, restored.body).toBe(200);
      expect(restored.json().deleted_at).toBeNull();
    });

    it('finds no record outside the endpoint’s baseQuery, to read, update, delete or restore', async () => {
      const before = await snapshot(svc.conn);
      const outside = users.filter((user) => user.status !== 'active');
      expect(outside.length).toBeGreaterThan(0);
      for (const user of outside) {
        expectEnvelope(await send('GET', `/api/users-active/${user.id}`), 404, ['id']);
        expectEnvelope(await send('PATCH', `/api/users-active/${user.id}`, { name: 'x' }), 404, ['id']);
        expectEnvelope(await send('DELETE', `/api/users-active/${user.id}`), 404, ['id']);
        expectEnvelope(await send('POST', `/api/users-active/${user.id}/restore`), 404);
        expect((await svc.get(`/api/users-active/${user.id}?filter[trashed]=true`)).status).toBe(404);
      }
      expect(await snapshot(svc.conn)).toBe(before);
      const inside = liveUsers.find((user) => user.status === 'active') as UserRow;
      expect((await send('GET', `/api/users-active/${inside.id}`)).statusCode).toBe(200);
      // A PATCH that would take the record outside the baseQuery is undone, with a 422 on the field.
      const away = await send('PATCH', `/api/users-active/${inside.id}`, { status: 'banned' });
      expectEnvelope(away, 422, ['status']);
      expect(away.json().message).toBe('The change would take this users record out of your reach.');
      const both = await send('PATCH', `/api/users-active/${inside.id}`, { name: 'Gone', status: 'banned' });
      expectEnvelope(both, 422, ['body']);
      expect(await snapshot(svc.conn)).toBe(before);
    });

    it('deletes the row of a resource without soft deletes', async () => {
      const before = await countRows('comments');
      const res = await send('DELETE', '/api/comments/5');
      expect(res.statusCode, res.body).toBe(204);
      expect(res.body).toBe('');
      expect(await row('comments', 5)).toBeUndefined();
      expect(await countRows('comments')).toBe(before - 1);
      expectEnvelope(await send('GET', '/api/comments/5'), 404, ['id']);
      expectEnvelope(await send('DELETE', '/api/comments/5'), 404, ['id']);
      expect((await send('GET', '/api/comments/4')).statusCode).toBe(200);
    });

    it('answers a delete a foreign key refuses with 409, and deletes nothing', async () => {
      const before = await snapshot(svc.conn);
      const refused = await send('DELETE', '/api/departments/3');
      expectEnvelope(refused, 409);
      expect(Object.keys(refused.json().errors).length).toBeGreaterThan(0);
      expect(await snapshot(svc.conn)).toBe(before);
      expect(await row('departments', 3)).toBeDefined();
      expect(await countRows('assets')).toBe(1);
      expect((await svc.get('/api/departments/3')).body).toEqual(departments[2]);
      // A department no restricting key references: deleted; the users' optional link is cut.
      const sales = await send('DELETE', '/api/departments/2');
      expect(sales.statusCode, sales.body).toBe(204);
      for (const user of users.filter((u) => u.department_id === 2 && !u.deleted_at))
        expect((await svc.get(`/api/users/${user.id}`)).body.department_id).toBeNull();
    });
  });

  describe(`actions, access and the schema document, on ${dialect}`, () => {
    const svc = useRecordsService(dialect, 'actions', { endpoints });
    const { send } = helpers(svc);
    const as = (role: string) => ({ 'x-test-role': role });

    it('answers a method whose action is not enabled with 405, the envelope and Allow', async () => {
      const before = await snapshot(svc.conn);
      const del = await send('DELETE', '/api/users-defaults/1');
      expectEnvelope(del, 405);
      // The contract's example reads `GET, HEAD, PATCH`; the order of Allow carries no meaning (RFC 9110).
      expect(allowOf(del)).toEqual(['GET', 'HEAD', 'PATCH']);
      const create = await send('POST', '/api/users-defaults', { name: 'x' });
      expectEnvelope(create, 405);
      expect(allowOf(create)).toEqual(['GET', 'HEAD', 'QUERY']);
      const patch = await send('PATCH', '/api/departments/1', { name: 'x' });
      expectEnvelope(patch, 405);
      expect(allowOf(patch)).toEqual(['DELETE', 'GET', 'HEAD']);
      const post = await send('POST', '/api/departments', { name: 'x' });
      expectEnvelope(post, 405);
      expect(allowOf(post)).toEqual(['GET', 'HEAD', 'QUERY']);
      // A path whose list is not enabled but whose create is: Allow names what is served there.
      const inbox = await send('GET', '/api/inbox');
      expectEnvelope(inbox, 405);
      expect.soft(allowOf(inbox), 'GET /api/inbox').toEqual(['POST']);
      const put = await send('DELETE', '/api/inbox');
      expectEnvelope(put, 405);
      expect.soft(allowOf(put), 'DELETE /api/inbox').toEqual(['POST']);
      expect((await send('GET', '/api/inbox/1')).statusCode).toBe(200);
      expect(allowOf(await send('PATCH', '/api/inbox/1', { body: 'x' }))).toEqual(['GET', 'HEAD']);
      // Restore where it is not enabled.
      expectEnvelope(await send('POST', '/api/users-defaults/7/restore'), 405);
      // Not enabled beats not allowed: the viewer gets 405 too, not 403.
      expect((await send('DELETE', '/api/users-defaults/1', undefined, as('viewer'))).statusCode).toBe(405);
      expect(await snapshot(svc.conn)).toBe(before);
    });

    it('answers a denied write with 403 to an identity and 401 to none, and changes nothing', async () => {
      const before = await snapshot(svc.conn);
      const writes: [string, string, unknown][] = [
        ['POST', '/api/users', { name: 'N', email: 'n@example.com', status: 'active', score: 1 }],
        ['PATCH', '/api/users/1', { name: 'Changed' }],
        ['DELETE', '/api/users/1', undefined],
        ['POST', '/api/users/7/restore', undefined],
        ['DELETE', '/api/comments/1', undefined],
      ];
      for (const [method, url, payload] of writes) {
        const denied = await send(method, url, payload, as('viewer'));
        expect(denied.json().errors, `${method} ${url}`).toHaveProperty('access');
        expectEnvelope(denied, 403, ['access']);
        const anonymous = await send(method, url, payload, as('anonymous'));
        expectEnvelope(anonymous, 401, ['authorization']);
        expect(anonymous.headers['www-authenticate']).toBe('Bearer');
      }
      // The author may create and update users, but not delete or restore them.
      expectEnvelope(await send('DELETE', '/api/users/1', undefined, as('author')), 403, ['access']);
      expectEnvelope(await send('POST', '/api/users/7/restore', undefined, as('author')), 403, ['access']);
      // Update is enabled by the form on the defaults endpoint, but no rule opens it.
      expectEnvelope(await send('PATCH', '/api/users-defaults/1', { name: 'x' }), 403, ['access']);
      expect(await snapshot(svc.conn)).toBe(before);
      // Reading is open without a rule.
      expect((await send('GET', '/api/users/1', undefined, as('anonymous'))).statusCode).toBe(200);
      expect((await send('GET', '/api/users-defaults/1', undefined, as('anonymous'))).statusCode).toBe(200);
    });

    it('lists in table.actions the actions enabled and allowed to the context', async () => {
      const actions = async (path: string, headers?: Record<string, string>) => {
        const res = await svc.get(`/api/v1/${path}/schema`, headers);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(Object.keys(res.body).sort()).toEqual(['detail', 'form', 'table']);
        return [...(res.body.table.actions as string[])].sort();
      };
      expect(await actions('users')).toEqual([...allActions].sort());
      expect(await actions('users', as('author'))).toEqual(['create', 'list', 'read', 'update']);
      expect(await actions('users', as('viewer'))).toEqual(['list', 'read']);
      expect(await actions('users', as('anonymous'))).toEqual(['list', 'read']);
      expect(await actions('posts')).toEqual([...allActions].sort());
      expect(await actions('comments')).toEqual(['create', 'delete', 'list', 'read', 'update']);
      expect(await actions('departments')).toEqual(['delete', 'list', 'read']);
      expect(await actions('users-defaults')).toEqual(['list', 'read']);
      expect(await actions('users-strict')).toEqual(['delete', 'list', 'read', 'update']);
      expect((await svc.get('/api/v1/users/schema', as('viewer'))).body.form.readOnly).toBe(true);
      expect((await svc.get('/api/v1/users/schema', as('author'))).body.form.readOnly).toBe(false);
      expect((await svc.get('/api/v1/users-defaults/schema')).body.form.readOnly).toBe(true);
    });

    it('gives detail.title, detail.titleColumns, detail.relations and detail.collections', async () => {
      const detail = async (path: string) => {
        const res = await svc.get(`/api/v1/${path}/schema`);
        expect(res.status).toBe(200);
        const relations = [...(res.body.detail.relations as Rec[])].sort((a, b) =>
          String(a.key).localeCompare(String(b.key)),
        );
        const { title, titleColumns, collections } = res.body.detail;
        return { title, titleColumns, relations, collections: collections as Rec[] };
      };
      expect(await detail('users')).toEqual({
        title: 'name',
        titleColumns: ['name'],
        relations: [
          {
            key: 'department_id',
            name: 'department',
            resource: 'departments',
            title: 'name',
            titleColumns: ['name'],
            schema: '/api/v1/departments/schema',
            included: true,
          },
        ],
        // Posts are counted but not included: no collection. Roles are included, not counted, not limited.
        collections: [
          {
            name: 'roles',
            label: 'Roles',
            resource: 'roles',
            schema: null,
            titleColumns: [],
            counted: false,
            limit: null,
          },
        ],
      });
      expect(await detail('posts')).toEqual({
        title: 'title',
        titleColumns: ['title'],
        relations: [
          {
            key: 'user_id',
            name: 'author',
            resource: 'users',
            title: 'name',
            titleColumns: ['name'],
            schema: '/api/v1/users/schema',
            included: true,
          },
        ],
        collections: [],
      });
      expect(await detail('comments')).toEqual({
        title: null,
        titleColumns: [],
        relations: [
          {
            key: 'post_id',
            name: 'post',
            resource: 'posts',
            title: 'title',
            titleColumns: ['title'],
            schema: '/api/v1/posts/schema',
            included: true,
          },
          {
            key: 'user_id',
            name: 'author',
            resource: 'users',
            title: 'name',
            titleColumns: ['name'],
            schema: '/api/v1/users/schema',
            included: false,
          },
        ],
        collections: [],
      });
      expect(await detail('departments')).toEqual({
        title: 'name',
        titleColumns: ['name'],
        relations: [],
        collections: [],
      });
      // The relations' paths are documents that exist, and `included` is what include= accepts.
      for (const path of ['users', 'posts', 'comments']) {
        const { relations } = await detail(path);
        for (const relation of relations) {
          expect((await svc.get(String(relation.schema))).status).toBe(200);
          const include = await svc.get(`/api/${path}/1?include=${relation.name}`);
          expect(include.status, `${path} include=${relation.name}`).toBe(relation.included ? 200 : 422);
        }
      }
    });
  });

  describe(`no lost updates, on ${dialect}`, () => {
    const svc = useRecordsService(dialect, 'if_match', { endpoints });
    const { send, row } = helpers(svc);
    const ifMatch = (etag: string) => ({ 'if-match': etag });
    // The contract's sentence; the service may add advice after it ("…: read it again, then retry.").
    const changed = /^The record has changed since you read it\b/;

    it('refuses a PATCH or DELETE with a stale If-Match with 412, writing nothing', async () => {
      const read = await send('GET', '/api/users/2');
      const first = etagOf(read);
      const ok = await send('PATCH', '/api/users/2', { name: 'Annabel J.' }, ifMatch(first));
      expect(ok.statusCode, ok.body).toBe(200);
      expect(ok.json().name).toBe('Annabel J.');
      const second = etagOf(ok);
      expect(second).toMatch(contentEtag);
      expect(second).not.toBe(first);

      const before = await snapshot(svc.conn);
      // A weak tag never matches, even of the current version (If-Match compares strongly).
      for (const stale of [first, '"nonsense"', 'W/"nonsense"', `W/${second}`]) {
        const res = await send('PATCH', '/api/users/2', { name: 'Lost update' }, ifMatch(stale));
        expect(res.statusCode, `${stale}: ${res.body}`).toBe(412);
        const body = res.json();
        expect(body.message).toMatch(changed);
        expect(Object.keys(body.errors)).toEqual(['record']);
        expect(body.errors.record.length).toBeGreaterThan(0);
      }
      const stale = await send('DELETE', '/api/users/2', undefined, ifMatch(first));
      expect(stale.statusCode, stale.body).toBe(412);
      expect(stale.json().message).toMatch(changed);
      expect(await snapshot(svc.conn)).toBe(before);

      // The current ETag, one of a list, or `*`: written.
      const current = await send('PATCH', '/api/users/2', { score: 43 }, ifMatch(second));
      expect(current.statusCode, current.body).toBe(200);
      const listed = await send('PATCH', '/api/users/2', { score: 44 }, ifMatch(`"x", ${etagOf(current)}`));
      expect(listed.statusCode, listed.body).toBe(200);
      const any = await send('PATCH', '/api/users/2', { score: 45 }, ifMatch('*'));
      expect(any.statusCode, any.body).toBe(200);
      expect(Number((await row('users', 2))?.score)).toBe(45);
      // A version column: "v1" is stale once the post is updated.
      const post = await send('PATCH', '/api/posts/3', { score: 51 }, ifMatch('"v1"'));
      expect(post.statusCode, post.body).toBe(200);
      expect(etagOf(post)).toBe('"v2"');
      expect((await send('PATCH', '/api/posts/3', { score: 52 }, ifMatch('"v1"'))).statusCode).toBe(412);
      expect((await send('DELETE', '/api/posts/3', undefined, ifMatch('"v1"'))).statusCode).toBe(412);
      expect((await send('DELETE', '/api/posts/3', undefined, ifMatch('"v2"'))).statusCode).toBe(204);
      expect((await row('posts', 3))?.deleted_at).not.toBeNull();
    });

    it('answers 428 to a PATCH or DELETE without If-Match where the endpoint requires it', async () => {
      const before = await snapshot(svc.conn);
      expectEnvelope(await send('PATCH', '/api/users-strict/6', { name: 'Blind' }), 428);
      expectEnvelope(await send('DELETE', '/api/users-strict/6'), 428);
      expect(await snapshot(svc.conn)).toBe(before);
      const etag = etagOf(await send('GET', '/api/users-strict/6'));
      const ok = await send('PATCH', '/api/users-strict/6', { name: 'Seen' }, ifMatch(etag));
      expect(ok.statusCode, ok.body).toBe(200);
      expect((await send('PATCH', '/api/users-strict/6', { name: 'Any' }, ifMatch('*'))).statusCode).toBe(
        200,
      );
      const stale = await send('DELETE', '/api/users-strict/6', undefined, ifMatch(etag));
      expect(stale.statusCode).toBe(412);
      const current = etagOf(await send('GET', '/api/users-strict/6'));
      expect((await send('DELETE', '/api/users-strict/6', undefined, ifMatch(current))).statusCode).toBe(204);
      expect((await send('GET', '/api/users-strict/6')).statusCode).toBe(404);
      // The other endpoints of the resource do not require it.
      expect((await send('PATCH', '/api/users/1', { score: 86 })).statusCode).toBe(200);
    });

    it('lets exactly one of 50 concurrent PATCHes with the same If-Match win', async () => {
      for (const [url, table, id, field] of [
        ['/api/users/3', 'users', 3, 'name'],
        ['/api/posts/5', 'posts', 5, 'title'],
      ] as const) {
        const etag = etagOf(await send('GET', url));
        const answers = await Promise.all(
          Array.from({ length: 50 }, (_, i) => send('PATCH', url, { [field]: `Racer ${i}` }, ifMatch(etag))),
        );
        const statuses = answers.map((answer) => answer.statusCode);
        const winners = answers.filter((answer) => answer.statusCode === 200);
        expect(winners, `${url}: ${JSON.stringify(statuses)}`).toHaveLength(1);
        expect(statuses.filter((status) => status === 412)).toHaveLength(49);
        const winner = winners[0] as InjectResponse;
        const value = winner.json()[field];
        expect(value).toMatch(/^Racer \d+$/);
        expect((await row(table, id))?.[field]).toBe(value);
        const read = await send('GET', url);
        expect(read.json()[field]).toBe(value);
        expect(etagOf(read)).toBe(etagOf(winner));
      }
      expect(Number((await row('posts', 5))?.version)).toBe(2);
    });
  });
}
