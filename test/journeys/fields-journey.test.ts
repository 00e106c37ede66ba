// Fields in Chromium, as people place and fill them: the sender draws a field on a page
// with the mouse, drags it, resizes it by its corner, reassigns it, taps one in and deletes
// it; then adds, moves, resizes, reassigns and deletes with the keyboard alone; then each
// signer is led through their fields ("Next field", a count of what is left), one on a
// desktop, one on a phone; the sealed PDF carries each value inside its rectangle
// (pdftotext -bbox). Every page passes axe at both widths; the
// screenshots land in test/output/screenshots/ (docs/screenshots/ through
// `npm run screenshots`).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { findFullDocument } from '../../src/documents/documents.repository.ts';
import { listFields } from '../../src/fields/fields.service.ts';
import { drawQueuedPages } from '../../src/files/background-pages.ts';
import { readFile } from '../../src/files/files.service.ts';
import { sealDueDocuments } from '../../src/sealing/sealing.service.ts';
import { createDocument } from '../../src/sending/drafts.ts';
import { sendDocument } from '../../src/sending/send.ts';
import { launchChromium, logIn, lookAt, openPage, viewports } from '../support/chromium.ts';
import { databaseKinds, describeEachDatabase, linkFor, recipient, useHarness } from '../support/harness.ts';
import { pdftotextBbox } from '../support/pdf-tools.ts';

const contract = readFileSync(join(import.meta.dirname, '..', '..', 'src', 'demo', 'statement-of-work.pdf'));
const sender = { email: 'sara@northwind.example', password: 'a long and careful password' };
const maria = { email: 'maria@client.example', name: 'Maria Jansen' };
const tomasz = { email: 'tomasz@client.example', name: 'Tomasz Wójcik' };

