import { describe, expect, it } from 'vitest';
import { dialects } from './support/databases.js';
import { departments, posts, roles, type UserRow, userRoles, users } from './support/fixture.js';
import { byIdDesc, expectedUsers, ids } from './support/oracle.js';
import { type TestService, useService } from './support/service.js';

type Case = [query: string, predicate: (user: UserRow) => boolean];

const roleNames = (u: UserRow) =>
  roles.filter((r) => (userRoles[u.id] ?? []).includes(r.id)).map((r) => r.name);
const departmentName = (u: UserRow) => departments.find((d) => d.id === u.department_id)?.name;

const groupCases: Case[] = [
  [
    'filter[or][0][status]=banned&filter[or][1][score][gte]=95',
    (u) => u.status === 'banned' || u.score >= 95,
  ],
  [
    'filter[or][0][score][gte]=1&filter[or][0][score][lte]=50&filter[or][1][status]=banned',
    (u) => (u.score >= 1 && u.score <= 50) || u.status === 'banned',
  ],
  [
    'filter[or][0][score][gte]=1&filter[or][0][score][lte]=5&filter[or][1][score][gte]=90&filter[or][1][score][lte]=97',
    (u) => (u.score >= 1 && u.score <= 5) || (u.score >= 90 && u.score <= 97),
  ],
  [
    'filter[or][0][status]=active&filter[or][0][is_admin]=true&filter[or][1][score][lt]=50',
    (u) => (u.status === 'active' && u.is_admin) || u.score < 50,
  ],
  ['filter[and][0][score][gte]=50&filter[and][1][score][lte]=90', (u) => u.score >= 50 && u.score <= 90],
  [
    'filter[status]=active&filter[or][0][roles.name]=admin&filter[or][1][and][0][score][gte]=90&filter[or][1][and][1][department.name]=Sales',
    (u) =>
      u.status === 'active' &&
      (roleNames(u).includes('admin') || (u.score >= 90 && departmentName(u) === 'Sales')),
  ],
  [
    'filter[or][0][and][0][status]=active&filter[or][0][and][1][is_admin]=true&filter[or][1][score][lt]=50',
    (u) => (u.status === 'active' && u.is_admin) || u.score < 50,
  ],
  [
    'filter[or][0][or][0][status]=inactive&filter[or][0][or][1][status]=banned&filter[or][1][score]=100',
    (u) => u.status === 'inactive' || u.status === 'banned' || u.score === 100,
  ],
  [
    'filter[and][0][or][0][status]=inactive&filter[and][0][or][1][status]=banned&filter[and][1][or][0][score][lt]=50&filter[and][1][or][1][score][gt]=90',
    (u) => ['inactive', 'banned'].includes(u.status) && (u.score < 50 || u.score > 90),
  ],
  // Indexes only order the members: gaps are fine.
  [
    'filter[or][0][status]=banned&filter[or][5][score][gte]=95',
    (u) => u.status === 'banned' || u.score >= 95,
  ],
  // A member whose filters are all empty disappears; a group without members too.
  ['filter[or][0][status]=&filter[or][1][score][gte]=95', (u) => u.score >= 95],
  ['filter[or][0][status]=&filter[or][1][score][gte]=', () => true],
  ['filter[or][0][status]=banned', (u) => u.status === 'banned'],
  [
    'filter[or][0][settings.theme]=dark&filter[or][1][settings.level][gte]=10',
    (u) => u.settings?.theme === 'dark' || (typeof u.settings?.level === 'number' && u.settings.level >= 10),
  ],
  [
    'filter[or][0][roles.name]=viewer&filter[or][1][posts.title][contains]=tips',
    (u) =>
      roleNames(u).includes('viewer') ||
      posts.some(
        (p) => p.user_id === u.id && p.deleted_at === null && p.title.toLowerCase().includes('tips'),
      ),
  ],
  [
    'filter[or][0][email_domain]=example.org&filter[or][1][active]=true',
    (u) => u.email.endsWith('@example.org') || u.status === 'active',
  ],
  [
    'filter[score][gte]=50&filter[or][0][status]=active&filter[or][1][status]=banned',
    (u) => u.score >= 50 && (u.status === 'active' || u.status === 'banned'),
  ],
];

async function expectIds(service: TestService, url: string, expected: number[]): Promise<void> {
  const res = await service.get(url);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(ids(res)).toEqual(expected);
  expect(res.body.total).toBe(expected.length);
}

async function expect422(service: TestService, url: string, key: string): Promise<void> {
  const res = await service.get(url);
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(Object.keys(res.body.errors)).toContain(key);
}

const livePosts = (predicate: (post: (typeof posts)[number]) => boolean, withTrashed = false) =>
  posts
    .filter((p) => (withTrashed || p.deleted_at === null) && predicate(p))
    .map((p) => p.id)
    .sort(byIdDesc);

