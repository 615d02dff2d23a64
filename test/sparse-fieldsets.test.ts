import { describe, expect, it } from 'vitest';
import { defineEndpoint } from '../src/resource/policy.js';
import { buildService } from '../src/server/standalone.js';
import { dialects } from './support/databases.js';
import { useService } from './support/service.js';

/**
 * Sparse fieldsets (`fields[users]=name&fields[roles]=name`): only what is asked is answered, the key
 * always; what the service needs for its own work (include keys, cursor values) is read, not answered.
 */

type Row = Record<string, unknown>;

const endpoints = [
  defineEndpoint({
    resource: 'users',
    allowedIncludes: ['department', 'roles', 'posts.comments'],
    allowedCounts: ['posts'],
    allowedSorts: ['name', 'score', 'created_at'],
    allowedFilters: ['status'],
    allowAll: 1000,
  }),
  defineEndpoint({
    resource: 'users',
    path: 'users-narrow',
    allowedIncludes: ['department'],
    allowedFields: ['name', 'email', 'department.name'],
  }),
  defineEndpoint({
    resource: 'users',
    path: 'users-shaped',
    allowedIncludes: ['department'],
    // The transformer receives what was selected.
    response: (record) => ({ ...record, seen: Object.keys(record).sort().join(',') }),
  }),
];

