// The field editor keeps up (issue 36 §4), in Chromium at both widths: the sender chooses
// the second signer and a type once, then places three fields on a page by pointer; each is
// sent by the editor's script and drawn in place, the page never loads again, and the
// signer and type stay chosen. The pages' images were drawn in the background (the worker's
// pass) before the editor was opened. axe-clean; screenshots
// issue36-editor-three-fields-{desktop,phone}.png.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { listFields } from '../../src/fields/fields.service.ts';
import { drawQueuedPages } from '../../src/files/background-pages.ts';
import { createDocument } from '../../src/sending/drafts.ts';
import { launchChromium, logIn, lookAt, openPage, viewports } from '../support/chromium.ts';
import { databaseKinds, describeEachDatabase, recipient, useHarness } from '../support/harness.ts';

const contract = readFileSync(join(import.meta.dirname, '..', '..', 'src', 'demo', 'statement-of-work.pdf'));
const sender = { email: 'sara@northwind.example', password: 'a long and careful password' };
const maria = { email: 'maria@client.example', name: 'Maria Jansen' };
const tomasz = { email: 'tomasz@client.example', name: 'Tomasz Wójcik' };

describeEachDatabase('the field editor keeps up, in a browser', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: 'true' } });
  const saveScreenshots = kind === databaseKinds[0];
  const watch = { foreignRequests: [] as string[], pageErrors: [] as string[] };
  let browser: Browser;
  let workspaceId = '';

  before(async () => {
    browser = await launchChromium({ screenshots: saveScreenshots });
    const account = await createAccount(h.ctx, { ...sender, workspaceName: 'Northwind', plan: 'max' });
    workspaceId = account.workspaceId as string;
  });

  after(async () => {
    await browser?.close();
    assert.deepEqual(watch, { foreignRequests: [], pageErrors: [] }, 'nothing beyond the app, no errors');
  });

  /** The editor's post answered and the editor changed in place (no form awaiting its answer). */
  const placed = async (page: Page) => {
    await page.waitForResponse(
      (response) => response.request().method() === 'POST' && response.url().includes('/fields'),
    );
    await page.waitForFunction(() => {
      type Doc = { document: { querySelector(selector: string): unknown } };
      return !(globalThis as unknown as Doc).document.querySelector('form[aria-busy]');
    });
  };

  for (const viewport of ['desktop', 'phone'] as const) {
    test(`three fields for the second signer by pointer, no reload, the choice kept (${viewport})`, async () => {
      const { id } = await createDocument(h.ctx, {
        workspaceId,
        title: 'Website redesign — statement of work',
        recipients: [recipient(maria.email, maria.name), recipient(tomasz.email, tomasz.name)],
        pricing: null,
        file: contract,
      });
      assert.ok((await drawQueuedPages(h.ctx)) > 0, 'its pages drawn ahead of time');
      const { context, page } = await openPage(browser, h.baseUrl, watch, viewports[viewport]);
      try {
        await logIn(page, h.baseUrl, sender);
        await page.goto(`${h.baseUrl}/documents/${id}/fields`);
        await page.getByRole('heading', { level: 1, name: 'Fields' }).waitFor();
        // A mark on this document: gone if the page were loaded again.
        await page.evaluate('window.notReloaded = true');
        await page.locator('#add-recipient').selectOption(tomasz.email);
        await page.locator('#add-type').selectOption('signature');

        const frame = page.locator('.page-frame[data-page="1"]');
        await frame
          .locator('img')
          .evaluate((img) => (img as unknown as { decode(): Promise<void> }).decode());
        for (const [n, at] of [0.55, 0.7, 0.85].entries()) {
          await frame.scrollIntoViewIfNeeded();
          const box = await frame.boundingBox();
          assert.ok(box);
          await page.mouse.move(box.x + box.width * 0.15, box.y + box.height * at);
          await Promise.all([placed(page), page.mouse.down().then(() => page.mouse.up())]);
          await page
            .getByRole('heading', { level: 2, name: `${n + 1} ${n === 0 ? 'field' : 'fields'}` })
            .waitFor();
        }
        assert.equal(await page.evaluate('window.notReloaded'), true, 'the editor was never loaded again');
        assert.equal(
          await page.locator('#add-recipient').inputValue(),
          tomasz.email,
          'the signer stays chosen',
        );
        assert.equal(await page.locator('#add-type').inputValue(), 'signature', 'the type too');
        assert.equal(await frame.locator('[data-field]').count(), 3, 'three shapes on the page');

        const fields = await listFields(h.ctx.db, workspaceId, id);
        const tomaszRow = await h.ctx.db
          .selectFrom('recipients')
          .select('id')
          .where('document_id', '=', id)
          .where('email', '=', tomasz.email)
          .executeTakeFirstOrThrow();
        assert.deepEqual(
          fields.map((f) => [f.type, f.page, f.recipient_id === tomaszRow.id]),
          [
            ['signature', 1, true],
            ['signature', 1, true],
            ['signature', 1, true],
          ],
        );
        await frame.scrollIntoViewIfNeeded();
        await lookAt(
          page,
          'the editor after three fields',
          viewport,
          saveScreenshots ? `issue36-editor-three-fields-${viewport}.png` : undefined,
        );
      } finally {
        await context.close();
      }
    });
  }
});
