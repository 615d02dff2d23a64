import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTypes } from '../src/cli/types.js';
import { createClient, type EndpointRoutes, type ResourceTypes } from '../src/client/index.js';
import { type OpenApiDocument, renderTypes } from '../src/openapi/index.js';
import { openapiEndpoints } from './fixtures/openapi-endpoints.js';
import { builtPackage } from './support/built.js';
import { dialects } from './support/databases.js';
import { codeBlocks } from './support/docs-shown.js';
import { posts, users } from './support/fixture.js';
import { useRecordsService } from './support/records.js';
import type { TestService } from './support/service.js';

const root = resolve(import.meta.dirname, '..');
const run = promisify(execFile);

/** `fetch` through the test service's inject: the typed client talks to the real server's core. */
function fetchThrough(service: TestService): typeof fetch {
  return async (input, init) => {
    const url = new URL(String(input));
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    const response = await service.inject({
      method: init?.method ?? 'GET',
      url: `${url.pathname}${url.search}`,
      headers,
      ...(init?.body !== undefined && init.body !== null ? { payload: String(init.body) } : {}),
    });
    const answer = new Headers();
    for (const [name, value] of Object.entries(response.headers))
      if (typeof value === 'string') answer.set(name, value);
    const empty = response.statusCode === 204 || response.statusCode === 304;
    return new Response(empty ? null : response.body, { status: response.statusCode, headers: answer });
  };
}

/**
 * `tsc` (strict, no emit) on `files` of `directory`, an ES module folder, with this repository's Node
 * types: its exit code and what it printed.
 */
async function typeCheck(directory: string, files: string[]): Promise<{ code: number; output: string }> {
  writeFileSync(join(directory, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(
    join(directory, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2023'],
        types: ['node'],
        typeRoots: [join(root, 'node_modules/@types')],
        strict: true,
        noUncheckedIndexedAccess: true,
        skipLibCheck: true,
        noEmit: true,
        verbatimModuleSyntax: true,
      },
      files,
    }),
  );
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  return run(process.execPath, [tsc, '-p', join(directory, 'tsconfig.json')], { cwd: directory }).then(
    () => ({ code: 0, output: '' }),
    (error: { code: number; stdout: string }) => ({ code: error.code, output: error.stdout }),
  );
}

/** The generated `Resources` of the suite's endpoints, as the runtime sees them (loosely). */
type Api = Record<'users' | 'posts' | 'comment-labels', ResourceTypes & { filter: Record<string, unknown> }>;