for (const dialect of dialects)
  describe(`sparse fieldsets on ${dialect}`, () => {
    const service = useService(dialect, 'fieldsets', { endpoints, context: undefined });
    const ok = async (url: string) => {
      const res = await service.inject({ method: 'GET', url });
      expect(res.statusCode, res.body).toBe(200);
      return res;
    };
    const page = async (url: string) => (await ok(url)).json() as { data: Row[] } & Row;
    const refused = async (url: string) => {
      const res = await service.inject({ method: 'GET', url });
      expect(res.statusCode, res.body).toBe(422);
      return res.json().errors as Record<string, string[]>;
    };

    it('answers only the fields asked for, and the key, in every pagination mode', async () => {
      const full = await page('/api/users?sort=name&per_page=5');
      expect(full.data).toHaveLength(5);
      for (const query of ['', '&pagination=simple', '&pagination=cursor']) {
        const body = await page(`/api/users?fields[users]=name,email&sort=name&per_page=5${query}`);
        expect(body.data).toHaveLength(5);
        expect(body.data.map((row) => Object.keys(row))).toEqual(
          body.data.map(() => ['id', 'name', 'email']),
        );
        expect(body.data).toEqual(full.data.map(({ id, name, email }) => ({ id, name, email })));
      }
      // A bare `fields` is the records' too.
      const bare = await page('/api/users?fields=name&sort=name&per_page=5');
      expect(bare.data).toEqual(full.data.map(({ id, name }) => ({ id, name })));
      const all = await ok('/api/users?fields[users]=score&all=true&sort=name');
      expect(all.json()).toEqual(
        (await page('/api/users?sort=name&per_page=100')).data.map(({ id, score }) => ({ id, score })),
      );
    });

    it('walks cursor pages sorted by a field it does not answer', async () => {
      const expected = (await page('/api/users?sort=-score,name&per_page=100')).data.map((row) => row.id);
      const seen: unknown[] = [];
      let url: string | null = '/api/users?fields[users]=name&sort=-score,name&per_page=4&pagination=cursor';
      while (url) {
        const body = (await page(url)) as { data: Row[]; next_page_url: string | null };
        expect(body.data.length).toBeGreaterThan(0);
        for (const row of body.data) expect(Object.keys(row)).toEqual(['id', 'name']);
        seen.push(...body.data.map((row) => row.id));
        url = body.next_page_url ? body.next_page_url.replace(/^https?:\/\/[^/]+/, '') : null;
      }
      expect(seen).toEqual(expected);
    });

    it('reads the keys includes need without answering them, and narrows each include', async () => {
      const full = await page('/api/users?include=department,roles&sort=name&per_page=10');
      const body = await page(
        '/api/users?fields[users]=name&fields[department]=name&fields[roles]=label&include=department,roles&sort=name&per_page=10',
      );
      expect(body.data).toEqual(
        full.data.map((row) => ({
          id: row.id,
          name: row.name,
          department:
            row.department === null
              ? null
              : { id: (row.department as Row).id, name: (row.department as Row).name },
          roles: (row.roles as Row[]).map((role) => ({ id: role.id, label: role.label })),
        })),
      );
      // Nested: the posts' key links their comments, answered or not.
      const nested = await page(
        '/api/users?fields[users]=name&fields[posts]=title&fields[posts.comments]=body&include=posts.comments&sort=name&per_page=10',
      );
      const whole = await page('/api/users?include=posts.comments&sort=name&per_page=10');
      expect(nested.data).toEqual(
        whole.data.map((row) => ({
          id: row.id,
          name: row.name,
          posts: (row.posts as Row[]).map((post) => ({
            id: post.id,
            title: post.title,
            comments: (post.comments as Row[]).map((comment) => ({ id: comment.id, body: comment.body })),
          })),
        })),
      );
      // Counts are asked for by `count`, as ever.
      const counted = await page('/api/users?fields[users]=name&count=posts&sort=name&per_page=3');
      expect(Object.keys(counted.data[0] ?? {})).toEqual(['id', 'name', 'posts_count']);
    });

    it('reads one record by its fields, with that answer’s ETag (no write takes it)', async () => {
      const whole = await ok('/api/users/2');
      const part = await ok('/api/users/2?fields[users]=email&include=department&fields[department]=code');
      const record = whole.json() as Row;
      expect(Object.keys(part.json())).toEqual(['id', 'email', 'department']);
      expect((part.json() as Row).email).toBe(record.email);
      expect(part.headers.etag).not.toBe(whole.headers.etag);
      const again = await service.inject({
        method: 'GET',
        url: '/api/users/2?fields[users]=email&include=department&fields[department]=code',
        headers: { 'if-none-match': String(part.headers.etag) },
      });
      expect(again.statusCode).toBe(304);
    });

    it('refuses fields outside the whitelist, for owners not included, and empty ones, keyed by owner', async () => {
      expect(Object.keys(await refused('/api/users?fields[users]=name,password_hash'))).toEqual([
        'fields.users',
      ]);
      expect((await refused('/api/users?fields[users]=name,password_hash'))['fields.users']?.[0]).toMatch(
        /"password_hash" cannot be selected\. Allowed fields: id, name/,
      );
      expect(Object.keys(await refused('/api/users?fields[roles]=name'))).toEqual(['fields.roles']);
      expect((await refused('/api/users?fields[roles]=name'))['fields.roles']?.[0]).toMatch(
        /add include=roles/,
      );
      expect(Object.keys(await refused('/api/users?fields[nope]=name'))).toEqual(['fields.nope']);
      expect(Object.keys(await refused('/api/users?fields[users]=,'))).toEqual(['fields.users']);
      expect(Object.keys(await refused('/api/users-narrow?fields[users]=score'))).toEqual(['fields.users']);
      expect(
        Object.keys(await refused('/api/users-narrow?fields[department]=code&include=department')),
      ).toEqual(['fields.department']);
      // Within the narrow whitelist.
      const narrow = await page(
        '/api/users-narrow?fields[users]=email&fields[department]=name&include=department&per_page=3',
      );
      expect(narrow.data).toHaveLength(3);
      for (const row of narrow.data) expect(Object.keys(row)).toEqual(['id', 'email', 'department']);
    });

    it('gives the transformer what was selected', async () => {
      const body = await page(
        '/api/users-shaped?fields[users]=name&include=department&fields[department]=name&per_page=2',
      );
      expect(body.data).toHaveLength(2);
      for (const row of body.data) expect(row.seen).toBe('department,id,name');
    });

    it('moves fewer bytes', async () => {
      const whole = await ok('/api/users?per_page=100');
      const part = await ok('/api/users?fields[users]=name&per_page=100');
      expect(part.body.length).toBeLessThan(whole.body.length / 3);
    });
  });

describe('allowedFields at start-up', () => {
  const service = useService('sqlite', 'fieldsets_config', { context: undefined });

  it('refuses a field that is not a visible column or whose owner is not an allowed include', async () => {
    for (const [allowedFields, message] of [
      [['password_hash'], /not a visible column of "users"/],
      [['roles.name'], /"roles" is not an allowed include/],
    ] as const)
      await expect(
        buildService({
          config: {
            resources: (await import('../examples/demo/resources.js')).resources,
            endpoints: [defineEndpoint({ resource: 'users', allowedFields: [...allowedFields] })],
          },
          connection: service.conn,
        }),
      ).rejects.toThrow(message);
  });
});
