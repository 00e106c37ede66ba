// Where the browser and PDF tests save their screenshots: test/output/screenshots/ (ignored
// by git), so `npm test` leaves the working tree as it found it. `npm run screenshots` sets
// SIGNET_SCREENSHOTS_DIR=docs/screenshots to refresh the ones the documentation shows.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const screenshotDir = process.env.SIGNET_SCREENSHOTS_DIR
  ? resolve(process.env.SIGNET_SCREENSHOTS_DIR)
  : join(import.meta.dirname, '..', 'output', 'screenshots');

/**
 * Whether a page's screenshot holds the whole page, or its first screen: whole pages when the
 * documentation's are refreshed (`npm run screenshots`, or SIGNET_SCREENSHOTS_DIR set by
 * hand), the first screen in `npm test`. A screenshot is for a person to look at; the tests'
 * checks (axe, nothing wider than the screen, what the page says) read the whole page either
 * way. Encoding whole pages cost `npm test` about 90 s of its job time, a fifth of it the API
 * reference (a 15 MB PNG at phone width, 10 s).
 */
export const wholePageScreenshots = Boolean(process.env.SIGNET_SCREENSHOTS_DIR);

/** The folder, made if missing; for tests that write a screenshot without a browser. */
export function ensureScreenshotDir(): string {
  mkdirSync(screenshotDir, { recursive: true });
  return screenshotDir;
}
