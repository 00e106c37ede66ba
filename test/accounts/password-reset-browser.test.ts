// A way back into an account in a real browser (issue 36 §5): an owner logged in on the
// desktop forgets the password on the phone, asks for a link from the log-in page, reads
// the mail at /mails (development, no SMTP), sets a new password on the link's page, and
// the desktop's session has ended; then Documents with the first-steps panel of a
// workspace that has no document yet. Every page axe-checked at desktop and 390 px phone
// width; the first database kind of the run saves the screenshots issue36-reset-mail-*,
// issue36-reset-page-* and issue36-first-steps-*.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { launchChromium, lookAt, lookAtAddress, openPage, viewports } from '../support/chromium.ts';
import { databaseKinds, describeEachDatabase, useHarness } from '../support/harness.ts';
import { mailsTo } from '../support/web-client.ts';

const owner = {
  email: 'ada@lovelace.example',
  password: 'the first program ever written',
  newPassword: 'analytical engine notes, 1843',
  workspace: 'Lovelace & Co',
};

describeEachDatabase('password reset in a browser', (kind) => {
  const h = useHarness(kind);
  const saveScreenshots = kind === databaseKinds[0];
  const watch = { foreignRequests: [] as string[], pageErrors: [] as string[] };
  let browser: Browser;
  let desktop: { context: BrowserContext; page: Page };
  let phone: { context: BrowserContext; page: Page };

  const file = (name: string, viewport: keyof typeof viewports) =>
    saveScreenshots ? `issue36-${name}-${viewport}.png` : undefined;
  const look = (page: Page, name: string, viewport: keyof typeof viewports) =>
    lookAt(page, name, viewport, file(name, viewport));

  before(async () => {
    browser = await launchChromium({ screenshots: saveScreenshots });
    await createAccount(h.ctx, {
      email: owner.email,
      password: owner.password,
      workspaceName: owner.workspace,
      plan: 'free',
    });
    desktop = await openPage(browser, h.baseUrl, watch, viewports.desktop);
    phone = await openPage(browser, h.baseUrl, watch, viewports.phone);
  });

  after(async () => {
    await browser?.close();
  });

  test('logged in on the desktop, the owner forgets the password on the phone and asks for a link', async () => {
    const { page } = desktop;
    await page.goto(`${h.baseUrl}/login`);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Documents' }).waitFor();

    const p = phone.page;
    await p.goto(`${h.baseUrl}/login`);
    await p.getByRole('link', { name: 'Forgot your password?' }).click();
    await p.getByRole('heading', { level: 1, name: 'Set a new password' }).waitFor();
    await look(p, 'reset-request', 'phone');
    await p.getByLabel('Email').fill(owner.email);
    await p.getByRole('button', { name: 'Mail me a link' }).click();
    await p.getByRole('heading', { level: 1, name: 'Check your inbox' }).waitFor();
    assert.ok(await p.getByText(`We sent a mail to ${owner.email}`).isVisible());
    await look(p, 'reset-sent', 'phone');
  });

  test('the mail, as /mails shows it in development, at desktop and phone width', async () => {
    const storageState = await desktop.context.storageState();
    for (const viewport of ['desktop', 'phone'] as const) {
      const { context, page } = await openPage(browser, h.baseUrl, watch, {
        ...viewports[viewport],
        storageState,
      });
      try {
        await page.goto(`${h.baseUrl}/mails`);
        // Each mail is a <details>: opened, as its reader would.
        await page.getByText('Set a new Signet password').first().click();
        await page
          .getByText(/\/password-reset\/[A-Za-z0-9_-]{43}/)
          .first()
          .waitFor();
        await look(page, 'reset-mail', viewport);
      } finally {
        await context.close();
      }
    }
  });

  test('the link’s page refuses a short password, then sets the new one and logs the phone in; the desktop is logged out', async () => {
    const [mail] = await mailsTo(h.ctx, owner.email);
    const link = /https?:\/\/\S+(\/password-reset\/[A-Za-z0-9_-]{43})/.exec(mail?.text ?? '')?.[1];
    assert.ok(link, mail?.text);
    await lookAtAddress(browser, h.baseUrl, watch, `${h.baseUrl}${link}`, 'reset-page', 'desktop', {
      file: file('reset-page', 'desktop'),
    });
    const p = phone.page;
    await p.goto(`${h.baseUrl}${link}`);
    await p.getByRole('heading', { level: 1, name: 'Choose a new password' }).waitFor();
    await look(p, 'reset-page', 'phone');
    await p.getByLabel('New password').fill('too short');
    await p.getByRole('button', { name: 'Set password and log in' }).click();
    await p.getByText('Use at least 10 characters.').first().waitFor();
    await look(p, 'reset-page-refused', 'phone');
    // The refused form's 400 is the one console error the browser reports, as expected.
    assert.deepEqual(
      watch.pageErrors.splice(0).map((e) => e.replace(/^.*status of /, '')),
      ['400 (Bad Request)'],
    );
    await p.getByLabel('New password').fill(owner.newPassword);
    await p.getByRole('button', { name: 'Set password and log in' }).click();
    await p.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    assert.ok(await p.getByText('Your new password is set and you are logged in.').isVisible());
    await look(p, 'reset-done', 'phone');

    const { page } = desktop;
    await page.goto(`${h.baseUrl}/documents`);
    await page.getByRole('heading', { level: 1, name: 'Log in to Signet' }).waitFor();
  });

  test('Documents of a workspace without a document show the first steps, at desktop and phone width', async () => {
    const p = phone.page;
    await p.goto(`${h.baseUrl}/documents`);
    await p.getByRole('heading', { name: 'Your first document in three steps' }).waitFor();
    await look(p, 'first-steps', 'phone');
    await lookAtAddress(browser, h.baseUrl, watch, `${h.baseUrl}/documents`, 'first-steps', 'desktop', {
      storageState: await phone.context.storageState(),
      file: file('first-steps', 'desktop'),
      check: async (page) => {
        await page.getByRole('link', { name: 'Upload a PDF' }).click();
        await page.getByRole('heading', { level: 1 }).first().waitFor();
        assert.match(page.url(), /\/documents\/new$/);
      },
    });
    assert.deepEqual(watch.foreignRequests, []);
    assert.deepEqual(watch.pageErrors, []);
  });
});
