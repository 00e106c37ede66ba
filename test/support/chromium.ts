// Debian's Chromium for the browser tests (never a browser a tool downloads), and pages
// that may reach only the app under test: anything else is blocked and recorded, and so is
// every console error or uncaught error (a Content-Security-Policy violation, say).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

export const chromiumPath = process.env.SIGNET_TEST_CHROMIUM ?? '/usr/bin/chromium';

import { screenshotDir, wholePageScreenshots } from './screenshots.ts';

export { screenshotDir };

export async function launchChromium(options: { screenshots: boolean }): Promise<Browser> {
  assert.ok(
    existsSync(chromiumPath),
    `Chromium is missing at ${chromiumPath}: the browser tests need it ` +
      '(apt-get install -y --no-install-recommends chromium, as .ci/run does); it is never downloaded',
  );
  if (options.screenshots) mkdirSync(screenshotDir, { recursive: true });
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
}

/** What pages did that they must not: requests beyond the app, and errors. */
export interface PageWatch {
  foreignRequests: string[];
  pageErrors: string[];
}

/** A new context and page that reach only `baseUrl`, watched by `watch`. */
export async function openPage(
  browser: Browser,
  baseUrl: string,
  watch: PageWatch,
  options: Parameters<Browser['newContext']>[0] = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ locale: 'en-GB', timezoneId: 'UTC', ...options });
  context.setDefaultTimeout(15_000);
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url === baseUrl || url.startsWith(`${baseUrl}/`)) return route.continue();
    watch.foreignRequests.push(url);
    return route.abort('blockedbyclient');
  });
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') watch.pageErrors.push(`${page.url()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => watch.pageErrors.push(`${page.url()}: ${error.message}`));
  return { context, page };
}

/** The two widths every page is looked at: a desktop and a phone. */
export const viewports = {
  desktop: { viewport: { width: 1280, height: 900 } },
  phone: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
} as const;

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core on the page as it is (run through the debugging protocol, so the CSP stays on). */
export async function checkAccessibility(page: Page, name: string): Promise<void> {
  await page.evaluate(axeSource);
  const violations = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((result) =>
      result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(' ')).slice(0, 3) })))`)) as Array<{
    id: string;
    impact: string;
    targets: string[];
  }>;
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(serious, [], `${name}: axe found ${JSON.stringify(serious)}`);
}

/**
 * A page as it is at one width: axe-clean, nothing scrolling sideways on a phone (wide
 * tables scroll in their own region), and its screenshot (the whole page when refreshing the
 * documentation's: screenshots.ts), saved as `file` in the screenshot folder when `file` is
 * given.
 */
export async function lookAt(
  page: Page,
  name: string,
  viewport: keyof typeof viewports,
  file?: string,
): Promise<void> {
  await checkAccessibility(page, `${name} (${viewport})`);
  const width = (await page.evaluate('document.documentElement.scrollWidth')) as number;
  assert.ok(width <= viewports[viewport].viewport.width, `${name} (${viewport}) is ${width} px wide`);
  const image = await page.screenshot({
    fullPage: wholePageScreenshots,
    // A full page is as long as the page: /docs on a phone is tens of thousands of pixels, and
    // a loaded machine takes more than the default 15 s to encode it.
    timeout: 60_000,
    ...(file ? { path: join(screenshotDir, file) } : {}),
  });
  assert.ok(image.length > 1000, `screenshot ${name} is empty`);
}

/**
 * `url` opened afresh at `viewport` (with `storageState`'s cookies, or none): once its first
 * heading is there, lookAt it (axe, width, the screenshot `file`), then `check` it.
 */
export async function lookAtAddress(
  browser: Browser,
  baseUrl: string,
  watch: PageWatch,
  url: string,
  name: string,
  viewport: keyof typeof viewports,
  options: {
    storageState?: Awaited<ReturnType<BrowserContext['storageState']>> | undefined;
    file?: string | undefined;
    check?: (page: Page) => Promise<void>;
  } = {},
): Promise<void> {
  const { context, page } = await openPage(browser, baseUrl, watch, {
    ...viewports[viewport],
    storageState: options.storageState,
  });
  try {
    await page.goto(url);
    await page.locator('h1').first().waitFor();
    await lookAt(page, name, viewport, options.file);
    await options.check?.(page);
  } finally {
    await context.close();
  }
}

/**
 * Draws one stroke on the signing page's signature pad with the pointer, as a finger or a
 * mouse does: down at `from`, then through each of `through`, as fractions of the pad.
 */
export async function strokeOnPad(
  page: Page,
  from: readonly [number, number],
  through: ReadonlyArray<readonly [number, number]>,
): Promise<void> {
  const pad = page.locator('#signature-canvas');
  await pad.scrollIntoViewIfNeeded();
  const box = await pad.boundingBox();
  assert.ok(box, 'the signature pad is shown');
  await page.mouse.move(box.x + box.width * from[0], box.y + box.height * from[1]);
  await page.mouse.down();
  for (const [x, y] of through)
    await page.mouse.move(box.x + box.width * x, box.y + box.height * y, { steps: 8 });
  await page.mouse.up();
}

/** Logs `who` in through the log-in page as a person does, then waits for the documents list. */
export async function logIn(
  page: Page,
  baseUrl: string,
  who: { email: string; password: string },
): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Documents' }).waitFor();
}
