// Where the browser and PDF tests save their screenshots: test/output/screenshots/ (ignored
// by git), so `npm test` leaves the working tree as it found it. `npm run screenshots` sets
// SIGNET_SCREENSHOTS_DIR=docs/screenshots to refresh the ones the documentation shows.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const screenshotDir = process.env.SIGNET_SCREENSHOTS_DIR
  ? resolve(process.env.SIGNET_SCREENSHOTS_DIR)
  : join(import.meta.dirname, 'output', 'screenshots');

/** The folder, made if missing; for tests that write a screenshot without a browser. */
export function ensureScreenshotDir(): string {
  mkdirSync(screenshotDir, { recursive: true });
  return screenshotDir;
}
