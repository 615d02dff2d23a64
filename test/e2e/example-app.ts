/**
 * What the react-admin and refine e2e tests share: the example app built (once, with vite, when its
 * dist is missing), the demo service on a seeded temporary SQLite file with the demo's own context and
 * access rules, the app's dist served by the same server at `/<name>/` (same origin: no CORS), and
 * Debian's Chromium driven by playwright-core (never a downloaded browser).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import type { BrowserContext, Page, Response } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import demo from '../../examples/demo/config.js';
import { createSchema } from '../../examples/demo/schema.js';
import { seedDemo } from '../../examples/demo/seed.js';
import { buildService } from '../../src/server/standalone.js';
import { type Connection, connect } from '../../src/sql/connect.js';
import { launchChromium } from '../support/chromium.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const shots = resolve(root, 'test-artifacts/e2e');

/** A page of the demo's users, as the tests read it. */
export interface Users {
  data: { id: number; name: string; email: string; score: number }[];
  total: number;
  last_page: number;
}

export interface ExampleApp {
  /** The app's address: `http://127.0.0.1:<port>/<name>/`. */
  url: string;
  app: FastifyInstance;
  page: Page;
  /** Console errors and page errors, except the answers `expectStatus` announced. */
  problems: string[];
  /** The next console error for a response of `status` is expected (Chromium logs every 4xx). */
  expectStatus(status: number): void;
  /** GET on the service, in-process, as JSON. */
  api<T>(url: string): Promise<T>;
  /** The next answer to a users' list request whose decoded URL contains `part`. */
  usersList(part: string): Promise<Response>;
  /** A full-page screenshot in test-artifacts/e2e/<name>.png. */
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

/** For a `describe` block: the app started before its tests and closed after them. */
export function useExampleApp(name: 'react-admin' | 'refine'): ExampleApp {
  const example = {} as ExampleApp;
  beforeAll(async () => {
    Object.assign(example, await startExampleApp(name));
  }, 120_000);
  afterAll(async () => {
    await example.close?.();
  });
  return example;
}

export async function startExampleApp(name: 'react-admin' | 'refine'): Promise<ExampleApp> {
  const dist = resolve(root, `examples/${name}/dist`);
  if (!existsSync(join(dist, 'index.html')))
    execFileSync(
      process.execPath,
      [
        resolve(root, 'node_modules/vite/bin/vite.js'),
        'build',
        '--config',
        `examples/${name}/vite.config.ts`,
      ],
      // vitest sets NODE_ENV=test, which vite would build React's development bundle for (its warnings
      // in the console): build what `npm run build:examples` builds.
      { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } },
    );

  const temp = mkdtempSync(join(tmpdir(), `${name}-e2e-`));
  const connection: Connection = connect(`sqlite:${join(temp, 'demo.db')}`);
  await createSchema(connection);
  await seedDemo(connection);
  // The demo's configuration as `npm start` serves it; its setup hook is not run (seeded above).
  const app = await buildService({ config: demo, connection });
  // decorateReply: false, as the admin UI (served too when admin/dist exists) already decorated the reply.
  await app.register(fastifyStatic, { root: dist, prefix: `/${name}/`, decorateReply: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no port');

  const context: BrowserContext = await launchChromium(join(temp, 'profile'), { width: 1280, height: 900 });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(10_000);
  const problems: string[] = [];
  const expected = new Map<number, number>();
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const status = Number(/status of (\d{3})/.exec(message.text())?.[1]);
    const left = expected.get(status) ?? 0;
    if (left > 0) {
      expected.set(status, left - 1);
      return;
    }
    problems.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));

  return {
    url: `http://127.0.0.1:${address.port}/${name}/`,
    app,
    page,
    problems,
    expectStatus: (status) => expected.set(status, (expected.get(status) ?? 0) + 1),
    usersList: (part) =>
      page.waitForResponse((response) => {
        const url = decodeURIComponent(response.url());
        return url.includes('/api/users?') && url.includes(part);
      }),
    async screenshot(shot) {
      mkdirSync(shots, { recursive: true });
      await page.screenshot({ path: join(shots, `${shot}.png`), fullPage: true });
    },
    async api<T>(url: string) {
      const response = await app.inject({ method: 'GET', url });
      if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
      return response.json() as T;
    },
    async close() {
      await context.close();
      await app.close();
      await connection.db.destroy();
      rmSync(temp, { recursive: true, force: true });
    },
  };
}
