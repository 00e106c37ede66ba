// The brand in Chromium (issue 52), at a desktop and a 390 px phone: Settings › Brand with a
// colour refused, and the recipient's signing page in the brand's colour and name (and in
// Arabic, right to left): axe-clean, nothing scrolling sideways, the button drawn in the
// accent (its computed colour), the brand's stylesheet the only one fetched beside the page.
// Screenshots land in test/output/screenshots/.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { drawQueuedPages } from '../../src/files/background-pages.ts';
import { setWorkspaceBrand } from '../../src/workspaces/brand.ts';
import { launchChromium, logIn, lookAt, openPage, viewports } from '../support/chromium.ts';
import {
  createSentDocument,
  databaseKinds,
  describeEachDatabase,
  recipient,
  useHarness,
} from '../support/harness.ts';

const contract = readFileSync(join(import.meta.dirname, '..', '..', 'src', 'demo', 'statement-of-work.pdf'));
const owner = { email: 'lena@acme-bau.example', password: 'a long and careful password' };

describeEachDatabase('a workspace’s brand, in Chromium', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: 'true' } });
  const saveScreenshots = kind === databaseKinds[0];
  const watch = { foreignRequests: [] as string[], pageErrors: [] as string[] };
  let browser: Browser;
  let signing: { en: string; ar: string };

  before(async () => {
    browser = await launchChromium({ screenshots: saveScreenshots });
    const account = await createAccount(h.ctx, { ...owner, workspaceName: 'acme-bau', plan: 'max' });
    const workspaceId = account.workspaceId as string;
    await setWorkspaceBrand(h.ctx, workspaceId, {
      displayName: 'Acme Bau GmbH',
      accent: '#0b6e4f',
      sentWithSignet: true,
    });
    const { links } = await createSentDocument(h.ctx, workspaceId, {
      title: 'Bauvertrag — Erweiterung Halle 3',
      file: contract,
      recipients: [
        recipient('jonas@kunde.example', 'Jonas Weber'),
        recipient('salma@kunde.example', 'سلمى حداد', { language: 'ar' }),
      ],
    });
    signing = {
      en: links.get('jonas@kunde.example')?.path as string,
      ar: links.get('salma@kunde.example')?.path as string,
    };
    await drawQueuedPages(h.ctx);
  });

  after(async () => {
    await browser?.close();
    // The refused colour, once per width: its page answers 400, which Chromium reports.
    const refused = /\/settings\/brand: Failed to load resource: the server responded with a status of 400/;
    const errors = watch.pageErrors.filter((error) => !refused.test(error));
    assert.equal(watch.pageErrors.length - errors.length, 2, 'the refused colour at each width');
    assert.deepEqual(
      { ...watch, pageErrors: errors },
      { foreignRequests: [], pageErrors: [] },
      'nothing else',
    );
  });

  for (const viewport of ['desktop', 'phone'] as const) {
    test(`Settings › Brand with a colour refused, and the branded signing page (${viewport})`, async () => {
      const { context, page } = await openPage(browser, h.baseUrl, watch, viewports[viewport]);
      try {
        await logIn(page, h.baseUrl, owner);
        await page.goto(`${h.baseUrl}/settings/brand`);
        await page.locator('#accent').fill('#ffcc00');
        await page.locator('form[action="/settings/brand"] button[type="submit"]').click();
        await page.locator('#accent-error').waitFor();
        await lookAt(
          page,
          'issue52-brand-refused',
          viewport,
          saveScreenshots ? `issue52-brand-refused-${viewport}.png` : undefined,
        );
        await page.locator('#accent').fill('#0b6e4f');
        await page.locator('form[action="/settings/brand"] button[type="submit"]').click();
        await page.waitForURL(/done=saved/);
        await lookAt(
          page,
          'issue52-brand-saved',
          viewport,
          saveScreenshots ? `issue52-brand-saved-${viewport}.png` : undefined,
        );
      } finally {
        await context.close();
      }
      for (const language of ['en', 'ar'] as const) {
        const visit = await openPage(browser, h.baseUrl, watch, viewports[viewport]);
        try {
          const stylesheets: string[] = [];
          visit.page.on('request', (request) => {
            if (request.resourceType() === 'stylesheet') stylesheets.push(new URL(request.url()).pathname);
          });
          await visit.page.goto(`${h.baseUrl}${signing[language]}`);
          await visit.page.locator('h1').first().waitFor();
          assert.deepEqual(stylesheets, ['/assets/brand/0b6e4f.css']);
          const sender = await visit.page.locator('.page-header .sender').textContent();
          assert.match(sender ?? '', /Acme Bau GmbH/);
          assert.equal(
            await visit.page.evaluate(
              'getComputedStyle(document.querySelector("button.button-primary")).backgroundColor',
            ),
            'rgb(11, 110, 79)',
            'the accent is the button’s colour',
          );
          await visit.page.locator('.page-footer').waitFor();
          await lookAt(
            visit.page,
            `issue52-signing-branded-${language}`,
            viewport,
            saveScreenshots ? `issue52-signing-branded-${language}-${viewport}.png` : undefined,
          );
        } finally {
          await visit.context.close();
        }
      }
    });
  }
});
