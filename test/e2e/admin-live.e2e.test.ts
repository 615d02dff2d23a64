import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveSetupStatements } from '../../src/live/setup.js';
import type { EndpointPolicy, ServiceConfig } from '../../src/resource/policy.js';
import { resolveResources } from '../../src/resource/resolve.js';
import type { ResourceDefinition } from '../../src/resource/types.js';
import { buildService } from '../../src/server/standalone.js';
import { type Connection, connect } from '../../src/sql/connect.js';
import { launchChromium, watch } from '../support/chromium.js';

/**
 * The shipped admin on a live service, in Chromium: an open list and an open record follow the writes
 * someone else makes through the API, an edit form with the user's own edits keeps them and says the
 * record changed, and the user's own save warns of nothing. With ADMIN_DOCS_SCREENSHOTS=1 it writes
 * docs/admin-live.png.
 */

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const adminDir = resolve(root, 'admin/dist');

const notes: ResourceDefinition = {
  name: 'notes',
  table: 'notes',
  columns: { id: 'integer', title: 'string' },
};

const endpoint: EndpointPolicy = {
  resource: 'notes',
  actions: ['list', 'read', 'create', 'update', 'delete'],
  access: { create: () => true, update: () => true, delete: () => true },
  schema: {
    title: 'Notes',
    recordTitle: 'title',
    table: { columns: [{ key: 'id' }, { key: 'title' }] },
    form: { inputs: [{ name: 'title', type: 'text', required: true }] },
  },
};

describe('admin (Chromium) on a live service', { timeout: 120_000 }, () => {
  let connection: Connection;
  let app: Awaited<ReturnType<typeof buildService>>;
  let base: string;
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];
  /** The live streams the page has opened so far (answered 200). */
  let streamsOpened = 0;
  /** A write by someone else: straight to the API, not through this page. */
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}/api/${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (response.status >= 300)
      throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  };

  beforeAll(async () => {
    if (!existsSync(join(adminDir, 'index.html')))
      throw new Error(`${adminDir} is missing: run npm run build:admin (npm test does it first).`);
    const folder = mkdtempSync(join(tmpdir(), 'rqs-admin-live-'));
    connection = connect(`sqlite:${join(folder, 'live.db')}`);
    await sql
      .raw('create table notes (id integer primary key autoincrement, title text not null)')
      .execute(connection.db);
    const resolved = resolveResources([notes], undefined).values();
    for (const statement of liveSetupStatements(connection.dialect, 'live_changes', resolved, 'setup'))
      await statement.execute(connection.db);
    for (const title of ['one', 'two'])
      await sql`insert into notes (title) values (${title})`.execute(connection.db);
    const config: ServiceConfig = {
      resources: [notes],
      endpoints: [endpoint],
      live: { pollMs: 20 },
      adminDir,
    };
    app = await buildService({ config, connection });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    context = await launchChromium(join(folder, 'profile'), { width: 1280, height: 800 });
    page = watch(context.pages()[0] ?? (await context.newPage()), problems, { timeout: 15_000 });
    page.on('response', (response) => {
      if (response.url().includes('/api/live?') && response.status() === 200) streamsOpened++;
    });
  });

  afterAll(async () => {
    await context?.close();
    const grace = setTimeout(() => app?.server.closeAllConnections(), 2000);
    await app?.close();
    clearTimeout(grace);
    await connection?.close();
  });

  it('follows the writes of others on a list, a record and an edit form, and not its own', async () => {
    await page.goto(`${base}/admin/#/notes`);
    await expect.poll(() => page.locator('table tbody tr').count()).toBe(2);
    // The stream is open once its answer has come (the server answers once it is subscribed): a write
    // before that would not be on it.
    await expect.poll(() => streamsOpened).toBeGreaterThan(0);
    const opened = streamsOpened;
    await api('POST', 'notes', { title: 'three' });
    await expect.poll(() => page.locator('table tbody tr').count()).toBe(3);
    await api('PATCH', 'notes/1', { title: 'ONE' });
    await expect.poll(() => page.getByText('ONE', { exact: true }).count()).toBe(1);

    // An edit form nobody has touched takes the saved values.
    await page.goto(`${base}/admin/#/notes/2`);
    const input = page.getByLabel('Title *');
    await expect.poll(() => input.inputValue()).toBe('two');
    // Its record's topic is on a stream of its own (the list's closed with the list).
    await expect.poll(() => streamsOpened).toBeGreaterThan(opened);
    await api('PATCH', 'notes/2', { title: 'TWO' });
    await expect.poll(() => input.inputValue()).toBe('TWO');
    // One with the user's edits keeps them, and says the record changed under them.
    await input.fill('mine');
    await api('PATCH', 'notes/2', { title: 'theirs' });
    await expect.poll(() => page.getByTestId('live-changed').count()).toBe(1);
    expect(await input.inputValue()).toBe('mine');
    if (process.env.ADMIN_DOCS_SCREENSHOTS === '1') {
      // The notice of the earlier change gone, the page settled.
      await expect.poll(() => page.getByText('the form shows the saved values').count()).toBe(0);
      await page.waitForTimeout(500);
      await page.screenshot({ path: join(root, 'docs/admin-live.png') });
    }
    await page.getByRole('button', { name: 'Reload' }).click();
    await expect.poll(() => input.inputValue()).toBe('theirs');
    expect(await page.getByTestId('live-changed').count()).toBe(0);

    // The user's own save: no warning, and the record page follows later writes.
    await input.fill('saved by me');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.url()).toContain('/show');
    await expect.poll(() => page.getByText('saved by me', { exact: true }).count()).toBeGreaterThan(0);
    expect(await page.getByTestId('live-changed').count()).toBe(0);
    await api('PATCH', 'notes/2', { title: 'changed on show' });
    await expect.poll(() => page.getByText('changed on show', { exact: true }).count()).toBeGreaterThan(0);
    // Deleted by someone else: back to the list, saying so.
    await api('DELETE', 'notes/2');
    await expect.poll(() => page.url()).toMatch(/#\/notes$/);
    await expect.poll(() => page.getByText('This record was deleted by someone else.').count()).toBe(1);
    expect(problems).toEqual([]);
  });
});
