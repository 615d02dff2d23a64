/**
 * The admin UI in a real browser: Debian's Chromium (`apt-get install chromium`, never a download),
 * driven by playwright-core, against the demo served in-process on a temporary SQLite file, with the
 * demo's own bearer-token context and access rules (only an editor's token may PATCH).
 * `npm test` builds admin/dist first; this file builds nothing. Screenshots go to test-artifacts/e2e/
 * (and, with ADMIN_DOCS_SCREENSHOTS=1, to docs/admin-table.png, admin-form.png, admin-create.png,
 * admin-conflict.png and admin-deleted.png).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoTokens } from '../../examples/demo/auth.js';
import demo from '../../examples/demo/config.js';
import { createSchema } from '../../examples/demo/schema.js';
import { seedDemo } from '../../examples/demo/seed.js';
import { buildService } from '../../src/server/standalone.js';
import { type Connection, connect } from '../../src/sql/connect.js';
import { launchChromium } from '../support/chromium.js';

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
  /** The statuses the server answered to `/api/users?…` requests, in order. */
  const listAnswers: number[] = [];
  let shot = 0;
  /** The 4xx answers the test provokes on purpose, by status: Chromium logs every one as a console error. */
  const expected: Record<number, number> = { 401: 0, 412: 0, 422: 0 };

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
  /** The address after `#`, decoded: the list state as a person reads it. */
  const hash = () => decodeURIComponent(new URL(page.url()).hash);
  const docsShot = async (name: string) => {
    if (docsShots) await page.screenshot({ path: resolve(root, `docs/${name}.png`) });
  };
  // A string, run in the page: this project's Node types have no DOM.
  const storedToken = () => page.evaluate<string | null>("localStorage.getItem('rqs.token')");

  beforeAll(async () => {
    if (!existsSync(join(adminDir, 'index.html')))
      throw new Error(`${adminDir} is missing: run npm run build:admin (npm test does it first).`);
    mkdirSync(shots, { recursive: true });
    temp = mkdtempSync(join(tmpdir(), 'admin-e2e-'));
    connection = connect(`sqlite:${join(temp, 'demo.db')}`);
    await createSchema(connection);
    await seedDemo(connection);
    // The demo's configuration as `npm start` serves it (its context hook and access rules); its
    // setup hook is not run: the database above is already seeded.
    // The demo, and its posts once more as an endpoint that reports no total (a count strategy).
    const posts = demo.endpoints.find((endpoint) => endpoint.resource === 'posts');
    if (!posts?.schema) throw new Error('the demo has no posts endpoint with a schema');
    const uncounted = {
      ...posts,
      path: 'posts-uncounted',
      total: 'none' as const,
      schema: { ...posts.schema, title: 'Articles (no total)' },
    };
    app = await buildService({
      config: { ...demo, adminDir, endpoints: [...demo.endpoints, uncounted] },
      connection,
    });
    // What the server answered each list request: a 304 is the browser's cache revalidating.
    app.addHook('onResponse', async (request, reply) => {
      if (request.url.startsWith('/api/users?')) listAnswers.push(reply.statusCode);
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    base = `http://127.0.0.1:${address.port}`;

    context = await launchChromium(join(temp, 'profile'), { width: 1280, height: 860 });
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
    await expect
      .poll(() => emailError.textContent())
      .toBe('The email field must be a valid email address, with a dot in its domain (name@example.com).');
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

    expect(expected).toEqual({ 401: 0, 412: 0, 422: 0 });
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
    // The title heads the page, and the author is named by the users' record title, linked.
    expect(await page.getByRole('heading', { level: 2 }).textContent()).toBe(`Post "${title}"`);
    const postId = /#\/posts\/(\d+)$/.exec(page.url())?.[1];
    const post = await api<{ user_id: number; author: { name: string } }>(
      `/api/posts/${postId}?include=author`,
    );
    const author = page.getByTestId('detail-author').getByRole('link');
    expect(await author.textContent()).toBe(post.author.name);
    expect(await author.getAttribute('href')).toBe(`#/users/${post.user_id}`);
    await screenshot('post-draft-detail');

    // An endpoint that reports no total (`total: 'none'`): pages by Next alone, naming no last page.
    await page
      .getByRole('navigation', { name: 'Resources' })
      .getByRole('link', { name: 'Articles (no total)' })
      .click();
    await listShows('/api/posts-uncounted');
    const uncounted = await api<{ total: null; last_page: null; next_page_url: string | null }>(
      '/api/posts-uncounted',
    );
    expect(uncounted.total).toBeNull();
    expect(uncounted.next_page_url).not.toBeNull();
    await expect.poll(() => page.getByTestId('page-info').textContent()).toBe('Page 1');
    await page.getByRole('button', { name: 'Next' }).click();
    await listShows('/api/posts-uncounted?page=2');
    await expect.poll(() => page.getByTestId('page-info').textContent()).toBe('Page 2');

    expect(problems).toEqual([]);
  }, 30_000);

  it('keeps the list in the address (reload, Back, a shared link), with page numbers and a page size', async () => {
    // Every resource of the index is in the navigation.
    const index = await api<{ resources: { title: string }[] }>('/api/v1/schema');
    await page.goto(`${base}/admin/#/users`);
    const nav = page.getByRole('navigation', { name: 'Resources' }).getByRole('link');
    await expect.poll(() => nav.allTextContents()).toEqual(index.resources.map((entry) => entry.title));
    await page.locator('table[aria-busy="false"]').waitFor();

    // Page size, then the envelope's page numbers (with their gap).
    const perPage = page.getByLabel('Per page');
    expect(await perPage.locator('option').allTextContents()).toEqual(['10', '15', '25', '50', '100']);
    expect(await perPage.inputValue()).toBe('15');
    await perPage.selectOption('10');
    await listShows('/api/users?per_page=10');
    expect(hash()).toBe('#/users?per_page=10');
    await expect.poll(() => page.getByTestId('record-row').count()).toBe(10);
    const tens = await api<Page1<User> & { links: { label: string }[] }>('/api/users?per_page=10');
    const pager = page.getByRole('navigation', { name: 'Pagination' });
    const expectedLinks = tens.links
      .map((link) => link.label)
      .filter((label) => /^\d+$/.test(label) || label === '...')
      .map((label) => (label === '...' ? '…' : label));
    expect(expectedLinks).toContain('…');
    // The gap is hidden from assistive technology (the numbers around it say enough), not from the eye.
    expect(await pager.locator('li').allTextContents()).toEqual(expectedLinks);
    await pager.getByRole('button', { name: 'Page 3', exact: true }).click();
    await listShows('/api/users?per_page=10&page=3');
    const third = await api<Page1<User>>('/api/users?per_page=10&page=3');
    await expect
      .poll(() => page.getByTestId('record-row').first().locator('td[data-column="name"]').textContent())
      .toBe(third.data[0]?.name);
    expect(
      await pager.getByRole('button', { name: 'Page 3', exact: true }).getAttribute('aria-current'),
    ).toBe('page');
    expect(await page.getByTestId('page-info').textContent()).toBe(
      `Page 3 of ${tens.last_page} · ${tens.total} records`,
    );
    await perPage.selectOption('25');
    await listShows('/api/users?per_page=25');
    await expect.poll(() => page.getByTestId('record-row').count()).toBe(25);
    await perPage.selectOption('10');
    await listShows('/api/users?per_page=10');

    // A tab, a sort, a condition and a page: each one a step of the address.
    await page.getByRole('button', { name: 'Active', exact: true }).click();
    await listShows('filter[status]=active&per_page=10');
    const scoreHeader = page.getByRole('button', { name: /^Score/ });
    await scoreHeader.click();
    await listShows('sort=score');
    await scoreHeader.click();
    await listShows('sort=-score');
    await page.getByRole('button', { name: 'Filters' }).click();
    const panel = page.getByTestId('filter-panel');
    await panel.getByRole('button', { name: 'Add condition' }).click();
    const condition = panel.getByTestId('condition').first();
    await condition.getByLabel('Filter').selectOption('score');
    await condition.getByLabel('Operator').selectOption('gte');
    await condition.getByLabel('Value').fill('50');
    await panel.getByRole('button', { name: 'Apply filters' }).click();
    await listShows('filter[score][gte]=50');
    await pager.getByRole('button', { name: 'Page 2', exact: true }).click();
    const request = '/api/users?filter[status]=active&filter[score][gte]=50&sort=-score&per_page=10&page=2';
    await listShows(request);
    const address = '#/users?tab=active&filter[score][gte]=50&sort=-score&per_page=10&page=2';
    expect(hash()).toBe(address);
    const filtered = await api<Page1<User>>(request);
    const firstName = () =>
      page.getByTestId('record-row').first().locator('td[data-column="name"]').textContent();
    await expect.poll(firstName).toBe(filtered.data[0]?.name);
    await screenshot('list-state');

    /** The list as the address restores it: the request, and every control showing its part. */
    const restored = async () => {
      await listShows(request);
      expect(await lastRequest()).toBe(request);
      await expect.poll(firstName).toBe(filtered.data[0]?.name);
      expect(
        await page.getByRole('button', { name: 'Active', exact: true }).getAttribute('aria-pressed'),
      ).toBe('true');
      expect(await page.getByRole('columnheader', { name: /Score/ }).getAttribute('aria-sort')).toBe(
        'descending',
      );
      expect(await page.getByRole('button', { name: 'Filters (1)' }).getAttribute('aria-expanded')).toBe(
        'true',
      );
      const shown = page.getByTestId('filter-panel').getByTestId('condition');
      expect(await shown.count()).toBe(1);
      expect(await shown.getByLabel('Filter').inputValue()).toBe('score');
      expect(await shown.getByLabel('Operator').inputValue()).toBe('gte');
      expect(await shown.getByLabel('Value').inputValue()).toBe('50');
      expect(await page.getByLabel('Per page').inputValue()).toBe('10');
      expect(
        await page
          .getByRole('navigation', { name: 'Pagination' })
          .getByRole('button', { name: 'Page 2', exact: true })
          .getAttribute('aria-current'),
      ).toBe('page');
      expect(await page.getByTestId('page-info').textContent()).toBe(
        `Page 2 of ${filtered.last_page} · ${filtered.total} records`,
      );
    };

    await page.reload();
    expect(hash()).toBe(address);
    await restored();

    // Back: the step before (page 1), Forward: page 2 again.
    await page.goBack();
    await listShows('/api/users?filter[status]=active&filter[score][gte]=50&sort=-score&per_page=10');
    expect(await lastRequest()).not.toContain('page=2');
    expect(hash()).toBe('#/users?tab=active&filter[score][gte]=50&sort=-score&per_page=10');
    await page.goForward();
    await restored();

    // A shared link, opened in another tab.
    const shared = await context.newPage();
    const original = page;
    page = shared;
    try {
      await page.goto(`${base}/admin/${address}`);
      await restored();
    } finally {
      page = original;
      await shared.close();
    }
    expect(problems).toEqual([]);
  }, 60_000);

  it('creates, edits through a conflict, guards unsaved changes, deletes and restores a user', async () => {
    await page.goto(`${base}/admin/#/users`);
    await page.locator('table[aria-busy="false"]').waitFor();
    // Anonymous: no New button.
    expect(await page.getByTestId('new-record').count()).toBe(0);
    await signIn(demoTokens.editor);
    const newUser = page.getByRole('link', { name: 'New user', exact: true });
    await newUser.click();
    expect(hash()).toBe('#/users/new');

    // 1. Create: a required input left empty is the server's 422, under its field.
    const form = page.getByTestId('create-form');
    await form.waitFor();
    expect(await page.getByRole('heading', { level: 2 }).textContent()).toBe('New user');
    const name = 'Zoë Testperson';
    const email = 'zoe.testperson@example.net';
    await form.getByLabel('Name').fill(name);
    await form.getByLabel('Status').selectOption({ label: 'Active' });
    await form.getByLabel('Score').fill('42');
    await form.getByLabel('Balance').fill('10');
    await form.getByLabel('New password').fill('correct horse battery');
    expected[422] = 1;
    await form.getByRole('button', { name: 'Create user' }).click();
    await expect.poll(() => form.getByTestId('error-email').textContent()).toContain('email');
    await docsShot('admin-create');
    await screenshot('create-refused');
    await form.getByLabel('Email').fill(email);
    const posted = page.waitForRequest((request) => request.method() === 'POST');
    await form.getByRole('button', { name: 'Create user' }).click();
    expect((await posted).postDataJSON()).toEqual({
      name,
      email,
      status: 'active',
      score: 42,
      is_admin: false,
      balance: 10,
      password: 'correct horse battery',
    });
    await expect.poll(() => page.getByTestId('notice').textContent()).toBe(`Created user "${name}".`);
    const id = /#\/users\/(\d+)$/.exec(page.url())?.[1];
    if (!id) throw new Error(`not a record address: ${page.url()}`);
    expect(await page.getByRole('heading', { level: 2 }).textContent()).toBe(`User "${name}"`);
    await expect.poll(() => page.title()).toBe(`User "${name}" · Admin`);
    await screenshot('created');

    // 2. It appears in the list (newest first), named in its row's links.
    await page.getByRole('navigation', { name: 'Resources' }).getByRole('link', { name: 'Users' }).click();
    await listShows('/api/users');
    await expect
      .poll(() => page.getByTestId('record-row').first().locator('td[data-column="name"]').textContent())
      .toBe(name);
    expect(
      await page
        .getByTestId('record-row')
        .first()
        .getByRole('link', { name: `Edit user "${name}"` })
        .count(),
    ).toBe(1);

    // 3. A deep link reads the record through the read-one route, with its to-one relation.
    const read = page.waitForRequest((request) => new RegExp(`/api/users/${id}\\?`).test(request.url()));
    await page.goto(`${base}/admin/#/users/${id}`);
    expect(decodeURIComponent((await read).url())).toBe(
      `${base}/api/users/${id}?filter[trashed]=true&include=department`,
    );
    await expect.poll(() => page.getByTestId('detail-email').textContent()).toBe(email);
    expect(await page.getByTestId('detail-name').textContent()).toBe(name);

    // 4. An edit from a second tab lands first: this tab's save is refused (412) and asks.
    await page.getByTestId('detail').getByRole('link', { name: 'Edit', exact: true }).click();
    await page.getByTestId('edit-form').waitFor();
    expect(await page.getByRole('heading', { level: 2 }).textContent()).toBe(`Edit user "${name}"`);
    const other = await context.newPage();
    const saveIn = async (tab: Page, label: string, value: string) => {
      await tab.getByLabel(label).fill(value);
      await tab.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => tab.getByTestId('form-success').textContent()).toBe('Saved.');
    };
    await other.goto(`${base}/admin/#/users/${id}/edit`);
    await saveIn(other, 'Score', '55');

    const conflictDialog = page.getByRole('dialog', { name: 'This user changed since you opened it' });
    const refusedSave = async (mine: string) => {
      await page.getByLabel('Email').fill(mine);
      expected[412] = (expected[412] ?? 0) + 1;
      const patch = page.waitForRequest((request) => request.method() === 'PATCH');
      await page.getByRole('button', { name: 'Save' }).click();
      const ifMatch = (await patch).headers()['if-match'];
      expect(ifMatch).toMatch(/^"[\w-]+"$/);
      await conflictDialog.waitFor();
      expect(await conflictDialog.getByRole('button').allTextContents()).toEqual([
        'Reload (discard my changes)',
        'Overwrite (save mine anyway)',
      ]);
      const row = conflictDialog.locator('tr[data-field="email"]');
      expect(await row.locator('td').allTextContents()).toEqual([mine, email]);
      return ifMatch;
    };
    await refusedSave('zoe.mine@example.net');
    // Their change is shown too.
    expect(await conflictDialog.locator('tr[data-field="score"] td').allTextContents()).toEqual([
      '42 (unchanged)',
      '55',
    ]);
    await docsShot('admin-conflict');
    await screenshot('conflict');

    // "Reload": their score, my email discarded.
    await conflictDialog.getByRole('button', { name: 'Reload (discard my changes)' }).click();
    await conflictDialog.waitFor({ state: 'detached' });
    expect(await page.getByLabel('Score').inputValue()).toBe('55');
    expect(await page.getByLabel('Email').inputValue()).toBe(email);
    expect(await page.getByTestId('form-success').textContent()).toBe(
      'Reloaded: the form shows the stored values.',
    );

    // "Overwrite": the second tab saves again; mine is saved anyway, over the new version only.
    await saveIn(other, 'Score', '60');
    await other.close();
    const mine = 'zoe.overwrite@example.net';
    const staleTag = await refusedSave(mine);
    const overwrite = page.waitForRequest((request) => request.method() === 'PATCH');
    await conflictDialog.getByRole('button', { name: 'Overwrite (save mine anyway)' }).click();
    const retried = await overwrite;
    expect(retried.postDataJSON()).toEqual({ email: mine });
    expect(retried.headers()['if-match']).not.toBe(staleTag);
    await expect.poll(() => page.getByTestId('form-success').textContent()).toBe('Saved.');
    const stored = await api<User>(`/api/users/${id}`);
    expect(stored).toMatchObject({ email: mine, score: 60 });
    await expect.poll(() => expected[412]).toBe(0);

    // 5. Unsaved changes: the browser asks before a reload...
    await page.getByLabel('Score').fill('61');
    const unload = new Promise<string>((done) =>
      page.once('dialog', (dialog) => {
        done(dialog.type());
        void dialog.accept();
      }),
    );
    await page.reload();
    expect(await unload).toBe('beforeunload');
    await expect.poll(() => page.getByLabel('Score').inputValue()).toBe('60');
    // ...and the app before a link or Back.
    await page.getByLabel('Score').fill('62');
    const leaveDialog = page.getByRole('dialog', { name: 'Leave without saving?' });
    await page.getByRole('link', { name: 'Done' }).click();
    await leaveDialog.waitFor();
    await screenshot('leave-dialog');
    await leaveDialog.getByRole('button', { name: 'Stay on this page' }).click();
    await leaveDialog.waitFor({ state: 'detached' });
    expect(hash()).toBe(`#/users/${id}/edit`);
    expect(await page.getByLabel('Score').inputValue()).toBe('62');
    // ...and before a token change, which would reload the form under another identity.
    const tokenDialog = page.getByRole('dialog', { name: 'Sign out?' });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await tokenDialog.waitFor();
    await tokenDialog.getByRole('button', { name: 'Keep editing' }).click();
    await tokenDialog.waitFor({ state: 'detached' });
    expect(await page.getByTestId('token-state').textContent()).toBe('Token set');
    expect(await page.getByLabel('Score').inputValue()).toBe('62');
    await page.goBack();
    await leaveDialog.waitFor();
    expect(hash()).toBe(`#/users/${id}/edit`);
    await leaveDialog.getByRole('button', { name: 'Stay on this page' }).click();
    await page.getByRole('link', { name: 'Done' }).click();
    await leaveDialog.getByRole('button', { name: 'Leave (discard changes)' }).click();
    await expect.poll(() => page.getByTestId('detail-score').textContent()).toBe('60');
    expect(hash()).toBe(`#/users/${id}`);

    // 6. Delete (confirmed, with If-Match): the record stays reachable, marked, and comes back.
    await page.getByRole('button', { name: 'Delete' }).click();
    const deleteDialog = page.getByRole('dialog', { name: `Delete user "${name}"?` });
    await deleteDialog.waitFor();
    await screenshot('delete-confirm');
    // The harmless choice has the focus, and Escape is a cancel.
    await expect
      .poll(() => page.evaluate<string | null>('document.activeElement?.textContent'))
      .toBe('Cancel');
    await page.keyboard.press('Escape');
    await deleteDialog.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Delete' }).click();
    const deleted = page.waitForRequest((request) => request.method() === 'DELETE');
    await deleteDialog.getByRole('button', { name: 'Delete' }).click();
    expect((await deleted).headers()['if-match']).toMatch(/^"[\w-]+"$/);
    await expect
      .poll(() => page.getByTestId('record-notice').textContent())
      .toBe(`Deleted user "${name}". It can be restored.`);
    expect(await page.getByTestId('deleted-note').isVisible()).toBe(true);
    await screenshot('deleted-record');
    expect(await page.getByTestId('detail').getByRole('link', { name: 'Edit', exact: true }).count()).toBe(0);
    expect((await app.inject({ method: 'GET', url: `/api/users/${id}` })).statusCode).toBe(404);

    // In the list: hidden, then shown under "Show deleted", marked, with its restore button.
    await page.goto(`${base}/admin/#/users?search=Testperson`);
    await listShows('/api/users?search=Testperson');
    await expect.poll(() => page.locator('tbody td').first().textContent()).toBe('No records.');
    await page.getByLabel('Show deleted').check();
    await listShows('filter[trashed]=true&search=Testperson');
    expect(await page.getByTestId('record-row').count()).toBe(1);
    expect(await page.getByTestId('record-row').getAttribute('data-deleted')).toBe('true');
    // Among the others (newest first), marked, with its restore button.
    await page.goto(`${base}/admin/#/users?filter[trashed]=true&per_page=10`);
    await listShows('/api/users?filter[trashed]=true&per_page=10');
    const row = page.getByTestId('record-row').first();
    expect(await row.locator('td[data-column="name"]').textContent()).toBe(name);
    expect(await row.getAttribute('data-deleted')).toBe('true');
    await docsShot('admin-deleted');
    await screenshot('deleted-in-list');
    await row.getByRole('button', { name: `Restore user "${name}"` }).click();
    await expect.poll(() => page.getByTestId('list-notice').textContent()).toBe(`Restored user "${name}".`);
    await expect.poll(() => row.getAttribute('data-deleted')).toBeNull();
    await api<User>(`/api/users/${id}`);

    // Once more from the record page, restored there.
    await row.getByRole('link', { name: `View user "${name}"` }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    await deleteDialog.getByRole('button', { name: 'Delete' }).click();
    await page.getByTestId('deleted-note').waitFor();
    await page.getByRole('button', { name: 'Restore' }).click();
    await expect.poll(() => page.getByTestId('record-notice').textContent()).toBe(`Restored user "${name}".`);
    expect(await page.getByTestId('deleted-note').count()).toBe(0);
    expect(await page.getByTestId('detail').getByRole('link', { name: 'Edit', exact: true }).count()).toBe(1);

    await page.getByRole('button', { name: 'Sign out' }).click();
    expect(expected).toEqual({ 401: 0, 412: 0, 422: 0 });
    expect(problems).toEqual([]);
  }, 60_000);

  it('shows a list again for the cost of a 304: the browser revalidates it with its ETag', async () => {
    await page.goto(`${base}/admin/#/users?per_page=10`);
    await listShows('/api/users?per_page=10');
    const rows = await page.getByTestId('record-row').allTextContents();
    // Away and back: the same list URL, asked again by the page's fetch.
    const before = listAnswers.length;
    await page.getByRole('navigation', { name: 'Resources' }).getByRole('link', { name: 'Posts' }).click();
    await page.locator('table[aria-busy="false"]').waitFor();
    await page.goBack();
    await listShows('/api/users?per_page=10');
    await expect.poll(() => listAnswers.slice(before)).toContain(304);
    // The page shows the same records, from the browser's copy.
    expect(await page.getByTestId('record-row').allTextContents()).toEqual(rows);
    expect(problems).toEqual([]);
  }, 30_000);
  it('exports the list as CSV with its search and sort: a plain link anonymously, a fetched blob with a token', async () => {
    await page.goto(`${base}/admin/#/users?search=an&sort=-score&per_page=10`);
    await listShows('/api/users?sort=-score&search=an');
    const link = page.getByTestId('export');
    const href = String(await link.getAttribute('href'));
    const query = new URL(href, base).searchParams;
    expect(query.get('search')).toBe('an');
    expect(query.get('sort')).toBe('-score');
    expect(query.get('format')).toBe('csv');
    // The table's columns, and no page: an export answers every record.
    expect(query.get('fields[users]')).toBe('id,name,email,status,score,is_admin,birthday,created_at');
    expect(query.has('per_page') || query.has('page')).toBe(false);
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toMatch(/^users-\d{4}-\d{2}-\d{2}\.csv$/);
    const text = readFileSync(await download.path(), 'utf8');
    const served = await app.inject({ method: 'GET', url: href });
    expect(served.statusCode, served.body).toBe(200);
    expect(text).toBe(served.body);
    const total = (await api<Page1<User>>('/api/users?search=an')).total;
    expect(total).toBeGreaterThan(10);
    const lines = text.split('\r\n');
    expect(lines[0]).toBe('id,name,email,status,score,is_admin,birthday,created_at');
    expect(lines).toHaveLength(total + 2);

    // Signed in: a link cannot carry the token, so the button fetches the export with it.
    await signIn(demoTokens.viewer);
    await listShows('/api/users?sort=-score&search=an');
    const button = page.getByRole('button', { name: 'Export CSV' });
    const requested = page.waitForRequest((request) => request.url().includes('format=csv'));
    const [saved] = await Promise.all([page.waitForEvent('download'), button.click()]);
    expect((await requested).headers().authorization).toBe(`Bearer ${demoTokens.viewer}`);
    expect(saved.suggestedFilename()).toMatch(/^users-\d{4}-\d{2}-\d{2}\.csv$/);
    expect(readFileSync(await saved.path(), 'utf8')).toBe(text);
    await page.getByRole('button', { name: 'Sign out' }).click();
    expect(problems).toEqual([]);
  }, 30_000);
});
