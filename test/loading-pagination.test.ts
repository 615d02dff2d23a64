import { describe, expect, it } from 'vitest';
import { resources } from '../examples/demo/resources.js';
import { buildService } from '../src/server/standalone.js';
import { dialects } from './support/databases.js';
import {
  comments,
  departments,
  permissions,
  posts,
  profiles,
  rolePermissions,
  roles,
  userRoles,
  users,
} from './support/fixture.js';
import {
  serviceTargets,
  type TestService,
  targetName,
  testEndpoints,
  useService,
} from './support/service.js';
import { counter } from './support/statements.js';

type Rec = Record<string, unknown>;
const visibleUsers = users.filter((u) => u.deleted_at === null);
const byIdDesc = (a: { id: number }, b: { id: number }) => b.id - a.id;
const liveposts = posts.filter((p) => p.deleted_at === null);

/**
 * GET `url` on a service over `svc`'s database whose statements are counted: the answer's records and
 * the number of SQL statements it took.
 */
async function countedGet(svc: TestService, url: string): Promise<{ data: Rec[]; statements: number }> {
  const count = counter(svc.conn);
  const app = await buildService({
    config: { resources, endpoints: testEndpoints },
    connection: count.connection,
  });
  const res = await app.inject({ url });
  await app.close();
  expect(res.statusCode, res.body).toBe(200);
  return { data: res.json().data, statements: count.sql.length };
}

