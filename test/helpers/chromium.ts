import { accessSync, constants } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** How to get the browser, for the message of a test that cannot run without it. */
export const CHROMIUM_INSTALL_HINT =
  'install Chromium (Debian/Ubuntu: sudo apt-get install chromium), or set AVATAR_VIDEO_CHROMIUM to a Chromium or Chrome binary';

/** The Chromium the tests drive: $AVATAR_VIDEO_CHROMIUM, else Debian's /usr/bin/chromium; undefined if not executable. */
export function findChromium(): string | undefined {
  const path = process.env.AVATAR_VIDEO_CHROMIUM?.trim() || '/usr/bin/chromium';
  try {
    accessSync(path, constants.X_OK);
    return path;
  } catch {
    return undefined;
  }
}

/**
 * Whether a test file needing Chromium runs: with Chromium installed, or under CI=true (where its absence must fail,
 * not skip). When not, a warning says how to install it, since the default reporter names no skipped test.
 */
export function chromiumRunnable(file: string): boolean {
  const runnable = findChromium() !== undefined || process.env.CI === 'true';
  if (!runnable) console.warn(`${file} skipped: no Chromium; ${CHROMIUM_INSTALL_HINT}`);
  return runnable;
}

// Headless, and nothing of Chromium's own on the network: no QUIC, updates, sync or first-run pages.
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A headless Chromium with a new empty profile (playwright makes one per launch and removes it on close). */
export async function launchChromium(): Promise<Browser> {
  const executablePath = findChromium();
  if (executablePath === undefined)
    throw new Error(`no Chromium at ${process.env.AVATAR_VIDEO_CHROMIUM || '/usr/bin/chromium'}: ${CHROMIUM_INSTALL_HINT}`);
  return chromium.launch({ executablePath, args: ARGS, timeout: 30_000 });
}
