// The signing page in a real browser: headless Chromium (Debian's, at /usr/bin/chromium;
// .ci/run installs it) driven by playwright-core over the harness's real HTTP server. Two
// signers sign in order, the first on a desktop viewport and the second on a phone, then the
// read API must show the completed document and its history. The first database kind of the
// run saves screenshots of the pages (test/output/screenshots/, or docs/screenshots/ through
// `npm run screenshots`; see screenshots.ts). The browser may only talk to the
// app: any other request is aborted and fails the test.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { sealDueDocuments } from '../../src/sealing/sealing.service.ts';
import type { RecipientInput } from '../../src/sending/draft-input.ts';
import { launchChromium, openPage, screenshotDir } from '../support/chromium.ts';
import {
  callApi,
  createSentDocument,
  createTestWorkspace,
  databaseKinds,
  describeEachDatabase,
  recipient,
  type SigningLink,
  signingLinksOf,
  type TestWorkspace,
  useHarness,
} from '../support/harness.ts';
import { wholePageScreenshots } from '../support/screenshots.ts';

const title = 'Software implementation and subscription agreement';
const body = [
  'This agreement is made between Northwind Logistics B.V. ("the Client") and Signet Software Ltd ("the Supplier"). ' +
    'The Supplier configures the Signet platform for the Client, migrates its existing templates and trains up to ' +
    'ten of its employees, as described in the attached statement of work.',
  'The subscription starts on the day the implementation is accepted and runs for twelve months. Invoices are ' +
    'due within 30 days. Either party may end the agreement in writing with one month notice at the end of the term.',
].join('\n\n');

const pricing = {
  currency: 'EUR',
  pricesIncludeVat: false,
  items: [
    {
      name: 'Implementation',
      quantity: '12',
      unitPrice: '95.00',
      vatRate: '21',
      billing: { type: 'one-off' },
    },
    {
      name: 'Platform subscription',
      quantity: '1',
      unitPrice: '49.99',
      vatRate: '21',
      billing: { type: 'recurring', interval: 'month', periods: 12 },
    },
  ],
};
/** 12 × 95.00 + 12 × 49.99 = 1,739.88 net; 21% VAT of it is 365.3748. */
const totals = { net: '€1,739.88', vat: '€365.37', gross: '€2,105.25' };

const signers: RecipientInput[] = [
  recipient('maria.jansen@northwind.example', 'Maria Jansen'),
  recipient('tom.bakker@northwind.example', 'Tom Bakker', { signingOrder: 2 }),
];
const [first, second] = signers as [RecipientInput, RecipientInput];

const signedNotice = 'You signed this document. Thank you!';

interface Detail {
  status: string;
  signedAt: string | null;
  recipients: Array<{ email: string; signedAt: string | null }>;
  events: Array<{ type: string; recipientEmail: string | null }>;
}

