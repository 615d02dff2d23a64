import { beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../examples/demo/resources.js';
import { ConfigurationError } from '../src/errors/configuration-error.js';
import { compileEndpoint } from '../src/plan/endpoint.js';
import { defineEndpoint, type EndpointPolicy } from '../src/resource/policy.js';
import { resolveResources } from '../src/resource/resolve.js';
import { dialects } from './support/databases.js';
import { departments, insertPosts, insertUsers, posts, type UserRow, users } from './support/fixture.js';
import { idsOf, pagesBothWays, walkPages } from './support/pages.js';
import { useService } from './support/service.js';

type Rec = Record<string, unknown>;

const byRelation = defineEndpoint({
  resource: 'users',
  path: 'by-relation',
  allowedFilters: ['status', 'trashed'],
  allowedCounts: ['posts', 'roles'],
  allowedSorts: ['department.name', 'department.budget', 'posts_count', 'created_at', 'score'],
  allowedFields: ['name', 'email', 'department_id'],
  allowAll: 'unlimited',
  perPage: { default: 5, max: 100 },
  schema: { table: { columns: [{ key: 'name' }, { key: 'created_at' }] } },
});
const postsByAuthor = defineEndpoint({
  resource: 'posts',
  path: 'by-author',
  allowedFilters: ['status', 'trashed'],
  allowedSorts: ['author.score', 'author.created_at', 'author.department.name', 'score'],
  allowAll: 'unlimited',
});
const endpoints = [byRelation, postsByAuthor];

/**
 * Users beyond the fixture that make relation sorts hard: every department and none (NULL), ties on
 * each, a few soft-deleted, and 0–3 posts each (some soft-deleted, which no count includes).
 */
const extraUsers: UserRow[] = Array.from({ length: 28 }, (_, i) => ({
  id: 100 + i,
  name: `Related ${100 + i}`,
  email: `related${100 + i}@example.net`,
  status: i % 2 === 0 ? 'active' : 'inactive',
  score: i % 5,
  balance: 0,
  is_admin: false,
  birthday: null,
  settings: null,
  department_id: [1, 2, 3, null][i % 4] ?? null,
  created_at: `2024-0${1 + (i % 3)}-01T00:00:00.000Z`,
  deleted_at: i % 9 === 4 ? '2025-01-01T00:00:00.000Z' : null,
}));
interface PostRow {
  id: number;
  user_id: number;
  deleted_at: string | null;
}
const extraPosts: PostRow[] = extraUsers.flatMap((user, i) =>
  Array.from({ length: i % 4 }, (_, k) => ({
    id: 1000 + i * 10 + k,
    user_id: user.id,
    deleted_at: k === 2 ? '2025-01-01T00:00:00.000Z' : null,
  })),
);

const allUsers = [...users, ...extraUsers];
const allPosts: PostRow[] = [...posts, ...extraPosts];

type Value = string | number | null;
/** The value of a sort name for a user, computed from the arrays, independently of SQL. */
function userValue(user: UserRow, name: string): Value {
  const department = departments.find((d) => d.id === user.department_id);
  switch (name) {
    case 'department.name':
      return department?.name ?? null;
    case 'department.budget':
      return department?.budget ?? null;
    case 'posts_count':
      return allPosts.filter((post) => post.user_id === user.id && post.deleted_at === null).length;
    default:
      return user[name as keyof UserRow] as Value;
  }
}

/** The order the service must give: NULL is the smallest value, the primary key last, descending. */
function ordered<T extends { id: number }>(
  rows: readonly T[],
  sort: string,
  value: (row: T, name: string) => Value,
) {
  const terms = sort
    .split(',')
    .map((part) => ({ name: part.replace(/^-/, ''), sign: part.startsWith('-') ? -1 : 1 }));
  const compare = (a: T, b: T): number => {
    for (const { name, sign } of terms) {
      const x = value(a, name);
      const y = value(b, name);
      if (x === y) continue;
      if (x === null) return -sign;
      if (y === null) return sign;
      return (x < y ? -1 : 1) * sign;
    }
    return b.id - a.id;
  };
  return [...rows].sort(compare).map((row) => row.id);
}
const visibleUsers = () => allUsers.filter((user) => user.deleted_at === null);

const userSorts = [
  'department.name',
  '-department.name',
  'department.budget,-created_at',
  '-department.budget,score',
  '-posts_count',
  'posts_count,-department.name',
  'score,-posts_count',
];

const decode = (cursor: string) => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
const encode = (payload: unknown) => Buffer.from(JSON.stringify(payload)).toString('base64url');

for (const dialect of dialects) {
  describe(`sort by to-one relation paths and relation counts on ${dialect}`, () => {
    const svc = useService(dialect, 'relsort', { endpoints });
    // In the set-up, so that any one test runs alone (registered after useService's, so it runs after it).
    beforeAll(async () => {
      await insertUsers(svc.conn, extraUsers);
      await insertPosts(
        svc.conn,
        extraPosts.map((post) => ({
          ...post,
          title: `Post ${post.id}`,
          status: 'published',
          score: 1,
          published_at: null,
          created_at: '2024-05-01T00:00:00.000Z',
        })),
      );
    });

    it('has the edge cases it means to test', async () => {
      const visible = visibleUsers();
      expect(visible.filter((user) => user.department_id === null).length).toBeGreaterThan(3);
      expect(new Set(visible.map((user) => userValue(user, 'posts_count'))).size).toBeGreaterThanOrEqual(3);
    });

    it('answers the same order in every pagination mode, NULLs first ascending as for columns', async () => {
      for (const sort of userSorts) {
        const expected = ordered(visibleUsers(), sort, userValue);
        expect(await walkPages(svc, `/api/by-relation?sort=${sort}`), `length-aware ${sort}`).toEqual(
          expected,
        );
        expect(
          await walkPages(svc, `/api/by-relation?pagination=simple&sort=${sort}`),
          `simple ${sort}`,
        ).toEqual(expected);
        expect(
          await walkPages(svc, `/api/by-relation?pagination=cursor&sort=${sort}`),
          `cursor ${sort}`,
        ).toEqual(expected);
        const all = await svc.get(`/api/by-relation?all=true&sort=${sort}`);
        expect(idsOf(all.body), `all ${sort}`).toEqual(expected);
        const exported = await svc.get(`/api/by-relation?format=ndjson&sort=${sort}`);
        const lines = String(exported.body).trim().split('\n');
        expect(
          lines.map((text) => JSON.parse(text).id),
          `ndjson ${sort}`,
        ).toEqual(expected);
      }
    });

    it('walks back with prev cursors through the same pages', async () => {
      for (const sort of ['-department.name', 'posts_count,-department.name']) {
        const { forwards, backwards } = await pagesBothWays(
          svc,
          `/api/by-relation?pagination=cursor&per_page=4&sort=${sort}`,
        );
        expect(backwards, sort).toEqual(forwards);
      }
    });

    it('carries the joined value and the count in the cursor, and refuses a cursor whose values are not theirs', async () => {
      const first = await svc.get(
        '/api/by-relation?pagination=cursor&per_page=3&sort=-department.name,-posts_count',
      );
      expect(first.status).toBe(200);
      const last = first.body.data[2] as Rec;
      const user = allUsers.find((row) => row.id === last.id) as UserRow;
      const payload = decode(first.body.next_cursor);
      expect(payload.s).toBe('-department.name,-posts_count,-id');
      expect(payload.v).toEqual([userValue(user, 'department.name'), expect.anything(), user.id]);
      expect(Number(payload.v[1])).toBe(userValue(user, 'posts_count'));
      // Not the posts' count, and not a whole number: the cursor is refused, keyed by its parameter.
      for (const count of ['many', -1, 1.5, null]) {
        const forged = encode({ ...payload, v: [payload.v[0], count, payload.v[2]] });
        const res = await svc.get(
          `/api/by-relation?pagination=cursor&per_page=3&sort=-department.name,-posts_count&cursor=${forged}`,
        );
        expect(res.status, String(count)).toBe(422);
        expect(Object.keys(res.body.errors)).toEqual(['cursor']);
      }
    });

    it('never misses or repeats a row when rows are inserted while walking', async () => {
      const sort = 'department.name,-posts_count';
      const before = ordered(visibleUsers(), sort, userValue);
      const added: UserRow[] = [];
      const seen = await walkPages(
        svc,
        `/api/by-relation?pagination=cursor&per_page=4&sort=${sort}`,
        async (page) => {
          // Before and after the cursor: every department and none.
          const rows = [1, 2, 3, null].map((department_id, k) => ({
            ...(extraUsers[0] as UserRow),
            id: 500 + page * 10 + k,
            email: `walk${page}-${k}@example.net`,
            department_id,
            deleted_at: null,
          }));
          await insertUsers(svc.conn, rows);
          added.push(...rows);
        },
      );
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.filter((id) => id < 500)).toEqual(before);
      await svc.conn.db
        .deleteFrom('users')
        .where(
          'id',
          'in',
          added.map((row) => row.id),
        )
        .execute();
    });

    it('answers posts_count only when count= asks for it, the same value either way', async () => {
      const sorted = await svc.get('/api/by-relation?per_page=100&sort=-posts_count');
      expect(sorted.status).toBe(200);
      expect(sorted.body.data.every((user: Rec) => !('posts_count' in user) && !('__sort_0' in user))).toBe(
        true,
      );
      const counted = await svc.get('/api/by-relation?per_page=100&sort=-posts_count&count=posts');
      expect(idsOf(counted.body)).toEqual(idsOf(sorted.body));
      for (const user of counted.body.data as Rec[])
        expect(user.posts_count).toBe(
          userValue(allUsers.find((row) => row.id === user.id) as UserRow, 'posts_count'),
        );
    });

    it('answers only the selected fields when a relation sort and a cursor go with them', async () => {
      const sort = '-department.name';
      const ids = await walkPages(
        svc,
        `/api/by-relation?pagination=cursor&per_page=4&sort=${sort}&fields[users]=name`,
      );
      expect(ids).toEqual(ordered(visibleUsers(), sort, userValue));
      const page = await svc.get(`/api/by-relation?sort=${sort}&fields[users]=name`);
      expect(Object.keys(page.body.data[0]).sort()).toEqual(['id', 'name']);
    });

    it('sorts posts by their author, two relations deep, a soft-deleted author as none', async () => {
      const postValue = (post: PostRow & { score: number }, name: string): Value => {
        const author = allUsers.find((user) => user.id === post.user_id && user.deleted_at === null);
        const department = departments.find((d) => d.id === author?.department_id);
        if (name === 'author.score') return author?.score ?? null;
        if (name === 'author.created_at') return author?.created_at ?? null;
        if (name === 'author.department.name') return department?.name ?? null;
        return post[name as keyof typeof post] as Value;
      };
      // The extra posts have a score of 1; one of them is by a soft-deleted user.
      const visible = [...posts, ...extraPosts.map((post) => ({ ...post, score: 1 }))].filter(
        (post) => post.deleted_at === null,
      );
      expect(visible.some((post) => postValue(post, 'author.score') === null)).toBe(true);
      for (const sort of [
        'author.score',
        '-author.created_at,score',
        'author.department.name,-author.score',
      ]) {
        const expected = ordered(visible, sort, postValue);
        const res = await svc.get(`/api/by-author?all=true&sort=${sort}`);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(idsOf(res.body), sort).toEqual(expected);
        expect(
          await walkPages(svc, `/api/by-author?pagination=cursor&per_page=2&sort=${sort}`),
          sort,
        ).toEqual(expected);
      }
    });

    it('says which sorts it takes in the schema document and the OpenAPI document', async () => {
      const schema = await svc.get('/api/v1/by-relation/schema');
      expect(schema.body.table.sorts).toEqual([
        'department.name',
        'department.budget',
        'posts_count',
        'created_at',
        'score',
      ]);
      const sortable = Object.fromEntries(schema.body.table.columns.map((c: Rec) => [c.key, c.sortable]));
      expect(sortable).toEqual({ name: false, created_at: true });
      const openapi = await svc.get('/api/openapi.json');
      const parameters = openapi.body.paths['/api/by-relation'].get.parameters as Rec[];
      const sort = parameters.find((parameter) => parameter.name === 'sort') as {
        schema: { items: { enum: string[] } };
      };
      expect(sort.schema.items.enum).toEqual(expect.arrayContaining(['department.name', '-posts_count']));
    });

    it('refuses a sort the endpoint does not allow, naming what it allows', async () => {
      for (const sort of [
        'roles.name',
        'department.code',
        'roles_count',
        'department.nope',
        'profile.website',
      ]) {
        const res = await svc.get(`/api/by-relation?sort=${sort}`);
        expect(res.status, sort).toBe(422);
        expect(res.body.errors.sort[0]).toContain(`Sorting by "${sort}" is not allowed.`);
        expect(res.body.errors.sort[0]).toContain('department.name, department.budget, posts_count');
      }
    });
  });
}

