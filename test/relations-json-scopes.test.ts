import { describe, expect, it } from 'vitest';
import { dialects } from './support/databases.js';
import {
  comments,
  departments,
  permissions,
  posts,
  profiles,
  rolePermissions,
  roles,
  type UserRow,
  userRoles,
  users,
} from './support/fixture.js';
import { byIdDesc, expectedUsers, expectUsers, ids, lower } from './support/oracle.js';
import { type TestService, useService } from './support/service.js';

type Case = [query: string, predicate: (user: UserRow) => boolean];

const has = (text: string, part: string) => lower(text).includes(lower(part));

const departmentOf = (u: UserRow) => departments.find((d) => d.id === u.department_id);
const rolesOf = (u: UserRow) => roles.filter((role) => (userRoles[u.id] ?? []).includes(role.id));
const permissionNames = (roleId: number) =>
  permissions.filter((p) => (rolePermissions[roleId] ?? []).includes(p.id)).map((p) => p.name);
const profileOf = (u: UserRow) => profiles.find((p) => p.user_id === u.id);
/** Related rows that are soft-deleted never match a relation filter. */
const livePostsOf = (u: UserRow) => posts.filter((p) => p.user_id === u.id && p.deleted_at === null);

const relationCases: Case[] = [
  ['filter[department.name]=Engineering', (u) => departmentOf(u)?.name === 'Engineering'],
  ['filter[department.name][contains]=S', (u) => has(departmentOf(u)?.name ?? '', 's')],
  [
    'filter[department.name][neq]=Sales',
    (u) => departmentOf(u) !== undefined && departmentOf(u)?.name !== 'Sales',
  ],
  ['filter[roles.name]=admin', (u) => rolesOf(u).some((r) => r.name === 'admin')],
  ['filter[roles.name]=editor', (u) => rolesOf(u).some((r) => r.name === 'editor')],
  [
    'filter[roles.name][in]=admin,editor',
    (u) => rolesOf(u).some((r) => ['admin', 'editor'].includes(r.name)),
  ],
  ['filter[roles.name][neq]=admin', (u) => rolesOf(u).some((r) => r.name !== 'admin')],
  [
    'filter[roles.name][not_in]=admin,editor',
    (u) => rolesOf(u).some((r) => !['admin', 'editor'].includes(r.name)),
  ],
  // One role must satisfy both conditions: user 1 has "admin" (starts with a) and "editor" (ends with r).
  [
    'filter[roles.name][starts_with]=a&filter[roles.name][ends_with]=r',
    (u) => rolesOf(u).some((r) => r.name.startsWith('a') && r.name.endsWith('r')),
  ],
  [
    'filter[roles.permissions.name]=users.manage',
    (u) => rolesOf(u).some((r) => permissionNames(r.id).includes('users.manage')),
  ],
  [
    'filter[roles.permissions.name]=posts.create',
    (u) => rolesOf(u).some((r) => permissionNames(r.id).includes('posts.create')),
  ],
  [
    'filter[roles.permissions.name][starts_with]=POSTS.',
    (u) => rolesOf(u).some((r) => permissionNames(r.id).some((n) => n.startsWith('posts.'))),
  ],
  // One permission must satisfy both: none does, although the admin role holds "posts.*" and "*.manage".
  [
    'filter[roles.permissions.name][starts_with]=posts.&filter[roles.permissions.name][ends_with]=manage',
    (u) =>
      rolesOf(u).some((r) =>
        permissionNames(r.id).some((n) => n.startsWith('posts.') && n.endsWith('manage')),
      ),
  ],
  ['filter[profile.website][contains]=anna', (u) => has(profileOf(u)?.website ?? '', 'anna')],
  ['filter[profile.website][starts_with]=http', (u) => (profileOf(u)?.website ?? '').startsWith('http')],
  ['filter[profile.website][is_null]=1', (u) => profileOf(u) !== undefined && profileOf(u)?.website === null],
  ['filter[posts.title][contains]=hello', (u) => livePostsOf(u).some((p) => has(p.title, 'hello'))],
  ['filter[posts.title]=Deleted%20post', (u) => livePostsOf(u).some((p) => p.title === 'Deleted post')],
  ['filter[posts.score][gte]=90', (u) => livePostsOf(u).some((p) => p.score >= 90)],
  ['filter[posts.score][gt]=60', (u) => livePostsOf(u).some((p) => p.score > 60)],
  ['filter[posts.score][gte]=10', (u) => livePostsOf(u).some((p) => p.score >= 10)],
  ['filter[posts.status]=draft', (u) => livePostsOf(u).some((p) => p.status === 'draft')],
  [
    'filter[posts.score][gte]=5&filter[posts.score][lte]=10',
    (u) => livePostsOf(u).some((p) => p.score >= 5 && p.score <= 10),
  ],
  ['filter[posts.deleted_at][is_not_null]=1', (u) => livePostsOf(u).some((p) => p.deleted_at !== null)],
  ['filter[posts.published_at][is_null]=1', (u) => livePostsOf(u).some((p) => p.published_at === null)],
  ['filter[posts.id][in]=1,2', (u) => livePostsOf(u).some((p) => [1, 2].includes(p.id))],
  [
    'filter[roles.name]=admin&filter[posts.title][contains]=hello',
    (u) => rolesOf(u).some((r) => r.name === 'admin') && livePostsOf(u).some((p) => has(p.title, 'hello')),
  ],
];

