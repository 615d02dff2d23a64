/**
 * The admin on what `init` generated, with no edit, in Debian's Chromium, on each engine: a schema with
 * uuid keys, enums, a link table keyed by its pair and a view (test/fixtures/init-kinds.ts), and a music
 * store in PascalCase with a many-to-many pivot and dates (test/fixtures/init-tutorial.ts, `--writable`):
 * a relation sort, an export, a record edited through an autocomplete and a many-to-many pick, and the
 * dashboard over a past range, each compared with the API's or the database's answer. `npm test` builds
 * admin/dist first. With ADMIN_DOCS_SCREENSHOTS=1 it writes docs/admin-edit.png and docs/admin-dashboard.png.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildService } from '../../src/server/standalone.js';
import type { Connection } from '../../src/sql/connect.js';
import type { DialectName } from '../../src/sql/dialect.js';
import { createKindsSchema, gadgets, initModule, loans } from '../fixtures/init-kinds.js';
import { createTutorial } from '../fixtures/init-tutorial.js';
import { launchChromium, watchedPage } from '../support/chromium.js';
import { parseCsv } from '../support/csv.js';
import { dialects, dropDatabase, freshDatabase } from '../support/databases.js';
import { dashboardAnswersAsTheApi } from './dashboard.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const adminDir = resolve(root, 'admin/dist');
const docsShots = process.env.ADMIN_DOCS_SCREENSHOTS === '1';

type Row = Record<string, unknown>;

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
    check: (base: string, conn: Connection, app: FastifyInstance) => Promise<void>,
    options: { writable?: boolean } = {},
  ): Promise<void> {
    const conn = await freshDatabase(dialect, name);
    let served: { app: FastifyInstance; remove: () => void } | undefined;
    try {
      await create(conn);
      const { config, remove } = await initModule(conn, name, options);
      // The module's adminDir is shippedAdminDir(): this repository's admin/dist, which npm test builds.
      expect(config.adminDir).toBe(adminDir);
      served = { app: await buildService({ config, connection: conn }), remove };
      await check(await served.app.listen({ port: 0, host: '127.0.0.1' }), conn, served.app);
      // Nothing of this admin may keep asking once its service is gone.
      await page.goto('about:blank');
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
          const menu = page.locator('.RaSidebar-fixed, .RaMenu-open, nav').first();
          // Each titled from its table's name, plural (`gadget_names` → "Gadget names").
          for (const title of ['Gadget names', 'Gadgets', 'Kind types', 'Loans', 'Owners'])
            await expect.poll(() => menu.getByRole('menuitem', { name: title, exact: true }).count()).toBe(1);
          await menu.getByRole('menuitem', { name: 'Gadgets', exact: true }).click();
          await expect.poll(() => page.locator('table tbody tr').count()).toBe(gadgets.length);
          // A record keyed by a uuid opens at its deep link, and again after a reload.
          const [first] = gadgets;
          await page.goto(`${base}/admin/#/gadgets/${first?.id}/show`);
          await expect
            .poll(() => page.getByText(first?.name ?? '-', { exact: true }).count())
            .toBeGreaterThan(0);
          await page.reload();
          await expect
            .poll(() => page.getByText(first?.id ?? '-', { exact: true }).count())
            .toBeGreaterThan(0);
          // The link table keyed by its pair, listed.
          await page.goto(`${base}/admin/#/loans`);
          await expect.poll(() => page.locator('table tbody tr').count()).toBe(loans.length);
        },
      );
    }, 60_000);

  for (const dialect of dialects)
    it(`edits a music store in PascalCase on ${dialect}: relation sort, export, autocomplete, many-to-many pick, dashboard`, async () => {
      await withInitAdmin(
        dialect,
        `admin_init_music_${dialect}`,
        (conn) => createTutorial(conn, 'music'),
        async (base, _conn, app) => {
          const api = async <T = Row>(url: string): Promise<T> => {
            const response = await app.inject({ method: 'GET', url });
            expect(response.statusCode, response.body).toBe(200);
            return response.json() as T;
          };
          const albumTitles = (page1: { data: Row[] }) =>
            page1.data.map((track) => String((track.album as Row | null)?.Title ?? ''));
          const shownAlbums = () =>
            page.locator('table tbody td[class~="column-album.Title"]').allTextContents();

          // The tracks: each album by its title, then sorted by it, as the API answers.
          await page.goto(`${base}/admin/#/Track`);
          await expect
            .poll(shownAlbums)
            .toEqual(albumTitles(await api<{ data: Row[] }>('/api/Track?per_page=25&include=album')));
          const sorted = page.waitForRequest((request) => request.url().includes('sort=album.Title'));
          await page.locator('thead [data-field="album.Title"]').click();
          await sorted;
          const bySort = await api<{ data: Row[]; total: number }>(
            '/api/Track?per_page=25&include=album&sort=album.Title',
          );
          await expect.poll(shownAlbums).toEqual(albumTitles(bySort));
          expect(new Set(albumTitles(bySort)).size).toBeGreaterThan(1);

          // The export: every track, in the file the service makes.
          const download = page.waitForEvent('download');
          await page.getByRole('button', { name: 'Export CSV' }).click();
          const csv = parseCsv(readFileSync(await (await download).path(), 'utf8'));
          expect(csv.length - 1).toBe(bySort.total);

          // A track's album, picked by its title in an autocomplete over the albums' search.
          const albums = await api<{ data: Row[] }>('/api/Album?per_page=100');
          const before = await api('/api/Track/1');
          const target = albums.data.find((album) => album.AlbumId !== before.AlbumId);
          if (!target) throw new Error('one album only');
          await page.goto(`${base}/admin/#/Track/1`);
          const album = page.getByRole('combobox', { name: 'Album' });
          await expect.poll(() => album.inputValue()).not.toBe('');
          await album.fill(String(target.Title));
          await page.getByRole('option', { name: String(target.Title), exact: true }).click();
          await page.getByRole('button', { name: 'Save' }).click();
          await expect.poll(async () => (await api('/api/Track/1')).AlbumId).toBe(target.AlbumId);
          // A save ends on the record's page (react-admin's redirect, after the answer).
          await page.waitForURL(/#\/Track\/1\/show$/);

          // A playlist's tracks: one removed, one added, by name; the links are what the form shows.
          const linked = async (id: unknown) =>
            ((await api(`/api/Playlist/${id}?include=tracks`)).tracks as Row[])
              .map((track) => track.TrackId)
              .sort();
          const playlists = await api<{ data: Row[] }>('/api/Playlist?per_page=100');
          const counts = await Promise.all(
            playlists.data.map(async (playlist) => (await linked(playlist.PlaylistId)).length),
          );
          const playlist = playlists.data[counts.findIndex((count) => count >= 2 && count < 10)];
          if (!playlist) throw new Error('no playlist with a few tracks');
          const tracks = await api<{ data: Row[] }>('/api/Track?per_page=100');
          const had = await linked(playlist.PlaylistId);
          const removed = tracks.data.find((track) => track.TrackId === had[0]);
          const added = tracks.data.find((track) => !had.includes(track.TrackId));
          if (!removed || !added) throw new Error('no track to add or remove');
          await page.goto(`${base}/admin/#/Playlist/${playlist.PlaylistId}`);
          const chip = page.locator('.MuiChip-root', { hasText: String(removed.Name) });
          await chip.locator('.MuiChip-deleteIcon').click();
          await page.getByRole('combobox', { name: 'Tracks' }).fill(String(added.Name));
          await page.getByRole('option', { name: String(added.Name), exact: true }).click();
          if (docsShots) await page.screenshot({ path: resolve(root, 'docs/admin-edit.png') });
          await page.getByRole('button', { name: 'Save' }).click();
          const expected = [...had.filter((id) => id !== removed.TrackId), added.TrackId].sort();
          await expect.poll(() => linked(playlist.PlaylistId)).toEqual(expected);
          await page.waitForURL(/\/show$/);
          await expect
            .poll(() => page.getByTestId('collection-tracks').locator('.MuiChip-root').allTextContents())
            .toContain(String(added.Name));

          // The invoices' dashboard opens on the data's own first day; a past range is the API's buckets.
          await dashboardAnswersAsTheApi(page, base, api, {
            path: 'Invoice',
            column: 'InvoiceDate',
            from: '2021-06-01',
            to: '2022-01-01',
          });
          if (docsShots)
            await page.screenshot({ path: resolve(root, 'docs/admin-dashboard.png'), fullPage: true });
        },
        { writable: true },
      );
    }, 90_000);
});