describe.each(dialects)('typed client through HTTP (%s)', (dialect) => {
  const service = useRecordsService(dialect, 'typed_client', { endpoints: openapiEndpoints });
  let document: OpenApiDocument;
  let client: ReturnType<typeof createClient<Api>>;

  beforeAll(async () => {
    document = (await service.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    // What the generated `endpoints` holds: the document's paths of each endpoint.
    const endpoints = document['x-resources'] as unknown as Record<keyof Api, EndpointRoutes>;
    client = createClient<Api>(endpoints, { baseUrl: 'http://service.test', fetch: fetchThrough(service) });
  });

  it('lists with a filter object: client.users.list({ filter: { score: { gte: 80 } } })', async () => {
    const page = await client.users.list({ filter: { score: { gte: 80 } }, sort: '-score', per_page: 50 });
    const expected = users.filter((user) => user.score >= 80 && user.deleted_at === null);
    expect(page.total).toBe(expected.length);
    expect(page.data.map((user) => (user as { id: number }).id).sort()).toEqual(
      expected.map((user) => user.id).sort(),
    );
    const grouped = await client.users.list({
      filter: { or: [{ status: 'banned' }, { score: { gte: 95 } }], name: { contains: 'a' } },
      all: true,
    });
    const matches = users.filter(
      (user) =>
        user.deleted_at === null &&
        (user.status === 'banned' || user.score >= 95) &&
        user.name.toLowerCase().includes('a'),
    );
    expect(grouped.map((user) => (user as { id: number }).id).sort()).toEqual(
      matches.map((user) => user.id).sort(),
    );
    const cursor = await client.users.list({ pagination: 'cursor', per_page: 2, sort: 'name' });
    expect(cursor.data).toHaveLength(2);
    expect(typeof cursor.next_cursor).toBe('string');
  });

  it('constrains an include: client.users.list({ include_filter, include_sort, include_limit })', async () => {
    const listed = await client.users.list({
      include: 'posts',
      include_filter: { posts: { score: { gte: 1 }, status: { in: ['published', 'draft'] } } },
      include_sort: { posts: ['-score'] },
      include_limit: { posts: 1 },
      all: true,
    });
    const live = users.filter((user) => user.deleted_at === null).sort((a, b) => b.id - a.id);
    const matching = (id: number) =>
      posts.filter(
        (post) =>
          post.user_id === id &&
          post.deleted_at === null &&
          post.score >= 1 &&
          (post.status === 'published' || post.status === 'draft'),
      );
    expect(
      listed.map((user) => {
        const {
          id,
          posts: first,
          posts_total,
        } = user as { id: number; posts: { id: number }[]; posts_total: number };
        return [id, first.map((post) => post.id), posts_total];
      }),
    ).toEqual(
      live.map((user) => {
        const mine = matching(user.id).sort((a, b) => b.score - a.score || b.id - a.id);
        return [user.id, mine.slice(0, 1).map((post) => post.id), mine.length];
      }),
    );
    expect(listed.some((user) => (user as { posts_total: number }).posts_total > 1)).toBe(true);
    const read = await client.users.read(1, {
      include: 'posts',
      include_limit: { posts: 1 },
      include_sort: { posts: 'score' },
    });
    expect((read.record as { posts_total: number }).posts_total).toBe(
      posts.filter((post) => post.user_id === 1 && post.deleted_at === null).length,
    );
  });

  it('aggregates: client.users.aggregate({ metrics, group_by, filter })', async () => {
    const answer = (await client.users.aggregate({
      metrics: ['count', 'avg:score'],
      group_by: 'status',
      filter: { score: { gte: 10 } },
      sort: '-count',
      limit: 2,
    })) as {
      data: { group: { status: string }; count: number; 'avg:score': string }[];
      meta: { truncated: boolean };
    };
    const rows = users.filter((user) => user.deleted_at === null && user.score >= 10);
    const statuses = [...new Set(rows.map((user) => user.status))];
    const counts = statuses
      .map((status) => ({ status, count: rows.filter((user) => user.status === status).length }))
      .sort((a, b) => b.count - a.count || (a.status < b.status ? -1 : 1));
    expect(answer.data.map((group) => ({ status: group.group.status, count: group.count }))).toEqual(
      counts.slice(0, 2),
    );
    expect(answer.meta.truncated).toBe(statuses.length > 2);
    expect(answer.data[0]?.['avg:score']).toMatch(/^\d+\.\d{4}$/);
  });

  it('reads, creates, updates, deletes and restores a record', async () => {
    const read = await client.users.read(1, { include: 'department', count: 'posts' });
    expect(read.record).toMatchObject({
      id: 1,
      name: users[0]?.name,
      department: { id: users[0]?.department_id },
    });
    expect(read.etag).toBeTruthy();
    const created = await client.users.create({
      name: 'Typed Person',
      email: `typed-${dialect}@example.com`,
      status: 'active',
      score: 42,
    });
    if (!created.ok) throw new Error(created.message);
    const id = (created.record as { id: number }).id;
    const updated = await client.users.update(id, { score: 43 }, { ifMatch: created.etag ?? '' });
    expect(updated.ok && (updated.record as { score: number }).score).toBe(43);
    // The roles set through the typed client: the answer carries the keys as saved.
    const linked = await client.users.update(id, { roles: [2, 1] });
    expect(linked.ok && (linked.record as { roles: unknown }).roles).toEqual([1, 2]);
    const refused = await client.users.create({
      name: 'x',
      email: 'not-an-email',
      status: 'active',
      score: 1,
    });
    expect(refused).toMatchObject({ ok: false, status: 422, errors: { email: expect.any(Array) } });
    expect(await client.users.delete(id)).toEqual({ ok: true });
    const restored = await client.users.restore(id);
    expect((restored.record as { deleted_at: unknown }).deleted_at).toBeNull();
  });

  it('builds an export URL and fetches the export as a Response: client.users.export({ filter }, "csv")', async () => {
    const query = { filter: { status: 'active' }, sort: 'name', fields: { users: ['name'] } } as const;
    const href = client.users.exportUrl(query, 'csv');
    expect(href).toBe(
      'http://service.test/api/users?filter[status]=active&fields[users]=name&sort=name&format=csv',
    );
    const response = await client.users.export(query, 'csv');
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    // The same records as the JSON list of the query.
    const listed = (await client.users.list({ ...query, all: true })) as { id: number; name: string }[];
    expect(listed.length).toBeGreaterThan(1);
    expect((await response.text()).split('\r\n')).toEqual([
      'id,name',
      ...listed.map((user) => `${user.id},${user.name}`),
      '',
    ]);
    const lines = await client.users.export({ filter: { status: 'active' } }, 'ndjson');
    const records = (await lines.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(records).toEqual(await client.users.list({ filter: { status: 'active' }, all: true }));
    // Posts allow no all=true: the refusal is an ApiError keyed format.
    await expect(client.posts.export({}, 'csv')).rejects.toMatchObject({
      status: 422,
      envelope: { errors: { format: expect.any(Array) } },
    });
    // A query past LONG_QUERY goes in the body, with the same answer.
    const long = await client.users.export(
      {
        filter: {
          status: 'active',
          name: { not_in: Array.from({ length: 50 }, (_, i) => `nobody-with-a-rather-long-name-${i}`) },
        },
        sort: 'name',
        fields: { users: ['name'] },
      },
      'csv',
    );
    expect(await long.text()).toBe(await (await client.users.export(query, 'csv')).text());
  });
});

describe('generated types', () => {
  const service = useRecordsService('sqlite', 'typed_client_types', { endpoints: openapiEndpoints });
  let directory: string;
  afterAll(() => {
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  it('type-check the allowed filters and fail to compile on one that is not allowed', async () => {
    const document = (await service.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    directory = mkdtempSync(join(tmpdir(), 'typed-client-'));
    writeFileSync(join(directory, 'api.ts'), renderTypes(document));
    // The client's types as the package publishes them (dist/'s declarations), as an application sees them.
    const client = `import { createClient } from '${builtPackage()}/src/client/index.js';
import { endpoints, type Resources } from './api.js';
export const client = createClient<Resources>(endpoints, { baseUrl: 'http://127.0.0.1:3000' });
`;
    writeFileSync(join(directory, 'client.ts'), client);
    writeFileSync(
      join(directory, 'good.ts'),
      `import { client } from './client.js';
export async function uses(): Promise<void> {
  const page = await client.users.list({
    filter: { score: { gte: 80 }, status: 'active', 'settings.theme': 'dark', or: [{ name: { contains: 'a' } }, { 'department.name': 'Sales' }] },
    include: ['department', 'roles.permissions'],
    count: 'posts',
    sort: '-score',
  });
  const total: number | null = page.total;
  const email: string | undefined = page.data[0]?.email;
  const posts: number | undefined = page.data[0]?.posts_count;
  const cursor = await client.users.list({ pagination: 'cursor', per_page: 5 });
  const next: string | null = cursor.next_cursor;
  const all = await client.users.list({ all: true });
  const first: number | undefined = all[0]?.id;
  const exported: Response = await client.users.export({ filter: { status: 'active' }, sort: '-score' }, 'csv');
  const href: string = client.users.exportUrl({ include: 'department' }, 'ndjson');
  // @ts-expect-error an export has no pages
  client.users.exportUrl({ page: 2 }, 'csv');
  // @ts-expect-error csv or ndjson only
  client.users.exportUrl({}, 'xlsx');
  await client.users.list({ filter: { score: { between: [10, 20] }, birthday: { date_between: ['2024-01-01', '2024-12-31'] } } });
  await client.users.create({ name: 'Ann', email: 'ann@example.com', status: 'active' });
  // A references input: the set of related keys, typed as the related key is.
  await client.users.update(1, { roles: [1, 2] });
  // @ts-expect-error a role's key is a number
  await client.users.update(1, { roles: ['admin'] });
  // @ts-expect-error the whole set, never null
  await client.users.update(1, { roles: null });
  await client.posts.update(1, { title: 'New' }, { ifMatch: '"v1"' });
  const label: string | undefined = (await client['comment-labels'].list()).data[0]?.label;
  const limited = await client.users.list({
    include: 'posts',
    include_filter: { posts: { status: 'published', score: { gte: 2 } } },
    include_sort: { posts: ['-created_at', 'score'] },
    include_limit: { posts: 3 },
  });
  const cut: number | undefined = limited.data[0]?.posts_total;
  await client.users.read(1, { include: 'posts', include_limit: { posts: 2 } });
  // @ts-expect-error title is not an allowed filter of the posts include
  await client.users.list({ include: 'posts', include_filter: { posts: { title: 'x' } } });
  // @ts-expect-error title is not an allowed sort of the posts include
  await client.users.list({ include: 'posts', include_sort: { posts: 'title' } });
  // @ts-expect-error roles takes no constraint
  await client.users.list({ include: 'roles.permissions', include_limit: { roles: 2 } });
  const stats = await client.users.aggregate({
    metrics: ['count', 'sum:balance'],
    group_by: 'created_at:month',
    tz: 'Europe/Berlin',
    from: '2024-01-01',
    to: '2025-01-01',
    sort: '-count',
    having: { count: { gte: 2 } },
    filter: { status: 'active' },
  });
  const counted: number | undefined = stats.data[0]?.count;
  const summed: string | null | undefined = stats.data[0]?.['sum:balance'];
  const month: string | undefined = stats.data[0]?.group['created_at:month'];
  const truncated: boolean = stats.meta.truncated;
  // @ts-expect-error sum:score is not an allowed metric
  await client.users.aggregate({ metrics: 'sum:score' });
  // @ts-expect-error email is not an allowed group
  await client.users.aggregate({ group_by: 'email' });
  // @ts-expect-error avg:balance is not a metric of this endpoint, so having cannot name it
  await client.users.aggregate({ having: { 'avg:balance': { gt: 1 } } });
  // @ts-expect-error password_hash is not an allowed filter
  await client.users.list({ filter: { password_hash: { eq: 'x' } } });
  // @ts-expect-error contains does not apply to an integer column
  await client.users.list({ filter: { score: { contains: '8' } } });
  // @ts-expect-error between takes two values
  await client.users.list({ filter: { score: { between: [10] } } });
  // @ts-expect-error comments is not an allowed include
  await client.users.list({ include: 'comments' });
  // @ts-expect-error email is not an allowed sort
  await client.users.list({ sort: 'email' });
  // @ts-expect-error status takes one of the select's options
  await client.users.create({ name: 'Ann', email: 'ann@example.com', status: 'gone' });
  // @ts-expect-error posts has no create action
  await client.posts.create({ title: 'x' });
  void [total, email, posts, next, first, label, exported, href, cut, counted, summed, month, truncated];
}
`,
    );
    // The same call without the directive: it must fail, and for the filter's name.
    writeFileSync(
      join(directory, 'bad.ts'),
      `import { client } from './client.js';
export const bad = client.users.list({ filter: { password_hash: { eq: 'x' } } });
`,
    );
    const result = await typeCheck(directory, ['good.ts', 'bad.ts']);
    const errors = result.output.split('\n').filter((line) => /error TS\d+/.test(line));
    expect(result.code).not.toBe(0);
    // Every error is the bad call's (good.ts compiles, its @ts-expect-error lines all used).
    expect(errors.length).toBeGreaterThan(0);
    expect(
      errors.every((line) => line.startsWith('bad.ts')),
      result.output,
    ).toBe(true);
    expect(result.output).toContain('password_hash');
  }, 120_000);
});

describe('the types command', () => {
  it('writes the types module of a configuration, and explains its usage', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'types-command-'));
    const previous = process.env.DATABASE_URL;
    const lines: string[] = [];
    const io = { log: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
    try {
      process.env.DATABASE_URL = `sqlite:${join(directory, 'demo.db')}`;
      const out = join(directory, 'api.ts');
      expect(await runTypes(['--config', join(root, 'examples/demo/config.ts'), '--out', out], io)).toBe(0);
      const text = readFileSync(out, 'utf8');
      expect(text).toContain('export interface Resources {');
      expect(text).toMatch(/users: \{\n {4}record: UsersRecord;/);
      expect(text).toContain('export const endpoints = {');
      expect(text).not.toContain('password_hash');
      // The guide's uses of the client — typed by the demo's types (docs/openapi-and-types.md, the call
      // it marks as an expected error refused), and as the admin uses it (docs/admin.md) — compile as written.
      const guides = ['docs/openapi-and-types.md', 'docs/admin.md'].map((document) => {
        const guide = codeBlocks(document, 'ts').find(({ code }) =>
          code.includes("from 'resource-query-service/client'"),
        );
        if (!guide) throw new Error(`${document} shows no use of the client`);
        return guide;
      });
      const files = guides.map((guide, index) => {
        const file = `guide-${index}.ts`;
        writeFileSync(
          join(directory, file),
          guide.code.replace("'resource-query-service/client'", `'${builtPackage()}/src/client/index.js'`),
        );
        return file;
      });
      const checked = await typeCheck(directory, files);
      expect(checked.code, `${guides.map((guide) => guide.where).join(', ')}:\n${checked.output}`).toBe(0);
      expect(await runTypes([], io)).toBe(2);
      expect(lines.at(-1)).toContain('Usage: resource-query-service types');
    } finally {
      if (previous === undefined) delete process.env.DATABASE_URL;
      else process.env.DATABASE_URL = previous;
      rmSync(directory, { recursive: true, force: true });
    }
  }, 180_000); // jiti compiles the demo configuration and tsc checks the guide: the test waits for them, not a clock.
});
