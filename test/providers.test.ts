/**
 * The react-admin and refine data providers against the running service (the demo's endpoints over
 * the fixture), over real HTTP with Node's fetch, on each database. Expectations come from the fixture
 * arrays in plain JavaScript.
 */
import type { CrudFilter, LogicalFilter } from '@refinedev/core';
import { HttpError } from 'ra-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../examples/demo/endpoints.js';
import { ApiError, restoreRecord } from '../src/client/index.js';
import { filterFromReactAdmin, reactAdminDataProvider } from '../src/providers/react-admin.js';
import { filterFromRefine, RefineHttpError, refineDataProvider } from '../src/providers/refine.js';
import type { EndpointPolicy } from '../src/resource/policy.js';
import { dialects } from './support/databases.js';
import { comments, departments, posts, type UserRow, userRoles, users } from './support/fixture.js';
import { type RecordsContext, useRecordsService } from './support/records.js';

type Rec = Record<string, unknown>;
const live = users.filter((user) => user.deleted_at === null);
const ids = (rows: readonly { id?: unknown }[]) => rows.map((row) => Number(row.id));
const sortedIds = (rows: readonly { id?: unknown }[]) => ids(rows).sort((a, b) => a - b);
const byScoreDesc = (a: UserRow, b: UserRow) => b.score - a.score || b.id - a.id;
const has = (text: string, part: string) => text.toLowerCase().includes(part.toLowerCase());
/** Live users' count and exact balance sum (in cents, as the service adds a decimal) by status. */
function byStatus(rows: readonly UserRow[]) {
  const groups = new Map<string, { count: number; cents: number }>();
  for (const user of rows) {
    const group = groups.get(user.status) ?? { count: 0, cents: 0 };
    group.count += 1;
    group.cents += Math.round(user.balance * 100);
    groups.set(user.status, group);
  }
  return [...groups].map(([status, { count, cents }]) => ({
    group: { status },
    count,
    'sum:balance': (cents / 100).toFixed(2),
  }));
}
/** Live users by the UTC month of `created_at`, every month of 2024 (empty ones 0). */
const monthsOf2024 = (rows: readonly UserRow[]) =>
  Array.from({ length: 12 }, (_, month) => {
    const start = `2024-${String(month + 1).padStart(2, '0')}`;
    return {
      group: { 'created_at:month': `${start}-01T00:00:00+00:00` },
      count: rows.filter((user) => user.created_at.startsWith(start)).length,
    };
  });

/** Rejects with what `call` threw (a test fails when it resolves). */
async function failure<E>(call: Promise<unknown>, type: new (...args: never[]) => E): Promise<E> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(type);
  return error as E;
}

/** The requests a provider made: Node's own fetch, watched. */
function watchedFetch() {
  const sent: { method: string; url: string; body: unknown; headers: Record<string, string> }[] = [];
  const watched: typeof fetch = (input, init) => {
    sent.push({
      method: init?.method ?? 'GET',
      url: decodeURIComponent(String(input)),
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
      headers: (init?.headers ?? {}) as Record<string, string>,
    });
    return fetch(input, init);
  };
  return { sent, fetch: watched };
}

const newUser = (n: string) => ({
  name: `Provider ${n}`,
  email: `provider-${n}@example.net`,
  status: 'active',
  score: 10,
  balance: 1,
  is_admin: false,
  password: 'long enough secret',
});

