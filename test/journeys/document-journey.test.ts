// The whole journey of a real document in Chromium, as people do it: the sender uploads a
// PDF (made by LaTeX) and sends it; the first signer reads its pages and draws a signature
// on a desktop, the second types theirs on a phone; the worker seals it; the signed PDF is
// downloaded from the done screen and checked with pdfsig and pdftotext, and checked again
// on /verify. Every page passes axe at desktop and phone widths and fits the phone; the
// screenshots land in test/output/screenshots/ (docs/screenshots/ through `npm run
// screenshots`), with the sealed file's first and last page drawn by poppler's pdftoppm.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { createLogger } from '../../src/context.ts';
import { createMailTransport } from '../../src/mail/mailer.ts';
import { startWorker } from '../../src/worker/worker.ts';
import {
  checkAccessibility,
  launchChromium,
  logIn,
  lookAt,
  lookAtAddress,
  openPage,
  screenshotDir,
  strokeOnPad,
  viewports,
} from '../support/chromium.ts';
import { databaseKinds, describeEachDatabase, linkFor, useHarness } from '../support/harness.ts';
import { pdfImageList, pdfsig, pdftotext } from '../support/pdf-tools.ts';

const contract = join(import.meta.dirname, '..', '..', 'src', 'demo', 'statement-of-work.pdf');
const sender = { email: 'sara@northwind.example', password: 'a long and careful password' };
const signers = [
  { email: 'maria@client.example', name: 'Maria Jansen' },
  { email: 'tomasz@client.example', name: 'Tomasz Wójcik' },
];

