// A template's public link in Chromium (issue 38): a visitor on a phone opens the link, gives
// a name and an email, enters the code mailed to them and signs their own document at once;
// the sender's settings page shows the link and its one use. Every page passes axe; the
// screenshots land in test/output/screenshots/ (docs/screenshots/ with
// SIGNET_SCREENSHOTS_DIR=docs/screenshots): issue38-public-link-*.png.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { PDFDocument } from '@cantoo/pdf-lib';
import type { Browser, Page } from 'playwright-core';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { drawQueuedPages } from '../../src/files/background-pages.ts';
import { setPublicLink } from '../../src/templates/public-links.ts';
import { createTemplate } from '../../src/templates/templates.service.ts';
import { launchChromium, logIn, lookAt, openPage, viewports } from '../support/chromium.ts';
import { databaseKinds } from '../support/databases.ts';
import { templateRole } from '../support/factories.ts';
import { describeEachDatabase, latestCodeFor, useHarness } from '../support/harness.ts';

const owner = { email: 'owner@climbing.example', password: 'correct horse battery staple' };

async function waiverPdf(): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const page = pdf.addPage([595, 842]);
  page.drawText('Climbing waiver', { x: 72, y: 760, size: 20 });
  page.drawText('I climb at my own risk and follow the instructors.', { x: 72, y: 720, size: 11 });
  return Buffer.from(await pdf.save());
}

describeEachDatabase('a template’s public link in Chromium', (kind) => {
  const h = useHarness(kind);
  const saveScreenshots = kind === databaseKinds[0];
  const watch = { foreignRequests: [] as string[], pageErrors: [] as string[] };
  let browser: Browser;
  let templateId = '';
  let token = '';

  before(async () => {
    browser = await launchChromium({ screenshots: saveScreenshots });
    const account = await createAccount(h.ctx, { ...owner, workspaceName: 'Boulder Hall', plan: 'max' });
    const workspaceId = account.workspaceId as string;
    ({ id: templateId } = await createTemplate(h.ctx, {
      workspaceId,
      name: 'Waiver',
      title: 'Climbing waiver',
      roles: [templateRole('Climber')],
      fields: [{ role: 'Climber', type: 'signature', page: 1, x: 72, y: 560, width: 200, height: 50 }],
      expiresInSeconds: 24 * 3600,
      file: await waiverPdf(),
    }));
    token = await setPublicLink(h.ctx, workspaceId, templateId, { maxUses: 100, endsAt: null });
    await drawQueuedPages(h.ctx);
  });
  after(async () => {
    await browser?.close();
    assert.deepEqual(watch, { foreignRequests: [], pageErrors: [] });
  });

  const look = (page: Page, name: string, viewport: keyof typeof viewports) =>
    lookAt(page, name, viewport, saveScreenshots ? `${name}-${viewport}.png` : undefined);

  test('a visitor on a phone: name and email, the mailed code, their own document signed at once', async () => {
    const { context, page } = await openPage(browser, h.baseUrl, watch, viewports.phone);
    try {
      await page.goto(`${h.baseUrl}/t/${token}`);
      await page.getByRole('heading', { name: 'Climbing waiver' }).waitFor();
      await look(page, 'issue38-public-link', 'phone');
      await page.getByLabel('Your full name').fill('Vera Visitor');
      await page.getByLabel('Your email').fill('vera@example.com');
      await page.getByRole('button', { name: 'Mail me a code' }).click();
      await page.getByText('We mailed a six-digit code to').waitFor();
      await look(page, 'issue38-public-link-code', 'phone');
      await page.getByLabel('The code').fill(await latestCodeFor(h.ctx, 'vera@example.com'));
      await page.getByRole('button', { name: 'Open the document' }).click();
      await page.waitForURL(/\/sign\//);
      await page.getByLabel('Type your full name to sign').fill('Vera Visitor');
      await page.getByLabel(/I agree to sign this document electronically/).check();
      await page.getByRole('button', { name: 'Sign document' }).click();
      await page.getByText('You signed this document. Thank you!').waitFor();
    } finally {
      await context.close();
    }
    const { context: desktop, page: wide } = await openPage(browser, h.baseUrl, watch, viewports.desktop);
    try {
      await wide.goto(`${h.baseUrl}/t/${token}`);
      await wide.getByRole('heading', { name: 'Climbing waiver' }).waitFor();
      await look(wide, 'issue38-public-link', 'desktop');
    } finally {
      await desktop.close();
    }
  });

  test('the sender’s settings: the link and how often it was used, at both widths', async () => {
    for (const viewport of ['desktop', 'phone'] as const) {
      const { context, page } = await openPage(browser, h.baseUrl, watch, viewports[viewport]);
      try {
        await logIn(page, h.baseUrl, owner);
        assert.equal(
          await page.getByText('public link', { exact: true }).count(),
          1,
          'the visitor’s document, marked',
        );
        await page.goto(`${h.baseUrl}/templates/${templateId}/public-link`);
        await page.getByText('used 1 time').waitFor();
        assert.equal(await page.locator('a.public-link').innerText(), `${h.ctx.config.publicUrl}/t/${token}`);
        await look(page, 'issue38-public-link-settings', viewport);
      } finally {
        await context.close();
      }
    }
  });
});
