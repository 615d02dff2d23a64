/**
 * The admin's dashboard in a real browser (Debian's Chromium, as admin.e2e.test.ts): the demo served
 * in-process on a temporary SQLite file. Each count the page shows is compared with the service's own
 * answer to the same aggregate request, made directly; `npm test` builds admin/dist first.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
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
import type { AggregateAnswer } from '../../src/client/index.js';
import { buildService } from '../../src/server/standalone.js';
import { type Connection, connect } from '../../src/sql/connect.js';
import { launchChromium, watchedPage } from '../support/chromium.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const adminDir = resolve(root, 'admin/dist');

describe('admin dashboard (Chromium)', () => {
  let temp: string;
  let connection: Connection;
  let app: FastifyInstance;
  let base: string;
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];

  /** The service's answer to an aggregate URL, asked directly with the editor's token. */
  const aggregate = async (url: string): Promise<AggregateAnswer> => {
    const response = await app.inject({
      method: 'GET',
      url,
      headers: { authorization: `Bearer ${demoTokens.editor}` },
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as AggregateAnswer;
  };
  /** What a part of the dashboard shows: each bar's key and count (the type: Node's types have no DOM). */
  type Tagged = { getAttribute(name: string): string | null };
  const bars = (part: string, bar: string) =>
    page
      .getByTestId(part)
      .getByTestId(bar)
      .evaluateAll((items) =>
        (items as unknown as Tagged[]).map((item) => [
          item.getAttribute('data-key'),
          Number(item.getAttribute('data-count')),
        ]),
      );

  beforeAll(async () => {
    if (!existsSync(join(adminDir, 'index.html')))
      throw new Error(`${adminDir} is missing: run npm run build:admin (npm test does it first).`);
    temp = mkdtempSync(join(tmpdir(), 'admin-dashboard-'));
    connection = connect(`sqlite:${join(temp, 'demo.db')}`);
    await createSchema(connection);
    await seedDemo(connection);
    app = await buildService({ config: { ...demo, adminDir }, connection });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    base = `http://127.0.0.1:${address.port}`;
    // The seed ends in January 2026: two users created now put counts in this month's bar.
    for (const n of [1, 2]) {
      const created = await app.inject({
        method: 'POST',
        url: '/api/users',
        headers: { authorization: `Bearer ${demoTokens.editor}` },
        payload: {
          name: `Dashboard ${n}`,
          email: `dashboard-${n}@example.net`,
          status: 'banned',
          score: 1,
          balance: 0,
          is_admin: false,
          password: 'long enough secret',
        },
      });
      expect(created.statusCode, created.body).toBe(201);
    }
    context = await launchChromium(join(temp, 'profile'), { width: 1280, height: 860 });
    page = await watchedPage(context, problems);
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await app?.close();
    await connection?.db.destroy();
    if (temp) rmSync(temp, { recursive: true, force: true });
  });

  it('shows the count by status and the last 12 months as the service counts them, with the token', async () => {
    await page.goto(`${base}/admin/#/users`);
    // Signed in: the dashboard's requests must carry the token as the list's do.
    await page.getByLabel('Access token').fill(demoTokens.editor);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByTestId('token-state').textContent()).not.toBe('Anonymous');
    const requests = [
      page.waitForRequest((request) => /\/api\/users\/aggregate\?.*group_by=status/.test(request.url())),
      page.waitForRequest((request) => /\/api\/users\/aggregate\?.*created_at%3Amonth/.test(request.url())),
    ];
    await page.getByTestId('dashboard-link').click();
    const [byStatus, byMonth] = await Promise.all(requests);
    expect(new URL(page.url()).hash).toBe('#/users/dashboard');
    for (const request of [byStatus, byMonth])
      expect(request?.headers().authorization).toBe(`Bearer ${demoTokens.editor}`);

    // The count by the badge column: what the service answers, largest first, colored as the table.
    const statuses = await aggregate('/api/users/aggregate?metrics=count&group_by=status&sort=-count');
    const expectedStatuses = statuses.data.map((group) => [group.group.status, group.count]);
    expect(expectedStatuses.length).toBeGreaterThan(1);
    await expect.poll(() => bars('dashboard-badge', 'badge-group')).toEqual(expectedStatuses);
    expect(
      await page.getByTestId('dashboard-badge').locator('[data-key="banned"] .badge').getAttribute('class'),
    ).toContain('badge-red');

    // The months: asked in the browser's zone, from the first day 11 months ago to the next month's.
    const asked = new URL(byMonth?.url() ?? '').searchParams;
    const zone = await page.evaluate<string>('Intl.DateTimeFormat().resolvedOptions().timeZone');
    const today = await page.evaluate<string>(
      'new Date().getFullYear() + "-" + String(new Date().getMonth() + 1).padStart(2, "0")',
    );
    const [year, month] = today.split('-').map(Number) as [number, number];
    const first = new Date(Date.UTC(year, month - 12, 1)).toISOString().slice(0, 10);
    const next = new Date(Date.UTC(year, month, 1)).toISOString().slice(0, 10);
    expect([asked.get('tz'), asked.get('from'), asked.get('to')]).toEqual([zone, first, next]);
    const months = await aggregate(
      `/api/users/aggregate?metrics=count&group_by=created_at:month&tz=${encodeURIComponent(zone)}&from=${first}&to=${next}`,
    );
    const expectedMonths = months.data.map((group) => [group.group['created_at:month'], group.count]);
    expect(expectedMonths).toHaveLength(12);
    expect(expectedMonths.at(-1)?.[1]).toBeGreaterThanOrEqual(2);
    await expect.poll(() => bars('dashboard-months', 'month')).toEqual(expectedMonths);
    // The largest month's bar is full height; the others in proportion.
    const heights = await page
      .getByTestId('dashboard-months')
      .locator('.month-track .bar')
      .evaluateAll((items) =>
        items.map((item) => (item as unknown as { style: { height: string } }).style.height),
      );
    const most = Math.max(...expectedMonths.map(([, count]) => Number(count)));
    // Rounded: the browser keeps a style's percentage to a few decimals.
    expect(heights.map((height) => Math.round(Number.parseFloat(height)))).toEqual(
      expectedMonths.map(([, count]) => Math.round((Number(count) / most) * 100)),
    );
    expect(problems).toEqual([]);
  });

  it('a resource without aggregates has no dashboard link, and its dashboard address shows none', async () => {
    await page.goto(`${base}/admin/#/posts`);
    await page.getByRole('heading', { name: 'Posts' }).waitFor();
    await page.locator('table[aria-busy="false"]').waitFor();
    expect(await page.getByTestId('dashboard-link').count()).toBe(0);
    await page.goto(`${base}/admin/#/posts/dashboard`);
    await page.getByText('This resource offers no counts to show.').waitFor();
    expect(await page.getByTestId('dashboard-badge').count()).toBe(0);
    expect(await page.getByTestId('dashboard-months').count()).toBe(0);
    // Users offer one: the link is there.
    await page.goto(`${base}/admin/#/users`);
    await page.getByTestId('dashboard-link').waitFor();
    expect(problems).toEqual([]);
  });
});