for (const target of serviceTargets) {
  const { dialect, host } = target;
  describe(`includes and counts on ${targetName(target)}`, () => {
    const svc = useService(dialect, 'loading', {}, host);

    it('loads nested, to-many and to-one relations in the documented shapes', async () => {
      const res = await svc.get(
        '/api/users-loaded?include=roles.permissions,posts,department,profile&per_page=100',
      );
      expect(res.status).toBe(200);
      expect(res.body.data.map((r: Rec) => r.id)).toEqual(visibleUsers.sort(byIdDesc).map((u) => u.id));
      let rolesChecked = 0;
      for (const record of res.body.data as Rec[]) {
        const id = record.id as number;
        const expectedRoles = [...(userRoles[id] ?? [])].sort((a, b) => a - b);
        const gotRoles = record.roles as Rec[];
        expect(gotRoles.map((r) => r.id)).toEqual(expectedRoles);
        for (const role of gotRoles) {
          rolesChecked++;
          expect(role.name).toBe(roles.find((r) => r.id === role.id)?.name);
          const expectedPermissions = (rolePermissions[role.id as number] ?? []).map(
            (pid) => permissions.find((p) => p.id === pid)?.name,
          );
          expect((role.permissions as Rec[]).map((p) => p.name)).toEqual(expectedPermissions);
        }
        expect((record.posts as Rec[]).map((p) => p.id)).toEqual(
          liveposts.filter((p) => p.user_id === id).map((p) => p.id),
        );
        const user = users.find((u) => u.id === id);
        const department = departments.find((d) => d.id === user?.department_id);
        expect(record.department).toEqual(department ? { ...department } : null);
        const profile = profiles.find((p) => p.user_id === id);
        expect(record.profile === null ? null : (record.profile as Rec).id).toBe(profile?.id ?? null);
        expect(record).not.toHaveProperty('password_hash');
      }
      // The nested level was compared on some roles, not skipped on users that have none.
      expect(rolesChecked).toBeGreaterThan(0);
    });

    it('adds integer counts without loading the related rows, combined with includes', async () => {
      const res = await svc.get(
        '/api/users-loaded?count=posts,roles,comments&include=department&per_page=100',
      );
      expect(res.status).toBe(200);
      expect(res.body.data.map((r: Rec) => r.id)).toEqual(visibleUsers.sort(byIdDesc).map((u) => u.id));
      for (const record of res.body.data as Rec[]) {
        const id = record.id as number;
        expect(record.posts_count).toBe(liveposts.filter((p) => p.user_id === id).length);
        expect(record.roles_count).toBe((userRoles[id] ?? []).length);
        expect(record.comments_count).toBe(comments.filter((c) => c.user_id === id).length);
        expect(record).not.toHaveProperty('posts');
        expect(record).toHaveProperty('department');
      }
    });

    it('rejects relations outside allowedIncludes and allowedCounts, all at once', async () => {
      const res = await svc.get('/api/users-loaded?include=roles,secrets&count=permissions');
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors).sort()).toEqual(['count', 'include']);
      expect(res.body.errors.include[0]).toContain('secrets');
      expect(res.body.errors.count[0]).toContain('permissions');
      const plain = await svc.get('/api/users?include=roles');
      expect(plain.status).toBe(422);
      expect(plain.body.errors).toHaveProperty('include');
    });

    it('runs one query per relation per level, whatever the number of parents', async () => {
      const measured: number[] = [];
      for (const perPage of [1, 7]) {
        const { data, statements } = await countedGet(
          svc,
          `/api/users-loaded?include=roles,roles.permissions,posts&per_page=${perPage}`,
        );
        expect(data).toHaveLength(perPage);
        measured.push(statements);
      }
      // count + page + roles + permissions + posts
      expect(measured).toEqual([5, 5]);
    });
  });

  describe(`pagination modes, sort, search and the transformer on ${targetName(target)}`, () => {
    const svc = useService(dialect, 'modes', {}, host);

    it('simple pagination runs no count query and detects the next page with one extra row', async () => {
      const count = counter(svc.conn);
      const app = await buildService({
        config: { resources, endpoints: testEndpoints },
        connection: count.connection,
      });
      const first = (await app.inject({ url: '/api/users-loaded?pagination=simple&per_page=3' })).json();
      expect(count.sql).toHaveLength(1);
      expect(Object.keys(first).sort()).toEqual(
        [
          'current_page',
          'data',
          'first_page_url',
          'from',
          'next_page_url',
          'path',
          'per_page',
          'prev_page_url',
          'to',
        ].sort(),
      );
      expect(first.data.map((r: Rec) => r.id)).toEqual(
        visibleUsers
          .sort(byIdDesc)
          .slice(0, 3)
          .map((u) => u.id),
      );
      expect(first.next_page_url).toContain('page=2');
      expect(first.prev_page_url).toBeNull();
      expect(first.data[0].label).toContain('<');
      const last = (
        await app.inject({ url: '/api/users-loaded?pagination=simple&per_page=3&page=3' })
      ).json();
      expect(last.data).toHaveLength(visibleUsers.length - 6);
      expect(last.next_page_url).toBeNull();
      expect(last.from).toBe(7);
      await app.close();
    });

    it('sorts by allowed columns with the primary key as tie-breaker, NULL first ascending', async () => {
      const res = await svc.get('/api/users-loaded?sort=-score&per_page=100');
      expect(res.body.data.map((r: Rec) => r.id)).toEqual(
        [...visibleUsers].sort((a, b) => b.score - a.score || b.id - a.id).map((u) => u.id),
      );
      const birthday = await svc.get('/api/users-loaded?sort=birthday&per_page=100');
      const key = (b: string | null) => b ?? '';
      expect(birthday.body.data.map((r: Rec) => r.id)).toEqual(
        [...visibleUsers]
          .sort((a, b) => key(a.birthday).localeCompare(key(b.birthday)) || b.id - a.id)
          .map((u) => u.id),
      );
      const bad = await svc.get('/api/users-loaded?sort=password_hash,-nope');
      expect(bad.status).toBe(422);
      expect(bad.body.errors.sort).toHaveLength(2);
    });

    it('searches the allowed columns case-insensitively, wildcards literal', async () => {
      const res = await svc.get('/api/users-loaded?search=ANN&per_page=100');
      const expected = visibleUsers
        .filter((u) => {
          const dept = departments.find((d) => d.id === u.department_id)?.name ?? '';
          return [u.name, u.email, dept].some((text) => text.toLowerCase().includes('ann'));
        })
        .sort(byIdDesc)
        .map((u) => u.id);
      expect(expected.length).toBeGreaterThan(1);
      expect(res.body.data.map((r: Rec) => r.id)).toEqual(expected);
      const sales = await svc.get('/api/users-loaded?search=sales&per_page=100');
      expect(sales.body.data.map((r: Rec) => r.id)).toEqual(
        visibleUsers
          .filter((u) => u.department_id === 2)
          .sort(byIdDesc)
          .map((u) => u.id),
      );
      const percent = await svc.get('/api/users-loaded?search=100%25');
      expect(percent.body.data.map((r: Rec) => r.id)).toEqual([4]);
      const long = await svc.get(`/api/users-loaded?search=${'x'.repeat(201)}`);
      expect(long.status).toBe(422);
      expect(long.body.errors.search[0]).toContain('200');
      const disabled = await svc.get('/api/users?search=ann');
      expect(disabled.status).toBe(422);
    });

    it('walks every record exactly once with cursors, forwards and back, for several sorts', async () => {
      for (const sort of ['', 'name', '-created_at', 'birthday', '-balance', 'score,-birthday']) {
        const seen: number[] = [];
        const pages: number[][] = [];
        let url: string | null =
          `/api/users-loaded?pagination=cursor&per_page=2${sort ? `&sort=${sort}` : ''}`;
        let lastPage: Rec | undefined;
        while (url) {
          const res = await svc.get(url.replace(/^https?:\/\/[^/]+/, ''));
          expect(res.status).toBe(200);
          const ids = res.body.data.map((r: Rec) => r.id);
          // A page of a walk has records: an empty one would pass the checks below.
          expect(ids.length).toBeGreaterThan(0);
          pages.push(ids);
          seen.push(...ids);
          expect(res.body.data.every((r: Rec) => typeof r.label === 'string')).toBe(true);
          lastPage = res.body;
          url = res.body.next_page_url;
        }
        expect([...seen].sort((a, b) => a - b)).toEqual(visibleUsers.map((u) => u.id).sort((a, b) => a - b));
        // Back from the last page with prev cursors: the same pages in reverse order.
        const back: number[][] = [pages[pages.length - 1] as number[]];
        let prev = lastPage?.prev_page_url as string | null;
        while (prev) {
          const res = await svc.get(prev.replace(/^https?:\/\/[^/]+/, ''));
          back.unshift(res.body.data.map((r: Rec) => r.id));
          prev = res.body.prev_page_url;
        }
        expect(back).toEqual(pages);
      }
    });

    it('rejects malformed cursors and cursors made for another sort', async () => {
      const first = await svc.get('/api/users-loaded?pagination=cursor&per_page=2&sort=name');
      const cursor = first.body.next_cursor as string;
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      const other = await svc.get(
        `/api/users-loaded?pagination=cursor&per_page=2&sort=-score&cursor=${cursor}`,
      );
      expect(other.status).toBe(422);
      expect(other.body.errors.cursor[0]).toContain('another sort');
      for (const bad of ['not-a-cursor', '%25%25', Buffer.from('{"s":1}').toString('base64url')]) {
        const res = await svc.get(`/api/users-loaded?pagination=cursor&cursor=${bad}`);
        expect(res.status).toBe(422);
        expect(res.body.errors).toHaveProperty('cursor');
      }
      const envelope = Object.keys(first.body).sort();
      expect(envelope).toEqual(
        ['data', 'path', 'per_page', 'next_cursor', 'next_page_url', 'prev_cursor', 'prev_page_url'].sort(),
      );
    });

    it('answers a page after a cursor from the plan of its query string without the cursor, with the same errors', async () => {
      const base = '/api/users-loaded?pagination=cursor&per_page=2&sort=name';
      const first = await svc.get(base);
      const cursor = first.body.next_cursor as string;
      // The cursor anywhere in the query string, and the rest's plan already kept: the same page.
      const second = await svc.get(`${base}&cursor=${cursor}`);
      const moved = await svc.get(
        `/api/users-loaded?cursor=${cursor}&pagination=cursor&per_page=2&sort=name`,
      );
      expect(second.status).toBe(200);
      expect(moved.body.data).toEqual(second.body.data);
      expect(second.body.data[0].name >= first.body.data[1].name).toBe(true);
      // A cursor beside a mistake: every problem of the whole query string is named, the cursor's too.
      const both = await svc.get(`${base}&filter[nope]=1&cursor=not-a-cursor`);
      expect(both.status).toBe(422);
      expect(Object.keys(both.body.errors).sort()).toEqual(['cursor', 'filter.nope']);
      const withPage = await svc.get(`${base}&page=2&cursor=${cursor}`);
      expect(withPage.status).toBe(422);
      expect(Object.keys(withPage.body.errors)).toEqual(['page']);
      // Twice, or with another pagination: decided on the whole query string as before.
      const twice = await svc.get(`${base}&cursor=${cursor}&cursor=${cursor}`);
      expect(twice.status).toBe(422);
      expect(twice.body.errors).toHaveProperty('cursor');
      const simple = await svc.get(`/api/users-loaded?pagination=simple&cursor=${cursor}`);
      expect(simple.status).toBe(422);
      expect(simple.body.errors.cursor[0]).toContain('only used with pagination=cursor');
    });

    it('all=true: a flat array through the transformer, refused over the maximum with both numbers', async () => {
      const over = await svc.get('/api/users-loaded?all=true');
      expect(over.status).toBe(422);
      expect(Object.keys(over.body.errors)).toEqual(['all']);
      expect(over.body.message).toBe(over.body.errors.all[0]);
      expect(over.body.message).toContain(String(visibleUsers.length));
      expect(over.body.message).toContain('5');
      const active = await svc.get('/api/users-loaded?all=1&filter[status]=active&include=department');
      expect(active.status).toBe(200);
      expect(Array.isArray(active.body)).toBe(true);
      expect(active.body.map((r: Rec) => r.id)).toEqual(
        visibleUsers
          .filter((u) => u.status === 'active')
          .sort(byIdDesc)
          .map((u) => u.id),
      );
      expect(active.body[0].label).toContain('<');
      expect(active.body[0]).toHaveProperty('department');
      const off = await svc.get('/api/users-loaded?all=false&per_page=2');
      expect(off.body.total).toBe(visibleUsers.length);
      for (const url of [
        '/api/users?all=true',
        '/api/users-loaded?all=yes',
        '/api/users-loaded?all=true&page=2',
      ]) {
        const res = await svc.get(url);
        expect(res.status).toBe(422);
      }
    });

    it('all=true unlimited streams every record through the transformer', async () => {
      const res = await svc.get('/api/users-unlimited?all=true&include=roles&count=posts&sort=name');
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(visibleUsers.length);
      for (const record of res.body as Rec[]) {
        const id = record.id as number;
        expect(record.upper).toBe(users.find((u) => u.id === id)?.name.toUpperCase());
        expect((record.roles as Rec[]).map((r) => r.id)).toEqual(
          [...(userRoles[id] ?? [])].sort((a, b) => a - b),
        );
        expect(record.posts_count).toBe(liveposts.filter((p) => p.user_id === id).length);
      }
    });
  });
}

