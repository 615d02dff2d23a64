/**
 * The admin UI on what `init` generated, with no edit, in Debian's Chromium: on each engine, a schema
 * with uuid keys, enums, a link table keyed by its pair and a view (test/fixtures/init-kinds.ts). The
 * index lists every generated endpoint, a table shows its rows with enum badges, and a record keyed by
 * a uuid opens by its deep link. `npm test` builds admin/dist first.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildService } from '../../src/server/standalone.js';
import type { Connection } from '../../src/sql/connect.js';
import type { DialectName } from '../../src/sql/dialect.js';
import { createKindsSchema, gadgets, initModule, loans } from '../fixtures/init-kinds.js';
import { createTutorial } from '../fixtures/init-tutorial.js';
import { launchChromium, watchedPage } from '../support/chromium.js';
import { dialects, dropDatabase, freshDatabase } from '../support/databases.js';

const adminDir = resolve(fileURLToPath(new URL('../../', import.meta.url)), 'admin/dist');

describe('admin UI on init’s output (Chromium)', () => {
  let temp: string;
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    if (!existsSync(join(adminDir, 'index.html')))
      throw new Error(`${adminDir} is missing: run npm run build:admin (npm test does it first).`);
    temp = mkdtempSync(join(tmpdir(), 'admin-init-e2e-'));
    context = await launchChromium(join(temp, 'profile'), { width: 1280, height: 860 });
    page = await watchedPage(context, problems);
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    if (temp) rmSync(temp, { recursive: true, force: true });
  });

  /** `init` on a fresh database that `create` fills, its module served unchanged; `check` gets the address. */
  async function withInitAdmin(
    dialect: DialectName,
    name: string,
    create: (conn: Connection) => Promise<void>,
    check: (base: string, conn: Connection) => Promise<void>,
  ): Promise<void> {
    const conn = await freshDatabase(dialect, name);
    let served: { app: FastifyInstance; remove: () => void } | undefined;
    try {
      await create(conn);
      const { config, remove } = await initModule(conn, name);
      // The module's adminDir is shippedAdminDir(): this repository's admin/dist, which npm test builds.
      expect(config.adminDir).toBe(adminDir);
      served = { app: await buildService({ config, connection: conn }), remove };
      await check(await served.app.listen({ port: 0, host: '127.0.0.1' }), conn);
      expect(problems).toEqual([]);
    } finally {
      await served?.app.close();
      served?.remove();
      await conn.db.destroy();
      await dropDatabase(dialect, name);
    }
  }

  for (const dialect of dialects)
    it(`serves every generated endpoint on ${dialect}, with zero edits`, async () => {
      await withInitAdmin(
        dialect,
        `admin_init_${dialect}`,
        (conn) => createKindsSchema(conn, dialect),
        async (base) => {
          await page.goto(`${base}/admin/`);
          const nav = page.getByRole('navigation', { name: 'Resources' });
          // Each titled from its table's name, plural (`gadget_names` → "Gadget names").
          for (const title of ['Gadget names', 'Gadgets', 'Kind types', 'Loans', 'Owners'])
            await expect.poll(() => nav.getByRole('link', { name: title, exact: true }).count()).toBe(1);

          await nav.getByRole('link', { name: 'Gadgets', exact: true }).click();
          await expect.poll(() => page.getByTestId('record-row').count()).toBe(gadgets.length);
          if (dialect !== 'sqlite') {
            // An enum is a badge; its colors are assigned in turn from its values (happy is the third).
            const happy = page.locator('td[data-column="mood"] .badge', { hasText: 'happy' });
            await expect.poll(() => happy.getAttribute('class')).toContain('badge-orange');
          }
          // A record keyed by a uuid opens at its deep link.
          const [first] = gadgets;
          const row = page.getByTestId('record-row').filter({ hasText: first?.name ?? '' });
          await row.getByRole('link', { name: 'View' }).click();
          await expect.poll(() => decodeURIComponent(page.url())).toContain(`/gadgets/${first?.id}`);
          await expect.poll(() => page.getByTestId('detail-name').textContent()).toBe(first?.name);
          expect(await page.getByTestId('detail-id').textContent()).toBe(first?.id);
          await page.reload();
          await expect.poll(() => page.getByTestId('detail-name').textContent()).toBe(first?.name);

          // The link table keyed by its pair, listed read-only.
          await nav.getByRole('link', { name: 'Loans', exact: true }).click();
          await expect.poll(() => page.getByTestId('record-row').count()).toBe(loans.length);
        },
      );
    }, 60_000);
  for (const dialect of dialects)
    it(`reads as a person would on a music store in PascalCase on ${dialect}: labels and record titles`, async () => {
      await withInitAdmin(
        dialect,
        `admin_init_music_${dialect}`,
        (conn) => createTutorial(conn, 'music'),
        async (base, conn) => {
          await page.goto(`${base}/admin/`);
          const nav = page.getByRole('navigation', { name: 'Resources' });
          for (const title of ['Invoices', 'Invoice lines', 'Media types', 'Playlists'])
            await expect.poll(() => nav.getByRole('link', { name: title, exact: true }).count()).toBe(1);

          // The invoice list: headers humanized, the key as ID, each customer named by first and last name.
          await nav.getByRole('link', { name: 'Invoices', exact: true }).click();
          await expect.poll(() => page.getByTestId('record-row').count()).toBeGreaterThan(0);
          const headers = (await page.locator('th').allTextContents()).map((text) =>
            text.replace(/[^A-Za-z ]/g, '').trim(),
          );
          expect(headers).toEqual(
            expect.arrayContaining(['ID', 'Customer', 'Invoice date', 'Billing postal code', 'Total']),
          );
          const q = (id: string) => (dialect === 'mysql' ? `\`${id}\`` : `"${id}"`);
          const newest = (
            await sql
              .raw<{ first: string; last: string }>(
                `select c.${q('FirstName')} as ${q('first')}, c.${q('LastName')} as ${q('last')} from ${q('Invoice')} i join ${q('Customer')} c on c.${q('CustomerId')} = i.${q('CustomerId')} order by i.${q('InvoiceId')} desc limit 1`,
              )
              .execute(conn.db)
          ).rows[0];
          const firstRow = page.getByTestId('record-row').first();
          await expect
            .poll(() => firstRow.locator('td[data-column="CustomerId"]').textContent())
            .toBe(`${newest?.first} ${newest?.last}`);

          // An invoice has no column that names it: its resource and key. A customer: both names.
          await page.goto(`${base}/admin/#/Invoice/1`);
          await expect.poll(() => page.locator('#detail-title').textContent()).toBe('Invoice 1');
          const one = (
            await sql
              .raw<{ first: string; last: string }>(
                `select ${q('FirstName')} as ${q('first')}, ${q('LastName')} as ${q('last')} from ${q('Customer')} where ${q('CustomerId')} = 1`,
              )
              .execute(conn.db)
          ).rows[0];
          await page.goto(`${base}/admin/#/Customer/1`);
          await expect
            .poll(() => page.locator('#detail-title').textContent())
            .toBe(`Customer "${one?.first} ${one?.last}"`);

          // The dashboard's months end with the newest invoice's month (the data's, not today's).
          const newestDate = (
            await sql
              .raw<{ newest: unknown }>(
                `select max(${q('InvoiceDate')}) as ${q('newest')} from ${q('Invoice')}`,
              )
              .execute(conn.db)
          ).rows[0]?.newest;
          const newestMonth = (
            newestDate instanceof Date ? newestDate.toISOString() : String(newestDate)
          ).slice(0, 7);
          await page.goto(`${base}/admin/#/Invoice/dashboard`);
          const months = page.getByTestId('dashboard-months').getByTestId('month');
          await expect.poll(() => months.count()).toBe(12);
          expect((await months.last().getAttribute('data-key'))?.slice(0, 7)).toBe(newestMonth);
          const counted = (
            await Promise.all((await months.all()).map((month) => month.getAttribute('data-count')))
          ).map(Number);
          expect(counted.reduce((sum, count) => sum + count, 0)).toBeGreaterThan(0);
        },
      );
    }, 60_000);
});
