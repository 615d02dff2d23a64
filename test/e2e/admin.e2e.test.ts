/**
 * The admin (react-admin, drawn from the schema documents) in a real browser: Debian's Chromium (never a
 * download) driven by playwright-core, against the demo served in-process on a temporary SQLite file,
 * with the demo's own bearer-token context and access rules (only an editor may write). Every answer the
 * page shows is compared with the API's own answer to the same question. `npm test` builds admin/dist
 * first; this file builds nothing. With ADMIN_DOCS_SCREENSHOTS=1 it writes docs/admin-list.png and
 * docs/admin-conflict.png.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { demoTokens } from '../../examples/demo/auth.js';
import demo from '../../examples/demo/config.js';
import { createSchema } from '../../examples/demo/schema.js';
import { seedDemo } from '../../examples/demo/seed.js';
import { buildService } from '../../src/server/standalone.js';
import { type Connection, connect } from '../../src/sql/connect.js';
import { launchChromium, watch } from '../support/chromium.js';
import { parseCsv } from '../support/csv.js';
import { dashboardAnswersAsTheApi } from './dashboard.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const adminDir = resolve(root, 'admin/dist');
const docsShots = process.env.ADMIN_DOCS_SCREENSHOTS === '1';

type User = { id: number; name: string; email: string; status: string; score: number };
interface Listed<T> {
  data: T[];
  total: number;
}

// A test here is a user's whole errand (sign in, filter, edit, resolve a conflict, delete, restore):
// each step waits at most 15 s for what it means (page.setDefaultTimeout, expect.poll), and the errand
// as a whole may take longer than the suites' 30 s on a busy machine.
describe('admin (react-admin, Chromium) on the demo', { timeout: 90_000 }, () => {
  let temp: string;
  let connection: Connection;
  let app: FastifyInstance;
  let base: string;
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];

  const editor = { authorization: `Bearer ${demoTokens.editor}` };
  const api = async <T>(url: string): Promise<T> => {
    const response = await app.inject({ method: 'GET', url, headers: editor });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as T;
  };
  const rows = () => page.locator('table tbody tr');
  /** The texts of one column of the shown page (`td.column-<source>`). */
  const column = (source: string) =>
    page.locator(`table tbody td[class~="column-${source}"]`).allTextContents();
  /** The next users list request the page makes, its query string decoded. */
  const nextList = (path = 'users') =>
    page
      .waitForRequest((request: Request) => new URL(request.url()).pathname === `/api/${path}`)
      .then((request) => decodeURIComponent(new URL(request.url()).search));
  /** Waits until the shown page is the one the API gives for `query`, compared by a column. */
  const showsPage = async (query: string, source: keyof User = 'name') => {
    const expected = await api<Listed<User>>(`/api/users?per_page=25&${query}`);
    await expect.poll(() => column(source)).toEqual(expected.data.map((user) => String(user[source])));
    return expected;
  };

  /** A page of the browser, watched; the refusals this test provokes on purpose (422, 412) are let through. */
  const watched = (opened: Page): Page =>
    watch(opened, problems, { timeout: 15_000, expected: /status of 4(12|22)/ });

  /**
   * Opens the admin at `hash` as the demo's editor, by the stored token (the sign-in page itself is the
   * first test's): the token goes into the origin's storage from the open page, and a new page starts the
   * admin with it. Not a reload of the open page: the admin may still be moving by itself (from / to the
   * first list, or to a list's remembered filters), and that navigation can cancel a reload.
   */
  const openAsEditor = async (hash: string) => {
    if (!page.url().startsWith(base)) await page.goto(`${base}/admin/#/login`);
    await page.evaluate(`localStorage.setItem('rqs.token', ${JSON.stringify(demoTokens.editor)})`);
    const previous = page;
    page = watched(await context.newPage());
    await previous.close();
    await page.goto(`${base}/admin/#${hash}`);
  };

  beforeAll(async () => {
    if (!existsSync(join(adminDir, 'index.html')))
      throw new Error(`${adminDir} is missing: run npm run build:admin (npm test does it first).`);
    temp = mkdtempSync(join(tmpdir(), 'admin-e2e-'));
    connection = connect(`sqlite:${join(temp, 'demo.db')}`);
    await createSchema(connection);
    await seedDemo(connection);
    app = await buildService({ config: { ...demo, adminDir }, connection });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    context = await launchChromium(join(temp, 'profile'), { width: 1400, height: 900 });
    page = watched(context.pages()[0] ?? (await context.newPage()));
  }, 60_000);

  // What the page showed when a test failed, to read after the run: test-artifacts/e2e/admin-failed-*.png.
  afterEach(async ({ task }) => {
    if (task.result?.state !== 'fail' || !page) return;
    const shots = resolve(root, 'test-artifacts/e2e');
    mkdirSync(shots, { recursive: true });
    const name = task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
    await page.screenshot({ path: join(shots, `admin-failed-${name}.png`) }).catch(() => {});
    console.error(
      `admin e2e: "${task.name}" failed at ${page.url()}; ${problems.join('; ') || 'no console errors'}`,
    );
  });

  afterAll(async () => {
    await context?.close();
    await app?.close();
    await connection?.db.destroy();
    if (temp) rmSync(temp, { recursive: true, force: true });
  });

  it('browses anonymously, then signs in with a token and gets the editor’s actions', async () => {
    await page.goto(`${base}/admin/#/users`);
    const first = await showsPage('');
    expect(first.total).toBeGreaterThan(25);
    await expect.poll(() => page.getByText(`1-25 of ${first.total}`).count()).toBe(1);
    // What an anonymous caller's schema allows: no create, no selection for a bulk delete.
    expect(await page.getByRole('link', { name: 'Create' }).count()).toBe(0);
    expect(await page.locator('table tbody input[type="checkbox"]').count()).toBe(0);

    await page.goto(`${base}/admin/#/login`);
    await page.getByLabel('Access token').fill(`Bearer ${demoTokens.editor}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByText('demo-editor').count()).toBeGreaterThan(0);
    await page.goto(`${base}/admin/#/users`);
    await expect.poll(() => page.getByRole('link', { name: 'Create' }).count()).toBe(1);
    await expect.poll(() => page.locator('table tbody input[type="checkbox"]').count()).toBe(25);
    expect(problems).toEqual([]);
  });

  it('asks only for the chosen columns, sorts by a relation and a count, filters with operators, and exports', async () => {
    await openAsEditor('/users');
    await showsPage('');
    // The column chooser: Email off (not asked for), the department's name on (included, sortable).
    await page.getByRole('button', { name: 'Columns' }).click();
    let request = nextList();
    await page.getByRole('option', { name: 'Email' }).locator('input').click();
    const query = await request;
    expect(query).toMatch(/[?&]fields=/);
    expect(query).not.toContain('email');
    request = nextList();
    await page.getByRole('option', { name: 'Department name', exact: true }).locator('input').click();
    expect(await request).toContain('include=department');
    request = nextList();
    await page.getByRole('option', { name: 'Posts (count)' }).locator('input').click();
    expect(await request).toContain('count=posts');
    await page.keyboard.press('Escape');
    expect(await page.locator('thead th', { hasText: 'Email' }).count()).toBe(0);

    // A relation sort (department.name), then a count sort (posts_count), each the API's page.
    request = nextList();
    await page.locator('thead [data-field="department.name"]').click();
    expect(await request).toContain('sort=department.name');
    const byDepartment = await api<Listed<User & { department: { name: string } | null }>>(
      '/api/users?per_page=25&sort=department.name&include=department',
    );
    await expect
      .poll(() => column('department.name'))
      .toEqual(byDepartment.data.map((user) => user.department?.name ?? ''));
    await showsPage('sort=department.name');
    request = nextList();
    await page.locator('thead [data-field="posts_count"]').click();
    expect(await request).toContain('sort=posts_count');
    await showsPage('sort=posts_count');
    request = nextList();
    await page.locator('thead [data-field="posts_count"]').click();
    expect(await request).toContain('sort=-posts_count');
    const byPosts = await showsPage('sort=-posts_count');
    expect(await column('posts_count')).toEqual(
      (
        await api<Listed<User & { posts_count: number }>>(
          '/api/users?per_page=25&sort=-posts_count&count=posts',
        )
      ).data.map((user) => String(user.posts_count)),
    );
    expect(byPosts.data.length).toBe(25);

    // Two filters, each with its operator: score ≥ 90, and department name contains "a".
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByRole('menuitemcheckbox', { name: 'Score', exact: true }).click();
    const score = page.locator('[data-filter="score"]');
    await score.getByRole('combobox').click();
    await page.getByRole('option', { name: '≥' }).click();
    request = nextList();
    await score.getByLabel('Value').fill('90');
    expect(await request).toContain('filter[score][gte]=90');
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByRole('menuitemcheckbox', { name: 'Department name' }).click();
    const department = page.locator('[data-filter="department.name"]');
    await department.getByLabel('Value').fill('in');
    const filtered = await showsPage(
      'sort=-posts_count&filter[score][gte]=90&filter[department.name][contains]=in',
    );
    expect(filtered.total).toBeGreaterThan(0);
    const unfiltered = await api<Listed<User>>('/api/users');
    expect(filtered.total).toBeLessThan(unfiltered.total);
    // The address holds the list's state: a reload shows the same page.
    await page.reload();
    await showsPage('sort=-posts_count&filter[score][gte]=90&filter[department.name][contains]=in');
    if (docsShots) await page.screenshot({ path: resolve(root, 'docs/admin-list.png') });

    // Export CSV: the service's file of every record the filters select, the chosen columns.
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const file = await (await download).path();
    const table = parseCsv(readFileSync(file, 'utf8'));
    expect(table.length - 1).toBe(filtered.total);
    expect(table[0]).not.toContain('email');
    expect(table[0]).toContain('name');
    expect(problems).toEqual([]);
  });

  it('edits a user: a 422 under its field, a 412 as a conflict, then delete and restore', async () => {
    const [user] = (await api<Listed<User>>('/api/users?sort=-score&per_page=1')).data;
    if (!user) throw new Error('no user');
    await openAsEditor(`/users/${user.id}`);
    const email = page.getByRole('textbox', { name: 'Email' });
    await expect.poll(() => email.inputValue()).toBe(user.email);

    // The service's 422, under the input it names.
    await email.fill('name@localhost');
    await page.getByRole('button', { name: 'Save' }).click();
    const refused = await app.inject({
      method: 'PATCH',
      url: `/api/users/${user.id}`,
      headers: editor,
      payload: { email: 'name@localhost' },
    });
    expect(refused.statusCode).toBe(422);
    const message = (refused.json() as { errors: Record<string, string[]> }).errors.email?.[0] ?? '';
    await expect.poll(() => page.getByText(message).count()).toBe(1);
    await email.fill(user.email);

    // Someone else saves first: the save is a 412, shown with their value and ours.
    const theirs = `${user.name} (theirs)`;
    const other = await app.inject({
      method: 'PATCH',
      url: `/api/users/${user.id}`,
      headers: editor,
      payload: { name: theirs },
    });
    expect(other.statusCode).toBe(200);
    const name = page.getByRole('textbox', { name: 'Name' });
    await name.fill(`${user.name} (mine)`);
    await page.getByRole('button', { name: 'Save' }).click();
    const dialog = page.getByRole('dialog');
    await expect
      .poll(() => dialog.getByTestId('conflict-table').locator('tr[data-field="name"]').textContent())
      .toBe(`Name${theirs}${user.name} (mine)`);
    if (docsShots) await page.screenshot({ path: resolve(root, 'docs/admin-conflict.png') });
    await dialog.getByRole('button', { name: 'Save mine over theirs' }).click();
    await expect
      .poll(async () => (await api<User>(`/api/users/${user.id}`)).name)
      .toBe(`${user.name} (mine)`);

    // Delete (confirmed), then the list with deleted records, and Restore.
    await page.goto(`${base}/admin/#/users/${user.id}/show`);
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await expect
      .poll(
        async () =>
          (await app.inject({ method: 'GET', url: `/api/users/${user.id}`, headers: editor })).statusCode,
      )
      .toBe(404);
    await page.goto(
      `${base}/admin/#/users?filter=${encodeURIComponent(JSON.stringify({ trashed: true, q: `${user.name} (mine)` }))}`,
    );
    const row = rows().filter({ hasText: `${user.name} (mine)` });
    await row.getByRole('button', { name: 'Restore' }).click();
    await expect
      .poll(
        async () =>
          (await app.inject({ method: 'GET', url: `/api/users/${user.id}`, headers: editor })).statusCode,
      )
      .toBe(200);
    expect(problems).toEqual([]);
  });

  it('opens the dashboard on the data’s own extent and answers a past range as the API does', async () => {
    await dashboardAnswersAsTheApi(page, base, api, {
      path: 'users',
      column: 'created_at',
      from: '2024-01-01',
      to: '2024-07-01',
    });
    expect(problems).toEqual([]);
  });
});
