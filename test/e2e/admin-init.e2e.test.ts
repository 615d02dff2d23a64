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
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildService } from '../../src/server/standalone.js';
import { createKindsSchema, gadgets, initModule, loans } from '../fixtures/init-kinds.js';
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

  for (const dialect of dialects)
    it(`serves every generated endpoint on ${dialect}, with zero edits`, async () => {
      const name = `admin_init_${dialect}`;
      const conn = await freshDatabase(dialect, name);
      await createKindsSchema(conn, dialect);
      const { config, remove } = await initModule(conn, `admin-${dialect}`);
      // The generated module finds admin/dist next to the installed package's dist/src/index.js; here it
      // imports the repository's src/index.js, one folder shallower, so the folder is given as it is.
      const app = await buildService({ config: { ...config, adminDir }, connection: conn });
      try {
        await app.listen({ port: 0, host: '127.0.0.1' });
        const address = app.server.address();
        if (!address || typeof address === 'string') throw new Error('no port');
        const base = `http://127.0.0.1:${address.port}`;

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
        expect(problems).toEqual([]);
      } finally {
        await app.close();
        await conn.db.destroy();
        await dropDatabase(dialect, name);
        remove();
      }
    }, 60_000);
});