/** Inserts users shaped like the fixture's, with ids from `firstId`. */
async function insertUsers(
  svc: ReturnType<typeof useService>,
  firstId: number,
  count: number,
  createdAt: (i: number) => string,
) {
  const { db, dialect } = svc.conn;
  for (let start = 0; start < count; start += 500) {
    const rows = Array.from({ length: Math.min(500, count - start) }, (_, k) => {
      const i = start + k;
      const id = firstId + i;
      return {
        id,
        name: `Bulk ${String(i).padStart(5, '0')}`,
        email: `bulk${id}@example.net`,
        status: 'active',
        score: i % 101,
        balance: i,
        is_admin: dialect.bindBoolean(false),
        birthday: null,
        settings: null,
        department_id: null,
        password_hash: 'x',
        created_at: dialect.bindDatetime(createdAt(i)),
        updated_at: dialect.bindDatetime(createdAt(i)),
        deleted_at: null,
      };
    });
    await db.insertInto('users').values(rows).execute();
  }
}

for (const target of serviceTargets) {
  const { dialect, host } = target;
  describe(`cursor stability and streaming on ${targetName(target)}`, () => {
    const svc = useService(dialect, 'stream', {}, host);

    it('returns every record that existed at the start exactly once when rows are inserted mid-walk', async () => {
      for (const sort of ['', 'created_at']) {
        const seen: number[] = [];
        let url: string | null =
          `/api/users-loaded?pagination=cursor&per_page=2${sort ? `&sort=${sort}` : ''}`;
        let page = 0;
        while (url) {
          const res = await svc.get(url.replace(/^https?:\/\/[^/]+/, ''));
          seen.push(...res.body.data.map((r: Rec) => r.id));
          url = res.body.next_page_url;
          page += 1;
          if (page === 1) {
            // Before and after the cursor in both orders: the newest and the oldest records.
            const base = sort ? 200 : 100;
            await insertUsers(svc, base, 2, (i) =>
              i === 0 ? '2030-01-01T00:00:00.000Z' : '2001-01-01T00:00:00.000Z',
            );
          }
        }
        const original = visibleUsers.map((u) => u.id);
        for (const id of original) expect(seen.filter((s) => s === id)).toHaveLength(1);
        expect(new Set(seen).size).toBe(seen.length);
      }
    });

    it('streams more rows than one batch, in order, each once', async () => {
      await insertUsers(svc, 1000, 2100, (i) => new Date(Date.UTC(2022, 0, 1) + i * 60_000).toISOString());
      const links = Array.from({ length: 2100 }, (_, i) => ({ user_id: 1000 + i, role_id: 1 + (i % 4) }));
      for (let i = 0; i < links.length; i += 500)
        await svc.conn.db
          .insertInto('role_user')
          .values(links.slice(i, i + 500))
          .execute();
      // With 2,000+ users: the includes cost the same number of queries for 1 parent and for 100.
      const measured: number[] = [];
      for (const perPage of [1, 100]) {
        const { data, statements } = await countedGet(
          svc,
          `/api/users-loaded?include=roles,roles.permissions,posts&per_page=${perPage}`,
        );
        expect(data).toHaveLength(perPage);
        expect(data.every((r) => typeof r.label === 'string' && Array.isArray(r.roles))).toBe(true);
        measured.push(statements);
      }
      expect(measured).toEqual([5, 5]);
      const res = await svc.get('/api/users-unlimited?all=true&filter[status]=active');
      expect(res.status).toBe(200);
      const ids = (res.body as Rec[]).map((r) => r.id as number);
      const total = await svc.get('/api/users-loaded?filter[status]=active&per_page=1');
      expect(ids).toHaveLength(total.body.total);
      expect(ids.length).toBeGreaterThan(2100);
      expect([...ids].sort((a, b) => b - a)).toEqual(ids);
      expect(new Set(ids).size).toBe(ids.length);
    });
  });
}

