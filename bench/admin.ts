/**
 * The admin UI's weight and first load (docs/benchmarks.md, "The admin: bundle size and first load").
 *
 *   npm run bench:admin [-- --loads 7 --port 3107 --path '/admin/#/users']
 *
 * First the size of each built file of admin/dist/assets (`npm run build` builds it): raw, gzip at level
 * 9 and brotli at quality 11 (Node's zlib; the service itself sends them uncompressed). Then the demo
 * service is started on a SQLite file in the system's temporary folder (seeded on its first run), and
 * Debian's Chromium (/usr/bin/chromium, driven by playwright-core; no browser is downloaded) opens the
 * list `--loads` times, each time in a fresh context (no cache, no stored token): per load, the time
 * until the list's first row is visible, DOMContentLoaded, when the schema documents and the list's page
 * had arrived, and the bytes transferred (the page, its assets and the API's answers), all from the
 * page's own Performance entries (milliseconds from the navigation's start).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { chromiumLaunchOptions } from './chromium.js';

const { values } = parseArgs({
  options: {
    loads: { type: 'string', default: '7' },
    port: { type: 'string', default: '3107' },
    path: { type: 'string', default: '/admin/#/users' },
  },
});
const here = dirname(fileURLToPath(import.meta.url));
// Run from dist/bench: the repository is two folders up.
const repository = join(here, '..', '..');
const assets = join(repository, 'admin', 'dist', 'assets');
const loads = Number(values.loads);

const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

function sizes(): void {
  if (!existsSync(assets)) throw new Error(`${assets} is missing: npm run build first`);
  console.log('| file | raw | gzip -9 | brotli 11 |\n|---|---|---|---|');
  for (const name of readdirSync(assets).filter((file) => /\.(js|css)$/.test(file))) {
    const bytes = readFileSync(join(assets, name));
    const gzip = gzipSync(bytes, { level: 9 }).length;
    const brotli = brotliCompressSync(bytes, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 11,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    }).length;
    console.log(`| ${name} | ${bytes.length} (${kb(bytes.length)}) | ${gzip} | ${brotli} |`);
  }
}

/** The demo service, resolved once it says where it serves. */
function startDemo(port: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      join(repository, 'dist', 'src', 'cli', 'main.js'),
      '--config',
      join(repository, 'dist', 'examples', 'demo', 'config.js'),
      '--port',
      port,
    ],
    {
      env: {
        ...process.env,
        DATABASE_URL: `sqlite:${join(tmpdir(), 'rqs_bench_admin.db')}`,
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('Serving ')) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`the demo exited with ${code}`)));
  });
}

/** What the page's Performance entries say of its load. */
interface Entries {
  domContentLoadedMs: number;
  page: number;
  resources: { name: string; bytes: number; endMs: number }[];
}

interface Load {
  firstRowMs: number;
  domContentLoadedMs: number;
  /** When the last schema document (`…/schema`) had arrived. */
  schemasMs: number;
  /** When the list's page (the last request to the API that is no schema document) had arrived. */
  listMs: number;
  requests: number;
  transferred: number;
  assets: number;
}

async function firstLoads(url: string): Promise<Load[]> {
  const browser = await chromium.launch(chromiumLaunchOptions());
  const results: Load[] = [];
  try {
    for (let i = 0; i < loads; i++) {
      // A fresh context each time: an empty cache, no localStorage (anonymous).
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      page.setDefaultTimeout(30_000);
      await page.goto(url);
      await page.locator('table tbody tr').first().waitFor();
      // On the page's clock, from the navigation's start: when the row was seen.
      const firstRowMs = await page.evaluate<number>('performance.now()');
      // Run in the page (this project's TypeScript has no DOM types: the expression is text).
      const entries = await page.evaluate<Entries>(`(() => {
        const navigation = performance.getEntriesByType('navigation')[0];
        return {
          domContentLoadedMs: navigation.domContentLoadedEventEnd,
          page: navigation.transferSize,
          resources: performance
            .getEntriesByType('resource')
            .map((entry) => ({ name: entry.name, bytes: entry.transferSize, endMs: entry.responseEnd })),
        };
      })()`);
      const pathOf = (entry: { name: string }) => new URL(entry.name).pathname;
      const assetBytes = entries.resources
        .filter((entry) => pathOf(entry).startsWith('/admin/assets/'))
        .reduce((sum, entry) => sum + entry.bytes, 0);
      const api = entries.resources.filter((entry) => !pathOf(entry).startsWith('/admin/'));
      const schemas = api.filter((entry) => pathOf(entry).endsWith('/schema'));
      const lists = api.filter((entry) => !pathOf(entry).endsWith('/schema'));
      results.push({
        firstRowMs,
        domContentLoadedMs: entries.domContentLoadedMs,
        schemasMs: Math.max(0, ...schemas.map((entry) => entry.endMs)),
        listMs: Math.max(0, ...lists.map((entry) => entry.endMs)),
        requests: entries.resources.length + 1,
        transferred: entries.page + entries.resources.reduce((sum, entry) => sum + entry.bytes, 0),
        assets: assetBytes,
      });
      await context.close();
    }
  } finally {
    await browser.close();
  }
  return results;
}

async function main(): Promise<void> {
  sizes();
  const demo = await startDemo(values.port);
  try {
    const url = `http://127.0.0.1:${values.port}${values.path}`;
    const results = await firstLoads(url);
    console.log(`\n${url}, ${loads} loads, each in a fresh context\n`);
    console.log(
      '| load | first row visible ms | DOMContentLoaded ms | schema documents in ms | list page in ms | requests | transferred bytes | of which /admin/assets/ |',
    );
    console.log('|---|---|---|---|---|---|---|---|');
    for (const [index, load] of results.entries())
      console.log(
        `| ${index + 1} | ${load.firstRowMs.toFixed(0)} | ${load.domContentLoadedMs.toFixed(0)} | ${load.schemasMs.toFixed(0)} | ${load.listMs.toFixed(0)} | ${load.requests} | ${load.transferred} | ${load.assets} |`,
      );
    const summary = (name: string, xs: number[]) =>
      console.log(
        `${name}: median ${median(xs).toFixed(0)}, ${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}`,
      );
    console.log('');
    summary(
      'first row visible ms',
      results.map((load) => load.firstRowMs),
    );
    summary(
      'DOMContentLoaded ms',
      results.map((load) => load.domContentLoadedMs),
    );
    summary(
      'schema documents in ms',
      results.map((load) => load.schemasMs),
    );
    summary(
      'list page in ms',
      results.map((load) => load.listMs),
    );
    summary(
      'transferred bytes',
      results.map((load) => load.transferred),
    );
  } finally {
    demo.kill('SIGTERM');
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