const setting = (u: UserRow, ...path: string[]): unknown => {
  let value: unknown = u.settings;
  for (const key of path) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
};
const text = (u: UserRow, ...path: string[]) => {
  const value = setting(u, ...path);
  return typeof value === 'string' ? value : undefined;
};
const num = (u: UserRow, ...path: string[]) => {
  const value = setting(u, ...path);
  return typeof value === 'number' ? value : undefined;
};
const inRange = (value: number | undefined, from: number, to: number) =>
  value !== undefined && value >= from && value <= to;

const jsonCases: Case[] = [
  ['filter[settings.theme]=dark', (u) => text(u, 'theme') === 'dark'],
  ['filter[settings.theme][eq]=Dark', (u) => text(u, 'theme') === 'Dark'],
  ['filter[settings.theme][contains]=DARK', (u) => has(text(u, 'theme') ?? '', 'dark')],
  ['filter[settings.theme][starts_with]=d', (u) => lower(text(u, 'theme') ?? '').startsWith('d')],
  [
    'filter[settings.theme][not_contains]=ar',
    (u) => text(u, 'theme') !== undefined && !has(text(u, 'theme') ?? '', 'ar'),
  ],
  ['filter[settings.theme][in]=light,system', (u) => ['light', 'system'].includes(text(u, 'theme') ?? '')],
  [
    'filter[settings.theme][in][]=dark&filter[settings.theme][in][]=Dark',
    (u) => ['dark', 'Dark'].includes(text(u, 'theme') ?? ''),
  ],
  ['filter[settings.theme]=true', (u) => setting(u, 'theme') === true],
  ['filter[settings.language]=en', (u) => text(u, 'language') === 'en'],
  ['filter[settings.level][gte]=5', (u) => (num(u, 'level') ?? Number.NEGATIVE_INFINITY) >= 5],
  ['filter[settings.level][lt]=5', (u) => (num(u, 'level') ?? Number.POSITIVE_INFINITY) < 5],
  ['filter[settings.level][gt]=1', (u) => (num(u, 'level') ?? Number.NEGATIVE_INFINITY) > 1],
  ['filter[settings.level]=1.5', (u) => num(u, 'level') === 1.5],
  ['filter[settings.level]=10', (u) => num(u, 'level') === 10],
  ['filter[settings.level][neq]=3', (u) => num(u, 'level') !== undefined && num(u, 'level') !== 3],
  ['filter[settings.level][in]=3,10', (u) => [3, 10].includes(num(u, 'level') ?? Number.NaN)],
  // A mixed list compares as text with JSON strings only: the number 3 is not the string "3".
  ['filter[settings.level][in]=high,3', (u) => text(u, 'level') === 'high'],
  ['filter[settings.notifications.email][in]=true,maybe', () => false],
  ['filter[settings.level][between]=2,8', (u) => inRange(num(u, 'level'), 2, 8)],
  [
    'filter[settings.level][not_between]=2,8',
    (u) => num(u, 'level') !== undefined && !inRange(num(u, 'level'), 2, 8),
  ],
  ['filter[settings.level]=high', (u) => text(u, 'level') === 'high'],
  ['filter[settings.level][gte]=a', (u) => (text(u, 'level') ?? '') >= 'a'],
  ['filter[settings.notifications.email]=true', (u) => setting(u, 'notifications', 'email') === true],
  ['filter[settings.notifications.email]=false', (u) => setting(u, 'notifications', 'email') === false],
  ['filter[settings.notifications.sms]=false', (u) => setting(u, 'notifications', 'sms') === false],
  [
    'filter[settings.notifications.email][neq]=true',
    (u) =>
      typeof setting(u, 'notifications', 'email') === 'boolean' &&
      setting(u, 'notifications', 'email') !== true,
  ],
  [
    'filter[settings.notifications.email][in]=true,false',
    (u) => typeof setting(u, 'notifications', 'email') === 'boolean',
  ],
  ['filter[settings.notifications]=x', () => false],
  ['filter[settings.level][is_null]=1', (u) => setting(u, 'level') == null],
  ['filter[settings.language][is_null]=true', (u) => setting(u, 'language') == null],
  ['filter[settings.language][is_not_null]=1', (u) => setting(u, 'language') != null],
  ['filter[settings.language][is_null]=0', (u) => setting(u, 'language') != null],
  ['filter[settings.notifications.email][is_null]=true', (u) => setting(u, 'notifications', 'email') == null],
  ['filter[settings.tags][is_not_null]=1', (u) => setting(u, 'tags') != null],
  ['filter[settings][is_null]=1', (u) => u.settings === null],
  ['filter[settings][is_not_null]=1', (u) => u.settings !== null],
];

