import { beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../examples/demo/resources.js';
import { defineEndpoint, type EndpointPolicy } from '../src/resource/policy.js';
import { buildService } from '../src/server/standalone.js';
import { dialects } from './support/databases.js';
import * as fixture from './support/fixture.js';
import { type CommentRow, insertComments, insertPosts, insertUserRoles } from './support/fixture.js';
import { useService } from './support/service.js';
import { counter } from './support/statements.js';

/**
 * Constrained includes (`include_filter[posts][…]`, `include_sort[posts]`, `include_limit[posts]`):
 * each parent's first related records by the include's filter and order, and `<relation>_total`,
 * checked against answers computed here in plain JavaScript from every related row.
 */

type Row = Record<string, unknown>;

interface PostRow {
  id: number;
  user_id: number;
  title: string;
  status: string;
  score: number;
  published_at: string | null;
  created_at: string;
  deleted_at: string | null;
}

/** Many posts per user, with ties in every sort column, soft-deleted ones among them. */
const extraPosts: PostRow[] = [];
const perUser = [0, 7, 3, 9, 1, 6, 4, 8];
for (const [index, count] of perUser.entries()) {
  const user = index + 1;
  for (let j = 0; j < count; j++) {
    const id = 101 + extraPosts.length;
    const created = `2024-05-0${1 + (j % 4)}T10:00:00.000Z`;
    const status = ['published', 'draft', 'published', 'archived'][j % 4] as string;
    extraPosts.push({
      id,
      user_id: user,
      title: `${j % 3 === 0 ? 'Tips' : 'Notes'} ${user}-${j}`,
      status,
      score: (j * 7 + user) % 5,
      published_at: status === 'published' ? created : null,
      created_at: created,
      deleted_at: j % 5 === 3 ? '2024-06-01T00:00:00.000Z' : null,
    });
  }
}
const extraComments: CommentRow[] = [];
for (const post of extraPosts)
  for (let n = 0; n < post.id % 4; n++)
    extraComments.push({
      id: 101 + extraComments.length,
      post_id: post.id,
      user_id: 1,
      body: `On ${post.id}`,
      approved: (post.id + n) % 2 === 0,
      created_at: `2024-07-0${1 + (n % 2)}T00:00:00.000Z`,
    });

const allPosts: PostRow[] = [
  ...fixture.posts.map(({ id, user_id, title, status, score, published_at, created_at, deleted_at }) => ({
    id,
    user_id,
    title,
    status,
    score,
    published_at,
    created_at,
    deleted_at,
  })),
  ...extraPosts,
];
const livePosts = allPosts.filter((post) => post.deleted_at === null);
const allComments: CommentRow[] = [...fixture.comments, ...extraComments];
/** More roles for some users, so that a limit of two cuts some lists. */
const extraRoles: Record<number, number[]> = { 4: [1, 2, 3], 5: [2, 3], 8: [1] };
const rolesOf = (user: number) => [...(fixture.userRoles[user] ?? []), ...(extraRoles[user] ?? [])];
const liveUsers = fixture.users.filter((user) => user.deleted_at === null);

type Term = [keyof PostRow | 'name' | 'approved', 'asc' | 'desc'];
/** Sorts by the terms, then by id in the last term's direction (the service's tie-breaker). */
function sorted<T extends { id: number }>(rows: readonly T[], terms: readonly Term[]): T[] {
  const last = terms.at(-1)?.[1] ?? 'asc';
  const all: Term[] = [...terms, ['id', last]];
  return [...rows].sort((a, b) => {
    for (const [column, direction] of all) {
      const x = (a as Record<string, unknown>)[column] as string | number;
      const y = (b as Record<string, unknown>)[column] as string | number;
      if (x === y) continue;
      return (x < y ? -1 : 1) * (direction === 'asc' ? 1 : -1);
    }
    return 0;
  });
}

const endpoints: EndpointPolicy[] = [
  defineEndpoint({
    resource: 'users',
    allowedIncludes: ['posts.comments', 'roles', 'department', 'comments'],
    includeConstraints: {
      posts: {
        allowedFilters: ['status', 'score', 'created_at', 'title', 'published'],
        allowedSorts: ['created_at', 'score', 'title'],
        maxLimit: 5,
      },
      'posts.comments': { allowedFilters: ['approved'], allowedSorts: ['created_at'] },
      roles: { allowedFilters: ['name'], allowedSorts: ['name'] },
    },
    allowAll: 1000,
  }),
  defineEndpoint({
    resource: 'users',
    path: 'users-open',
    allowedIncludes: ['posts'],
    includeConstraints: { posts: { allowedSorts: ['score'] } },
  }),
];

for (const dialect of dialects)
  describe(`constrained includes on ${dialect}`, () => {
    const service = useService(dialect, 'constrained', { endpoints, context: undefined });
    beforeAll(async () => {
      await insertPosts(
        service.conn,
        extraPosts.map((post) => ({ ...post, body: `Body ${post.id}` })),
      );
      await insertUserRoles(service.conn, extraRoles);
      await insertComments(service.conn, extraComments);
    });

    const ok = async (url: string) => {
      const res = await service.inject({ method: 'GET', url });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { data: Row[] };
    };
    const refused = async (url: string) => {
      const res = await service.inject({ method: 'GET', url });
      expect(res.statusCode, res.body).toBe(422);
      return res.json().errors as Record<string, string[]>;
    };
    const usersDesc = () => [...liveUsers].sort((a, b) => b.id - a.id);
    /** Each user's posts (ids) and total, as the oracle sees them. */
    const expectedPosts = (keep: (post: PostRow) => boolean, terms: Term[], limit: number) =>
      usersDesc().map((user) => {
        const mine = livePosts.filter((post) => post.user_id === user.id && keep(post));
        return {
          id: user.id,
          posts: sorted(mine, terms)
            .slice(0, limit)
            .map((post) => post.id),
          posts_total: mine.length,
        };
      });
    const gotPosts = (body: { data: Row[] }) =>
      body.data.map((user) => ({
        id: user.id,
        posts: (user.posts as Row[]).map((post) => post.id),
        posts_total: user.posts_total,
      }));

    it('answers each parent’s first related records and their total, with ties in the sort', async () => {
      for (const [sort, terms] of [
        ['-created_at', [['created_at', 'desc']]],
        ['created_at', [['created_at', 'asc']]],
        [
          'score,-created_at',
          [
            ['score', 'asc'],
            ['created_at', 'desc'],
          ],
        ],
        [
          '-score,title',
          [
            ['score', 'desc'],
            ['title', 'asc'],
          ],
        ],
      ] as [string, Term[]][])
        for (const limit of [1, 3, 5]) {
          const body = await ok(
            `/api/users?include=posts&include_sort[posts]=${sort}&include_limit[posts]=${limit}&per_page=100`,
          );
          expect(gotPosts(body), `${sort} ${limit}`).toEqual(expectedPosts(() => true, terms, limit));
        }
      // The records themselves are whole posts, as an unconstrained include answers them.
      const whole = await ok('/api/users-open?include=posts&per_page=100');
      const limited = await ok('/api/users?include=posts&include_limit[posts]=2&per_page=100');
      for (const [i, user] of limited.data.entries())
        expect(user.posts).toEqual(((whole.data[i] as Row).posts as Row[]).slice(0, 2));
    });

    it('filters the related records with the operators of filter, before the limit and in the total', async () => {
      const cases: [string, (post: PostRow) => boolean][] = [
        ['include_filter[posts][status]=published', (post) => post.status === 'published'],
        [
          'include_filter[posts][score][gte]=2&include_filter[posts][score][lt]=4',
          (p) => p.score >= 2 && p.score < 4,
        ],
        [
          'include_filter[posts][status][in]=draft,archived',
          (p) => p.status === 'draft' || p.status === 'archived',
        ],
        ['include_filter[posts][title][contains]=tIPs', (post) => post.title.toLowerCase().includes('tips')],
        [
          'include_filter[posts][created_at][gte]=2024-05-02&include_filter[posts][status][neq]=draft',
          (post) => post.created_at >= '2024-05-02' && post.status !== 'draft',
        ],
        ['include_filter[posts][published]=true', (p) => p.status === 'published' && p.published_at !== null],
        [
          'include_filter[posts][or][0][score]=0&include_filter[posts][or][1][status]=archived',
          (post) => post.score === 0 || post.status === 'archived',
        ],
      ];
      for (const [filter, keep] of cases) {
        const body = await ok(
          `/api/users?include=posts&${filter}&include_sort[posts]=-score,created_at&include_limit[posts]=2&per_page=100`,
        );
        expect(gotPosts(body), filter).toEqual(
          expectedPosts(
            keep,
            [
              ['score', 'desc'],
              ['created_at', 'asc'],
            ],
            2,
          ),
        );
      }
    });

    it('answers every page of a cursor walk right: one compiled statement, each page’s keys bound', async () => {
      const query =
        'include=posts&include_filter[posts][score][gte]=1&include_sort[posts]=-score&include_limit[posts]=2';
      const seen: ReturnType<typeof gotPosts> = [];
      let url: string | null = `/api/users?${query}&pagination=cursor&per_page=2`;
      while (url) {
        const body = (await ok(url)) as { data: Row[]; next_page_url: string | null };
        seen.push(...gotPosts(body));
        url = body.next_page_url ? body.next_page_url.replace(/^https?:\/\/[^/]+/, '') : null;
      }
      expect(seen).toEqual(expectedPosts((post) => post.score >= 1, [['score', 'desc']], 2));
    });

    it('limits to maxLimit when the request gives no limit, and says so with the total', async () => {
      const body = await ok('/api/users?include=posts&per_page=100');
      expect(gotPosts(body)).toEqual(expectedPosts(() => true, [], 5));
      expect(body.data.some((user) => (user.posts_total as number) > 5)).toBe(true);
      // Filtered and sorted but unlimited where no maxLimit is set: every match, no total.
      const open = await ok('/api/users-open?include=posts&include_sort[posts]=-score&per_page=100');
      for (const user of open.data) {
        expect(user).not.toHaveProperty('posts_total');
        expect((user.posts as Row[]).map((post) => post.id)).toEqual(
          sorted(
            livePosts.filter((post) => post.user_id === user.id),
            [['score', 'desc']],
          ).map((post) => post.id),
        );
      }
      // The same endpoint limits when asked, up to the service's largest limit.
      const cut = await ok('/api/users-open?include=posts&include_limit[posts]=1&per_page=100');
      expect(gotPosts(cut)).toEqual(expectedPosts(() => true, [], 1));
    });

    it('limits nested includes per parent: each post its own comments', async () => {
      const body = await ok(
        '/api/users?include=posts.comments&include_sort[posts]=-created_at&include_limit[posts]=3' +
          '&include_sort[posts.comments]=-created_at&include_limit[posts.comments]=2' +
          '&include_filter[posts.comments][approved]=true&per_page=100',
      );
      expect(
        body.data.map((user) => ({
          id: user.id,
          posts: (user.posts as Row[]).map((post) => ({
            id: post.id,
            comments: (post.comments as Row[]).map((comment) => comment.id),
            comments_total: post.comments_total,
          })),
        })),
      ).toEqual(
        usersDesc().map((user) => ({
          id: user.id,
          posts: sorted(
            livePosts.filter((post) => post.user_id === user.id),
            [['created_at', 'desc']],
          )
            .slice(0, 3)
            .map((post) => {
              const approved = allComments.filter((c) => c.post_id === post.id && c.approved);
              return {
                id: post.id,
                comments: sorted(approved, [['created_at', 'desc']])
                  .slice(0, 2)
                  .map((c) => c.id),
                comments_total: approved.length,
              };
            }),
        })),
      );
    });

    it('limits a many-to-many include through its pivot', async () => {
      const body = await ok(
        '/api/users?include=roles&include_sort[roles]=-name&include_limit[roles]=2&include_filter[roles][name][neq]=viewer&per_page=100',
      );
      expect(
        body.data.map((user) => [user.id, (user.roles as Row[]).map((role) => role.name), user.roles_total]),
      ).toEqual(
        usersDesc().map((user) => {
          const mine = fixture.roles.filter(
            (role) => rolesOf(user.id).includes(role.id) && role.name !== 'viewer',
          );
          return [
            user.id,
            sorted(mine, [['name', 'desc']])
              .slice(0, 2)
              .map((role) => role.name),
            mine.length,
          ];
        }),
      );
      expect(body.data.some((user) => (user.roles_total as number) > 2)).toBe(true);
    });

    it('answers the fields asked for with constraints, the total beside them', async () => {
      const body = await ok(
        '/api/users?fields[users]=name&fields[posts]=title&include=posts&include_sort[posts]=-created_at&include_limit[posts]=2&per_page=100',
      );
      for (const user of body.data) {
        expect(Object.keys(user)).toEqual(['id', 'name', 'posts', 'posts_total']);
        for (const post of user.posts as Row[]) expect(Object.keys(post)).toEqual(['id', 'title']);
      }
      expect(gotPosts(body)).toEqual(expectedPosts(() => true, [['created_at', 'desc']], 2));
      // Every pagination mode and read-one take them.
      const all = (await ok(
        '/api/users?all=true&include=posts&include_limit[posts]=1&include_sort[posts]=score',
      )) as unknown as Row[];
      expect(all.map((user) => (user.posts as Row[]).map((post) => post.id))).toEqual(
        expectedPosts(() => true, [['score', 'asc']], 1).map((user) => user.posts),
      );
      const one = (await ok(
        '/api/users/4?include=posts&include_limit[posts]=2&include_sort[posts]=-score',
      )) as unknown as Row;
      expect([(one.posts as Row[]).map((post) => post.id), one.posts_total]).toEqual([
        expectedPosts(() => true, [['score', 'desc']], 2).find((user) => user.id === 4)?.posts,
        livePosts.filter((post) => post.user_id === 4).length,
      ]);
    });

    it('never shows nor counts soft-deleted related records', async () => {
      const deleted = allPosts.filter((post) => post.deleted_at !== null).map((post) => post.id);
      expect(deleted.length).toBeGreaterThan(3);
      const body = await ok(
        '/api/users?include=posts&include_sort[posts]=-created_at&include_limit[posts]=5&include_filter[posts][score][gte]=0&per_page=100',
      );
      for (const user of body.data) {
        for (const post of user.posts as Row[]) expect(deleted).not.toContain(post.id);
        expect(user.posts_total).toBe(livePosts.filter((post) => post.user_id === user.id).length);
      }
    });

    it('refuses every constraint the policy does not allow, keyed by its parameter', async () => {
      const expectKeys = async (url: string, keys: string[], message?: RegExp) => {
        const errors = await refused(url);
        expect(Object.keys(errors).sort(), url).toEqual([...keys].sort());
        if (message) expect(Object.values(errors).flat().join(' '), url).toMatch(message);
      };
      await expectKeys('/api/users?include_limit[posts]=3', ['include_limit.posts'], /add include=posts/);
      await expectKeys(
        '/api/users?include=roles&include_sort[posts]=title',
        ['include_sort.posts'],
        /add include=posts/,
      );
      await expectKeys(
        '/api/users?include=posts&include_filter[posts][body]=x',
        ['include_filter.posts.body'],
        /Allowed filters: status, score, created_at, title, published/,
      );
      await expectKeys('/api/users?include=posts&include_filter[posts][score][gte]=many', [
        'include_filter.posts.score',
      ]);
      await expectKeys('/api/users?include=posts&include_filter[posts][title][year]=2024', [
        'include_filter.posts.title',
      ]);
      await expectKeys(
        '/api/users?include=posts&include_sort[posts]=-body',
        ['include_sort.posts'],
        /Allowed sorts of posts: created_at, score, title/,
      );
      for (const limit of ['6', '0', '-1', 'two', '1.5'])
        await expectKeys(
          `/api/users?include=posts&include_limit[posts]=${limit}`,
          ['include_limit.posts'],
          /between 1 and 5/,
        );
      await expectKeys(
        '/api/users?include=comments&include_limit[comments]=1&include_filter[comments][body]=x',
        ['include_limit.comments', 'include_filter.comments'],
        /Includes that can: posts, posts.comments, roles/,
      );
      await expectKeys('/api/users?include=department&include_sort[department]=name', [
        'include_sort.department',
      ]);
      await expectKeys('/api/users?include=posts&include_sort=title', ['include_sort']);
      await expectKeys('/api/users?include=posts&include_filter=x', ['include_filter']);
      await expectKeys('/api/users?include=posts&include_limit[posts][a]=1', ['include_limit.posts']);
      await expectKeys('/api/users-open?include=posts&include_limit[posts]=1001', ['include_limit.posts']);
      await expectKeys(
        '/api/users-open?include=posts&include_filter[posts][status]=x',
        ['include_filter.posts.status'],
        /This resource allows no filters/,
      );
      // Include filters count towards the request's limit on conditions (50), with the list's own.
      const many = Array.from({ length: 26 }, (_, i) => `filter[f${i}]=1`).join('&');
      const more = Array.from({ length: 25 }, (_, i) => `include_filter[posts][or][${i}][score]=${i}`).join(
        '&',
      );
      const limited = await refused(`/api/users?include=posts&${more}`.replace('?', `?${many}&`));
      expect(limited.filter?.join(' ')).toMatch(/has 51 filter conditions: the limit is 50/);
      // Several problems of one request are all reported.
      await expectKeys('/api/users?include=posts&include_sort[posts]=body&include_limit[posts]=9', [
        'include_sort.posts',
        'include_limit.posts',
      ]);
    });

    it('reads each limited relation in one statement, whatever the number of parents', async () => {
      const count = counter(service.conn);
      const app = await buildService({
        config: { resources, endpoints },
        connection: count.connection,
      });
      try {
        const res = await app.inject({
          url: '/api/users?pagination=simple&per_page=100&include=posts.comments,roles&include_limit[posts]=2&include_limit[posts.comments]=1&include_limit[roles]=1&include_sort[roles]=name',
        });
        expect(res.statusCode, res.body).toBe(200);
        // The page, then one statement each for posts, their comments and roles.
        expect(count.sql).toHaveLength(4);
        expect(count.sql.filter((text) => /lateral|row_number/i.test(text))).toHaveLength(3);
      } finally {
        await app.close();
      }
    });
  });

describe('includeConstraints at start-up', () => {
  const service = useService('sqlite', 'constrained_config', { context: undefined });
  const start = (policy: Partial<EndpointPolicy>) =>
    buildService({
      config: { resources, endpoints: [defineEndpoint({ resource: 'users', ...policy })] },
      connection: service.conn,
    });

  it('refuses a path that is not an allowed to-many include, and names it doesn’t have', async () => {
    for (const [policy, message] of [
      [
        { allowedIncludes: ['roles'], includeConstraints: { posts: {} } },
        /"posts" is not an allowed include/,
      ],
      [
        { allowedIncludes: ['department'], includeConstraints: { department: { maxLimit: 1 } } },
        /"department" is a belongsTo relation; only a to-many relation/,
      ],
      [
        { allowedIncludes: ['posts'], includeConstraints: { posts: { allowedSorts: ['nope'] } } },
        /allowedSorts names unknown .* column "nope" of "posts"/,
      ],
      [
        { allowedIncludes: ['posts'], includeConstraints: { posts: { allowedSorts: ['meta'] } } },
        /allowedSorts names unknown/,
      ],
      [
        { allowedIncludes: ['roles'], includeConstraints: { roles: { allowedFilters: ['nope'] } } },
        /allowedFilters names unknown filter "nope"/,
      ],
      [
        { allowedIncludes: ['posts'], includeConstraints: { posts: { allowedFilters: ['trashed'] } } },
        /not trashed/,
      ],
      [{ allowedIncludes: ['posts'], includeConstraints: { posts: { maxLimit: 0 } } }, /maxLimit must be/],
    ] as [Partial<EndpointPolicy>, RegExp][])
      await expect(start(policy)).rejects.toThrow(message);
  });

  it('refuses a parent column named like the total a limited include answers', async () => {
    const withTotal = resources.map((resource) =>
      resource.name === 'users'
        ? { ...resource, columns: { ...resource.columns, posts_total: 'integer' as const } }
        : resource,
    );
    await service.conn.db.schema.alterTable('users').addColumn('posts_total', 'integer').execute();
    await expect(
      buildService({
        config: {
          resources: withTotal,
          endpoints: [
            defineEndpoint({
              resource: 'users',
              allowedIncludes: ['posts'],
              includeConstraints: { posts: {} },
            }),
          ],
        },
        connection: service.conn,
      }),
    ).rejects.toThrow(/"users" has a column "posts_total"/);
  });
});