describeEachDatabase('signing in a browser', (kind) => {
  const h = useHarness(kind);
  const saveScreenshots = kind === databaseKinds[0];
  let browser: Browser;
  let ws: TestWorkspace;
  let documentId: string;
  let links: Map<string, SigningLink>;
  /** Requests the browser tried to send anywhere but the app (aborted). */
  const foreignRequests: string[] = [];
  /** Console errors and uncaught page errors, e.g. a Content-Security-Policy violation. */
  const pageErrors: string[] = [];

  before(async () => {
    browser = await launchChromium({ screenshots: saveScreenshots });
    ws = await createTestWorkspace(h.ctx);
    const sent = await createSentDocument(h.ctx, ws.id, { title, body, pricing, recipients: signers });
    documentId = sent.id;
    links = sent.links;
  });

  after(async () => {
    await browser?.close();
  });

  async function newPage(
    options: Parameters<Browser['newContext']>[0],
  ): Promise<{ context: BrowserContext; page: Page }> {
    return openPage(browser, h.baseUrl, { foreignRequests, pageErrors }, options);
  }

  /** The signer's link, from their mail: the second group is mailed once the first has signed. */
  async function linkOf(signer: RecipientInput): Promise<string> {
    if (!links.has(signer.email)) links = await signingLinksOf(h.ctx, documentId);
    const link = links.get(signer.email);
    assert.ok(link, `no signing link was mailed to ${signer.email}`);
    return h.baseUrl + link.path;
  }

  async function screenshot(page: Page, name: string): Promise<void> {
    // Taken on every run; only the first database kind keeps it.
    const image = await page.screenshot({
      fullPage: wholePageScreenshots,
      ...(saveScreenshots ? { path: join(screenshotDir, name) } : {}),
    });
    assert.ok(image.length > 1000, `screenshot ${name} is empty`);
  }

  async function openSigningPage(page: Page, signer: RecipientInput): Promise<void> {
    const response = await page.goto(await linkOf(signer));
    assert.equal(response?.status(), 200);
    assert.equal(await page.title(), title);
    await page.getByRole('heading', { level: 1, name: title }).waitFor();
    // The inline stylesheet applied: the Content-Security-Policy's hash matches it.
    assert.equal(
      await page.evaluate('getComputedStyle(document.body).backgroundColor'),
      'rgb(244, 245, 247)',
    );
    // The document's pages are drawn on the server and shown as images; its text stays
    // readable as text, folded under them.
    const firstPage = page.getByRole('img', { name: `Page 1 of 1 of ${title}` });
    await firstPage.waitFor();
    type Image = { decode(): Promise<void>; naturalWidth: number };
    const loaded = await firstPage.evaluate((img) =>
      (img as unknown as Image).decode().then(() => (img as unknown as Image).naturalWidth),
    );
    assert.equal(loaded, 1200, 'the page image loaded');
    await page.getByText('Read the document as text').click();
    assert.ok(
      await page.getByText('Signet Software Ltd ("the Supplier")').isVisible(),
      'document text shown',
    );
    assert.ok(await page.getByText(`Signing as ${signer.fullName}`).isVisible(), 'signer named');
  }

  async function pricingTotals(page: Page): Promise<string[]> {
    const rows = page.locator('.table-scroll tfoot tr');
    assert.equal(await rows.count(), 3);
    for (const row of await rows.all()) assert.ok(await row.isVisible(), 'totals row visible');
    return rows.locator('td').allInnerTexts();
  }

  /** Types the name, ticks consent, presses Sign document and waits for the page it redirects to. */
  async function sign(page: Page, signer: RecipientInput, touch: boolean): Promise<void> {
    await page.getByLabel('Type your full name').fill(signer.fullName);
    const consent = page.getByRole('checkbox', { name: /I agree to sign this document electronically/ });
    const button = page.getByRole('button', { name: 'Sign document' });
    assert.ok(await button.isVisible(), 'Sign document button visible');
    if (touch) {
      await consent.tap();
      assert.ok(await consent.isChecked(), 'consent ticked');
      await button.tap();
    } else {
      await consent.check();
      await button.click();
    }
    await page.waitForURL(/\/sign\/[0-9a-f-]{36}\/[\w-]{43}\?done=signed$/);
    const notice = page.locator('.notice-success');
    await notice.waitFor({ state: 'visible' });
    assert.equal((await notice.innerText()).trim(), signedNotice);
    assert.equal(await page.getByRole('button', { name: 'Sign document' }).count(), 0, 'no second signature');
  }

  test('the first signer reads and signs on a desktop browser', async () => {
    h.clock.advance(60 * 60_000);
    const { context, page } = await newPage({ viewport: { width: 1280, height: 900 } });
    try {
      await openSigningPage(page, first);
      assert.ok(await page.getByRole('heading', { name: 'Pricing' }).isVisible());
      assert.deepEqual(await pricingTotals(page), [totals.net, totals.vat, totals.gross]);
      const lines = await page.locator('.table-scroll tbody tr').allInnerTexts();
      assert.deepEqual(
        lines.map((line) => line.split('\t').map((cell) => cell.trim())),
        [
          ['Implementation', 'one-off', '12', '€95.00', '21', '€1,140.00'],
          ['Platform subscription', 'monthly × 12', '1', '€49.99', '21', '€599.88'],
        ],
      );
      assert.ok(await page.getByText('Prices exclude VAT').isVisible());
      // Wide enough for the whole table: no sideways scrolling.
      assert.equal(
        await page.evaluate(
          '(() => { const s = document.querySelector(".table-scroll"); return s.scrollWidth <= s.clientWidth; })()',
        ),
        true,
      );
      await screenshot(page, 'signing-page-desktop.png');

      h.clock.advance(5 * 60_000);
      await sign(page, first, false);
      const box = page.locator('.box-success');
      assert.match(
        await box.innerText(),
        /You signed this document on .+\.\s+Other signers have not signed yet\./,
      );
      await screenshot(page, 'signing-page-signed-desktop.png');
    } finally {
      await context.close();
    }
  });

  test('the second signer reads and signs on a phone', async () => {
    h.clock.advance(2 * 60 * 60_000);
    const { context, page } = await newPage({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    try {
      await openSigningPage(page, second);
      assert.deepEqual(await pricingTotals(page), [totals.net, totals.vat, totals.gross]);
      const layout = (await page.evaluate(
        '({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth, clientWidth: document.documentElement.clientWidth })',
      )) as { scrollWidth: number; innerWidth: number; clientWidth: number };
      // A page wider than the phone would also zoom the layout viewport out, so the width must be the phone's.
      assert.deepEqual(
        { innerWidth: layout.innerWidth, clientWidth: layout.clientWidth },
        { innerWidth: 390, clientWidth: 390 },
      );
      assert.ok(
        layout.scrollWidth <= layout.innerWidth,
        `the page is ${layout.scrollWidth}px wide on a ${layout.innerWidth}px phone: it scrolls sideways`,
      );
      // Each pricing line stacks into a small card: every figure and every total is on screen
      // without scrolling the table sideways.
      assert.equal(
        await page.evaluate(
          '(() => { const s = document.querySelector(".table-scroll"); return s.scrollWidth <= s.clientWidth; })()',
        ),
        true,
      );
      for (const figure of [
        totals.net,
        totals.vat,
        totals.gross,
        '€1,140.00',
        '€599.88',
        '€95.00',
        '€49.99',
      ]) {
        const box = await page
          .locator('.table-scroll')
          .getByText(figure, { exact: true })
          .first()
          .boundingBox();
        assert.ok(
          box && box.x >= 0 && box.x + box.width <= 390,
          `${figure} is on screen: ${JSON.stringify(box)}`,
        );
      }
      await screenshot(page, 'signing-page-phone.png');

      h.clock.advance(3 * 60_000);
      await sign(page, second, true);
      const box = page.locator('.box-success');
      assert.match(await box.innerText(), /This document was signed by everyone on .+\./);
      const signedWidth = (await page.evaluate('document.documentElement.scrollWidth')) as number;
      assert.ok(signedWidth <= 390, `the signed page is ${signedWidth}px wide on a 390px phone`);
      await screenshot(page, 'signing-page-signed-phone.png');
    } finally {
      await context.close();
    }
  });

  test('the read API shows the document signed by both, with its history in order', async () => {
    await sealDueDocuments(h.ctx);
    const res = await callApi(h, 'GET', `/v1/documents/${documentId}`, { key: ws.apiKey });
    assert.equal(res.status, 200);
    const doc = res.body.data as Detail;
    assert.equal(doc.status, 'signed');
    assert.ok(doc.signedAt, 'document signedAt set');
    assert.deepEqual(
      doc.recipients.map((r) => [r.email, typeof r.signedAt === 'string']),
      [
        [first.email, true],
        [second.email, true],
      ],
    );
    assert.deepEqual(
      doc.events.map((e) => [e.type, e.recipientEmail]),
      [
        ['document.sent', null],
        ['document.opened', first.email],
        ['document.signed', first.email],
        ['document.opened', second.email],
        ['document.signed', second.email],
        ['document.completed', null],
      ],
    );
  });

  test('the browser talked to the app only and the pages raised no errors', () => {
    assert.deepEqual(foreignRequests, []);
    assert.deepEqual(pageErrors, []);
  });
});
