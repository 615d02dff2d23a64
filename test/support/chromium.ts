import { existsSync } from 'node:fs';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

/** Debian's Chromium: the e2e tests never download a browser. */
const CHROMIUM = '/usr/bin/chromium';

/**
 * Headless Chromium with a fresh profile in `profileDir`. The flags keep it off the network this
 * machine does not have (background services, component updates, sync, QUIC) and run it as root.
 */
export async function launchChromium(
  profileDir: string,
  viewport: { width: number; height: number },
): Promise<BrowserContext> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `${CHROMIUM} is missing: install Debian's Chromium (apt-get update && apt-get install -y chromium). The e2e tests never download a browser.`,
    );
  return chromium.launchPersistentContext(profileDir, {
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
    viewport,
  });
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