const scopeCases: Case[] = [
  ['filter[active]=true', (u) => u.status === 'active'],
  ['filter[active]=1', (u) => u.status === 'active'],
  ['filter[active]=false', (u) => u.status !== 'active'],
  ['filter[active]=0', (u) => u.status !== 'active'],
  ['filter[active]=', () => true],
  ['filter[active]=true&filter[score][gte]=90', (u) => u.status === 'active' && u.score >= 90],
  ['filter[or][0][active]=true&filter[or][1][score][lt]=50', (u) => u.status === 'active' || u.score < 50],
];

const customCases: Case[] = [
  ['filter[email_domain]=example.org', (u) => u.email.endsWith('@example.org')],
  ['filter[email_domain]=example.com', (u) => u.email.endsWith('@example.com')],
  ['filter[email_domain]=nowhere.test', (u) => u.email.endsWith('@nowhere.test')],
  [
    'filter[or][0][email_domain]=test.io&filter[or][1][status]=banned',
    (u) => u.email.endsWith('@test.io') || u.status === 'banned',
  ],
];

async function expect422(service: TestService, url: string, key: string): Promise<Record<string, string[]>> {
  const res = await service.get(url);
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(Object.keys(res.body.errors)).toContain(key);
  return res.body.errors;
}

describe.each(dialects)('relations, JSON, scopes, trashed and custom filters on %s', (dialect) => {
  const service = useService(dialect, 'relations');

  describe('relation filters', () => {
    it.each(relationCases)('%s', (query, predicate) => expectUsers(service, query, predicate));

    it('returns each parent once, with the right total, when several related rows match', async () => {
      // User 1 has both roles; role "posts.create" is granted by three roles.
      for (const query of [
        'filter[roles.name][in]=admin,editor',
        'filter[roles.permissions.name]=posts.create',
        'filter[roles.permissions.name][in]=posts.create,posts.delete,users.manage',
        'filter[posts.id][in]=1,2',
      ]) {
        const res = await service.get(`/api/users?per_page=100&${query}`);
        const found = ids(res);
        expect(new Set(found).size, query).toBe(found.length);
        expect(res.body.total, query).toBe(found.length);
      }
      const single = await service.get('/api/users?per_page=1&filter[roles.permissions.name][contains]=s');
      expect(single.body.total).toBe(
        expectedUsers((u) => rolesOf(u).some((r) => permissionNames(r.id).length > 0)).length,
      );
    });

    it('two conditions on one relation name must hold for the same related record', async () => {
      const res = await service.get(
        '/api/users?filter[roles.name][starts_with]=a&filter[roles.name][ends_with]=r',
      );
      expect(ids(res)).not.toContain(1);
      expect(ids(res)).toEqual([8, 3]);
    });

    it('soft-deleted related rows never match', async () => {
      // Post 4 (score 99) belongs to user 3 and is soft-deleted.
      expect(ids(await service.get('/api/users?filter[posts.score][gte]=90'))).toEqual([]);
      expect(ids(await service.get('/api/users?filter[posts.title]=Deleted%20post'))).toEqual([]);
      expect(
        ids(await service.get('/api/users?filter[posts.title]=Deleted%20post&filter[trashed]=true')),
      ).toEqual([]);
    });

    it('relation filters combine with trashed on the parent', async () => {
      const res = await service.get('/api/users?per_page=100&filter[trashed]=true&filter[roles.name]=editor');
      expect(ids(res)).toEqual(expectedUsers((u) => rolesOf(u).some((r) => r.name === 'editor'), true));
      expect(ids(res)).toContain(7);
    });

    it('belongsTo from comments and posts', async () => {
      const livePost = (id: number) => posts.find((p) => p.id === id && p.deleted_at === null);
      const expectedComments = (predicate: (c: (typeof comments)[number]) => boolean) =>
        comments
          .filter(predicate)
          .map((c) => c.id)
          .sort(byIdDesc);
      const byTitle = await service.get('/api/comments?per_page=100&filter[post.title][contains]=HELLO');
      expect(byTitle.status).toBe(200);
      expect(ids(byTitle)).toEqual(expectedComments((c) => has(livePost(c.post_id)?.title ?? '', 'hello')));
      const deleted = await service.get('/api/comments?filter[post.title]=Deleted%20post');
      expect(ids(deleted)).toEqual([]);
      const author = await service.get('/api/comments?per_page=100&filter[author.name][contains]=anna');
      const userName = (id: number) => users.find((u) => u.id === id && u.deleted_at === null)?.name ?? '';
      expect(ids(author)).toEqual(expectedComments((c) => has(userName(c.user_id), 'anna')));

      const postsByAuthor = await service.get(
        '/api/posts?per_page=100&filter[status]=&filter[author.name][starts_with]=ANNA',
      );
      expect(ids(postsByAuthor)).toEqual(
        posts
          .filter((p) => p.deleted_at === null && lower(userName(p.user_id)).startsWith('anna'))
          .map((p) => p.id)
          .sort(byIdDesc),
      );
      const withComment = await service.get(
        '/api/posts?per_page=100&filter[status]=&filter[comments.body][contains]=i',
      );
      expect(ids(withComment)).toEqual(
        posts
          .filter(
            (p) => p.deleted_at === null && comments.some((c) => c.post_id === p.id && has(c.body, 'i')),
          )
          .map((p) => p.id)
          .sort(byIdDesc),
      );
    });

    it('relation columns not in the whitelist are refused', async () => {
      await expect422(service, '/api/users?filter[department.code]=ENG', 'filter.department.code');
      await expect422(service, '/api/users?filter[profile.bio]=x', 'filter.profile.bio');
      await expect422(service, '/api/users?filter[roles.label]=Editor', 'filter.roles.label');
    });
  });

  describe('JSON paths compare by the type of the client value', () => {
    it.each(jsonCases)('%s', (query, predicate) => expectUsers(service, query, predicate));

    it('a number never matches a JSON string ("high")', async () => {
      const res = await service.get('/api/users?filter[settings.level][gte]=5');
      expect(ids(res)).toEqual([8, 6, 3]);
      expect(ids(res)).not.toContain(2);
    });

    it('equality on JSON strings is case-sensitive', async () => {
      const res = await service.get('/api/users?filter[settings.theme]=dark');
      expect(ids(res)).toEqual([6, 1]);
      expect(ids(res)).not.toContain(3);
    });

    it('refuses operators on the JSON column itself and malformed keys', async () => {
      await expect422(service, '/api/users?filter[settings]=dark', 'filter.settings');
      await expect422(service, '/api/users?filter[settings.the$me]=dark', 'filter.settings.the$me');
      await expect422(
        service,
        '/api/users?filter[settings.a.b.c.d.e.f.g.h.i]=1',
        'filter.settings.a.b.c.d.e.f.g.h.i',
      );
    });
  });

  describe('scopes', () => {
    it.each(scopeCases)('%s', (query, predicate) => expectUsers(service, query, predicate));

    it.each(['yes', 'no', '2', 'TRUE'])('filter[active]=%s is a 422', async (value) => {
      await expect422(service, `/api/users?filter[active]=${value}`, 'filter.active');
    });

    it('a scope given an operator is a 422', async () => {
      await expect422(service, '/api/users?filter[active][eq]=true', 'filter.active');
    });
  });

  describe('trashed', () => {
    const everyone = users.map((u) => u.id).sort(byIdDesc);
    const visible = expectedUsers(() => true);

    it('hides soft-deleted users by default', async () => {
      const res = await service.get('/api/users?per_page=100');
      expect(ids(res)).toEqual(visible);
      expect(res.body.total).toBe(visible.length);
    });

    it.each(['true', '1'])('filter[trashed]=%s includes them', async (value) => {
      const res = await service.get(`/api/users?per_page=100&filter[trashed]=${value}`);
      expect(ids(res)).toEqual(everyone);
      expect(res.body.total).toBe(everyone.length);
    });

    it.each(['false', '0'])('filter[trashed]=%s keeps them hidden', async (value) => {
      const res = await service.get(`/api/users?per_page=100&filter[trashed]=${value}`);
      expect(ids(res)).toEqual(visible);
    });

    it.each(['yes', 'with', 'only', '2'])('filter[trashed]=%s is a 422', async (value) => {
      await expect422(service, `/api/users?filter[trashed]=${value}`, 'filter.trashed');
    });

    it('combines with other filters', async () => {
      expect(ids(await service.get('/api/users?filter[trashed]=true&filter[name][contains]=eve'))).toEqual([
        7,
      ]);
      expect(
        ids(await service.get('/api/users?filter[trashed]=1&filter[deleted_at][is_not_null]=1')),
      ).toEqual([7]);
      expect(ids(await service.get('/api/users?filter[deleted_at][is_not_null]=1'))).toEqual([]);
    });

    it('is refused inside a group', async () => {
      await expect422(
        service,
        '/api/users?filter[or][0][trashed]=true&filter[or][1][score][gte]=1',
        'filter.trashed',
      );
    });
  });

  describe('custom filter email_domain', () => {
    it.each(customCases)('%s', (query, predicate) => expectUsers(service, query, predicate));

    it('answers its FilterValueError as a 422 on the filter', async () => {
      const errors = await expect422(service, '/api/users?filter[email_domain][x]=1', 'filter.email_domain');
      expect(errors['filter.email_domain']).toEqual(['The email_domain filter takes one domain.']);
      await expect422(service, '/api/users?filter[email_domain][]=example.org', 'filter.email_domain');
    });

    it('refuses a NUL character in its value, like every filter value', async () => {
      await expect422(service, '/api/users?filter[email_domain]=a%00b', 'filter.email_domain');
    });
  });
});
