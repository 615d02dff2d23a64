import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSchema } from '../examples/demo/schema.js';
import { seedDemo } from '../examples/demo/seed.js';
import * as expressExample from '../examples/hosts/express.js';
import * as fastifyExample from '../examples/hosts/fastify.js';
import * as fetchExample from '../examples/hosts/fetch.js';
import * as honoExample from '../examples/hosts/hono.js';
import type { Started, StartOptions } from '../examples/hosts/run.js';
import { apiKeys } from '../examples/hosts/tenancy.js';
import type { Connection } from '../src/sql/connect.js';
import { freshDatabase } from './support/databases.js';
import { type Shown, shownRequests } from './support/docs-shown.js';
import * as fixture from './support/fixture.js';

/**
 * The example applications of examples/hosts (docs/hosts.md, "Use it in your application"), each
 * started as written, on a fresh SQLite database, and used over real HTTP.
 */
const examples: Record<string, { start(options: StartOptions): Promise<Started> }> = {
  fastify: fastifyExample,
  express: expressExample,
  hono: honoExample,
  fetch: fetchExample,
};

const ENG_EDITOR = 'eng-editor-key';
const ENG_VIEWER = 'eng-viewer-key';
const SALES_EDITOR = 'sales-editor-key';

/** The fixture's rows a tenant (department) may see, computed without SQL. */
function tenantUsers(tenantId: number) {
  return fixture.users.filter((user) => user.department_id === tenantId && user.deleted_at === null);
}
function tenantPosts(tenantId: number) {
  // A post is its author's department's (the scope reads the users table itself, deleted authors too).
  const members = new Set(
    fixture.users.filter((user) => user.department_id === tenantId).map((user) => user.id),
  );
  return fixture.posts.filter((post) => members.has(post.user_id) && post.deleted_at === null);
}
const byIdDesc = (a: { id: number }, b: { id: number }) => b.id - a.id;

/**
 * The requests docs/hosts.md shows to the example applications (its sh block whose requests carry an
 * `x-api-key`), with `$ID` — "an id the first command listed" — left to fill in.
 */
const ID = '{ID}';
const documented = shownRequests(
  ['docs/hosts.md'],
  (requests) => requests.some((shown) => 'x-api-key' in shown.headers),
  { ID },
);