describe('relation sorts are checked when the endpoint is configured', () => {
  const resolved = resolveResources(resources);
  const refused = (policy: Partial<EndpointPolicy>): string => {
    try {
      compileEndpoint(defineEndpoint({ resource: 'users', ...policy }), resolved, undefined);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigurationError);
      return (error as Error).message;
    }
    throw new Error('the configuration was accepted');
  };

  it('refuses a to-many path: it would repeat records', () => {
    expect(refused({ allowedSorts: ['roles.name'] })).toContain(
      'the relation "roles" may match several roles records per record',
    );
    expect(refused({ allowedSorts: ['posts.title'] })).toContain('the relation "posts" may match several');
  });

  it('refuses a hasOne joined on a foreign key, which the database does not keep to one record', () => {
    expect(refused({ allowedSorts: ['profile.website'] })).toContain(
      'the relation "profile" may match several',
    );
  });

  it('refuses a count the endpoint does not allow, a hidden column and an unordered kind', () => {
    expect(refused({ allowedSorts: ['posts_count'] })).toContain(
      '"posts_count" counts a relation that is not in allowedCounts',
    );
    expect(refused({ allowedSorts: ['password_hash'] })).toContain(
      '"password_hash" is neither a visible column',
    );
    expect(refused({ allowedSorts: ['settings'] })).toContain('is of a kind no sort applies to');
    expect(refused({ allowedSorts: ['department.nope'] })).toContain('"department.nope" is neither');
  });
});