for (const dialect of dialects) {
  describe(`data providers on ${dialect}`, () => {
    const demoEndpoints = endpoints as unknown as EndpointPolicy<RecordsContext | null>[];
    const usersEndpoint = demoEndpoints.find((endpoint) => endpoint.resource === 'users');
    const usersSchema = usersEndpoint?.schema as NonNullable<EndpointPolicy['schema']>;
    const usersWithRoles = {
      ...usersSchema,
      form: { inputs: [...(usersSchema.form?.inputs ?? []), { name: 'roles', type: 'references' as const }] },
    };
    const service = useRecordsService(dialect, 'providers', {
      endpoints: [
        ...demoEndpoints,
        // The same users with no total (a count strategy): the providers page without a count.
        {
          ...(usersEndpoint as EndpointPolicy<RecordsContext | null>),
          path: 'users-uncounted',
          total: 'none',
        },
        // The same users whose form sets their roles (a references input): an array of role ids.
        {
          ...(usersEndpoint as EndpointPolicy<RecordsContext | null>),
          path: 'users-with-roles',
          schema: usersWithRoles,
        },
      ],
    });
    let apiUrl = '';
    beforeAll(async () => {
      await service.app.listen({ port: 0, host: '127.0.0.1' });
      const address = service.app.server.address();
      if (!address || typeof address === 'string') throw new Error('no port');
      apiUrl = `http://127.0.0.1:${address.port}/api`;
    });
    const ra = (extra: Partial<Parameters<typeof reactAdminDataProvider>[0]> = {}) =>
      reactAdminDataProvider({ apiUrl, ...extra });
    const refine = (extra: Partial<Parameters<typeof refineDataProvider>[0]> = {}) =>
      refineDataProvider({ apiUrl, ...extra });

    describe('react-admin', () => {
      it('getList: field_op filters, plain and array values, sort and page, with the total', async () => {
        const expected = live.filter((u) => u.status !== 'banned' && u.score >= 42).sort(byScoreDesc);
        const { sent, fetch } = watchedFetch();
        const page = await ra({ fetch }).getList('users', {
          filter: { status: ['active', 'inactive'], score_gte: 42 },
          sort: { field: 'score', order: 'DESC' },
          pagination: { page: 2, perPage: 2 },
        });
        expect(sent[0]?.url).toBe(
          `${apiUrl}/users?filter[status][in][0]=active&filter[status][in][1]=inactive&filter[score][gte]=42&sort=-score&per_page=2&page=2`,
        );
        expect(page.total).toBe(expected.length);
        expect(ids(page.data)).toEqual(ids(expected.slice(2, 4)));
      });

      it('getList: q is search, nested objects are relation paths or operators, or-groups', async () => {
        const provider = ra();
        const searched = await provider.getList('users', {
          filter: { q: 'ann', name_not_contains: 'smith' },
          pagination: { page: 1, perPage: 50 },
          sort: { field: 'name', order: 'ASC' },
        });
        expect(sortedIds(searched.data)).toEqual(
          sortedIds(live.filter((u) => (has(u.name, 'ann') || has(u.email, 'ann')) && !has(u.name, 'smith'))),
        );
        const admins = await provider.getList('users', {
          filter: { roles: { name: 'admin' }, score: { gte: 1, lte: 90 } },
          pagination: { page: 1, perPage: 50 },
          sort: { field: 'name', order: 'ASC' },
        });
        expect(sortedIds(admins.data)).toEqual(
          sortedIds(live.filter((u) => userRoles[u.id]?.includes(1) && u.score >= 1 && u.score <= 90)),
        );
        const either = await provider.getList('users', {
          filter: { or: [{ status: 'banned' }, { score_gte: 95 }] },
          pagination: { page: 1, perPage: 50 },
          sort: { field: 'name', order: 'ASC' },
        });
        expect(sortedIds(either.data)).toEqual(
          sortedIds(live.filter((u) => u.status === 'banned' || u.score >= 95)),
        );
      });

      it('getList with simple pagination answers pageInfo instead of a total', async () => {
        const provider = ra({ simplePagination: ['users'] });
        const params = { filter: {}, sort: { field: 'score', order: 'DESC' as const } };
        const first = await provider.getList('users', { ...params, pagination: { page: 1, perPage: 5 } });
        expect(first.total).toBeUndefined();
        expect(first.pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: false });
        expect(ids(first.data)).toEqual(ids([...live].sort(byScoreDesc).slice(0, 5)));
        const last = await provider.getList('users', { ...params, pagination: { page: 2, perPage: 5 } });
        expect(last.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: true });
        expect(last.data).toHaveLength(live.length - 5);
      });

      it('passes meta.fields as sparse fieldsets, and keeps no ETag of a partial read for its writes', async () => {
        const { sent, fetch } = watchedFetch();
        const provider = ra({ fetch });
        const page = await provider.getList('users', {
          filter: {},
          sort: { field: 'name', order: 'ASC' },
          pagination: { page: 1, perPage: 3 },
          meta: { include: 'department', fields: { users: ['name'], department: 'name' } },
        });
        expect(sent[0]?.url).toContain('fields[users]=name&fields[department]=name');
        for (const row of page.data) expect(Object.keys(row).sort()).toEqual(['department', 'id', 'name']);
        const one = await provider.getOne('users', { id: 3, meta: { fields: { users: 'email' } } });
        expect(Object.keys(one.data).sort()).toEqual(['email', 'id']);
        // The partial read's ETag is not the record's: the update goes without If-Match, as for a
        // record never read (a whole read would have sent it).
        await provider.getOne('users', { id: 3 });
        await provider.getOne('users', { id: 3, meta: { fields: { users: 'email' } } });
        const before = sent.length;
        await provider.update('users', { id: 3, data: { name: 'joanne Brown' }, previousData: one.data });
        expect(sent[before]?.headers?.['if-match']).toMatch(/^"/);
      });

      it('sorts by a relation and by a relation count, as any field', async () => {
        const postsOf = (user: UserRow) =>
          posts.filter((post) => post.user_id === user.id && post.deleted_at === null).length;
        const byCount = await ra().getList('users', {
          filter: {},
          sort: { field: 'posts_count', order: 'DESC' },
          pagination: { page: 1, perPage: 100 },
        });
        expect(ids(byCount.data)).toEqual(
          ids([...live].sort((a, b) => postsOf(b) - postsOf(a) || b.id - a.id)),
        );
        const departmentOf = (user: UserRow) =>
          departments.find((d) => d.id === user.department_id)?.name ?? '';
        const byDepartment = await ra().getList('users', {
          filter: {},
          sort: { field: 'department.name', order: 'ASC' },
          pagination: { page: 1, perPage: 100 },
        });
        expect(ids(byDepartment.data)).toEqual(
          ids([...live].sort((a, b) => departmentOf(a).localeCompare(departmentOf(b)) || b.id - a.id)),
        );
      });

      it('passes meta.include_filter, include_sort and include_limit: each record its first related ones', async () => {
        const { sent, fetch } = watchedFetch();
        const page = await ra({ fetch }).getList('users', {
          filter: {},
          sort: { field: 'name', order: 'ASC' },
          pagination: { page: 1, perPage: 100 },
          meta: {
            include: 'posts',
            include_filter: { posts: { status: { in: ['published', 'draft'] } } },
            include_sort: { posts: '-created_at' },
            include_limit: { posts: 1 },
          },
        });
        expect(sent[0]?.url).toContain(
          'include_filter[posts][status][in][0]=published&include_filter[posts][status][in][1]=draft&include_sort[posts]=-created_at&include_limit[posts]=1',
        );
        const matching = (id: number) =>
          posts
            .filter(
              (post) =>
                post.user_id === id &&
                post.deleted_at === null &&
                (post.status === 'published' || post.status === 'draft'),
            )
            .sort((a, b) =>
              a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : b.id - a.id,
            );
        // By id: the engines order names by their own collations.
        const byId = [...page.data].sort((a, b) => Number(a.id) - Number(b.id));
        expect(byId.map((row) => [row.id, ids(row.posts as Rec[]), row.posts_total])).toEqual(
          [...live]
            .sort((a, b) => a.id - b.id)
            .map((user) => [user.id, ids(matching(user.id).slice(0, 1)), matching(user.id).length]),
        );
        expect(page.data.some((row) => (row.posts_total as number) > 1)).toBe(true);
        // refine's getOne takes the same meta.
        const one = await refine().getOne({
          resource: 'users',
          id: 1,
          meta: { include: 'posts', include_sort: { posts: 'created_at' }, include_limit: { posts: 1 } },
        });
        expect([ids(one.data.posts as Rec[]), one.data.posts_total]).toEqual([
          ids(
            posts
              .filter((post) => post.user_id === 1 && post.deleted_at === null)
              .sort((a, b) => (a.created_at < b.created_at ? -1 : 1))
              .slice(0, 1),
          ),
          posts.filter((post) => post.user_id === 1 && post.deleted_at === null).length,
        ]);
      });

      it('getOne, getMany (filter[id][in]) and getManyReference', async () => {
        const provider = ra();
        const one = await provider.getOne('users', { id: 3, meta: { include: 'department' } });
        expect(one.data).toMatchObject({ id: 3, name: 'joanne Brown', department: { id: 1 } });
        const missing = await failure(provider.getOne('users', { id: 7 }), HttpError);
        expect(missing.status).toBe(404);
        const many = await provider.getMany('users', { ids: [5, '2', 7, 999] });
        expect(ids(many.data)).toEqual([5, 2]);
        const replies = await provider.getManyReference('comments', {
          target: 'post_id',
          id: 1,
          filter: {},
          sort: { field: 'created_at', order: 'ASC' },
          pagination: { page: 1, perPage: 10 },
        });
        expect(ids(replies.data)).toEqual(ids(comments.filter((c) => c.post_id === 1)));
        expect(replies.total).toBe(2);
      });

      it('getAggregate: the filter object read as getList reads it, metrics by a group, sorted', async () => {
        const { sent, fetch } = watchedFetch();
        const answer = await ra({ fetch }).getAggregate('users', {
          metrics: ['count', 'sum:balance'],
          group_by: 'status',
          filter: { status: ['active', 'inactive'], score_gte: 42 },
          sort: '-count',
        });
        expect(sent[0]?.url).toBe(
          `${apiUrl}/users/aggregate?filter[status][in][0]=active&filter[status][in][1]=inactive&filter[score][gte]=42&metrics=count,sum:balance&group_by=status&sort=-count`,
        );
        const expected = byStatus(live.filter((u) => u.status !== 'banned' && u.score >= 42)).sort(
          (a, b) => b.count - a.count || a.group.status.localeCompare(b.group.status),
        );
        expect(answer.data).toEqual(expected);
        expect(answer.meta).toMatchObject({ metrics: ['count', 'sum:balance'], group_by: ['status'] });
        expect(answer.meta.truncated).toBe(false);
      });

      it('getAggregate: a monthly series in a range (empty months 0), q as search', async () => {
        const provider = ra();
        const series = await provider.getAggregate('users', {
          group_by: 'created_at:month',
          tz: 'UTC',
          from: '2024-01-01',
          to: '2025-01-01',
        });
        expect(series.data).toEqual(monthsOf2024(live));
        const searched = await provider.getAggregate('users', { filter: { q: 'ann' } });
        expect(searched.data).toEqual([
          { group: {}, count: live.filter((u) => has(u.name, 'ann') || has(u.email, 'ann')).length },
        ]);
      });

      it('getAggregate: a refused aggregate is an HttpError keyed by its parameter', async () => {
        const error = await failure(ra().getAggregate('users', { group_by: 'email' }), HttpError);
        expect(error.status).toBe(422);
        expect(error.message).toContain('email');
        expect(Object.keys((error.body as { errors: Rec }).errors)).toEqual(['group_by']);
        const missing = await failure(
          ra().getAggregate('users', { group_by: 'created_at:month', from: '2024-01-01' }),
          HttpError,
        );
        expect(Object.keys((missing.body as { errors: Rec }).errors)).toEqual(['to']);
        // meta's record-shaping keys have no meaning here: refused by name before any request.
        const { sent, fetch } = watchedFetch();
        const shaped = await failure(
          ra({ fetch }).getAggregate('users', { meta: { include: 'roles', fields: ['name'] } }),
          HttpError,
        );
        expect(shaped.status).toBe(422);
        expect(Object.keys((shaped.body as { errors: Rec }).errors)).toEqual(['include', 'fields']);
        expect(sent).toEqual([]);
      });

      it('a refused list is an HttpError with the service message', async () => {
        const error = await failure(
          ra().getList('users', {
            filter: { password_hash: 'x' },
            pagination: { page: 1, perPage: 5 },
            sort: { field: 'name', order: 'ASC' },
          }),
          HttpError,
        );
        expect(error.status).toBe(422);
        expect(error.message).toContain('password_hash');
      });

      it('create, update (only the changed fields), and field errors under the inputs', async () => {
        const { sent, fetch } = watchedFetch();
        const provider = ra({ fetch });
        const created = await provider.create('users', { data: newUser('ra') });
        expect(created.data).toMatchObject({ name: 'Provider ra', status: 'active', score: 10 });
        expect(created.data).not.toHaveProperty('password_hash');
        const id = created.data.id;
        const previousData = (await provider.getOne('users', { id })).data;
        const updated = await provider.update('users', {
          id,
          data: { ...previousData, name: 'Renamed', password: null },
          previousData,
        });
        const patch = sent.find((request) => request.method === 'PATCH');
        expect(patch?.body).toEqual({ name: 'Renamed' });
        // The ETag of the read came along: the write is conditional.
        expect(patch?.headers['if-match']).toMatch(/^"/);
        expect(updated.data).toMatchObject({ id, name: 'Renamed', email: 'provider-ra@example.net' });

        const refused = await failure(
          provider.update('users', {
            id,
            data: { ...updated.data, email: 'not an email' },
            previousData: updated.data,
          }),
          HttpError,
        );
        expect(refused.status).toBe(422);
        expect(Object.keys(refused.body.errors)).toEqual(['email']);
        expect(typeof refused.body.errors.email).toBe('string');
        const taken = await failure(
          provider.create('users', { data: { ...newUser('dup'), email: 'anna@example.com' } }),
          HttpError,
        );
        expect(taken.status).toBe(409);
        expect(taken.body.errors.email).toContain('taken');
      });

      it('create and update pass a ReferenceArrayInput’s array of ids through: the links as saved', async () => {
        const { sent, fetch } = watchedFetch();
        const provider = ra({ fetch });
        const created = await provider.create('users-with-roles', {
          data: { ...newUser('ra-roles'), roles: [2, 1] },
        });
        expect(created.data).toMatchObject({ name: 'Provider ra-roles', roles: [1, 2] });
        const id = created.data.id;
        const previousData = (await provider.getOne('users-with-roles', { id })).data;
        const updated = await provider.update('users-with-roles', {
          id,
          data: { ...previousData, roles: [2] },
          previousData,
        });
        expect(sent.find((request) => request.method === 'PATCH')?.body).toEqual({ roles: [2] });
        expect(updated.data.roles).toEqual([2]);
        const refused = await failure(
          provider.update('users-with-roles', { id, data: { roles: [2, 999] }, previousData: updated.data }),
          HttpError,
        );
        expect(refused.status).toBe(422);
        expect(Object.keys(refused.body.errors)).toEqual(['roles']);
      });

      it('a save over a change made since the read is a 412, not a lost update', async () => {
        const provider = ra();
        const { data: created } = await provider.create('users', { data: newUser('race') });
        const { data: read } = await provider.getOne('users', { id: created.id });
        const other = await service.inject({
          method: 'PATCH',
          url: `/api/users/${created.id}`,
          payload: { score: 77 },
        });
        expect(other.statusCode).toBe(200);
        const conflict = await failure(
          provider.update('users', { id: read.id, data: { ...read, name: 'Mine' }, previousData: read }),
          HttpError,
        );
        expect(conflict.status).toBe(412);
        // Not a field: react-admin notifies the message instead of marking an input.
        expect(conflict.body.errors).toEqual({});
        expect((await provider.getOne('users', { id: created.id })).data).toMatchObject({
          name: 'Provider race',
          score: 77,
        });
      });

      it('updateMany, delete and deleteMany', async () => {
        const provider = ra();
        const made = await Promise.all(
          ['m1', 'm2', 'm3'].map((n) => provider.create('users', { data: newUser(n) })),
        );
        const [a, b, c] = made.map((result) => result.data.id);
        expect(await provider.updateMany('users', { ids: [a, b], data: { status: 'inactive' } })).toEqual({
          data: [a, b],
        });
        const after = await provider.getMany('users', { ids: [a, b, c] });
        expect(after.data.map((user) => user.status)).toEqual(['inactive', 'inactive', 'active']);
        const deleted = await provider.delete('users', { id: c, previousData: after.data[2] });
        expect(deleted.data).toMatchObject({ id: c });
        expect(await provider.deleteMany('users', { ids: [a, b] })).toEqual({ data: [a, b] });
        expect((await provider.getMany('users', { ids: [a, b, c] })).data).toEqual([]);
      });

      it('restore: a deleted record back, read again; one not deleted or not there is the client’s 404', async () => {
        const provider = ra();
        const { data: created } = await provider.create('users', { data: newUser('restore') });
        await provider.delete('users', { id: created.id, previousData: created });
        expect((await failure(provider.getOne('users', { id: created.id }), HttpError)).status).toBe(404);
        const { sent, fetch } = watchedFetch();
        const watched = ra({ fetch });
        const restored = await watched.restore('users', { id: created.id });
        expect(sent.map((request) => `${request.method} ${request.url}`)).toEqual([
          `POST ${apiUrl}/users/${created.id}/restore`,
        ]);
        expect(restored.data).toMatchObject({ id: created.id, name: 'Provider restore', deleted_at: null });
        const { data: read } = await provider.getOne('users', { id: created.id });
        expect(read).toEqual(restored.data);
        // The restore's ETag is kept: the next update is sent with it, and holds.
        const { etag } = (await service.inject({ method: 'GET', url: `/api/users/${created.id}` })).headers;
        const updated = await watched.update('users', {
          id: created.id,
          data: { ...restored.data, score: 11 },
          previousData: restored.data,
        });
        expect(etag).toMatch(/^"/);
        expect(sent.at(-1)?.headers['if-match']).toBe(etag);
        expect(updated.data).toMatchObject({ id: created.id, score: 11 });
        // Not deleted, then not there: the error the client gives, as react-admin's.
        for (const id of [created.id, 999_999]) {
          const client = await failure(restoreRecord('/users', id, { baseUrl: apiUrl }), ApiError);
          const error = await failure(provider.restore('users', { id }), HttpError);
          expect(client.status, `restore ${id}`).toBe(404);
          expect(error.status).toBe(client.status);
          expect(error.message).toBe(client.envelope.message);
        }
      });

      it('exportList: every record of the filtered, sorted list, as the service writes CSV or NDJSON', async () => {
        const params = {
          filter: { status: ['active', 'inactive'], score_gte: 42 },
          sort: { field: 'score', order: 'DESC' as const },
        };
        const listed = await ra().getList('users', { ...params, pagination: { page: 1, perPage: 100 } });
        expect(listed.data.length).toBeGreaterThan(1);
        const { sent, fetch } = watchedFetch();
        const csv = await ra({ fetch }).exportList('users', params, 'csv');
        expect(sent[0]?.url).toBe(
          `${apiUrl}/users?filter[status][in][0]=active&filter[status][in][1]=inactive&filter[score][gte]=42&sort=-score&format=csv`,
        );
        expect(csv.headers.get('content-disposition')).toMatch(/^attachment; filename="users-/);
        const rows = (await csv.text()).split('\r\n').slice(1, -1);
        expect(rows.map((row) => Number(row.split(',')[0]))).toEqual(ids(listed.data));
        const lines = await ra().exportList(
          'users',
          { ...params, meta: { include: 'department' } },
          'ndjson',
        );
        const records = (await lines.text())
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as Rec);
        expect(ids(records)).toEqual(ids(listed.data));
        expect(records[0]).toHaveProperty('department');
        // An endpoint without allowAll exports nothing: react-admin's HttpError with the service's message.
        const refused = await failure(ra().exportList('posts', {}, 'csv'), HttpError);
        expect(refused.status).toBe(422);
        expect(refused.message).toMatch(/not enabled for this endpoint/);
      });

      it('a viewer is refused (403) and the message says why', async () => {
        const provider = ra({ headers: () => ({ 'x-test-role': 'viewer' }) });
        const error = await failure(provider.create('users', { data: newUser('viewer') }), HttpError);
        expect(error.status).toBe(403);
        expect(error.body.errors).toEqual({});
      });
    });

    describe('refine', () => {
      const logical = (
        field: string,
        operator: LogicalFilter['operator'],
        value: unknown,
      ): LogicalFilter => ({
        field,
        operator,
        value,
      });
      const cases: [LogicalFilter, (u: UserRow) => boolean][] = [
        [logical('status', 'eq', 'active'), (u) => u.status === 'active'],
        [logical('status', 'ne', 'active'), (u) => u.status !== 'active'],
        [logical('score', 'lt', 50), (u) => u.score < 50],
        [logical('score', 'gt', 80), (u) => u.score > 80],
        [logical('score', 'lte', 80), (u) => u.score <= 80],
        [logical('score', 'gte', 85), (u) => u.score >= 85],
        [logical('status', 'in', ['active', 'banned']), (u) => ['active', 'banned'].includes(u.status)],
        [logical('status', 'nin', ['active', 'banned']), (u) => !['active', 'banned'].includes(u.status)],
        [logical('name', 'contains', 'ann'), (u) => has(u.name, 'ann')],
        [logical('name', 'ncontains', 'ann'), (u) => !has(u.name, 'ann')],
        [logical('score', 'between', [40, 90]), (u) => u.score >= 40 && u.score <= 90],
        [logical('score', 'nbetween', [40, 90]), (u) => u.score < 40 || u.score > 90],
        [logical('birthday', 'null', true), (u) => u.birthday === null],
        [logical('birthday', 'nnull', true), (u) => u.birthday !== null],
        [logical('email', 'startswith', 'ANN'), (u) => u.email.startsWith('ann')],
        [logical('email', 'nstartswith', 'ann'), (u) => !u.email.startsWith('ann')],
        [logical('email', 'endswith', '.org'), (u) => u.email.endsWith('.org')],
        [logical('email', 'nendswith', '.org'), (u) => !u.email.endsWith('.org')],
      ];

      it('getList: each refine operator the service has, all records (pagination off)', async () => {
        const provider = refine();
        for (const [filter, predicate] of cases) {
          // The fixture's users only (the react-admin tests above made others).
          const page = await provider.getList({
            resource: 'users',
            filters: [filter, logical('id', 'lte', users.length)],
            pagination: { mode: 'off' },
          });
          expect(sortedIds(page.data), JSON.stringify(filter)).toEqual(sortedIds(live.filter(predicate)));
          expect(page.total).toBe(page.data.length);
        }
      });

      it('getList: nested or/and conditional filters, sorters, server pagination and search', async () => {
        const { sent, fetch } = watchedFetch();
        const provider = refine({ fetch });
        const filters: CrudFilter[] = [
          { field: 'q', operator: 'contains', value: 'example' },
          {
            operator: 'or',
            value: [
              { field: 'status', operator: 'eq', value: 'banned' },
              {
                operator: 'and',
                value: [
                  { field: 'score', operator: 'gte', value: 80 },
                  { field: 'is_admin', operator: 'eq', value: true },
                ],
              },
            ],
          },
        ];
        const expected = live
          .filter((u) => has(u.name, 'example') || has(u.email, 'example'))
          .filter((u) => u.status === 'banned' || (u.score >= 80 && u.is_admin))
          .sort((a, b) => b.name.localeCompare(a.name));
        const page = await provider.getList({
          resource: 'users',
          filters,
          sorters: [{ field: 'name', order: 'desc' }],
          pagination: { currentPage: 1, pageSize: 2 },
        });
        expect(sent[0]?.url).toContain('search=example');
        expect(sent[0]?.url).toContain('filter[or][1][and][0][score][gte]=80');
        expect(page.total).toBe(expected.length);
        expect(ids(page.data)).toEqual(ids(expected.slice(0, 2)));
      });

      it("takes refine's field list in meta.fields: names of the records, { include: [names] } for a relation's", async () => {
        const { sent, fetch } = watchedFetch();
        const page = await refine({ fetch }).getList({
          resource: 'users',
          sorters: [{ field: 'name', order: 'asc' }],
          pagination: { currentPage: 1, pageSize: 3 },
          meta: { include: 'department', fields: ['name', { department: ['name'] }] },
        });
        expect(sent[0]?.url).toContain('fields=name&fields[department]=name');
        for (const row of page.data) expect(Object.keys(row).sort()).toEqual(['department', 'id', 'name']);
      });

      it('getList without a total (the none strategy): one page more while a next page exists', async () => {
        const counted = refine();
        const uncounted = refine({ resources: { users: 'users-uncounted' } });
        const sorters = [{ field: 'name', order: 'asc' as const }];
        const page = (provider: typeof counted, currentPage: number) =>
          provider.getList({ resource: 'users', sorters, pagination: { currentPage, pageSize: 3 } });
        // The same list through the counted endpoint gives the truth to compare with.
        const truth = await page(counted, 1);
        expect(truth.total).toBeGreaterThan(6);
        const first = await page(uncounted, 1);
        expect(ids(first.data)).toEqual(ids(truth.data));
        // Not a count: the rows so far and one more, so refine offers page 2 and no further.
        expect(first.total).toBe(4);
        const lastPage = Math.ceil(truth.total / 3);
        const last = await page(uncounted, lastPage);
        expect(last.total).toBe(truth.total);
        const ra = reactAdminDataProvider({ apiUrl, resources: { users: 'users-uncounted' } });
        const raPage = await ra.getList('users', {
          sort: { field: 'name', order: 'ASC' },
          pagination: { page: 1, perPage: 3 },
          filter: {},
        });
        expect(raPage.total).toBeUndefined();
        expect(raPage.pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: false });
      });

      it('exportList: every record of the filtered, sorted list, as the service writes CSV', async () => {
        const params = {
          resource: 'users',
          filters: [{ field: 'score', operator: 'gte', value: 42 }] as CrudFilter[],
          sorters: [{ field: 'score', order: 'desc' as const }],
        };
        const listed = await refine().getList({ ...params, pagination: { mode: 'off' } });
        expect(listed.data.length).toBeGreaterThan(1);
        const csv = await refine().exportList(params, 'csv');
        const rows = (await csv.text()).split('\r\n').slice(1, -1);
        expect(rows.map((row) => Number(row.split(',')[0]))).toEqual(ids(listed.data));
        const refused = await failure(refine().exportList({ resource: 'posts' }, 'ndjson'), RefineHttpError);
        expect(refused.statusCode).toBe(422);
      });

      it('custom with meta.aggregate: filters and sorters as getList takes them, the answer as data', async () => {
        const { sent, fetch } = watchedFetch();
        const { data } = await refine({ fetch }).custom({
          url: 'users',
          method: 'get',
          filters: [logical('status', 'ne', 'banned'), { field: 'q', operator: 'contains', value: 'ann' }],
          sorters: [{ field: 'count', order: 'desc' }],
          meta: { aggregate: { metrics: ['count', 'sum:balance'], group_by: ['status'] } },
        });
        expect(sent[0]?.url).toBe(
          `${apiUrl}/users/aggregate?filter[status][neq]=banned&search=ann&metrics=count,sum:balance&group_by=status&sort=-count`,
        );
        const expected = byStatus(
          live.filter((u) => u.status !== 'banned' && (has(u.name, 'ann') || has(u.email, 'ann'))),
        ).sort((a, b) => b.count - a.count || a.group.status.localeCompare(b.group.status));
        expect(data).toEqual({
          data: expected,
          meta: expect.objectContaining({ group_by: ['status'], truncated: false }),
        });
        const series = await refine().custom({
          url: `${apiUrl}/users/aggregate`,
          method: 'get',
          meta: {
            aggregate: { group_by: 'created_at:month', tz: 'UTC', from: '2024-01-01', to: '2025-01-01' },
          },
        });
        expect((series.data as { data: unknown }).data).toEqual(monthsOf2024(live));
      });

      it('custom with meta.aggregate: a refused aggregate is a RefineHttpError keyed by its parameter', async () => {
        const error = await failure(
          refine().custom({ url: 'users', method: 'get', meta: { aggregate: { metrics: 'sum:score' } } }),
          RefineHttpError,
        );
        expect(error.statusCode).toBe(422);
        expect(Object.keys(error.errors)).toEqual(['metrics']);
        const posted = await failure(
          refine().custom({ url: 'users', method: 'post', meta: { aggregate: { metrics: 'count' } } }),
          RefineHttpError,
        );
        expect(Object.keys(posted.errors)).toEqual(['method']);
        const { sent, fetch } = watchedFetch();
        const shaped = await failure(
          refine({ fetch }).custom({
            url: 'users',
            method: 'get',
            meta: { aggregate: { metrics: 'count' }, count: ['posts'] },
          }),
          RefineHttpError,
        );
        expect(Object.keys(shaped.errors)).toEqual(['count']);
        expect(sent).toEqual([]);
      });

      it('refuses the operators it cannot express, before any request', async () => {
        const { sent, fetch } = watchedFetch();
        for (const operator of ['containss', 'eqs', 'ina'] as const) {
          const error = await failure(
            refine({ fetch }).getList({ resource: 'users', filters: [logical('name', operator, 'a')] }),
            RefineHttpError,
          );
          expect(error.statusCode).toBe(422);
          expect(error.errors['filter.name']?.[0]).toContain(operator);
        }
        expect(sent).toEqual([]);
        expect(
          filterFromRefine([logical('name', 'contains', ''), logical('score', 'eq', undefined)]),
        ).toEqual([]);
      });

      it('getOne, getMany, create, update, deleteOne, with field errors as refine reads them', async () => {
        const provider = refine();
        expect((await provider.getOne({ resource: 'users', id: 1 })).data).toMatchObject({
          name: 'Anna Smith',
        });
        expect(ids((await provider.getMany({ resource: 'users', ids: [6, 1] })).data)).toEqual([6, 1]);
        const created = await provider.create({ resource: 'users', variables: newUser('refine') });
        const id = created.data.id as number;
        const updated = await provider.update({ resource: 'users', id, variables: { score: 33 } });
        expect(updated.data).toMatchObject({ id, score: 33, name: 'Provider refine' });
        // A relation's set of keys (a references input) is passed through as the form holds it.
        const linked = await provider.create({
          resource: 'users-with-roles',
          variables: { ...newUser('refine-roles'), roles: [3, 1] },
        });
        expect(linked.data).toMatchObject({ roles: [1, 3] });
        const relinked = await provider.update({
          resource: 'users-with-roles',
          id: linked.data.id as number,
          variables: { roles: [] },
        });
        expect(relinked.data).toMatchObject({ roles: [] });
        const refused = await failure(
          provider.update({ resource: 'users', id, variables: { email: 'nope', status: 'unknown' } }),
          RefineHttpError,
        );
        expect(refused.statusCode).toBe(422);
        expect(Object.keys(refused.errors).sort()).toEqual(['email', 'status']);
        expect(Array.isArray(refused.errors.email)).toBe(true);
        await provider.deleteOne({ resource: 'users', id });
        expect((await failure(provider.getOne({ resource: 'users', id }), RefineHttpError)).statusCode).toBe(
          404,
        );

        // custom: the restore route, then a list with filters and sorters in the list grammar.
        const restored = await provider.custom({ url: `users/${id}/restore`, method: 'post' });
        expect(restored.data).toMatchObject({ id, name: 'Provider refine' });
        const listed = await provider.custom({
          url: `${apiUrl}/users`,
          method: 'get',
          filters: [logical('status', 'eq', 'banned')],
          sorters: [{ field: 'score', order: 'asc' }],
          query: { per_page: 50 },
        });
        const data = (listed.data as { data: Rec[] }).data;
        expect(ids(data)).toEqual(
          ids(live.filter((u) => u.status === 'banned').sort((a, b) => a.score - b.score)),
        );
        const bad = await failure(provider.custom({ url: 'users?nope=1', method: 'get' }), RefineHttpError);
        expect(bad.statusCode).toBe(422);
        expect(Object.keys(bad.errors)).toEqual(['nope']);
      });
    });
  });
}

describe('filter conventions (no database)', () => {
  it('maps react-admin keys to operators, longest suffix first', () => {
    expect(
      filterFromReactAdmin({
        name_not_contains: 'x',
        birthday_is_null: true,
        created_at_date_between: ['2024-01-01', '2024-01-31'],
        is_admin: false,
        q: 'search is not a filter',
        empty: '',
        settings: { theme: 'dark', level_gte: 5 },
      }),
    ).toEqual([
      { name: 'name', op: 'not_contains', value: 'x' },
      { name: 'birthday', op: 'is_null', value: true },
      { name: 'created_at', op: 'date_between', value: ['2024-01-01', '2024-01-31'] },
      { name: 'is_admin', value: false },
      { name: 'settings.theme', value: 'dark' },
      { name: 'settings.level', op: 'gte', value: 5 },
    ]);
  });
});
