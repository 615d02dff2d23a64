import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { chromiumLaunchOptions } from '../../bench/chromium.js';

/** Headless Debian Chromium (bench/chromium.ts) with a fresh profile in `profileDir`. */
export async function launchChromium(
  profileDir: string,
  viewport: { width: number; height: number },
): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profileDir, { ...chromiumLaunchOptions(), viewport });
}

/** The context's page, its console errors and uncaught errors collected into `problems` (a test expects none). */
export async function watchedPage(context: BrowserContext, problems: string[]): Promise<Page> {
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(10_000);
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return page;
}