describeEachDatabase('a real document from upload to sealed PDF, in a browser', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: 'true' } });
  const saveScreenshots = kind === databaseKinds[0];
  const folder = mkdtempSync(join(tmpdir(), 'signet-journey-'));
  const watch = { foreignRequests: [] as string[], pageErrors: [] as string[] };
  let browser: Browser;
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let documentPath = '';
  let sealedPdf: Buffer;

  before(async () => {
    browser = await launchChromium({ screenshots: saveScreenshots });
    worker = await startWorker(h.ctx, {
      transport: createMailTransport({
        smtpUrl: null,
        from: 'Signet <no-reply@test>',
        log: createLogger('silent'),
      }),
      subscribe: h.subscribe,
      mailIntervalMs: 200,
      sealIntervalMs: 200,
    });
    const account = await createAccount(h.ctx, { ...sender, workspaceName: 'Northwind', plan: 'max' });
    assert.ok(account.workspaceId);
  });

  after(async () => {
    await worker?.stop();
    await browser?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  const newPage = (viewport: keyof typeof viewports) =>
    openPage(browser, h.baseUrl, watch, viewports[viewport]);

  /** axe, no sideways scrolling, and the screenshot. */
  function look(page: Page, name: string, viewport: keyof typeof viewports): Promise<void> {
    return lookAt(page, name, viewport, saveScreenshots ? `${name}-${viewport}.png` : undefined);
  }

  /** The same page at the other width (with the same cookies): axe, width, screenshot. */
  function lookAlso(
    url: string,
    name: string,
    viewport: keyof typeof viewports,
    storageState?: Awaited<ReturnType<import('playwright-core').BrowserContext['storageState']>>,
  ): Promise<void> {
    const file = saveScreenshots ? `${name}-${viewport}.png` : undefined;
    return lookAtAddress(browser, h.baseUrl, watch, url, name, viewport, { storageState, file });
  }

  async function signingLinkOf(email: string): Promise<string> {
    return h.baseUrl + (await linkFor(h.ctx, documentPath.split('/').at(-1) as string, email)).path;
  }

  async function until(what: string, check: () => Promise<boolean>): Promise<void> {
    for (let i = 0; i < 300; i++) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.fail(`waited in vain for ${what}`);
  }

  test('the sender uploads the PDF, sees its pages, and sends it', async () => {
    const { context, page } = await newPage('desktop');
    try {
      await logIn(page, h.baseUrl, sender);
      await page.goto(`${h.baseUrl}/documents/new`);
      await page.getByLabel('Title').fill('Website redesign — statement of work');
      await page.getByLabel('PDF to be signed').setInputFiles(contract);
      for (const [i, signer] of signers.entries()) {
        await page.getByLabel(`Recipient ${i + 1} email`).fill(signer.email);
        await page.getByLabel(`Recipient ${i + 1} full name`).fill(signer.name);
        await page.getByLabel(`Recipient ${i + 1} signing order`).fill(String(i + 1));
      }
      await look(page, 'journey-upload', 'desktop');
      await lookAlso(`${h.baseUrl}/documents/new`, 'journey-upload', 'phone', await context.storageState());
      await page.getByRole('button', { name: 'Create draft' }).click();
      await page.getByRole('heading', { level: 1, name: 'Website redesign — statement of work' }).waitFor();
      documentPath = new URL(page.url()).pathname;
      await page.getByRole('img', { name: 'Page 2' }).waitFor();
      assert.match(await page.locator('#pdf-title').innerText(), /PDF \(2 pages, \d+ KB\)/);
      await look(page, 'journey-draft', 'desktop');
      await lookAlso(page.url(), 'journey-draft', 'phone', await context.storageState());
      await page.getByRole('link', { name: 'Send to recipients…' }).click();
      await page.getByRole('heading', { level: 1, name: 'Send this document?' }).waitFor();
      const send = page.getByRole('button', { name: 'Send to recipients' });
      await send.click();
      await send.waitFor({ state: 'detached' });
    } finally {
      await context.close();
    }
  });

  test('without JavaScript the signing page offers the typed signature alone', async () => {
    const { context, page } = await openPage(browser, h.baseUrl, watch, {
      ...viewports.phone,
      javaScriptEnabled: false,
    });
    try {
      await page.goto(await signingLinkOf(signers[0]?.email as string));
      await page.getByRole('img', { name: /^Page 1 of 2 of / }).waitFor();
      assert.ok(await page.getByLabel('Type your full name to sign').isVisible());
      assert.equal(await page.getByLabel('Drawn', { exact: true }).isVisible(), false, 'no pad to draw on');
      assert.equal(await page.locator('#signature-canvas').isVisible(), false);
    } finally {
      await context.close();
    }
  });

  test('the first signer reads the pages and draws a signature on a desktop', async () => {
    const { context, page } = await newPage('desktop');
    try {
      const link = await signingLinkOf(signers[0]?.email as string);
      await lookAlso(link, 'journey-signing', 'phone');
      await page.goto(link);
      const second = page.getByRole('img', { name: /^Page 2 of 2 of / });
      await second.scrollIntoViewIfNeeded();
      assert.equal(
        await second.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
        1200,
      );
      await page.getByLabel('Type your full name to sign').fill('Maria Jansen');
      await page.getByLabel('Drawn', { exact: true }).check();
      await strokeOnPad(
        page,
        [0.1, 0.7],
        [
          [0.25, 0.3],
          [0.4, 0.75],
          [0.55, 0.35],
          [0.7, 0.7],
          [0.9, 0.4],
        ],
      );
      await page.getByLabel(/I agree to sign this document electronically/).check();
      await look(page, 'journey-signing-drawn', 'desktop');
      await page.getByRole('button', { name: 'Sign document' }).click();
      await page.getByText('You signed this document. Thank you!').waitFor();
      assert.match(await page.locator('.box-success').innerText(), /Other signers have not signed yet/);
    } finally {
      await context.close();
    }
  });

  test('the second signer types theirs on a phone, and the done screen offers the sealed PDF', async () => {
    const { context, page } = await newPage('phone');
    try {
      const link = await signingLinkOf(signers[1]?.email as string);
      await lookAlso(link, 'journey-signing-typed', 'desktop');
      await page.goto(link);
      await page.getByRole('img', { name: /^Page 1 of 2 of / }).waitFor();
      await page.getByLabel('Type your full name to sign').fill('Tomasz Wójcik');
      assert.equal(await page.locator('#signature-preview').innerText(), 'Tomasz Wójcik');
      await page.getByLabel(/I agree to sign this document electronically/).check();
      await look(page, 'journey-signing-typed', 'phone');
      await page.getByRole('button', { name: 'Sign document' }).click();
      await page.getByText('You signed this document. Thank you!').waitFor();
      // The worker seals it moments later; the page offers the signed PDF once it is stored.
      const signedLink = page.getByRole('link', { name: 'Download the signed PDF' });
      await until('the sealed PDF', async () => {
        await page.reload();
        return (await signedLink.count()) > 0;
      });
      await look(page, 'journey-done', 'phone');
      await lookAlso(page.url(), 'journey-done', 'desktop');
      const download = await (
        await fetch(
          h.baseUrl +
            new URL((await signedLink.getAttribute('href')) as string).pathname +
            new URL((await signedLink.getAttribute('href')) as string).search,
        )
      ).arrayBuffer();
      sealedPdf = Buffer.from(download);
    } finally {
      await context.close();
    }
  });

  test('the sealed PDF: pdfsig says valid, its certificate names everyone, the drawing is in it', async () => {
    const [seal] = (await pdfsig(sealedPdf)).signatures;
    assert.equal(seal?.validation, 'Signature is Valid.');
    assert.equal(seal?.signatureType, 'ETSI.CAdES.detached');
    const text = await pdftotext(sealedPdf);
    for (const expected of [
      'Statement of work'.toLowerCase(),
      'Certificate of completion',
      'Maria Jansen',
      'Tomasz Wójcik',
      'Mozilla/5.0',
    ]) {
      assert.ok(text.toLowerCase().includes(expected.toLowerCase()), `${expected} in the sealed PDF`);
    }
    assert.match(
      await pdfImageList(sealedPdf),
      /\n\s+\d+\s+\d+\s+image\s/,
      'the drawn signature is an image',
    );
    const file = join(folder, 'sealed.pdf');
    writeFileSync(file, sealedPdf);
    const pages = Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [file], { encoding: 'utf8' }))?.[1]);
    assert.ok(pages >= 3, 'the two pages and the certificate');
    for (const [which, page] of [
      ['first', 1],
      ['last', pages],
    ] as const) {
      const prefix = join(folder, which);
      execFileSync('pdftoppm', [
        '-png',
        '-r',
        '80',
        '-f',
        String(page),
        '-l',
        String(page),
        '-singlefile',
        file,
        prefix,
      ]);
      const png = readFileSync(`${prefix}.png`);
      assert.ok(png.byteLength > 5_000, `the ${which} page is drawn`);
      if (saveScreenshots) writeFileSync(join(screenshotDir, `sealed-pdf-${which}-page.png`), png);
    }
  });

  test('/verify says the downloaded file is sealed by this Signet and unchanged', async () => {
    const file = join(folder, 'to-verify.pdf');
    writeFileSync(file, sealedPdf);
    for (const viewport of ['desktop', 'phone'] as const) {
      const { context, page } = await newPage(viewport);
      try {
        await page.goto(`${h.baseUrl}/verify`);
        await page.locator('input[type="file"]').setInputFiles(file);
        await page.getByRole('button', { name: /Verify|Check/ }).click();
        await page
          .getByText(/Sealed by this Signet/)
          .first()
          .waitFor();
        assert.match(await page.locator('main').innerText(), /unchanged/i);
        await checkAccessibility(page, `verify result (${viewport})`);
      } finally {
        await context.close();
      }
    }
  });

  test('the browser talked to the app only and the pages raised no errors', () => {
    assert.deepEqual(watch.foreignRequests, []);
    assert.deepEqual(watch.pageErrors, []);
  });
});