describe.each(dialects)('groups, whitelist and default filters on %s', (dialect) => {
  const service = useService(dialect, 'groups');

  describe('or / and groups', () => {
    it.each(groupCases)('%s', (query, predicate) =>
      expectIds(service, `/api/users?per_page=100&${query}`, expectedUsers(predicate)),
    );

    it('a range inside an OR member is AND-ed within that member only', async () => {
      const res = await service.get(
        '/api/users?per_page=100&filter[or][0][score][gte]=1&filter[or][0][score][lte]=50&filter[or][1][status]=banned',
      );
      // User 5 has score 0: outside the range and not banned.
      expect(ids(res)).not.toContain(5);
      expect(ids(res)).toEqual([8, 3, 2]);
    });

    it('nests to the depth limit (4 levels)', async () => {
      const query = 'filter[or][0][and][0][or][0][and][0][status]=banned&filter[or][1][score]=100';
      await expectIds(
        service,
        `/api/users?${query}`,
        expectedUsers((u) => u.status === 'banned' || u.score === 100),
      );
    });

    it('refuses a group that is not a list of members', async () => {
      await expect422(service, '/api/users?filter[or][status]=active', 'filter.or');
      await expect422(service, '/api/users?filter[or]=active', 'filter.or');
      await expect422(service, '/api/users?filter[or][0]=active', 'filter.or');
    });
  });

  describe('the whitelist is checked at every depth', () => {
    it.each([
      ['/api/users?filter[or][0][secret]=1&filter[or][1][status]=active', 'filter.secret'],
      ['/api/users?filter[or][0][and][0][secret]=1', 'filter.secret'],
      ['/api/users?filter[or][0][and][0][or][0][password_hash]=hash-1', 'filter.password_hash'],
      ['/api/users?filter[and][0][roles.label]=Editor', 'filter.roles.label'],
      [
        '/api/users-roles-wild?filter[or][0][status]=active&filter[or][1][and][0][score][gte]=1',
        'filter.score',
      ],
      [
        '/api/users-roles-wild?filter[or][0][roles.permissions.name]=posts.create',
        'filter.roles.permissions.name',
      ],
      ['/api/users-star?filter[or][0][status]=active&filter[or][1][roles.name]=admin', 'filter.roles.name'],
      ['/api/users-default-status?filter[or][0][name]=x', 'filter.name'],
    ])('%s → 422 %s', (url, key) => expect422(service, url, key));

    it('reports every refused name of every depth at once', async () => {
      const res = await service.get('/api/users?filter[a]=1&filter[or][0][b]=1&filter[or][1][and][0][c]=1');
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors).sort()).toEqual(['filter.a', 'filter.b', 'filter.c']);
    });
  });

  describe('wildcards', () => {
    it('* authorizes the direct columns', async () => {
      await expectIds(
        service,
        '/api/users-star?per_page=100&filter[score][gte]=90',
        expectedUsers((u) => u.score >= 90),
      );
      await expectIds(
        service,
        '/api/users-star?per_page=100&filter[birthday][is_null]=1&filter[status]=banned',
        expectedUsers((u) => u.birthday === null && u.status === 'banned'),
      );
    });

    it.each([
      ['filter[roles.name]=admin', 'filter.roles.name'],
      ['filter[department.name]=Sales', 'filter.department.name'],
      ['filter[settings.theme]=dark', 'filter.settings.theme'],
      ['filter[password_hash]=hash-1', 'filter.password_hash'],
      ['filter[trashed]=true', 'filter.trashed'],
      ['filter[active]=true', 'filter.active'],
      ['filter[email_domain]=example.org', 'filter.email_domain'],
      ['filter[nope]=1', 'filter.nope'],
    ])('* does not authorize %s', (query, key) => expect422(service, `/api/users-star?${query}`, key));

    it("roles.* authorizes the roles' own columns", async () => {
      const withRole = (pred: (role: (typeof roles)[number]) => boolean) =>
        expectedUsers((u) => roles.some((r) => (userRoles[u.id] ?? []).includes(r.id) && pred(r)));
      await expectIds(
        service,
        '/api/users-roles-wild?per_page=100&filter[roles.label]=Editor',
        withRole((r) => r.label === 'Editor'),
      );
      await expectIds(
        service,
        '/api/users-roles-wild?per_page=100&filter[roles.name]=viewer',
        withRole((r) => r.name === 'viewer'),
      );
      await expectIds(
        service,
        '/api/users-roles-wild?per_page=100&filter[roles.id][in]=1,3',
        withRole((r) => [1, 3].includes(r.id)),
      );
      await expectIds(
        service,
        '/api/users-roles-wild?per_page=100&filter[status]=active',
        expectedUsers((u) => u.status === 'active'),
      );
    });

    it.each([
      ['filter[roles.permissions.name]=x', 'filter.roles.permissions.name'],
      ['filter[roles.permissions.id]=1', 'filter.roles.permissions.id'],
      ['filter[name]=x', 'filter.name'],
      ['filter[roles]=x', 'filter.roles'],
      ['filter[department.name]=Sales', 'filter.department.name'],
    ])('roles.* does not authorize %s', (query, key) =>
      expect422(service, `/api/users-roles-wild?${query}`, key),
    );
  });

  describe('the hidden column', () => {
    it.each(['/api/users', '/api/users-star', '/api/users-roles-wild'])(
      '%s never filters by password_hash',
      (path) => expect422(service, `${path}?filter[password_hash]=hash-1`, 'filter.password_hash'),
    );

    it('is refused with an operator, in relations and inside groups too', async () => {
      await expect422(service, '/api/users?filter[password_hash][starts_with]=hash', 'filter.password_hash');
      await expect422(
        service,
        '/api/comments?filter[author.password_hash]=hash-1',
        'filter.author.password_hash',
      );
      await expect422(service, '/api/users?filter[or][0][password_hash]=hash-1', 'filter.password_hash');
    });

    it('is never sorted by nor returned', async () => {
      await expect422(service, '/api/users?sort=password_hash', 'sort');
      for (const path of [
        '/api/users?filter[trashed]=true',
        '/api/users-star',
        '/api/users-default-status',
      ]) {
        const res = await service.get(`${path}${path.includes('?') ? '&' : '?'}per_page=100`);
        expect(res.status).toBe(200);
        expect(res.body.data.length).toBeGreaterThan(0);
        for (const record of res.body.data) expect(record).not.toHaveProperty('password_hash');
      }
    });

    it('the error for a hidden column is the same as for a column that does not exist', async () => {
      const hidden = await service.get('/api/users-star?filter[password_hash]=x');
      const missing = await service.get('/api/users-star?filter[no_such_column]=x');
      expect(hidden.body.errors['filter.password_hash'][0]).toBe(
        missing.body.errors['filter.no_such_column'][0].replace('no_such_column', 'password_hash'),
      );
    });
  });

  describe('default filters', () => {
    const base = '/api/users-default-status?per_page=100';

    it('apply when the client does not mention the filter', async () => {
      await expectIds(
        service,
        base,
        expectedUsers((u) => u.status === 'active'),
      );
      await expectIds(
        service,
        `${base}&filter[score][gte]=80`,
        expectedUsers((u) => u.status === 'active' && u.score >= 80),
      );
      await expectIds(
        service,
        '/api/posts?per_page=100',
        livePosts((p) => p.status === 'published'),
      );
    });

    it('a client value replaces the default', async () => {
      await expectIds(
        service,
        `${base}&filter[status]=banned`,
        expectedUsers((u) => u.status === 'banned'),
      );
      await expectIds(
        service,
        `${base}&filter[status][neq]=active`,
        expectedUsers((u) => u.status !== 'active'),
      );
      await expectIds(
        service,
        `${base}&filter[status][in]=inactive,banned`,
        expectedUsers((u) => ['inactive', 'banned'].includes(u.status)),
      );
      await expectIds(
        service,
        '/api/posts?per_page=100&filter[status]=draft',
        livePosts((p) => p.status === 'draft'),
      );
      await expectIds(
        service,
        '/api/posts?per_page=100&filter[status][in]=draft,archived',
        livePosts((p) => ['draft', 'archived'].includes(p.status)),
      );
    });

    it('a client-sent empty value removes the default', async () => {
      await expectIds(
        service,
        `${base}&filter[status]=`,
        expectedUsers(() => true),
      );
      await expectIds(
        service,
        `${base}&filter[status][eq]=`,
        expectedUsers(() => true),
      );
      await expectIds(
        service,
        `${base}&filter[status]=&filter[score][lt]=50`,
        expectedUsers((u) => u.score < 50),
      );
      await expectIds(
        service,
        '/api/posts?per_page=100&filter[status]=',
        livePosts(() => true),
      );
    });

    it('a mention inside a group replaces the default', async () => {
      await expectIds(
        service,
        `${base}&filter[or][0][status]=banned&filter[or][1][score][gte]=95`,
        expectedUsers((u) => u.status === 'banned' || u.score >= 95),
      );
      await expectIds(
        service,
        `${base}&filter[or][0][status]=&filter[or][1][score][gte]=95`,
        expectedUsers((u) => u.score >= 95),
      );
      await expectIds(
        service,
        '/api/posts?per_page=100&filter[or][0][status]=draft&filter[or][1][score][gte]=50',
        livePosts((p) => p.status === 'draft' || p.score >= 50),
      );
    });

    it('a default combines with trashed', async () => {
      await expectIds(
        service,
        '/api/posts?per_page=100&filter[trashed]=true',
        livePosts((p) => p.status === 'published', true),
      );
    });

    it('defaults do not leak into other endpoints of the same resource', async () => {
      await expectIds(
        service,
        '/api/users?per_page=100',
        expectedUsers(() => true),
      );
      expect(users.some((u) => u.deleted_at === null && u.status !== 'active')).toBe(true);
    });
  });
});
