// The documents list's search and the time-zone setting in a browser (issue 36 §6), desktop
// and phone, axe-clean, nothing wider than the phone: typing a search and pressing Search (a
// GET form, no script needed) lists the matches and keeps the search in its field and links.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { insertSampleDocuments } from '../../src/demo/seed.ts';
import { launchChromium, logIn, lookAt, lookAtAddress, openPage, viewports } from '../support/chromium.ts';
import {
  createDraftDocument,
  databaseKinds,
  describeEachDatabase,
  recipient,
  useHarness,
} from '../support/harness.ts';

const owner = { email: 'owner@search.example', password: 'correct horse battery staple' };

describeEachDatabase('searching the list in a browser', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: 'true' } });
  const saveScreenshots = kind === databaseKinds[0];
  const watch = { foreignRequests: [] as string[], pageErrors: [] as string[] };
  let browser: Browser;
  let sender: { context: BrowserContext; page: Page };

  before(async () => {
    browser = await launchChromium({ screenshots: saveScreenshots });
    const { workspaceId } = await createAccount(h.ctx, { ...owner, workspaceName: 'Northwind', plan: 'max' });
    await insertSampleDocuments(h.ctx, workspaceId as string, 30, { seed: 36 });
    for (const [title, name] of [
      ['Harbour office lease', 'Zoë Müller'],
      ['Warehouse lease 2027', 'Ann Lee'],
    ] as const) {
      await createDraftDocument(h.ctx, workspaceId as string, {
        title,
        recipients: [recipient(`${name.split(' ')[0]?.toLowerCase()}@harbour.example`, name)],
      });
    }
    sender = await openPage(browser, h.baseUrl, watch, viewports.desktop);
    await logIn(sender.page, h.baseUrl, owner);
  });

  after(async () => {
    await sender?.context.close();
    await browser?.close();
  });

  test('a search typed and sent lists its matches, keeps the search, and reads well on a phone', async () => {
    const { page } = sender;
    await page.getByLabel('Search by title, recipient name or email').fill('HARBOUR');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/\/documents\?q=HARBOUR$/);
    const titles = await page.locator('tbody td:first-child a').allTextContents();
    assert.deepEqual(titles.sort(), ['Harbour office lease', 'Warehouse lease 2027']);
    assert.equal(await page.getByLabel('Search by title, recipient name or email').inputValue(), 'HARBOUR');
    await page.getByRole('link', { name: 'Draft', exact: true }).click();
    await page.waitForURL(/\/documents\?q=HARBOUR&status=draft$/);
    await lookAt(
      page,
      'documents-search',
      'desktop',
      saveScreenshots ? 'documents-search-desktop.png' : undefined,
    );
    await lookAtAddress(
      browser,
      h.baseUrl,
      watch,
      `${h.baseUrl}/documents?q=ZO%C3%8B`,
      'documents-search',
      'phone',
      {
        storageState: await sender.context.storageState(),
        file: saveScreenshots ? 'documents-search-phone.png' : undefined,
        check: async (phone) => {
          assert.deepEqual(await phone.locator('tbody td:first-child a').allTextContents(), [
            'Harbour office lease',
          ]);
        },
      },
    );
  });

  test('the time zone page: an owner chooses Europe/Berlin and the list names it', async () => {
    const { page } = sender;
    await page.goto(`${h.baseUrl}/settings/time-zone`);
    await page.getByLabel('Time zone').selectOption('Europe/Berlin');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/done=saved$/);
    await lookAt(page, 'time-zone', 'desktop', saveScreenshots ? 'time-zone-desktop.png' : undefined);
    await lookAtAddress(browser, h.baseUrl, watch, `${h.baseUrl}/documents`, 'documents-time-zone', 'phone', {
      storageState: await sender.context.storageState(),
      file: saveScreenshots ? 'documents-time-zone-phone.png' : undefined,
      check: async (phone) => {
        assert.match((await phone.locator('tbody td').nth(2).textContent()) ?? '', / Europe\/Berlin$/);
      },
    });
    assert.deepEqual(watch.foreignRequests, []);
    assert.deepEqual(watch.pageErrors, []);
  });
});
