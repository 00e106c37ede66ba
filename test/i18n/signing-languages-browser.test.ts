// The signing page in Arabic and Japanese in Chromium (issue 51): at a 390 px phone and a
// desktop, axe-clean, nothing scrolling sideways, the Arabic page laid out right to left
// (its header's text starts at the right), and a signer who draws their signature on the
// pad and signs there with the script; the screenshots land in test/output/screenshots/.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { translator } from '../../src/i18n/messages.ts';
import { launchChromium, lookAt, openPage, strokeOnPad, viewports } from '../support/chromium.ts';
import {
  createSentDocument,
  createTestWorkspace,
  databaseKinds,
  describeEachDatabase,
  recipient,
  useHarness,
} from '../support/harness.ts';

const contract = readFileSync(join(import.meta.dirname, '..', '..', 'src', 'demo', 'statement-of-work.pdf'));

describeEachDatabase('the signing page in Arabic and Japanese, in Chromium', (kind) => {
  const h = useHarness(kind);
  const saveScreenshots = kind === databaseKinds[0];
  const watch = { foreignRequests: [] as string[], pageErrors: [] as string[] };
  let browser: Browser;

  before(async () => {
    browser = await launchChromium({ screenshots: saveScreenshots });
  });

  after(async () => {
    await browser?.close();
    assert.deepEqual(watch, { foreignRequests: [], pageErrors: [] }, 'nothing beyond the app, no errors');
  });

  for (const [language, name, dir] of [
    ['ar', 'ليلى حداد', 'rtl'],
    ['ja', '山田 健司', 'ltr'],
  ] as const)
    test(`${language}: the page reads ${dir} at both widths, and a drawn signature signs`, async () => {
      const ws = await createTestWorkspace(h.ctx);
      const email = `signer-${language}@client.example`;
      const { links } = await createSentDocument(h.ctx, ws.id, {
        title: language === 'ar' ? 'عقد خدمات' : '業務委託契約書',
        recipients: [recipient(email, name, { language })],
        file: contract,
        fields: [
          {
            recipient: email,
            type: 'text',
            page: 1,
            x: 72,
            y: 420,
            width: 200,
            height: 24,
            label: 'Company',
          },
          { recipient: email, type: 'signature', page: 2, x: 72, y: 100, width: 180, height: 48 },
        ],
      });
      const path = links.get(email)?.path as string;
      // The desktop first: the phone then signs.
      for (const viewport of ['desktop', 'phone'] as const) {
        const { context, page } = await openPage(browser, h.baseUrl, watch, viewports[viewport]);
        try {
          await page.goto(h.baseUrl + path);
          await page.locator('h1').waitFor();
          assert.equal(await page.getAttribute('html', 'dir'), dir);
          assert.equal(await page.getAttribute('html', 'lang'), language);
          assert.equal(
            await page.locator('#actions-heading').textContent(),
            translator(language).t('sign.heading'),
          );
          // Right to left: the title starts at the card's right edge, not its left.
          const box = await page.locator('h1').boundingBox();
          const width = viewports[viewport].viewport.width;
          assert.ok(box);
          if (dir === 'rtl') assert.ok(box.x + box.width > width * 0.6, `${language} h1 ends on the right`);
          await lookAt(
            page,
            `issue51-signing-${language}`,
            viewport,
            saveScreenshots ? `issue51-signing-${language}-${viewport}.png` : undefined,
          );
          if (viewport === 'phone') {
            await page
              .locator(`[name^="field."]`)
              .first()
              .fill(language === 'ar' ? 'شركة حداد' : '山田商事');
            await page.locator('#sign-full-name').fill(name);
            await page.locator('input[name="signatureKind"][value="drawn"]').check();
            await strokeOnPad(
              page,
              [0.2, 0.6],
              [
                [0.4, 0.3],
                [0.6, 0.7],
                [0.8, 0.4],
              ],
            );
            await page.locator('#sign-consent').check();
            await page.locator('#sign-form button[type="submit"]').click();
            await page.waitForURL(/done=signed/);
            assert.ok(
              (await page.locator('.notice').textContent())?.includes(
                translator(language).t('sign.notice.signed'),
              ),
            );
          }
        } finally {
          await context.close();
        }
      }
    });
});
