// Issue 37's journey through the API and a real browser: a write key creates a document from
// a multi-page PDF (multipart) with two signers in order and a signature and a text field
// each, and sends it; the first signer opens the link from their mail and signs in Chromium
// on a desktop (the second is mailed only then), the second draws theirs on a phone; once
// sealed, GET /v1/documents/{id} reads both values back and its sealed file's downloadUrl,
// fetched without the key, is the file its sha256 names, valid by pdfsig and qpdf --check.
// Then `delivery: "none"`: the links come from the API's answers alone, open and sign in
// Chromium, and no recipient is ever mailed. Every signing page passes axe; the screenshots
// (and the sealed PDF's certificate page, drawn by pdftoppm) land in test/output/screenshots/.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { drawQueuedPages } from '../../src/files/background-pages.ts';
import { createApiKey } from '../../src/keys/keys.service.ts';
import { sealDueDocuments } from '../../src/sealing/sealing.service.ts';
import {
  launchChromium,
  lookAt,
  openPage,
  screenshotDir,
  strokeOnPad,
  viewports,
} from '../support/chromium.ts';
import { textPdf } from '../support/factories.ts';
import {
  callApi,
  databaseKinds,
  describeEachDatabase,
  linkFor,
  postDocumentMultipart,
  recipientRow,
  useHarness,
} from '../support/harness.ts';
import { assertSealedOver, pdfPageCount, pdftotext } from '../support/pdf-tools.ts';

const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');
const owner = { email: 'sara@northwind.example', password: 'a long and careful password' };
const maria = { email: 'maria@client.example', fullName: 'Maria Jansen', signingOrder: 1 };
const tomasz = { email: 'tomasz@client.example', fullName: 'Tomasz Wójcik', signingOrder: 2 };
const title = 'Warehouse services agreement';

type Field = { type: string; label: string | null; filled: boolean; value: unknown; filledAt: string | null };
type Detail = {
  id: string;
  status: string;
  signedAt: string | null;
  recipients: Array<{ id: string; email: string; signedAt: string | null; fields: Field[] }>;
  files: Array<{ kind: string; sha256: string; bytes: number; pages: number; downloadUrl: string }>;
  events: Array<{ type: string; recipientEmail: string | null }>;
  signingUrls?: Array<{ recipientId: string; email: string; url: string }>;
};

/** A real three-page PDF, as Signet itself draws a text document. */
function agreementPdf(): Promise<Buffer> {
  const clause =
    'The supplier stores, picks and ships the client’s goods from its Rotterdam warehouse, ' +
    'and reports stock levels every working day.\n';
  return textPdf({ title, body: clause.repeat(90), createdAt: new Date('2026-11-01T00:00:00Z') });
}

/** A signature and a labelled text field for each signer, on the last page. */
function fieldsOn(page: number) {
  return [maria, tomasz].flatMap((signer, i) => [
    { recipient: signer.email, type: 'signature', page, x: 72 + i * 260, y: 120, width: 200, height: 48 },
    {
      recipient: signer.email,
      type: 'text',
      page,
      x: 72 + i * 260,
      y: 200,
      width: 200,
      height: 24,
      label: i === 0 ? 'Purchase order' : 'Depot',
    },
  ]);
}

