import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium (test/support/global-setup.ts installs it): no browser download, no network of its own. */
export const chromiumPath = '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-gpu', '--no-first-run'],
  });
}
