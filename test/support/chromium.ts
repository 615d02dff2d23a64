import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { chromiumLaunchOptions } from '../../bench/chromium.js';

/** Headless Debian Chromium (bench/chromium.ts) with a fresh profile in `profileDir`. */
export async function launchChromium(
  profileDir: string,
  viewport: { width: number; height: number },
): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profileDir, { ...chromiumLaunchOptions(), viewport });
}

/**
 * `page`, its waits bounded by `timeout` and its console errors and uncaught errors collected into
 * `problems` (a test expects none); `expected` lets through the console errors a test provokes on
 * purpose (Chromium logs a refused request as one).
 */
export function watch(
  page: Page,
  problems: string[],
  options: { timeout?: number; expected?: RegExp } = {},
): Page {
  page.setDefaultTimeout(options.timeout ?? 10_000);
  page.on('console', (message) => {
    if (message.type() === 'error' && !options.expected?.test(message.text()))
      problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return page;
}

/** The context's page, watched (`watch`). */
export async function watchedPage(context: BrowserContext, problems: string[]): Promise<Page> {
  return watch(context.pages()[0] ?? (await context.newPage()), problems);
}
