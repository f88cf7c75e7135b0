/**
 * Headless Debian Chromium for the browser specs, driven by playwright-core (which brings no
 * browser of its own: nothing is downloaded). scripts/ci/chromium.sh installs the package.
 *
 *   let browser: Browser;
 *   before(async function () { browser = await launchBrowser(this); });
 *   after(async () => browser?.close());
 *
 * Without /usr/bin/chromium a developer's run skips the suite with a message; under CI=true or
 * VIGIL_TEST_BROWSER=1 it fails instead. Screenshots go under VIGIL_SCREENSHOT_DIR (default
 * ./test-results/screenshots), a folder .ci/run prints.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { skipOrFail } from '../infrastructure/scanning/support';

export const CHROMIUM = process.env.VIGIL_CHROMIUM ?? '/usr/bin/chromium';

// The closed network refuses Chromium's background connections; these flags keep it quiet.
const FLAGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--disable-dev-shm-usage',
];

export async function launchBrowser(context: Mocha.Context): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    skipOrFail(context, 'browser', `${CHROMIUM} is not installed (Debian package chromium; run bash scripts/ci/chromium.sh)`,
      process.env.CI === 'true' || process.env.VIGIL_TEST_BROWSER === '1', 'VIGIL_TEST_BROWSER=1 requires it');
  }
  context.timeout(60_000);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
}

export function screenshotPath(name: string): string {
  const dir = process.env.VIGIL_SCREENSHOT_DIR ?? path.resolve('test-results', 'screenshots');
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, `${name.replace(/[^a-z0-9._-]+/gi, '-')}.png`);
}
