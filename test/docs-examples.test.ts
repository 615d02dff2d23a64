/**
 * Every request the README and the guide show against the demo — a `curl` to port 3000 in a sh or bash
 * code block of README.md or docs/*.md — is sent to the demo's own service, in-process, on a SQLite file
 * created and seeded as `npm start` does, and must be answered as the text says: with the status its
 * comment names (`# 422, both problems at once`, `# 401: sign in first`), else with a 2xx; a json block
 * right after the request's block is its answer, compared with the demo's (`"…"` where it leaves out). The shell
 * variables a block sets (the demo's tokens) are the ones its requests use. Blocks about another server
 * are left to that server's tests: a block with an `x-api-key` header is docs/hosts.md's example
 * application, a block whose requests name a path the demo does not serve is init's database. The
 * endpoint declarations the guide shows whole are served on the demo's resources and answer their list.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import demo from '../examples/demo/config.js';
import { createSchema } from '../examples/demo/schema.js';
import { seedDemo } from '../examples/demo/seed.js';
import { defineEndpoint, type EndpointPolicy } from '../src/resource/policy.js';
import { buildService } from '../src/server/standalone.js';
import { type Connection, connect } from '../src/sql/connect.js';
import { codeBlocks, differs, type Shown, shownRequests } from './support/docs-shown.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const documents = [
  join(root, 'README.md'),
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(root, 'docs', name)),
];

/** The demo's list paths (`users`, …), as served under /api and /api/v1/<path>/schema. */
const demoPaths = new Set(demo.endpoints.map((endpoint) => endpoint.path ?? endpoint.resource));
const servedByDemo = (url: URL): boolean => {
  const [first, second] = url.pathname.replace(/^\/api\//, '').split('/');
  return url.pathname.startsWith('/api/') && demoPaths.has((first === 'v1' ? second : first) as string);
};

/** The blocks about the demo: not docs/hosts.md's example application (`x-api-key`), nor init's database. */
const aboutTheDemo = (requests: readonly Shown[]) =>
  !requests.some((shown) => 'x-api-key' in shown.headers || !servedByDemo(shown.url));

/**
 * The endpoint declarations the guide shows whole (a ```ts block that is one `defineEndpoint({ … })`
 * call, with nothing left out), each over one of the demo's resources.
 */
const declared = documents
  .flatMap((file) => codeBlocks(relative(root, file), 'ts'))
  .filter(({ code }) => code.startsWith('defineEndpoint({') && !code.includes('…'));

const shown = shownRequests(
  documents.map((file) => relative(root, file)),
  aboutTheDemo,
);

describe('the requests the README and the guide show, sent to the demo', () => {
  let temp = '';
  let connection: Connection;
  let app: FastifyInstance;

  beforeAll(async () => {
    temp = mkdtempSync(join(tmpdir(), 'rqs-docs-examples-'));
    connection = connect(`sqlite:${join(temp, 'demo.db')}`);
    await createSchema(connection);
    await seedDemo(connection);
    app = await buildService({ config: demo, connection });
  });
  afterAll(async () => {
    await app?.close();
    await connection?.db.destroy();
    if (temp) rmSync(temp, { recursive: true, force: true });
  });

  it('finds them in the README and in the guide', () => {
    const files = new Set(shown.map((request) => request.where.split(':')[0]));
    expect(files).toContain('README.md');
    expect(files).toContain('docs/demo.md');
    expect(shown.length).toBeGreaterThanOrEqual(20);
  });

  it.each(
    shown.map(
      (request) =>
        [`${request.where} ${request.method} ${request.url.pathname}${request.url.search}`, request] as const,
    ),
  )('%s', async (_title, request) => {
    const answer = await app.inject({
      method: request.method as 'GET',
      url: `${request.url.pathname}${request.url.search}`,
      // As curl sends it: the page links of an answer are made from the Host.
      headers: { host: request.url.host, ...request.headers },
      ...(request.body !== undefined && { payload: request.body }),
    });
    if (request.status === undefined) {
      expect(answer.statusCode, answer.body.slice(0, 500)).toBeGreaterThanOrEqual(200);
      expect(answer.statusCode, answer.body.slice(0, 500)).toBeLessThan(300);
    } else expect(answer.statusCode, answer.body.slice(0, 500)).toBe(request.status);
    if (request.answer)
      expect(
        differs(JSON.parse(request.answer.text), JSON.parse(answer.body)),
        `the answer ${request.answer.where} shows`,
      ).toBeUndefined();
  });

  it.each(declared.map((block) => [block.where, block] as const))(
    'serves the endpoint %s declares, on the demo',
    async (_where, { code }) => {
      // The block as written, evaluated: it is JavaScript as well as TypeScript (no annotations).
      const endpoint = new Function('defineEndpoint', `return ${code.trim().replace(/;$/, '')}`)(
        defineEndpoint,
      ) as EndpointPolicy;
      // Start-up checks it against the demo's resources and tables (a name it does not know is refused).
      const served = await buildService({ config: { ...demo, endpoints: [endpoint] }, connection });
      try {
        const list = await served.inject({ url: `/api/${endpoint.path ?? endpoint.resource}?per_page=2` });
        expect(list.statusCode, list.body.slice(0, 300)).toBe(200);
        expect(list.json().data).toHaveLength(2);
      } finally {
        await served.close();
      }
    },
  );

  it('finds the endpoint declarations the guide shows whole', () => {
    expect(declared.length).toBeGreaterThanOrEqual(4);
  });

  it('compares the answers the text shows, and would see one changed', () => {
    expect(shown.filter((request) => request.answer).length).toBeGreaterThanOrEqual(3);
    expect(differs({ a: 1, b: ['x', '…'] }, { a: 1, b: ['x', 'y', 'z'] })).toBeUndefined();
    expect(differs({ a: 1 }, { a: 2 })).toBe('$.a: 1 shown, 2 answered');
    expect(differs({ a: 1 }, { a: 1, b: 2 })).toBe('$: answered b, not shown');
    expect(differs({ a: 1, '…': '…' }, { a: 1, b: 2 })).toBeUndefined();
    expect(differs(['…', 3], [1, 2])).toBeDefined();
    expect(differs([1, '…', 4], [1, 2, 3, 4])).toBeUndefined();
  });
});
