/**
 * The admin UI in a real browser: Debian's Chromium (`apt-get install chromium`, never a download),
 * driven by playwright-core, against the demo served in-process on a temporary SQLite file, with the
 * demo's own bearer-token context and access rules (only an editor's token may PATCH).
 * `npm test` builds admin/dist first; this file builds nothing. Screenshots go to test-artifacts/e2e/
 * (and, with ADMIN_DOCS_SCREENSHOTS=1, to docs/admin-table.png and docs/admin-form.png).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoTokens } from '../../examples/demo/auth.js';
import demo from '../../examples/demo/config.js';
import { createSchema } from '../../examples/demo/schema.js';
import { seedDemo } from '../../examples/demo/seed.js';
import { buildService } from '../../src/server/standalone.js';
import { type Connection, connect } from '../../src/sql/connect.js';

const CHROMIUM = '/usr/bin/chromium';
const root = fileURLToPath(new URL('../../', import.meta.url));
const adminDir = resolve(root, 'admin/dist');
const shots = resolve(root, 'test-artifacts/e2e');
const docsShots = process.env.ADMIN_DOCS_SCREENSHOTS === '1';

interface Page1<T> {
  data: T[];
  total: number;
  last_page: number;
}
type User = { id: number; name: string; email: string; status: string; score: number };

describe('admin UI (Chromium)', () => {
  let temp: string;
  let connection: Connection;
  let app: FastifyInstance;
  let base: string;
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];
  let shot = 0;
  /** The 4xx answers the test provokes on purpose, by status: Chromium logs every one as a console error. */
  const expected: Record<number, number> = { 401: 0, 422: 0 };

  const api = async <T>(url: string): Promise<T> => {
    const response = await app.inject({ method: 'GET', url });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as T;
  };
  const screenshot = async (name: string) => {
    shot += 1;
    await page.screenshot({
      path: join(shots, `${String(shot).padStart(2, '0')}-${name}.png`),
      fullPage: true,
    });
  };
  const lastRequest = async () =>
    decodeURIComponent((await page.getByTestId('last-request').textContent()) ?? '');
  /** Waits for the list to show the answer to a request whose URL contains `part`. */
  const listShows = async (part: string) => {
    await expect.poll(lastRequest).toContain(part);
    await page.locator('table[aria-busy="false"]').waitFor();
  };
  /** Signs in through the top bar's control; resolves with the schema request the new token makes. */
  const signIn = async (token: string) => {
    const schemaRequest = page.waitForRequest((request) => /\/api\/v1\/users\/schema$/.test(request.url()));
    await page.getByLabel('Access token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    return schemaRequest;
  };
  const readOnlyNote = () => page.getByRole('note');
  // A string, run in the page: this project's Node types have no DOM.
  const storedToken = () => page.evaluate<string | null>("localStorage.getItem('rqs.token')");

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(
        `${CHROMIUM} is missing: install Debian's Chromium (apt-get update && apt-get install -y chromium). The e2e test never downloads a browser.`,
      );
    if (!existsSync(join(adminDir, 'index.html')))
      throw new Error(`${adminDir} is missing: run npm run build:admin (npm test does it first).`);
    mkdirSync(shots, { recursive: true });
    temp = mkdtempSync(join(tmpdir(), 'admin-e2e-'));
    connection = connect(`sqlite:${join(temp, 'demo.db')}`);
    await createSchema(connection);
    await seedDemo(connection);
    // The demo's configuration as `npm start` serves it (its context hook and access rules); its
    // setup hook is not run: the database above is already seeded.
    app = await buildService({ config: { ...demo, adminDir }, connection });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    base = `http://127.0.0.1:${address.port}`;

    context = await chromium.launchPersistentContext(join(temp, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      viewport: { width: 1280, height: 860 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(10_000);
    page.on('console', (message) => {
      if (message.type() !== 'error') return;
      const status = Number(/status of (\d{3})/.exec(message.text())?.[1]);
      if ((expected[status] ?? 0) > 0) {
        expected[status] = (expected[status] ?? 0) - 1;
        return;
      }
      problems.push(`console: ${message.text()} (${message.location().url})`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await app?.close();
    await connection?.db.destroy();
    if (temp) rmSync(temp, { recursive: true, force: true });
  });

  it('lists, sorts, filters, pages, shows and edits users, built from the schema alone', async () => {
    // 1. The index, then the users' table, anonymously: lists are open, editing is not.
    await page.goto(`${base}/admin/`);
    expect(await page.getByTestId('token-state').textContent()).toBe('Anonymous');
    await page.getByRole('navigation', { name: 'Resources' }).getByRole('link', { name: 'Users' }).click();
    const all = await api<Page1<User>>('/api/users');
    await expect
      .poll(() => page.getByTestId('page-info').textContent())
      .toBe(`Page 1 of ${all.last_page} · ${all.total} records`);
    await expect.poll(() => page.getByTestId('record-row').count()).toBe(15);
    const headers = await page.getByRole('columnheader').allTextContents();
    expect(headers.map((text) => text.replace(/ [↕▲▼]$/, ''))).toEqual([
      'ID',
      'Name',
      'Email',
      'Status',
      'Score',
      'Admin',
      'Birthday',
      'Joined',
      'Actions',
    ]);
    // A badge cell, colored from formatOptions.colorMap.
    const firstStatus = all.data[0]?.status ?? '';
    const badge = page.getByTestId('record-row').first().locator('td[data-column="status"] .badge');
    await expect
      .poll(() => badge.getAttribute('class'))
      .toContain(
        { active: 'badge-green', inactive: 'badge-gray', banned: 'badge-red' }[firstStatus] ?? 'badge-gray',
      );
    // An anonymous schema is read-only: no row offers an edit.
    expect(await page.getByTestId('record-row').first().getByRole('link', { name: 'View' }).count()).toBe(1);
    expect(await page.getByTestId('records').getByRole('link', { name: 'Edit' }).count()).toBe(0);
    if (docsShots) await page.screenshot({ path: resolve(root, 'docs/admin-table.png') });
    await screenshot('users');

    // 2. Sort by score: ascending, then descending.
    const scoreHeader = page.getByRole('button', { name: /^Score/ });
    await scoreHeader.click();
    await listShows('sort=score');
    await scoreHeader.click();
    await listShows('sort=-score');
    const top = await api<Page1<User>>('/api/users?sort=-score');
    await expect
      .poll(() => page.getByTestId('record-row').first().locator('td[data-column="score"]').textContent())
      .toBe(String(top.data[0]?.score));
    expect(await page.getByRole('columnheader', { name: /Score/ }).getAttribute('aria-sort')).toBe(
      'descending',
    );
    await screenshot('sorted');

    // 3. Two conditions: status = active AND score >= 50.
    await page.getByRole('button', { name: 'Filters' }).click();
    const panel = page.getByTestId('filter-panel');
    await panel.getByRole('button', { name: 'Add condition' }).click();
    await panel.getByRole('button', { name: 'Add condition' }).click();
    const [first, second] = [panel.getByTestId('condition').nth(0), panel.getByTestId('condition').nth(1)];
    await first.getByLabel('Filter').selectOption('status');
    await first.getByLabel('Operator').selectOption('eq');
    await first.getByLabel('Value').selectOption('active');
    await second.getByLabel('Filter').selectOption('score');
    await second.getByLabel('Operator').selectOption('gte');
    await second.getByLabel('Value').fill('50');
    await panel.getByRole('button', { name: 'Apply filters' }).click();
    const query = 'filter[status]=active&filter[score][gte]=50&sort=-score';
    await listShows(query);
    expect(await lastRequest()).toBe(`/api/users?${query}`);
    const filtered = await api<Page1<User>>(`/api/users?${query}`);
    expect(filtered.last_page).toBeGreaterThan(1);
    await expect
      .poll(() => page.getByTestId('page-info').textContent())
      .toBe(`Page 1 of ${filtered.last_page} · ${filtered.total} records`);
    const statuses = await page.locator('td[data-column="status"]').allTextContents();
    expect(new Set(statuses)).toEqual(new Set(['active']));
    await screenshot('filtered');

    // 4. The next page.
    await page.getByRole('button', { name: 'Next' }).click();
    await listShows(`${query}&page=2`);
    await expect
      .poll(() => page.getByTestId('page-info').textContent())
      .toBe(`Page 2 of ${filtered.last_page} · ${filtered.total} records`);
    const second2 = await api<Page1<User>>(`/api/users?${query}&page=2`);
    const user = second2.data[0];
    if (!user) throw new Error('page 2 is empty');
    await expect
      .poll(() => page.getByTestId('record-row').first().locator('td[data-column="name"]').textContent())
      .toBe(user.name);
    await screenshot('page-2');

    // 5. The record's detail.
    await page.getByTestId('record-row').first().getByRole('link', { name: 'View' }).click();
    await expect.poll(() => page.getByTestId('detail-email').textContent()).toBe(user.email);
    expect(await page.getByTestId('detail-name').textContent()).toBe(user.name);
    expect(page.url()).toBe(`${base}/admin/#/users/${user.id}`);
    const readOnly = 'Read-only: sign in with a token that may edit.';
    expect(await readOnlyNote().textContent()).toBe(readOnly);
    expect(await page.getByTestId('detail').getByRole('link', { name: 'Edit' }).count()).toBe(0);
    await screenshot('detail-read-only');

    // 5b. The edit address itself offers no form without a token: the record and the note.
    await page.goto(`${base}/admin/#/users/${user.id}/edit`);
    await expect.poll(() => page.getByTestId('detail-email').textContent()).toBe(user.email);
    expect(await readOnlyNote().textContent()).toBe(readOnly);
    expect(await page.getByTestId('edit-form').count()).toBe(0);

    // 5c. A token the server refuses: its 401 message, next to the control and instead of the page.
    expected[401] = 1;
    await page.getByLabel('Access token').fill('not.a-valid.token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect
      .poll(() => page.getByTestId('token-error').textContent())
      .toBe('The bearer token is not valid.');
    expect(await page.getByTestId('error').textContent()).toBe(
      'Could not load the resources: The bearer token is not valid.',
    );
    expect(await page.getByLabel('Access token').getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => expected[401]).toBe(0);
    await screenshot('invalid-token');

    // 5d. The viewer's token: sent with every request, and still read-only.
    const viewerSchema = await signIn(demoTokens.viewer);
    expect(viewerSchema.headers().authorization).toBe(`Bearer ${demoTokens.viewer}`);
    await expect.poll(() => page.getByTestId('detail-email').textContent()).toBe(user.email);
    expect(await page.getByTestId('token-error').count()).toBe(0);
    expect(await page.getByTestId('token-state').textContent()).toBe('Token set');
    expect(await readOnlyNote().textContent()).toBe(readOnly);
    expect(await page.getByTestId('edit-form').count()).toBe(0);
    expect(await storedToken()).toBe(demoTokens.viewer);
    await screenshot('viewer-read-only');

    // 5e. The editor's token: the schema reloads with its inputs, and the same address is the form.
    const editorSchema = await signIn(demoTokens.editor);
    expect(editorSchema.headers().authorization).toBe(`Bearer ${demoTokens.editor}`);
    await page.getByTestId('edit-form').waitFor();
    expect(await readOnlyNote().count()).toBe(0);
    expect(await storedToken()).toBe(demoTokens.editor);
    await page.getByRole('link', { name: 'Done' }).click();
    await expect.poll(() => page.getByTestId('detail-email').textContent()).toBe(user.email);
    await screenshot('detail');

    // 6. The form: visibleWhen follows the edited status, live.
    await page.getByTestId('detail').getByRole('link', { name: 'Edit' }).click();
    const status = page.getByLabel('Status');
    const score = page.getByTestId('field-score');
    await score.waitFor();
    expect(await page.getByLabel('Score').inputValue()).toBe(String(user.score));
    expect(await page.getByLabel('Email').inputValue()).toBe(user.email);
    await status.selectOption({ label: 'Banned' });
    await score.waitFor({ state: 'detached' });
    expect(await page.getByTestId('field-balance').count()).toBe(0);
    await screenshot('banned-hides-score');
    await status.selectOption({ label: 'Active' });
    await score.waitFor();
    expect(await page.getByTestId('field-balance').count()).toBe(1);
    await screenshot('active-shows-score');

    // 7. An invalid email: the 422 message next to the email input.
    const email = page.getByLabel('Email');
    await email.fill('not-an-email');
    expected[422] = 1;
    const patched = page.waitForRequest((request) => request.method() === 'PATCH');
    await page.getByRole('button', { name: 'Save' }).click();
    expect((await patched).postDataJSON()).toEqual({ email: 'not-an-email' }); // only the changed field
    expect((await patched).headers().authorization).toBe(`Bearer ${demoTokens.editor}`);
    const emailError = page.getByTestId('field-email').getByTestId('error-email');
    await expect.poll(() => emailError.textContent()).toBe('The email field must be a valid email address.');
    expect(await email.getAttribute('aria-invalid')).toBe('true');
    expect(await email.getAttribute('aria-describedby')).toBe('input-email-error');
    await screenshot('email-error');

    // 8. Fixed and saved; after a reload the form shows the stored value.
    const newEmail = `edited.${user.id}@example.org`;
    await email.fill(newEmail);
    await page.getByLabel('Score').fill('77');
    const saved = page.waitForRequest((request) => request.method() === 'PATCH');
    await page.getByRole('button', { name: 'Save' }).click();
    expect((await saved).postDataJSON()).toEqual({ email: newEmail, score: 77 });
    await expect.poll(() => page.getByTestId('form-success').textContent()).toBe('Saved.');
    expect(await page.getByTestId('error-email').count()).toBe(0);
    if (docsShots) await page.screenshot({ path: resolve(root, 'docs/admin-form.png') });
    await screenshot('saved');
    await page.reload();
    await expect.poll(() => page.getByLabel('Email').inputValue()).toBe(newEmail);
    expect(await page.getByLabel('Score').inputValue()).toBe('77');
    const stored = await api<Page1<User>>(`/api/users?filter[id]=${user.id}`);
    expect(stored.data[0]).toMatchObject({ email: newEmail, score: 77 });
    // The form after a reload is the token's too: it was kept in localStorage.
    expect(await page.getByTestId('token-state').textContent()).toBe('Token set');
    await screenshot('reloaded');

    // 9. Signed out: the same address is read-only again (and the next test starts anonymous).
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => readOnlyNote().textContent()).toBe(readOnly);
    expect(await page.getByTestId('edit-form').count()).toBe(0);
    expect(await page.getByTestId('detail-email').textContent()).toBe(newEmail);
    expect(await storedToken()).toBeNull();
    expect(await page.getByTestId('token-state').textContent()).toBe('Anonymous');

    expect(expected).toEqual({ 401: 0, 422: 0 });
    expect(problems).toEqual([]);
  }, 60_000);

  it('applies show deleted, search and tabs, and finds records outside a default filter', async () => {
    const pageInfo = () => page.getByTestId('page-info').textContent();
    const totalOf = async (query: string) => (await api<Page1<User>>(`/api/users?${query}`)).total;
    await page.goto(`${base}/admin/#/users`);
    await expect.poll(pageInfo).toContain(`· ${await totalOf('')} records`);

    await page.getByLabel('Show deleted').check();
    await listShows('filter[trashed]=true');
    const withTrashed = await totalOf('filter[trashed]=true');
    expect(withTrashed).toBeGreaterThan(await totalOf(''));
    await expect.poll(pageInfo).toContain(`· ${withTrashed} records`);
    await page.getByLabel('Show deleted').uncheck();

    await page.getByRole('searchbox', { name: 'Search' }).fill('garcia');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await listShows('search=garcia');
    await expect.poll(pageInfo).toContain(`· ${await totalOf('search=garcia')} records`);

    await page.getByRole('button', { name: 'Banned' }).click();
    await listShows('filter[status]=banned&search=garcia');
    expect(await lastRequest()).toBe('/api/users?filter[status]=banned&search=garcia');
    await expect
      .poll(pageInfo)
      .toContain(`· ${await totalOf('filter[status]=banned&search=garcia')} records`);
    expect(new Set(await page.locator('td[data-column="status"]').allTextContents())).toEqual(
      new Set(['banned']),
    );
    await screenshot('banned-tab-search');

    // posts: the default filter status=published; the Drafts tab replaces it, and a draft opens.
    await page.getByRole('navigation', { name: 'Resources' }).getByRole('link', { name: 'Posts' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 2 }).textContent()).toBe('Posts');
    await page.getByRole('button', { name: 'Drafts' }).click();
    await listShows('filter[status]=draft');
    expect(new Set(await page.locator('td[data-column="status"]').allTextContents())).toEqual(
      new Set(['draft']),
    );
    const title = await page
      .getByTestId('record-row')
      .first()
      .locator('td[data-column="title"]')
      .textContent();
    await page.getByTestId('record-row').first().getByRole('link', { name: 'View' }).click();
    await expect.poll(() => page.getByTestId('detail-title').textContent()).toBe(title);
    expect(await page.getByTestId('detail-status').textContent()).toBe('draft');
    await screenshot('post-draft-detail');

    expect(problems).toEqual([]);
  }, 30_000);
});
