import { scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { DemoContext } from '../examples/demo/auth.js';
import { endpoints as demoEndpoints } from '../examples/demo/endpoints.js';
import type { EndpointPolicy } from '../src/resource/policy.js';
import { users } from './support/fixture.js';
import { serviceTargets, targetName, useService } from './support/service.js';

type Rec = Record<string, unknown>;

const demoUsers = demoEndpoints[0] as EndpointPolicy<DemoContext>;
// The demo's users endpoint, with a transformer, so PATCH responses show they go through it.
const endpoints: EndpointPolicy<DemoContext>[] = [
  { ...demoUsers, response: (user) => ({ ...user, label: `${String(user.name)} <${String(user.email)}>` }) },
  ...demoEndpoints.slice(1),
];

/** A value each filter kind accepts, shaped for the operator. */
function sample(kind: string, op: string): string {
  const one: Record<string, string> = {
    string: 'a',
    integer: '1',
    decimal: '1.5',
    boolean: 'true',
    date: '2024-01-01',
    datetime: '2024-01-01T00:00:00Z',
    'json-path': 'a',
    custom: 'example.com',
  };
  if (['is_null', 'is_not_null', 'is_empty', 'is_not_empty'].includes(op)) return 'true';
  if (op === 'year') return '2024';
  if (op === 'date_eq') return '2024-01-01';
  if (op === 'date_between') return '2024-01-01,2024-12-31';
  const value = one[kind] ?? 'a';
  if (['in', 'not_in', 'between', 'not_between'].includes(op)) return `${value},${value}`;
  return value;
}

for (const target of serviceTargets) {
  const { dialect, host } = target;
  describe(`schema document on ${targetName(target)}`, () => {
    const svc = useService(dialect, 'schema', { endpoints }, host);

    it('has the shape of spec 2.4', async () => {
      const res = await svc.get('/api/v1/users/schema');
      expect(res.status).toBe(200);
      const { table, form, detail } = res.body;
      expect(Object.keys(res.body).sort()).toEqual(['detail', 'form', 'table']);
      expect(typeof table.id).toBe('string');
      expect(typeof table.title).toBe('string');
      expect(table.softDeletes).toEqual({ enabled: true });
      // What `fields` may name, by owner: every visible column of the users and of each allowed include.
      expect(Object.keys(table.fields).sort()).toEqual(
        [
          'users',
          ...(demoUsers.allowedIncludes ?? []).flatMap((path) =>
            path.split('.').map((_, i, all) => all.slice(0, i + 1).join('.')),
          ),
        ]
          .filter((owner, i, all) => all.indexOf(owner) === i)
          .sort(),
      );
      expect(table.fields.users).toContain('email');
      expect(table.fields.users).not.toContain('password_hash');
      // What each include may be constrained by: its filters (with operators), sorts and limits.
      expect(Object.keys(table.includeConstraints).sort()).toEqual(['posts', 'posts.comments']);
      const posts = table.includeConstraints.posts;
      expect(posts.filters.map((f: Rec) => f.name)).toEqual(['status', 'created_at', 'published']);
      expect(posts.filters.find((f: Rec) => f.name === 'created_at').operators).toContain('gte');
      expect(posts).toMatchObject({ sorts: ['created_at', 'score'], maxLimit: null, largestLimit: 1000 });
      for (const column of table.columns) {
        expect(Object.keys(column).sort()).toEqual([
          'formatOptions',
          'key',
          'label',
          'searchable',
          'sortable',
          'type',
        ]);
        expect(['number', 'text', 'badge', 'date', 'datetime', 'boolean', 'json']).toContain(column.type);
      }
      const status = table.columns.find((c: Rec) => c.key === 'status');
      expect(status.type).toBe('badge');
      expect(status.formatOptions.colorMap).toEqual({ active: 'green', inactive: 'gray', banned: 'red' });
      expect(form.endpoint).toBe('/api/users');
      for (const input of form.inputs) {
        expect(typeof input.name).toBe('string');
        expect(typeof input.label).toBe('string');
        expect([
          'text',
          'email',
          'password',
          'textarea',
          'select',
          'checkbox',
          'switch',
          'date',
          'number',
        ]).toContain(input.type);
        expect(Number.isInteger(input.cols) && Number.isInteger(input.md)).toBe(true);
        expect(typeof input.required).toBe('boolean');
      }
      const score = form.inputs.find((i: Rec) => i.name === 'score');
      expect(score.visibleWhen).toEqual({ field: 'status', operator: '!==', is: 'banned' });
      expect(form.inputs.find((i: Rec) => i.name === 'status').options).toHaveLength(3);
      expect(typeof detail.id).toBe('string');
      expect(detail.fields.map((f: Rec) => f.key)).toContain('email');
      expect(JSON.stringify(res.body)).not.toContain('password_hash');
    });

    it('lists the resources that have a schema', async () => {
      const res = await svc.get('/api/v1/schema');
      expect(res.status).toBe(200);
      expect(res.body.resources.map((r: Rec) => r.path)).toEqual(['users', 'posts']);
      for (const entry of res.body.resources) expect((await svc.get(entry.schema)).status).toBe(200);
    });

    it('agrees with the list endpoint: sortable, searchable, soft deletes', async () => {
      for (const [path, policy] of [
        ['users', demoUsers],
        ['posts', demoEndpoints[1] as EndpointPolicy],
      ] as const) {
        const { body } = await svc.get(`/api/v1/${path}/schema`);
        for (const column of body.table.columns) {
          expect(column.sortable).toBe((policy.allowedSorts ?? []).includes(column.key));
          expect(column.searchable).toBe((policy.allowedSearch ?? []).includes(column.key));
          if (column.sortable) expect((await svc.get(`/api/${path}?sort=-${column.key}`)).status).toBe(200);
          else expect((await svc.get(`/api/${path}?sort=${column.key}`)).status).toBe(422);
        }
        expect(body.table.softDeletes.enabled).toBe((policy.allowedFilters ?? []).includes('trashed'));
        // Exports: offered exactly where allowAll is set, with its maximum; each one offered answers.
        expect(body.table.exports).toEqual(policy.allowAll === undefined ? [] : ['csv', 'ndjson']);
        expect(body.table.exportMax).toBe(typeof policy.allowAll === 'number' ? policy.allowAll : null);
        for (const format of ['csv', 'ndjson'])
          expect((await svc.get(`/api/${path}?format=${format}`)).status, `${path} ${format}`).toBe(
            body.table.exports.includes(format) ? 200 : 422,
          );
      }
      const comments = await svc.get('/api/v1/comments/schema');
      expect(comments.status).toBe(404);
    });

    it('lists only filters and operators the list endpoint accepts, and every one of them', async () => {
      const { body } = await svc.get('/api/v1/users/schema');
      const names = body.table.filters.map((f: Rec) => f.name);
      for (const expected of [
        'name',
        'status',
        'roles.name',
        'roles.permissions.name',
        'settings.*',
        'active',
        'trashed',
        'email_domain',
        'posts.title',
      ])
        expect(names).toContain(expected);
      expect(names).not.toContain('password_hash');
      let requests = 0;
      // Which operators a filter takes is the service's, the same behind every host: each one on the
      // three databases; through a host adapter (which only carries the request), each filter with its
      // first operator and the refusal of one it does not list.
      const throughHost = host !== 'standalone';
      for (const filter of body.table.filters as { name: string; value: string; operators: string[] }[]) {
        const name = filter.name.endsWith('.*') ? `${filter.name.slice(0, -2)}.theme` : filter.name;
        for (const op of throughHost ? filter.operators.slice(0, 1) : filter.operators) {
          const value = sample(filter.value, op);
          const url =
            op === 'eq'
              ? `/api/users?filter[${name}]=${value}`
              : `/api/users?filter[${name}][${op}]=${value}`;
          const res = await svc.get(url);
          expect(res.status, `${url} → ${JSON.stringify(res.body)}`).toBe(200);
          requests += 1;
        }
        // An operator the schema does not list is refused.
        if (!filter.operators.includes('contains') && filter.value !== 'custom') {
          const res = await svc.get(`/api/users?filter[${name}][contains]=a`);
          expect(res.status).toBe(422);
        }
      }
      expect(requests).toBeGreaterThan(throughHost ? 10 : 100);
      const statusFilter = body.table.filters.find((f: Rec) => f.name === 'status');
      expect(statusFilter.options.map((o: Rec) => o.value)).toEqual(['active', 'inactive', 'banned']);
    });

    it('gives tabs whose query strings the list endpoint accepts', async () => {
      const { body } = await svc.get('/api/v1/users/schema');
      expect(body.table.tabs.length).toBeGreaterThan(1);
      for (const tab of body.table.tabs) {
        const res = await svc.get(`/api/users?${tab.query}`);
        expect(res.status).toBe(200);
      }
      const top = body.table.tabs.find((t: Rec) => t.key === 'top');
      const res = await svc.get(`/api/users?${top.query}&per_page=100`);
      expect(res.body.data.every((u: Rec) => (u.score as number) >= 90)).toBe(true);
    });
  });

  describe(`PATCH on ${targetName(target)}`, () => {
    const svc = useService(dialect, 'patch', { endpoints }, host);
    const patch = async (id: number | string, body: unknown, contentType = 'application/json') => {
      const res = await svc.inject({
        method: 'PATCH',
        url: `/api/users/${id}`,
        headers: { 'content-type': contentType },
        payload: typeof body === 'string' ? body : JSON.stringify(body),
      });
      return { status: res.statusCode, body: res.json() };
    };
    const stored = async (id: number) =>
      (await svc.conn.db
        .selectFrom('users')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow()) as Rec;

    it('saves only the sent fields; omitted required fields are ignored', async () => {
      const before = await stored(1);
      const res = await patch(1, { birthday: '1991-02-03' });
      expect(res.status).toBe(200);
      expect(res.body.birthday).toBe('1991-02-03');
      expect(res.body.label).toBe(`${users[0]?.name} <${users[0]?.email}>`);
      const after = await stored(1);
      expect(String(after.birthday).slice(0, 10)).toBe('1991-02-03');
      for (const column of ['name', 'email', 'status', 'score', 'password_hash', 'settings'])
        expect(after[column]).toEqual(before[column]);
      const list = await svc.get('/api/users?filter[birthday]=1991-02-03');
      expect(list.body.data.map((u: Rec) => u.id)).toEqual([1]);
    });

    it('validates from the form inputs, every problem at once, keyed by field', async () => {
      const before = await stored(1);
      const res = await patch(1, {
        email: 'not-an-email',
        name: '',
        status: 'deleted',
        is_admin: 'yes',
        birthday: '2024-02-30',
        score: '12',
        password_hash: 'x',
        id: 9,
        password: 'short',
      });
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors).sort()).toEqual(
        [
          'birthday',
          'email',
          'id',
          'is_admin',
          'name',
          'password',
          'password_hash',
          'score',
          'status',
        ].sort(),
      );
      expect(res.body.errors.name[0]).toContain('required');
      expect(res.body.errors.email[0]).toContain('email');
      expect(res.body.message).toContain('(and 8 more errors)');
      expect(await stored(1)).toEqual(before);
    });

    it('applies visibleWhen to the stored record merged with the patch', async () => {
      // User 1 is active: score is visible, so required, and sending it empty is refused.
      expect((await patch(1, { score: '' })).body.errors.score[0]).toContain('required');
      expect((await patch(1, { score: 33 })).body.score).toBe(33);
      // Banning in the same patch hides score: it is neither required nor saved.
      const banned = await patch(1, { status: 'banned', score: 99 });
      expect(banned.status).toBe(200);
      expect(banned.body.status).toBe('banned');
      expect(banned.body.score).toBe(33);
      expect((await patch(1, { score: '' })).status).toBe(200);
      // `in`: balance is shown for active and inactive users only.
      expect((await patch(1, { balance: 5 })).body.balance).not.toBe(5);
      expect((await patch(1, { status: 'inactive', balance: 5 })).body.balance).toBe(5);
    });

    it('hashes passwords with scrypt and never returns them', async () => {
      const res = await patch(2, { password: 'correct horse battery' });
      expect(res.status).toBe(200);
      expect(JSON.stringify(res.body)).not.toMatch(/password|scrypt/);
      const hash = String((await stored(2)).password_hash);
      const [scheme, n, r, p, salt, key] = hash.split('$');
      expect(scheme).toBe('scrypt');
      const derived = scryptSync('correct horse battery', Buffer.from(salt as string, 'base64url'), 32, {
        N: Number(n),
        r: Number(r),
        p: Number(p),
      });
      expect(derived.toString('base64url')).toBe(key);
    });

    it('answers 404, 415, 413 and 422 with the JSON envelope', async () => {
      for (const id of [99999, 7, 'abc', '1.5']) {
        const res = await patch(id, { name: 'X' });
        expect(res.status).toBe(404);
        expect(typeof res.body.message).toBe('string');
        expect(res.body).toHaveProperty('errors');
      }
      const text = await patch(1, 'name=X', 'text/plain');
      expect(text.status).toBe(415);
      expect(typeof text.body.message).toBe('string');
      expect((await patch(1, '[1,2]')).status).toBe(422);
      expect((await patch(1, '{"name":')).status).toBe(400);
      const big = await patch(1, { name: 'x'.repeat(70 * 1024) });
      expect(big.status).toBe(413);
      expect((await stored(1)).name).toBe(users[0]?.name);
    });
  });
}
