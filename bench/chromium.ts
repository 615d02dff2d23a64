import { existsSync } from 'node:fs';

/** Debian's Chromium: neither the browser tests nor the benchmarks ever download a browser. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * How playwright-core launches it, headless, for `chromium.launch` and `launchPersistentContext` alike.
 * The flags keep it off the network this machine does not have (background services, component
 * updates, sync, QUIC) and let it run as root.
 */
export function chromiumLaunchOptions(): { executablePath: string; headless: true; args: string[] } {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `${CHROMIUM} is missing: install Debian's Chromium (apt-get update && apt-get install -y chromium). No browser is ever downloaded.`,
    );
  return {
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
  };
}
