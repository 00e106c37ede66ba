// Issue 36 §1 in Chromium, as a sender does it, on a desktop and a phone (with JavaScript, and
// on a phone without it): a PDF chosen with a form refused for a mistyped address is kept and named on the
// form; fixing only the address makes a draft that has the PDF; Send leads to the
// confirmation, which lists the recipients in signing order and warns that no field was
// placed, and its button sends. Every page passes axe and fits the phone; the screenshots are
// issue36-kept-file-*.png and issue36-send-confirm-*.png.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { launchChromium, logIn, lookAt, openPage, viewports } from '../support/chromium.ts';
import { databaseKinds, describeEachDatabase, useHarness } from '../support/harness.ts';

const contract = join(import.meta.dirname, '..', '..', 'src', 'demo', 'statement-of-work.pdf');
const sender = { email: 'sara@kept.example', password: 'a long and careful password' };

describeEachDatabase('a refused form keeps its PDF, and Send asks to confirm, in a browser', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: 'true' } });
  const saveScreenshots = kind === databaseKinds[0];
  const watch = { foreignRequests: [] as string[], pageErrors: [] as string[] };
  let browser: Browser;

  before(async () => {
    browser = await launchChromium({ screenshots: saveScreenshots });
    await createAccount(h.ctx, { ...sender, workspaceName: 'Kept & Co', plan: 'max' });
  });

  after(async () => {
    await browser?.close();
    assert.deepEqual(watch.foreignRequests, []);
    // The refused form is answered 400, as it should be: the console notes it; nothing else.
    const refused = /\/documents: Failed to load resource: the server responded with a status of 400/;
    assert.deepEqual(
      watch.pageErrors.filter((error) => !refused.test(error)),
      [],
    );
  });

  function look(page: Page, name: string, viewport: keyof typeof viewports): Promise<void> {
    return lookAt(page, name, viewport, saveScreenshots ? `${name}-${viewport}.png` : undefined);
  }

  // axe runs in the page, so the two looked-at runs have JavaScript; the third, on a phone
  // without it, goes the same way with the same checks (the pages need no script).
  const runs = [
    { viewport: 'desktop', javaScript: true },
    { viewport: 'phone', javaScript: true },
    { viewport: 'phone', javaScript: false },
  ] as const;
  for (const { viewport, javaScript } of runs) {
    test(`${viewport} (${javaScript ? 'with' : 'without'} JavaScript): the kept file after a refused form, the draft with its PDF, the confirmation, sent`, async () => {
      const { context, page } = await openPage(browser, h.baseUrl, watch, {
        ...viewports[viewport],
        javaScriptEnabled: javaScript,
      });
      try {
        await logIn(page, h.baseUrl, sender);
        await page.goto(`${h.baseUrl}/documents/new`);
        const title = `Statement of work (${viewport}${javaScript ? '' : ', no script'})`;
        await page.getByLabel('Title').fill(title);
        await page.getByLabel('PDF to be signed').setInputFiles(contract);
        await page.getByLabel('Recipient 1 email').fill('maria@client'); // mistyped
        await page.getByLabel('Recipient 1 full name').fill('Maria Jansen');
        await page.getByLabel('Recipient 2 email').fill('tomasz@client.example');
        await page.getByLabel('Recipient 2 full name').fill('Tomasz Wójcik');
        await page.getByLabel('Recipient 2 signing order').fill('2');
        await page.getByRole('button', { name: 'Create draft' }).click();

        await page.getByText('Recipient 1: the email address is not valid.').first().waitFor();
        const kept = page.locator('#file-kept');
        assert.equal(
          await kept.innerText(),
          'statement-of-work.pdf, 2 pages, kept; choose another file to replace it.',
        );
        if (javaScript) await look(page, 'issue36-kept-file', viewport);

        // Only the address is fixed; the file is not chosen again.
        await page.getByLabel('Recipient 1 email').fill('maria@client.example');
        await page.getByRole('button', { name: 'Create draft' }).click();
        await page.getByRole('heading', { level: 1, name: title }).waitFor();
        assert.match(await page.locator('#pdf-title').innerText(), /PDF \(2 pages, \d+ KB\)/);

        await page.getByRole('link', { name: 'Send to recipients…' }).click();
        await page.getByRole('heading', { level: 1, name: 'Send this document?' }).waitFor();
        const warning = page.locator('.notice-warning');
        assert.match(await warning.innerText(), /No field was placed on the document/);
        const groups = page.locator('.send-groups > li');
        assert.equal(await groups.count(), 2);
        assert.match(await groups.nth(0).innerText(), /Order 1[\s\S]*Maria Jansen/);
        assert.match(await groups.nth(1).innerText(), /Order 2[\s\S]*Tomasz Wójcik/);
        assert.match(await page.locator('dl.meta').innerText(), /2 pages/);
        if (javaScript) await look(page, 'issue36-send-confirm', viewport);

        await page.getByRole('button', { name: 'Send to recipients' }).click();
        await page.getByRole('heading', { level: 1, name: title }).waitFor();
        await page.getByText('document.sent').waitFor();
      } finally {
        await context.close();
      }
    });
  }
});
