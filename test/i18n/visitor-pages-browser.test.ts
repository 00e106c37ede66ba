// The pages reached without a recipient in Chromium (issue 51): a public link in French (by
// the browser's language) and in Arabic, and /verify in Arabic, at a 390 px phone and a
// desktop: axe-clean, nothing scrolling sideways, `<html lang dir>` set, the Arabic pages
// laid out right to left; the language switch, a GET form, chosen and submitted (the HTTP
// tests use it without a browser). Screenshots land in test/output/screenshots/.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { translator } from '../../src/i18n/messages.ts';
import { setPublicLink } from '../../src/templates/public-links.ts';
import { launchChromium, lookAt, openPage, viewports } from '../support/chromium.ts';
import { createWaiverTemplate } from '../support/factories.ts';
import { createTestWorkspace, databaseKinds, describeEachDatabase, useHarness } from '../support/harness.ts';

describeEachDatabase('a public link and /verify in the visitor’s language, in Chromium', (kind) => {
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

  test('a public link in French, switched to Arabic with the switch; /verify in Arabic', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id } = await createWaiverTemplate(h.ctx, ws.id, { title: 'Décharge d’escalade' });
    const token = await setPublicLink(h.ctx, ws.id, id, { maxUses: null, endsAt: null });
    for (const viewport of ['desktop', 'phone'] as const) {
      const { context, page } = await openPage(browser, h.baseUrl, watch, {
        ...viewports[viewport],
        locale: 'fr-FR',
      });
      try {
        await page.goto(`${h.baseUrl}/t/${token}`);
        await page.locator('h1').waitFor();
        assert.equal(await page.getAttribute('html', 'lang'), 'fr');
        assert.equal(
          await page.locator('button[type="submit"]').first().textContent(),
          translator('fr').t('publicLink.mailCode'),
        );
        await lookAt(
          page,
          'issue51-public-link-fr',
          viewport,
          saveScreenshots ? `issue51-public-link-fr-${viewport}.png` : undefined,
        );

        await page.locator('#lang').selectOption('ar');
        await page.locator('.language-switch button').click();
        await page.waitForURL(/lang=ar/);
        assert.equal(await page.getAttribute('html', 'dir'), 'rtl');
        assert.equal(await page.getAttribute('html', 'lang'), 'ar');
        const box = await page.locator('h1').boundingBox();
        assert.ok(
          box && box.x + box.width > viewports[viewport].viewport.width * 0.6,
          'the title ends on the right',
        );
        await lookAt(
          page,
          'issue51-public-link-ar',
          viewport,
          saveScreenshots ? `issue51-public-link-ar-${viewport}.png` : undefined,
        );

        // The choice sticks: /verify opens in Arabic too.
        await page.goto(`${h.baseUrl}/verify`);
        await page.locator('h1').waitFor();
        assert.equal(await page.getAttribute('html', 'dir'), 'rtl');
        assert.equal(await page.locator('h1').textContent(), translator('ar').t('verify.title'));
        await lookAt(
          page,
          'issue51-verify-ar',
          viewport,
          saveScreenshots ? `issue51-verify-ar-${viewport}.png` : undefined,
        );
      } finally {
        await context.close();
      }
    }
  });
});