for (const dialect of dialects) {
  describe(`repeated query strings on ${dialect}`, () => {
    const svc = useService(dialect, 'repeated');

    it('answers a repeated query string as the first time, never with another query string’s plan', async () => {
      const a = '/api/users-loaded?filter[status]=active&sort=-score&per_page=3';
      const b = '/api/users-loaded?filter[status]=inactive&sort=-score&per_page=3';
      const first = await svc.get(a);
      const other = await svc.get(b);
      const again = await svc.get(a);
      expect(first.status).toBe(200);
      expect(again.body).toEqual(first.body);
      expect(other.body.data.map((r: Rec) => r.status)).not.toContain('active');
      expect(first.body.data.map((r: Rec) => r.status)).toEqual(['active', 'active', 'active']);
      // A page later in the walk is its own query string (its cursor), answered with its own rows.
      const cursor = await svc.get('/api/users-loaded?pagination=cursor&per_page=2&sort=name');
      const next = cursor.body.next_page_url.replace(/^https?:\/\/[^/]+/, '');
      const second = await svc.get(next);
      expect(second.body.data.map((r: Rec) => r.id)).not.toEqual(cursor.body.data.map((r: Rec) => r.id));
      expect((await svc.get(next)).body).toEqual(second.body);
    });

    it('refuses a refused query string every time', async () => {
      for (let i = 0; i < 3; i++) {
        const res = await svc.get('/api/users-loaded?filter[password_hash]=x');
        expect(res.status).toBe(422);
        expect(Object.keys(res.body.errors)).toEqual(['filter.password_hash']);
      }
    });
  });
}