describeEachDatabase('a document made by the API, signed in Chromium in order, sealed', (kind) => {
  const h = useHarness(kind);
  const saveScreenshots = kind === databaseKinds[0];
  const watch = { foreignRequests: [] as string[], pageErrors: [] as string[] };
  const folder = mkdtempSync(join(tmpdir(), 'signet-api-journey-'));
  let browser: Browser;
  let pdf: Buffer;
  let pages = 0;
  let writeKey = '';

  before(async () => {
    browser = await launchChromium({ screenshots: saveScreenshots });
    pdf = await agreementPdf();
    pages = await pdfPageCount(pdf);
    assert.ok(pages >= 2, `a multi-page PDF (${pages})`);
    const account = await createAccount(h.ctx, { ...owner, workspaceName: 'Northwind', plan: 'max' });
    const workspaceId = account.workspaceId as string;
    writeKey = (await createApiKey(h.ctx, { workspaceId, name: 'portal', scope: 'write' })).secret;
  });

  after(async () => {
    await browser?.close();
    rmSync(folder, { recursive: true, force: true });
    assert.deepEqual(watch, { foreignRequests: [], pageErrors: [] }, 'nothing beyond the app, no errors');
  });

  const look = (page: Page, name: string, viewport: keyof typeof viewports) =>
    lookAt(page, name, viewport, saveScreenshots ? `${name}-${viewport}.png` : undefined);

  /** POST /v1/documents as multipart: the `document` JSON part and the `file` part. */
  async function createMultipart(document: object): Promise<Detail> {
    const res = await postDocumentMultipart(h, writeKey, document, pdf, 'agreement.pdf');
    assert.equal(res.status, 201, res.text);
    return res.body.data as Detail;
  }

  async function detail(id: string): Promise<Detail> {
    const res = await callApi(h, 'GET', `/v1/documents/${id}`, { key: writeKey });
    assert.equal(res.status, 200, res.text);
    return res.body.data as Detail;
  }

  /** Who has been mailed anything about the document, in the order the mails were written. */
  async function mailedTo(documentId: string): Promise<string[]> {
    const rows = await h.ctx.db
      .selectFrom('mails')
      .select('to_address')
      .where('document_id', '=', documentId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map((row) => row.to_address);
  }

  /** The signing page at `url` (an address on the public URL, or a path), each page read. */
  async function openSigning(viewport: keyof typeof viewports, url: string) {
    const opened = await openPage(browser, h.baseUrl, watch, viewports[viewport]);
    const response = await opened.page.goto(h.baseUrl + new URL(url, h.baseUrl).pathname);
    assert.equal(response?.status(), 200);
    await opened.page.getByRole('heading', { level: 1, name: title }).waitFor();
    // The signer reads every page: each image (the later ones load lazily) comes into view, drawn.
    for (let n = 1; n <= pages; n++) {
      const image = opened.page.getByRole('img', { name: `Page ${n} of ${pages} of ${title}` });
      await image.scrollIntoViewIfNeeded();
      type Image = { decode(): Promise<void>; naturalWidth: number };
      const width = await image.evaluate((img) =>
        (img as unknown as Image).decode().then(() => (img as unknown as Image).naturalWidth),
      );
      assert.equal(width, 1200, `page ${n} is drawn`);
    }
    return opened;
  }

  /** Draws a signature on the pad with the pointer, as a finger or a mouse does. */
  async function draw(page: Page): Promise<void> {
    await page.getByRole('radio', { name: 'Drawn' }).check();
    await strokeOnPad(
      page,
      [0.1, 0.7],
      [
        [0.3, 0.3],
        [0.5, 0.75],
        [0.7, 0.35],
        [0.9, 0.6],
      ],
    );
  }

  /**
   * Fills the signer's text field (if given), types their name, draws too when asked, ticks
   * consent, looks at the page (axe, width, screenshot), signs, and looks at the page after.
   */
  async function sign(
    page: Page,
    signer: { fullName: string },
    viewport: keyof typeof viewports,
    options: { screenshot: string; text?: [label: string, value: string]; drawn?: boolean },
  ): Promise<void> {
    if (options.text) {
      const [label, value] = options.text;
      await page.getByLabel(`Text “${label}” on page ${pages}`).fill(value);
    }
    await page.getByLabel('Type your full name to sign').fill(signer.fullName);
    if (options.drawn) await draw(page);
    await page.getByLabel(/I agree to sign this document electronically/).check();
    await look(page, options.screenshot, viewport);
    await page.getByRole('button', { name: 'Sign document' }).click();
    await page.getByText('You signed this document. Thank you!').waitFor();
    await look(page, `${options.screenshot}-signed`, viewport);
  }

  test('made and sent by the API, signed in order in Chromium, its sealed PDF fetched through the API', async () => {
    const created = await createMultipart({
      title,
      recipients: [maria, tomasz],
      fields: fieldsOn(pages),
      send: true,
    });
    assert.equal(created.status, 'sent');
    assert.deepEqual(
      created.files.map((f) => [f.kind, f.sha256, f.pages]),
      [['original', sha256(pdf), pages]],
    );
    assert.deepEqual(
      created.recipients.map((r) => [r.email, r.fields.map((f) => f.type)]),
      [
        [maria.email, ['signature', 'text']],
        [tomasz.email, ['signature', 'text']],
      ],
    );
    assert.deepEqual(await mailedTo(created.id), [maria.email], 'the first signer only is mailed at send');
    // The pages drawn ahead of time, as the worker does once a PDF is stored.
    await drawQueuedPages(h.ctx);

    h.clock.advance(10 * 60_000);
    const first = await openSigning('desktop', (await linkFor(h.ctx, created.id, maria.email)).path);
    try {
      await sign(first.page, maria, 'desktop', {
        screenshot: 'api-journey-first-signer',
        text: ['Purchase order', 'PO-2026-0117'],
      });
      assert.match(await first.page.locator('.box-success').innerText(), /Other signers have not signed yet/);
    } finally {
      await first.context.close();
    }
    assert.deepEqual(
      await mailedTo(created.id),
      [maria.email, tomasz.email],
      'the second signer is mailed once the first has signed',
    );

    h.clock.advance(10 * 60_000);
    const second = await openSigning('phone', (await linkFor(h.ctx, created.id, tomasz.email)).path);
    try {
      await sign(second.page, tomasz, 'phone', {
        screenshot: 'api-journey-second-signer',
        text: ['Depot', 'Rotterdam Waalhaven'],
        drawn: true,
      });
      assert.match(await second.page.locator('.box-success').innerText(), /signed by everyone/);
    } finally {
      await second.context.close();
    }
    assert.equal((await recipientRow(h.ctx, created.id, tomasz.email)).signature_kind, 'drawn');
    assert.equal((await recipientRow(h.ctx, created.id, maria.email)).signature_kind, 'typed');

    await checkSealed(
      created.id,
      [
        [maria.email, 'PO-2026-0117'],
        [tomasz.email, 'Rotterdam Waalhaven'],
      ],
      'api-journey-sealed-certificate.png',
    );
  });

  test('delivery none: the links come from the API alone, sign in Chromium, and no recipient is mailed', async () => {
    const recipients = [maria.email, tomasz.email];
    const toRecipients = async (id: string) =>
      (await mailedTo(id)).filter((address) => recipients.includes(address));
    const created = await createMultipart({
      title,
      recipients: [maria, tomasz],
      fields: fieldsOn(pages),
      delivery: 'none',
      send: true,
    });
    assert.equal(created.status, 'sent');
    const [first, second] = created.recipients;
    assert.ok(first && second);
    assert.deepEqual(
      created.signingUrls?.map((l) => [l.recipientId, l.email]),
      [[first.id, maria.email]],
      'the first signer’s link only, in the answer',
    );
    assert.deepEqual(await mailedTo(created.id), [], 'nobody is mailed at send');
    assert.match(created.signingUrls?.[0]?.url ?? '', /^https:\/\/sign\.example\.test\/sign\//);
    await drawQueuedPages(h.ctx);
    const freshLink = (recipientId: string) =>
      callApi(h, 'POST', `/v1/documents/${created.id}/recipients/${recipientId}/signing-url`, {
        key: writeKey,
      });
    const early = await freshLink(second.id);
    assert.deepEqual([early.status, early.body], [409, { ok: false, error: 'recipient-not-invited' }]);

    h.clock.advance(10 * 60_000);
    const opened = await openSigning('desktop', created.signingUrls?.[0]?.url as string);
    try {
      await sign(opened.page, maria, 'desktop', {
        screenshot: 'api-journey-delivery-none-first',
        text: ['Purchase order', 'PO-2026-0118'],
      });
    } finally {
      await opened.context.close();
    }
    assert.deepEqual(
      await mailedTo(created.id),
      [],
      'the next signer is not mailed: their link is asked for',
    );

    const answer = await freshLink(second.id);
    assert.equal(answer.status, 200, answer.text);
    const link = answer.body.data as { recipientId: string; email: string; url: string };
    assert.deepEqual([link.recipientId, link.email], [second.id, tomasz.email]);
    h.clock.advance(10 * 60_000);
    const phone = await openSigning('phone', link.url);
    try {
      await sign(phone.page, tomasz, 'phone', {
        screenshot: 'api-journey-delivery-none-second',
        text: ['Depot', 'Antwerp North'],
        drawn: true,
      });
    } finally {
      await phone.context.close();
    }
    assert.deepEqual(await toRecipients(created.id), [], 'nobody is mailed as the last signs');
    await checkSealed(
      created.id,
      [
        [maria.email, 'PO-2026-0118'],
        [tomasz.email, 'Antwerp North'],
      ],
      'api-journey-delivery-none-certificate.png',
    );
    assert.deepEqual(await toRecipients(created.id), [], 'no recipient was mailed, not even the signed PDF');
    const mailed = await mailedTo(created.id);
    assert.ok(
      mailed.every((address) => address === owner.email),
      `only the workspace's owner may be mailed: ${mailed}`,
    );
  });

  /**
   * Seals what is due, as the worker does; then the detail: signed, each signer's text value
   * and signature read back, the history in order, and the sealed file (fetched without the
   * key from its downloadUrl) is the one its sha256 names, judged by pdfsig and qpdf --check.
   */
  async function checkSealed(
    id: string,
    values: Array<[email: string, text: string]>,
    certificate: string,
  ): Promise<Buffer> {
    assert.equal(await sealDueDocuments(h.ctx), 1, 'one document sealed');
    const doc = await detail(id);
    assert.equal(doc.status, 'signed');
    assert.ok(doc.signedAt);
    assert.deepEqual(
      doc.recipients.map((r) => [
        r.email,
        typeof r.signedAt,
        r.fields.map((f) => [f.type, f.filled, f.value, f.filledAt === r.signedAt]),
      ]),
      values.map(([email, text]) => [
        email,
        'string',
        [
          ['signature', true, null, true],
          ['text', true, text, true],
        ],
      ]),
    );
    assert.deepEqual(
      doc.events.map((e) => [e.type, e.recipientEmail]),
      [
        ['document.sent', null],
        ...values.flatMap(([email]) => [
          ['document.opened', email],
          ['document.signed', email],
        ]),
        ['document.completed', null],
      ],
    );
    const sealed = doc.files.find((f) => f.kind === 'sealed');
    assert.ok(sealed, `a sealed file: ${JSON.stringify(doc.files)}`);
    const link = new URL(sealed.downloadUrl);
    assert.equal(link.origin, 'https://sign.example.test', 'on the public URL');
    const response = await fetch(h.baseUrl + link.pathname + link.search);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/pdf');
    const bytes = Buffer.from(await response.arrayBuffer());
    assert.equal(bytes.byteLength, sealed.bytes);
    assert.equal(sha256(bytes), sealed.sha256, 'the bytes are those the detail names');
    assert.ok(sealed.pages > pages, `the ${pages} pages and the certificate: ${sealed.pages}`);
    const text = await pdftotext(bytes);
    for (const expected of [
      'Certificate of completion',
      maria.fullName,
      tomasz.fullName,
      ...values.map(([, v]) => v),
    ])
      assert.ok(text.includes(expected), `${expected} in the sealed PDF`);
    // The original's bytes first, one signature valid by pdfsig over the whole file, qpdf clean.
    await assertSealedOver(pdf, bytes, 1, 'the seal alone');
    saveCertificatePage(bytes, sealed.pages, certificate);
    return bytes;
  }

  /** The sealed PDF's last page (the certificate of completion), drawn by pdftoppm. */
  function saveCertificatePage(bytes: Buffer, last: number, name: string): void {
    const file = join(folder, 'sealed.pdf');
    writeFileSync(file, bytes);
    const prefix = join(folder, 'certificate');
    execFileSync('pdftoppm', [
      '-png',
      '-r',
      '80',
      '-f',
      String(last),
      '-l',
      String(last),
      '-singlefile',
      file,
      prefix,
    ]);
    const png = readFileSync(`${prefix}.png`);
    assert.ok(png.byteLength > 5_000, 'the certificate page is drawn');
    if (saveScreenshots) writeFileSync(join(screenshotDir, name), png);
  }
});
