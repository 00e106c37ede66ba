// A template role's language and a person's on the web, in Chromium (issue 51), at a desktop
// and a 390 px phone: the roles table with its Language column (a role set to German), the
// template's page naming the role's language, and the use form's Language select per person
// (its empty choice named by the role's default): axe-clean, nothing scrolling sideways; then
// the template's page and the new-template form for a member who chose Arabic, right to left.
// Screenshots land in test/output/screenshots/.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { translator } from '../../src/i18n/messages.ts';
import { launchChromium, logIn, lookAt, openPage, viewports } from '../support/chromium.ts';
import { createServicesTemplate, servicesRoles } from '../support/factories.ts';
import { databaseKinds, describeEachDatabase, useHarness } from '../support/harness.ts';

const sender = { email: 'ines@northwind.example', password: 'a long and careful password' };

describeEachDatabase('a template’s languages on the web, in Chromium', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: 'true' } });
  const saveScreenshots = kind === databaseKinds[0];
  const watch = { foreignRequests: [] as string[], pageErrors: [] as string[] };
  let browser: Browser;
  let workspaceId: string;

  before(async () => {
    browser = await launchChromium({ screenshots: saveScreenshots });
    const account = await createAccount(h.ctx, { ...sender, workspaceName: 'Northwind', plan: 'max' });
    workspaceId = account.workspaceId as string;
  });

  after(async () => {
    await browser?.close();
    assert.deepEqual(watch, { foreignRequests: [], pageErrors: [] }, 'nothing beyond the app, no errors');
  });

  for (const viewport of ['desktop', 'phone'] as const) {
    test(`the roles table sets a role’s language; the use form offers each person one (${viewport})`, async () => {
      const { id } = await createServicesTemplate(h.ctx, workspaceId, { name: `Services ${viewport}` });
      const { context, page } = await openPage(browser, h.baseUrl, watch, viewports[viewport]);
      try {
        await logIn(page, h.baseUrl, sender);
        await page.goto(`${h.baseUrl}/templates/${id}`);
        await page.locator('#change-roles summary').click();
        await page.getByLabel('Role 1 language').selectOption('de');
        await lookAt(
          page,
          'issue51-template-roles',
          viewport,
          saveScreenshots ? `issue51-template-roles-${viewport}.png` : undefined,
        );
        await page.getByRole('button', { name: 'Save roles' }).click();
        await page.waitForURL(/done=roles/);
        assert.equal(await page.locator('span[lang="de"]').first().textContent(), 'Deutsch');

        await page.goto(`${h.baseUrl}/templates/${id}/use`);
        const client = page.getByRole('group', { name: servicesRoles[0]?.name as string });
        assert.match(
          (await client.getByLabel('Language').locator('option').first().textContent()) ?? '',
          /Deutsch/,
        );
        await page
          .getByRole('group', { name: servicesRoles[1]?.name as string })
          .getByLabel('Language')
          .selectOption('ja');
        await lookAt(
          page,
          'issue51-template-use',
          viewport,
          saveScreenshots ? `issue51-template-use-${viewport}.png` : undefined,
        );
        // The same pages for a member who chose Arabic: right to left, in the catalogues.
        await h.ctx.db
          .updateTable('users')
          .set({ language: 'ar' })
          .where('email', '=', sender.email)
          .execute();
        const ar = translator('ar');
        await page.goto(`${h.baseUrl}/templates/${id}`);
        assert.equal(await page.getAttribute('html', 'dir'), 'rtl');
        await page.getByRole('heading', { level: 2, name: ar.t('tpl.roles.heading') }).waitFor();
        await lookAt(
          page,
          'issue51-template-ar',
          viewport,
          saveScreenshots ? `issue51-template-ar-${viewport}.png` : undefined,
        );
        await page.goto(`${h.baseUrl}/templates/new`);
        assert.equal(await page.locator('h1').textContent(), ar.t('tpl.new'));
        await lookAt(
          page,
          'issue51-template-new-ar',
          viewport,
          saveScreenshots ? `issue51-template-new-ar-${viewport}.png` : undefined,
        );
      } finally {
        await context.close();
        await h.ctx.db
          .updateTable('users')
          .set({ language: null })
          .where('email', '=', sender.email)
          .execute();
      }
    });
  }
});