describe.each(Object.keys(examples))('examples/hosts/%s.ts', (name) => {
  let connection: Connection;
  let app: Started;

  beforeAll(async () => {
    connection = await freshDatabase('sqlite', `examples_${name}`);
    await createSchema(connection);
    await fixture.insertFixture(connection);
    app = await (examples[name] as (typeof examples)[string]).start({ connection });
  });
  afterAll(async () => {
    await app?.close();
    await connection?.db.destroy();
  });

  const call = async (path: string, key?: string, init: { method?: string; body?: unknown } = {}) => {
    const headers: Record<string, string> = key ? { 'x-api-key': key } : {};
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${app.url}${path}`, {
      method: init.method ?? 'GET',
      headers,
      ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
    });
    // biome-ignore lint/suspicious/noExplicitAny: the tests assert on whatever JSON came back.
    const body: any = await response.json();
    return { status: response.status, headers: response.headers, body };
  };

  it("serves the application's own route, with the application's user", async () => {
    expect(await call('/me', ENG_VIEWER)).toMatchObject({ status: 200, body: { user: apiKeys[ENG_VIEWER] } });
    expect(await call('/me')).toMatchObject({ status: 200, body: { user: null } });
    expect((await call('/me', 'no-such-key')).status).toBe(401);
  });

  it("lists only the signed-in user's tenant: rows, totals, counts, includes", async () => {
    for (const [key, tenantId] of [
      [ENG_VIEWER, 1],
      [SALES_EDITOR, 2],
    ] as const) {
      const expected = tenantUsers(tenantId).sort(byIdDesc);
      const users = await call('/api/users?count=posts&include=department', key);
      expect(users.status).toBe(200);
      expect(users.body.total).toBe(expected.length);
      expect(users.body.data.map((user: { id: number }) => user.id)).toEqual(expected.map((user) => user.id));
      for (const user of users.body.data) {
        expect(user.department).toMatchObject({ id: tenantId });
        expect(user.posts_count).toBe(
          tenantPosts(tenantId).filter((post) => post.user_id === user.id).length,
        );
      }

      const posts = await call('/api/posts?include=author', key);
      expect(posts.status).toBe(200);
      const expectedPosts = tenantPosts(tenantId).sort((a, b) => b.created_at.localeCompare(a.created_at));
      expect(posts.body.data.map((post: { id: number }) => post.id)).toEqual(
        expectedPosts.map((post) => post.id),
      );

      const departments = await call('/api/departments?count=users', key);
      expect(departments.body.data).toEqual([
        expect.objectContaining({ id: tenantId, users_count: tenantUsers(tenantId).length }),
      ]);
    }
  });

  it("never reaches another tenant's rows through relation filters or search", async () => {
    // Post 5 ("Hello again") is by user 5, of department 3.
    const other = fixture.posts.find((post) => post.id === 5);
    expect(fixture.users.find((user) => user.id === other?.user_id)?.department_id).toBe(3);
    const filtered = await call(
      `/api/users?filter[posts.title]=${encodeURIComponent('Hello again')}`,
      ENG_EDITOR,
    );
    expect(filtered.body).toMatchObject({ total: 0, data: [] });
    const searched = await call('/api/posts?search=again', ENG_EDITOR);
    expect(searched.body).toMatchObject({ total: 0, data: [] });
  });

  it('answers 401 to an anonymous request, before any data', async () => {
    const users = await call('/api/users');
    expect(users.status).toBe(401);
    expect(users.headers.get('www-authenticate')).toBe('Bearer');
    expect((await call('/api/v1/users/schema')).status).toBe(401);
    expect((await call('/api/users/1', undefined, { method: 'PATCH', body: { name: 'x' } })).status).toBe(
      401,
    );
  });

  it("lets an editor update their tenant's records, not a viewer, not another tenant's", async () => {
    const updated = await call('/api/users/1', ENG_EDITOR, {
      method: 'PATCH',
      body: { name: `Anna (${name})` },
    });
    expect(updated).toMatchObject({ status: 200, body: { id: 1, name: `Anna (${name})` } });
    const listed = await call(`/api/users?filter[name]=${encodeURIComponent(`Anna (${name})`)}`, ENG_VIEWER);
    expect(listed.body.data.map((user: { id: number }) => user.id)).toEqual([1]);

    const denied = await call('/api/users/1', ENG_VIEWER, { method: 'PATCH', body: { name: 'Viewer' } });
    expect(denied).toMatchObject({ status: 403, body: { errors: { access: [expect.any(String)] } } });
    // User 2 is in Sales: for Engineering it does not exist.
    const elsewhere = await call('/api/users/2', ENG_EDITOR, { method: 'PATCH', body: { name: 'Taken' } });
    expect(elsewhere.status).toBe(404);
    const row = await connection.db.selectFrom('users').select('name').where('id', '=', 2).executeTakeFirst();
    expect(row?.name).toBe(fixture.users.find((user) => user.id === 2)?.name);
  });

  it("answers docs/hosts.md's requests as its comments say, on the demo's tables", async () => {
    expect(documented.length).toBeGreaterThanOrEqual(5);
    const demo = await freshDatabase('sqlite', `examples_docs_${name}`);
    await createSchema(demo);
    await seedDemo(demo);
    let documentedApp: Started | undefined;
    try {
      documentedApp = await (examples[name] as (typeof examples)[string]).start({ connection: demo });
      const url = documentedApp.url;
      const send = (shown: Shown, id: number) =>
        fetch(`${url}${decodeURI(shown.url.pathname).replace(ID, String(id))}${shown.url.search}`, {
          method: shown.method,
          headers: shown.headers,
          ...(shown.body !== undefined && { body: shown.body }),
        });
      const [first] = documented as [Shown];
      const listed = (await (await send(first, 0)).json()) as { data: { id: number }[] };
      const id = listed.data[0]?.id as number;
      expect(id).toBeGreaterThan(0);
      for (const shown of documented) {
        const response = await send(shown, id);
        const label = `${shown.where} ${shown.method} ${shown.url.pathname}`;
        if (shown.status === undefined) expect(response.ok, label).toBe(true);
        else expect(response.status, label).toBe(shown.status);
      }
      // "404 for another tenant's": a user of another department, as the editor's tenant sees it.
      const patch = documented.find((shown) => decodeURI(shown.url.pathname).includes(ID)) as Shown;
      const tenant = (apiKeys[patch.headers['x-api-key'] as string] as { tenantId: number }).tenantId;
      const other = await demo.db
        .selectFrom('users')
        .select('id')
        .where('department_id', '!=', tenant)
        .executeTakeFirstOrThrow();
      expect((await send(patch, other.id)).status).toBe(404);
    } finally {
      await documentedApp?.close();
      await demo.db.destroy();
    }
  });

  it('gives the viewer a read-only schema document, the editor the form', async () => {
    const viewer = await call('/api/v1/users/schema', ENG_VIEWER);
    expect(viewer.status).toBe(200);
    expect(viewer.body.form).toMatchObject({ readOnly: true, inputs: [] });
    const editor = await call('/api/v1/users/schema', ENG_EDITOR);
    expect(editor.body.form.readOnly).toBe(false);
    expect(editor.body.form.inputs.map((input: { name: string }) => input.name)).toEqual([
      'name',
      'email',
      'status',
      'score',
    ]);
  });
});