describeEachDatabase('fields placed and filled in a browser', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: 'true' } });
  const saveScreenshots = kind === databaseKinds[0];
  const watch = { foreignRequests: [] as string[], pageErrors: [] as string[] };
  let browser: Browser;
  let workspaceId = '';
  let documentId = '';

  before(async () => {
    browser = await launchChromium({ screenshots: saveScreenshots });
    const account = await createAccount(h.ctx, { ...sender, workspaceName: 'Northwind', plan: 'max' });
    workspaceId = account.workspaceId as string;
    ({ id: documentId } = await createDocument(h.ctx, {
      workspaceId,
      title: 'Website redesign — statement of work',
      recipients: [recipient(maria.email, maria.name), recipient(tomasz.email, tomasz.name)],
      pricing: null,
      file: contract,
    }));
    // Its pages drawn ahead of time, as the worker does after an upload.
    await drawQueuedPages(h.ctx);
  });

  after(async () => {
    await browser?.close();
    assert.deepEqual(watch, { foreignRequests: [], pageErrors: [] }, 'nothing beyond the app, no errors');
  });

  const look = (page: Page, name: string, viewport: keyof typeof viewports) =>
    lookAt(page, name, viewport, saveScreenshots ? `${name}-${viewport}.png` : undefined);

  async function loggedIn(viewport: keyof typeof viewports) {
    const opened = await openPage(browser, h.baseUrl, watch, viewports[viewport]);
    await logIn(opened.page, h.baseUrl, sender);
    return opened;
  }

  const fields = () => listFields(h.ctx.db, workspaceId, documentId);

  /**
   * The editor's form post, sent by its script and answered, and the editor changed in place
   * (no form waiting for its answer); the page itself is not loaded again.
   */
  const posted = async (page: Page) => {
    const url = page.url();
    await page.waitForResponse(
      (response) => response.request().method() === 'POST' && response.url().includes('/fields'),
    );
    await page.waitForFunction(() => {
      type Doc = { document: { querySelector(selector: string): unknown } };
      return !(globalThis as unknown as Doc).document.querySelector('form[aria-busy]');
    });
    assert.equal(page.url(), url, 'the editor is not loaded again');
  };

  /** Every page image drawn (the pages' frames have their size once their images have). */
  const imagesLoaded = (page: Page) =>
    page.waitForFunction(() => {
      type Images = { document: { images: ArrayLike<{ complete: boolean; naturalWidth: number }> } };
      const { images } = (globalThis as unknown as Images).document;
      return Array.from(images).every((img) => img.complete && img.naturalWidth > 0);
    });

  /** Drags with the mouse from one point to another of the page, in steps, as a hand does. */
  async function drag(page: Page, from: { x: number; y: number }, to: { x: number; y: number }) {
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move(to.x, to.y, { steps: 10 });
    await Promise.all([posted(page), page.mouse.up()]);
    await imagesLoaded(page);
  }

  test('the sender draws, drags, resizes and reassigns a field with the mouse', async () => {
    const { context, page } = await loggedIn('desktop');
    try {
      await page.goto(`${h.baseUrl}/documents/${documentId}`);
      await page.getByRole('link', { name: 'Place fields' }).click();
      await page.getByRole('heading', { level: 1, name: 'Fields' }).waitFor();
      await page.locator('#add-recipient').selectOption(maria.email);
      await page.locator('#add-type').selectOption('signature');
      const second = page.locator('.page-frame[data-page="2"]');
      await imagesLoaded(page);
      await second.scrollIntoViewIfNeeded();
      let box = await second.boundingBox();
      assert.ok(box);
      // Maria's "Signature:" line on page 2 of the statement of work, left column.
      await drag(
        page,
        { x: box.x + box.width * 0.22, y: box.y + box.height * 0.4 },
        { x: box.x + box.width * 0.45, y: box.y + box.height * 0.44 },
      );
      let [field] = await fields();
      assert.ok(field, `a field drawn: ${await page.locator('.notice').allInnerTexts()}`);
      assert.deepEqual([field.type, field.page], ['signature', 2]);
      assert.ok(Math.abs(field.x - 595.276 * 0.22) < 3, `x ${field.x}`);
      assert.ok(Math.abs(field.width - 595.276 * 0.23) < 3, `width ${field.width}`);
      const drawn = field;

      const shape = page.locator(`[data-field="${drawn.id}"] .field-box`);
      await shape.scrollIntoViewIfNeeded();
      box = await shape.boundingBox();
      assert.ok(box);
      await drag(
        page,
        { x: box.x + box.width / 2, y: box.y + box.height / 2 },
        { x: box.x + box.width / 2 + 40, y: box.y + box.height / 2 + 20 },
      );
      [field] = await fields();
      assert.ok(field && field.x > drawn.x + 10 && field.y < drawn.y - 5, 'moved right and down');
      assert.equal(field.width, drawn.width, 'the same size');
      const moved = field;

      assert.match(page.url(), /\/fields$/, 'still the editor as it was opened: nothing reloaded');
      const handle = page.locator(`[data-field="${drawn.id}"] .field-handle`);
      await handle.scrollIntoViewIfNeeded();
      box = await handle.boundingBox();
      assert.ok(box);
      await drag(
        page,
        { x: box.x + box.width / 2, y: box.y + box.height / 2 },
        { x: box.x + 50, y: box.y + 15 },
      );
      [field] = await fields();
      assert.ok(field && field.width > moved.width + 10, `wider: ${JSON.stringify([moved, field])}`);
      assert.equal(field.x, moved.x, 'resized from its corner: its left edge stays');

      const form = page.locator(`form[data-field-form="${drawn.id}"]`);
      await form.getByLabel('Signer').selectOption(tomasz.email);
      await Promise.all([posted(page), form.getByRole('button', { name: 'Save' }).click()]);
      [field] = await fields();
      const [, tomaszRow] = await h.ctx.db
        .selectFrom('recipients')
        .select(['id', 'email'])
        .where('document_id', '=', documentId)
        .orderBy('position')
        .execute();
      assert.equal(field?.recipient_id, tomaszRow?.id, 'reassigned to Tomasz');
      // One more, drawn by a tap, and deleted with the mouse.
      await page.locator('#add-type').selectOption('initials');
      const first = page.locator('.page-frame[data-page="1"]');
      await first.scrollIntoViewIfNeeded();
      box = await first.boundingBox();
      assert.ok(box);
      await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.9);
      await Promise.all([posted(page), page.mouse.down().then(() => page.mouse.up())]);
      const tapped = (await fields()).find((f) => f.type === 'initials');
      assert.deepEqual(
        [tapped?.page, tapped?.width, tapped?.height],
        [1, 160, 36],
        'a tap: a field of the usual size',
      );
      await Promise.all([
        posted(page),
        page.getByRole('button', { name: 'Delete Initials on page 1' }).click(),
      ]);
      assert.deepEqual(
        (await fields()).map((f) => f.type),
        ['signature'],
      );
      await page.goto(`${h.baseUrl}/documents/${documentId}/fields`);
      await imagesLoaded(page);
      await look(page, 'fields-editor', 'desktop');
    } finally {
      await context.close();
    }
  });

  test('the sender adds, moves, resizes, reassigns and deletes a field with the keyboard alone, on a phone', async () => {
    const { context, page } = await loggedIn('phone');
    try {
      await page.goto(`${h.baseUrl}/documents/${documentId}/fields`);
      const typeIn = async (selector: string, value: string) => {
        await page.locator(selector).focus();
        await page.keyboard.press('ControlOrMeta+A');
        await page.keyboard.type(value);
      };
      await page.locator('#add-recipient').focus();
      await page.keyboard.type('Maria');
      await page.locator('#add-type').focus();
      await page.keyboard.type('Text');
      await page.locator('#add-page').focus();
      await page.keyboard.type('2');
      await typeIn('#add-x', '80');
      await typeIn('#add-y', '420');
      await typeIn('#add-width', '170');
      await typeIn('#add-height', '22');
      await typeIn('#add-label', 'Company');
      await Promise.all([posted(page), page.keyboard.press('Enter')]);
      const added = (await fields()).find((f) => f.label === 'Company');
      assert.ok(added, 'added by keyboard');
      assert.deepEqual(
        [added.type, added.page, added.x, added.y, added.width, added.height],
        ['text', 2, 80, 420, 170, 22],
      );

      // Moved, resized and reassigned in its own form, by keyboard.
      const prefix = `#f-${added.id}`;
      await typeIn(`${prefix}-x`, '90');
      await typeIn(`${prefix}-width`, '150');
      await page.locator(`${prefix}-recipient`).focus();
      await page.keyboard.type('Tomasz');
      // Enter in a text input sends its form (a select takes Enter for itself).
      await page.locator(`${prefix}-label`).focus();
      await Promise.all([posted(page), page.keyboard.press('Enter')]);
      const changed = (await fields()).find((f) => f.id === added.id);
      assert.deepEqual(
        [changed?.x, changed?.width, changed?.recipient_id === added.recipient_id],
        [90, 150, false],
      );
      await page.locator(`${prefix}-recipient`).focus();
      await page.keyboard.type('Maria');
      await page.locator(`${prefix}-label`).focus();
      await Promise.all([posted(page), page.keyboard.press('Enter')]);

      // One more (the form keeps its signer, type and page; the rest is back to its
      // defaults), to delete.
      assert.equal(await page.locator('#add-type').inputValue(), 'text', 'the type stays chosen');
      assert.equal(await page.locator('#add-page').inputValue(), '2', 'the page too');
      assert.equal(await page.locator('#add-label').inputValue(), '', 'the label does not');
      await typeIn('#add-label', 'Spare');
      await Promise.all([posted(page), page.keyboard.press('Enter')]);
      const spare = (await fields()).find((f) => f.label === 'Spare');
      assert.ok(spare);
      assert.deepEqual([spare.type, spare.page, spare.x, spare.y], ['text', 2, 72, 72]);
      await page.getByRole('button', { name: /^Delete Text “Spare” on page 2$/ }).focus();
      await Promise.all([posted(page), page.keyboard.press('Enter')]);
      assert.deepEqual(
        (await fields()).map((f) => f.label),
        [null, 'Company'],
      );
      await look(page, 'fields-editor', 'phone');
    } finally {
      await context.close();
    }
  });

  async function signingLinkOf(email: string): Promise<string> {
    return h.baseUrl + (await linkFor(h.ctx, documentId, email)).path;
  }

  test('each signer is led through their fields, on a desktop and on a phone', async () => {
    await sendDocument(h.ctx, workspaceId, documentId);
    for (const [who, viewport] of [
      [maria, 'desktop'],
      [tomasz, 'phone'],
    ] as const) {
      const { context, page } = await openPage(browser, h.baseUrl, watch, viewports[viewport]);
      try {
        await page.goto(await signingLinkOf(who.email));
        const guide = page.locator('.field-guide');
        if (who === maria) {
          assert.equal(await guide.locator('span').innerText(), '1 of 1 field left');
          assert.equal(await page.locator('rect.field-mine').count(), 1, 'her field on the page');
          assert.equal(await page.locator('rect.field-other').count(), 1, 'his, outlined');
          await guide.getByRole('button', { name: 'Next field' }).click();
          assert.equal(
            await page.evaluate('document.activeElement.name'),
            `field.${(await fields()).find((f) => f.label === 'Company')?.id}`,
          );
          assert.equal(await page.locator('rect.field-current').count(), 1, 'its place marked on the page');
          await page.keyboard.type('Jansen Design BV');
          assert.equal(await guide.locator('span').innerText(), 'Every field is filled in.');
        } else {
          assert.equal(await guide.count(), 0, 'nothing for him to fill in: his signature is filled for him');
          assert.match(
            await page.locator('.filled-for-you').innerText(),
            /Signature on page 2: your signature/,
          );
        }
        await page.getByLabel('Type your full name to sign').fill(who.name);
        await page.getByLabel(/I agree to sign this document electronically/).check();
        await look(page, who === maria ? 'fields-signing' : 'fields-signing', viewport);
        await page.getByRole('button', { name: 'Sign document' }).click();
        await page.getByText('You signed this document. Thank you!').waitFor();
      } finally {
        await context.close();
      }
    }
    assert.equal(await sealDueDocuments(h.ctx), 1);
    const document = await findFullDocument(h.ctx.db, workspaceId, documentId);
    const sealed = (await readFile(h.ctx.db, document?.sealed_sha256 as string)) as Buffer;
    const company = (await fields()).find((f) => f.label === 'Company');
    assert.ok(company);
    const [, second] = await pdftotextBbox(sealed);
    assert.ok(second);
    const words = second.words.filter((w) => ['Jansen', 'Design', 'BV'].includes(w.text));
    assert.equal(words.length, 3, 'the company, on page 2');
    const top = second.height - company.y - company.height;
    for (const w of words) {
      assert.ok(w.xMin >= company.x - 1 && w.xMax <= company.x + company.width + 1, JSON.stringify(w));
      assert.ok(w.yMin >= top - 1 && w.yMax <= top + company.height + 1, JSON.stringify(w));
    }
  });
});
