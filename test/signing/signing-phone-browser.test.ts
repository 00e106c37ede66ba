// Issue 36 in Chromium, on a desktop and a 390 px phone: a signer who fills their fields,
// types their name, ticks the consent and draws a signature, then mistypes the one-time
// code, gets the page back with all of it (the drawing on the pad again) and signs with the
// right code; without JavaScript the same. The pages use the phone's width, each field's
// input follows its page, a tap on a page shows it larger (a dialog with the script, the
// full-size image without), and no request of the page answers 404 (the favicon). Every page
// passes axe; the screenshots land in test/output/screenshots/.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  checkAccessibility,
  launchChromium,
  lookAt,
  openPage,
  screenshotDir,
  strokeOnPad,
  viewports,
} from '../support/chromium.ts';
import {
  createSentDocument,
  createTestWorkspace,
  databaseKinds,
  describeEachDatabase,
  latestCodeFor,
  recipient,
  useHarness,
} from '../support/harness.ts';

const contract = readFileSync(join(import.meta.dirname, '..', '..', 'src', 'demo', 'statement-of-work.pdf'));
const signer = { email: 'nadia@client.example', name: 'Nadia Okafor' };

describeEachDatabase('signing on a phone and a desktop (issue 36)', (kind) => {
  const h = useHarness(kind);
  const saveScreenshots = kind === databaseKinds[0];
  const watch = { foreignRequests: [] as string[], pageErrors: [] as string[] };
  const notFound: string[] = [];
  let browser: Browser;

  before(async () => {
    browser = await launchChromium({ screenshots: saveScreenshots });
  });

  after(async () => {
    await browser?.close();
    // The wrong codes are answered as the page with status 400, which Chromium reports on
    // the console; anything else is an error.
    const refusal = /\/sign: Failed to load resource: the server responded with a status of 400/;
    const errors = watch.pageErrors.filter((error) => !refusal.test(error));
    assert.equal(watch.pageErrors.length - errors.length, 3, 'the three wrong codes');
    assert.deepEqual(
      { ...watch, pageErrors: errors },
      { foreignRequests: [], pageErrors: [] },
      'nothing beyond the app, no errors',
    );
    assert.deepEqual(notFound, [], 'no request answered 404 (the favicon is served)');
  });

  const look = (page: Page, name: string, viewport: keyof typeof viewports) =>
    lookAt(page, name, viewport, saveScreenshots ? `${name}-${viewport}.png` : undefined);

  /** A sent copy of the statement of work for an email-code signer, with fields on both pages. */
  async function sentDocument(email: string) {
    const ws = await createTestWorkspace(h.ctx);
    const { links } = await createSentDocument(h.ctx, ws.id, {
      title: 'Website redesign — statement of work',
      recipients: [recipient(email, signer.name, { signingMethod: 'email-code' })],
      file: contract,
      fields: [
        { recipient: email, type: 'text', page: 1, x: 72, y: 420, width: 200, height: 24, label: 'Company' },
        { recipient: email, type: 'initials', page: 2, x: 420, y: 600, width: 60, height: 30 },
        {
          recipient: email,
          type: 'checkbox',
          page: 2,
          x: 72,
          y: 640,
          width: 14,
          height: 14,
          label: 'Scope agreed',
        },
        { recipient: email, type: 'signature', page: 2, x: 72, y: 300, width: 180, height: 40 },
      ],
    });
    const link = links.get(email);
    assert.ok(link);
    return h.baseUrl + link.path;
  }

  async function opened(viewport: keyof typeof viewports, javaScript = true) {
    const result = await openPage(browser, h.baseUrl, watch, {
      ...viewports[viewport],
      javaScriptEnabled: javaScript,
    });
    result.page.on('response', (response) => {
      if (response.status() === 404) notFound.push(response.url());
    });
    return result;
  }

  /**
   * Every page image drawn: a new document's first images are drawn while the page waits,
   * which on a machine busy with other tests takes longer than the usual 15 s.
   */
  const imagesLoaded = (page: Page) =>
    page.waitForFunction(
      () => {
        type Images = { document: { images: ArrayLike<{ complete: boolean; naturalWidth: number }> } };
        const { images } = (globalThis as unknown as Images).document;
        return Array.from(images).every((img) => img.complete && img.naturalWidth > 0);
      },
      undefined,
      { timeout: 90_000 },
    );

  /** The signing page, once its HTML is there (its page images may still be being drawn). */
  const visit = (page: Page, url: string) => page.goto(url, { waitUntil: 'domcontentloaded' });

  /** How many pixels of the signature pad are drawn on. */
  const inkOnPad = (page: Page) =>
    page.evaluate(() => {
      type Canvas = {
        width: number;
        height: number;
        getContext(kind: '2d'): { getImageData(...box: number[]): { data: Uint8ClampedArray } };
      };
      const doc = (globalThis as unknown as { document: { getElementById(id: string): Canvas } }).document;
      const canvas = doc.getElementById('signature-canvas');
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      let ink = 0;
      for (let i = 3; i < data.length; i += 4) if ((data[i] as number) > 0) ink++;
      return ink;
    });

  /** Draws a stroke across the pad with the pointer. */
  const draw = (page: Page) =>
    strokeOnPad(
      page,
      [0.1, 0.7],
      [
        [0.5, 0.2],
        [0.9, 0.6],
      ],
    );

  async function assertKept(page: Page, drawn: boolean) {
    assert.equal(await page.getByLabel('Text “Company” on page 1').inputValue(), 'Okafor Studio');
    assert.equal(await page.getByLabel('Initials on page 2').inputValue(), 'NOk');
    assert.equal(await page.getByLabel('Checkbox “Scope agreed” on page 2').isChecked(), true);
    assert.equal(await page.getByLabel('Type your full name to sign').inputValue(), signer.name);
    assert.equal(await page.getByLabel(/I agree to sign this document electronically/).isChecked(), true);
    assert.equal(await page.locator('#sign-code').inputValue(), '', 'the wrong code is cleared');
    if (drawn) {
      assert.equal(await page.getByRole('radio', { name: 'Drawn' }).isChecked(), true);
      await page.waitForFunction(() => {
        type Canvas = {
          getContext(kind: '2d'): { getImageData(...box: number[]): { data: Uint8ClampedArray } };
        };
        const doc = (globalThis as unknown as { document: { getElementById(id: string): Canvas } }).document;
        return doc
          .getElementById('signature-canvas')
          .getContext('2d')
          .getImageData(0, 0, 900, 300)
          .data.some((v, i) => i % 4 === 3 && v > 0);
      });
      assert.ok((await inkOnPad(page)) > 100, 'the drawing is on the pad again');
    }
  }

  for (const viewport of ['desktop', 'phone'] as const) {
    test(`a wrong code keeps everything, the drawing too, with JavaScript (${viewport})`, async () => {
      const email = `nadia.${viewport}@client.example`;
      const url = await sentDocument(email);
      const { context, page } = await opened(viewport);
      try {
        await visit(page, url);
        await imagesLoaded(page);
        await page.getByLabel('Text “Company” on page 1').fill('Okafor Studio');
        await page.getByLabel('Initials on page 2').fill('NOk');
        await page.getByLabel('Checkbox “Scope agreed” on page 2').check();
        await page.getByLabel('Type your full name to sign').fill(signer.name);
        await page.getByRole('radio', { name: 'Drawn' }).check();
        await draw(page);
        await page.getByLabel(/I agree to sign this document electronically/).check();
        // Asking for the code after filling it all in keeps it all (the script carries it).
        await page.getByRole('button', { name: 'Send code' }).click();
        await page.getByText('We emailed you a 6-digit one-time code.').waitFor();
        await assertKept(page, true);
        const code = await latestCodeFor(h.ctx, email);
        await page.locator('#sign-code').fill(code === '000000' ? '111111' : '000000');
        await page.getByRole('button', { name: 'Sign document' }).click();
        await page.getByText('That code is not right').first().waitFor();
        await assertKept(page, true);
        await imagesLoaded(page);
        await page.locator('#sign-code').scrollIntoViewIfNeeded();
        await look(page, 'issue36-wrong-code', viewport);
        await page.locator('#sign-code').fill(code);
        await page.getByRole('button', { name: 'Sign document' }).click();
        await page.getByText('You signed this document. Thank you!').waitFor();
        const row = await h.ctx.db
          .selectFrom('recipients')
          .select('signature_kind')
          .where('email', '=', email)
          .executeTakeFirstOrThrow();
        assert.equal(row.signature_kind, 'drawn', 'signed with the kept drawing');
      } finally {
        await context.close();
      }
    });
  }

  test('a wrong code keeps everything without JavaScript (phone)', async () => {
    const email = 'nadia.nojs@client.example';
    const url = await sentDocument(email);
    const { context, page } = await opened('phone', false);
    try {
      await visit(page, url);
      await page.getByRole('button', { name: 'Send code' }).click();
      await page.getByText('We emailed you a 6-digit one-time code.').waitFor();
      await page.getByLabel('Text “Company” on page 1').fill('Okafor Studio');
      await page.getByLabel('Initials on page 2').fill('NOk');
      await page.getByLabel('Checkbox “Scope agreed” on page 2').check();
      await page.getByLabel('Type your full name to sign').fill(signer.name);
      await page.getByLabel(/I agree to sign this document electronically/).check();
      const code = await latestCodeFor(h.ctx, email);
      await page.locator('#sign-code').fill(code === '000000' ? '111111' : '000000');
      await page.getByRole('button', { name: 'Sign document' }).click();
      await page.getByText('That code is not right').first().waitFor();
      await assertKept(page, false);
      await page.locator('#sign-code').fill(code);
      await page.getByRole('button', { name: 'Sign document' }).click();
      await page.getByText('You signed this document. Thank you!').waitFor();
    } finally {
      await context.close();
    }
  });

  test('pages use the phone’s width, fields follow their page, a tap shows a page larger', async () => {
    const url = await sentDocument('nadia.pages@client.example');
    for (const viewport of ['desktop', 'phone'] as const) {
      const { context, page } = await opened(viewport);
      try {
        await visit(page, url);
        await imagesLoaded(page);
        const first = await page.getByRole('img', { name: /^Page 1 of 2/ }).boundingBox();
        const second = await page.getByRole('img', { name: /^Page 2 of 2/ }).boundingBox();
        assert.ok(first && second);
        const width = viewports[viewport].viewport.width;
        if (viewport === 'phone')
          assert.ok(first.width >= width - 40, `a page is ${first.width} px wide on a ${width} px phone`);
        else assert.ok(first.width >= 600, `a page is ${first.width} px wide on a desktop`);
        const company = await page.getByLabel('Text “Company” on page 1').boundingBox();
        assert.ok(company);
        assert.ok(
          company.y > first.y + first.height && company.y < second.y,
          'the input of the field on page 1 is between pages 1 and 2',
        );
        await look(page, 'issue36-phone-signing', viewport);

        await page.getByRole('link', { name: /^Page 2 of 2/ }).click();
        const dialog = page.getByRole('dialog', { name: /^Page 2 of 2/ });
        await dialog.waitFor();
        await page.waitForFunction(() => {
          type Doc = { document: { querySelector(s: string): { complete: boolean; naturalWidth: number } } };
          const img = (globalThis as unknown as Doc).document.querySelector('.page-viewer img');
          return img.complete && img.naturalWidth > 0;
        });
        const large = await dialog.getByRole('img').boundingBox();
        assert.ok(large);
        assert.ok(
          large.width > first.width * 1.4,
          `the larger view is ${large.width} px wide, the page ${first.width}`,
        );
        // The dialog fills the screen: what the phone shows, not the whole page behind it.
        await checkAccessibility(page, `larger view (${viewport})`);
        if (viewport === 'phone' && saveScreenshots) {
          await page.screenshot({ path: join(screenshotDir, 'issue36-phone-larger-view.png') });
        }
        await dialog.getByRole('button', { name: 'Close' }).click();
        await dialog.waitFor({ state: 'hidden' });
      } finally {
        await context.close();
      }
    }
    // Without JavaScript the page is a link to its full-size image, opened in the same tab.
    const { context, page } = await opened('phone', false);
    try {
      await visit(page, url);
      await page.getByRole('link', { name: /^Page 1 of 2/ }).click();
      await page.waitForURL(/\/pages\/1$/);
      const size = await page.evaluate(() => {
        const doc = (globalThis as unknown as { document: { images: ArrayLike<{ naturalWidth: number }> } })
          .document;
        return doc.images[0]?.naturalWidth;
      });
      assert.equal(size, 1200);
    } finally {
      await context.close();
    }
  });
});
