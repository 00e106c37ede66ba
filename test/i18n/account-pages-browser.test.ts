// The account pages in the visitor's language, in Chromium (issue 51), at a desktop and a
// 390 px phone: log-in in Polish (by the browser's language), sign-up in Arabic (right to
// left, chosen with the switch), and the account page's "Your language" card: axe-clean,
// nothing scrolling sideways. Screenshots land in test/output/screenshots/.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { translator } from '../../src/i18n/messages.ts';
import { launchChromium, lookAt, openPage, viewports } from '../support/chromium.ts';
import { databaseKinds, describeEachDatabase, useHarness } from '../support/harness.ts';

const member = { email: 'ola@kowalski.example', password: 'a long and careful password' };

describeEachDatabase('the account pages in the visitor’s language, in Chromium', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: 'true' } });
  const saveScreenshots = kind === databaseKinds[0];
  const watch = { foreignRequests: [] as string[], pageErrors: [] as string[] };
  let browser: Browser;

  before(async () => {
    browser = await launchChromium({ screenshots: saveScreenshots });
    await createAccount(h.ctx, { ...member, workspaceName: 'Kowalski sp. z o.o.', plan: 'max' });
  });

  after(async () => {
    await browser?.close();
    // The wrong password's 401 is the page's own answer, which Chromium logs as a failed load.
    watch.pageErrors = watch.pageErrors.filter((e) => !/\/login: .* status of 401 /.test(e));
    assert.deepEqual(watch, { foreignRequests: [], pageErrors: [] }, 'nothing beyond the app, no errors');
  });

  for (const viewport of ['desktop', 'phone'] as const) {
    test(`log-in in Polish, sign-up in Arabic, the account page’s language (${viewport})`, async () => {
      const pl = translator('pl');
      const { context, page } = await openPage(browser, h.baseUrl, watch, {
        ...viewports[viewport],
        locale: 'pl-PL',
      });
      try {
        await page.goto(`${h.baseUrl}/login`);
        assert.equal(await page.getAttribute('html', 'lang'), 'pl');
        assert.equal(await page.locator('h1').textContent(), pl.t('auth.login.heading'));
        await page.getByLabel(pl.t('auth.email')).fill(member.email);
        await page.getByLabel(pl.t('auth.password'), { exact: true }).fill('not the password');
        await page.getByRole('button', { name: pl.t('auth.login.submit') }).click();
        await page.getByText(pl.t('auth.refusal.wrongPassword')).waitFor();
        await lookAt(
          page,
          'issue51-login-pl',
          viewport,
          saveScreenshots ? `issue51-login-pl-${viewport}.png` : undefined,
        );

        await page.goto(`${h.baseUrl}/signup`);
        await page.locator('#lang').selectOption('ar');
        await page.locator('.language-switch button').click();
        await page.waitForURL(/lang=ar/);
        assert.equal(await page.getAttribute('html', 'dir'), 'rtl');
        assert.equal(await page.locator('h1').textContent(), translator('ar').t('auth.signup.heading'));
        await lookAt(
          page,
          'issue51-signup-ar',
          viewport,
          saveScreenshots ? `issue51-signup-ar-${viewport}.png` : undefined,
        );

        await page.goto(`${h.baseUrl}/login?lang=pl`);
        await page.getByLabel(pl.t('auth.email')).fill(member.email);
        await page.getByLabel(pl.t('auth.password'), { exact: true }).fill(member.password);
        await page.getByRole('button', { name: pl.t('auth.login.submit') }).click();
        // The documents list follows the browser's choice: Polish.
        await page.getByRole('heading', { level: 1, name: pl.t('docs.title') }).waitFor();
        // So does the account page, where the member makes it their own.
        await page.goto(`${h.baseUrl}/settings/account`);
        await page.getByLabel(pl.t('account.language.label'), { exact: true }).selectOption('pl');
        await page.getByRole('button', { name: pl.t('account.language.save') }).click();
        await page.getByText(pl.t('account.language.done', { language: 'Polski' })).waitFor();
        await page.locator('#language-title').scrollIntoViewIfNeeded();
        await lookAt(
          page,
          'issue51-account-language',
          viewport,
          saveScreenshots ? `issue51-account-language-${viewport}.png` : undefined,
        );
      } finally {
        await context.close();
      }
    });
  }
});
