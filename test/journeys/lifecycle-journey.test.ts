// What a sender does after pressing Send, in Chromium (issue 25): the new-document form
// shows every problem at once and is fixed; the draft is edited, then sent to two signers in
// order, so only the first is mailed; the sender reminds her; she signs and only then is
// the second mailed; he declines with a reason, and the owner reads it in their mail; a
// second document is withdrawn after the sender is asked, and its link then says so. Every
// page passes axe at desktop and phone widths and fits the phone; the screenshots land in
// test/output/screenshots/ (lifecycle-*.png; docs/screenshots/ through `npm run screenshots`).
// The browser may only talk to the app.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { listMails } from '../../src/mail/mail.service.ts';
import { createDocument } from '../../src/sending/drafts.ts';
import { sendDocument } from '../../src/sending/send.ts';
import { launchChromium, logIn, lookAt, lookAtAddress, openPage, viewports } from '../support/chromium.ts';
import { databaseKinds, describeEachDatabase, linkFor, recipient, useHarness } from '../support/harness.ts';

const owner = { email: 'sara@northwind.example', password: 'a long and careful password' };
const ann = { email: 'ann@client.example', name: 'Ann Lee' };
const bob = { email: 'bob@client.example', name: 'Bob Ray' };
const title = 'Support agreement 2027';

describeEachDatabase('a sender’s lifecycle in a browser', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: 'true' } });
  const saveScreenshots = kind === databaseKinds[0];
  const watch = { foreignRequests: [] as string[], pageErrors: [] as string[] };
  let browser: Browser;
  let sender: { context: BrowserContext; page: Page };
  let workspaceId = '';
  let documentUrl = '';

  before(async () => {
    browser = await launchChromium({ screenshots: saveScreenshots });
    const account = await createAccount(h.ctx, { ...owner, workspaceName: 'Northwind', plan: 'max' });
    workspaceId = account.workspaceId as string;
    sender = await openPage(browser, h.baseUrl, watch, viewports.desktop);
    await logIn(sender.page, h.baseUrl, owner);
  });

  after(async () => {
    await sender?.context.close();
    await browser?.close();
  });

  /** axe, no sideways scrolling, and the screenshot. */
  function look(page: Page, name: string, viewport: keyof typeof viewports): Promise<void> {
    return lookAt(page, name, viewport, saveScreenshots ? `${name}-${viewport}.png` : undefined);
  }

  /** The same address at the other width (the sender's cookies unless `anonymous`). */
  async function lookAlso(
    url: string,
    name: string,
    viewport: keyof typeof viewports,
    anonymous = false,
    check?: (page: Page) => Promise<void>,
  ) {
    const storageState = anonymous ? undefined : await sender.context.storageState();
    const file = saveScreenshots ? `${name}-${viewport}.png` : undefined;
    await lookAtAddress(browser, h.baseUrl, watch, url, name, viewport, {
      storageState,
      file,
      ...(check ? { check } : {}),
    });
  }

  const documentId = () => new URL(documentUrl).pathname.split('/').at(-1) as string;

  async function mailedTo(email: string, id = documentId()) {
    return (await listMails(h.ctx, { documentId: id, to: email, limit: 20 })).map((m) => m.subject);
  }

  async function linkOf(email: string, id = documentId()): Promise<string> {
    return h.baseUrl + (await linkFor(h.ctx, id, email)).path;
  }

  /** The new-document form with a title left out, a bad address and a negative price, sent. */
  async function submitWithProblems(page: Page) {
    await page.goto(`${h.baseUrl}/documents/new`);
    await page.getByLabel('Recipient 1 email').fill('ann@');
    await page.getByLabel('Recipient 1 full name').fill(ann.name);
    await page.getByLabel('Line 1 item').fill('Refund');
    await page.getByLabel('Line 1 unit price').fill('-5');
    await page.getByRole('button', { name: 'Create draft' }).click();
    await page.getByText('3 things to fix').waitFor();
  }

  test('the form shows every problem at once; fixed, edited and sent, it mails only the first signer', async () => {
    const { page } = sender;
    await submitWithProblems(page);
    assert.equal(await page.getByLabel('Title').getAttribute('aria-invalid'), 'true');
    assert.match(
      await page.locator('#r0_email-error').innerText(),
      /Recipient 1: the email address is not valid\./,
    );
    assert.match(await page.locator('#pricing-error').innerText(), /must not be below 0/);
    await look(page, 'lifecycle-form-problems', 'desktop');
    const phone = await openPage(browser, h.baseUrl, watch, {
      ...viewports.phone,
      storageState: await sender.context.storageState(),
    });
    try {
      await submitWithProblems(phone.page);
      await look(phone.page, 'lifecycle-form-problems', 'phone');
    } finally {
      await phone.context.close();
    }

    await page.getByLabel('Title').fill('Support agreement');
    await page.getByLabel('Recipient 1 email').fill(ann.email);
    await page.getByLabel('Recipient 2 email').fill(bob.email);
    await page.getByLabel('Recipient 2 full name').fill(bob.name);
    await page.getByLabel('Recipient 2 signing order').fill('2');
    await page.getByLabel('Line 1 item').fill('Support, monthly');
    await page.getByLabel('Line 1 unit price').fill('250');
    await page.getByLabel('Line 1 billing').selectOption('month');
    await page.getByLabel('Line 1 periods').fill('12');
    await page.getByLabel('Remind signers automatically').selectOption('3');
    await page.getByRole('button', { name: 'Create draft' }).click();
    await page.getByRole('heading', { level: 1, name: 'Support agreement' }).waitFor();
    documentUrl = page.url();

    await page.getByRole('link', { name: 'Edit draft' }).click();
    await page.getByRole('heading', { level: 1, name: 'Edit draft' }).waitFor();
    assert.equal(await page.getByLabel('Recipient 2 email').inputValue(), bob.email);
    await look(page, 'lifecycle-edit', 'desktop');
    await lookAlso(page.url(), 'lifecycle-edit', 'phone');
    await page.getByLabel('Title').fill(title);
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('Draft saved.').waitFor();
    assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), title);

    await page.getByRole('link', { name: 'Send to recipients…' }).click();
    await page.getByRole('heading', { level: 1, name: 'Send this document?' }).waitFor();
    await page.getByRole('button', { name: 'Send to recipients' }).click();
    await page.getByRole('button', { name: 'Remind Ann Lee' }).waitFor();
    assert.deepEqual(await mailedTo(ann.email), [`Please sign: ${title}`]);
    assert.deepEqual(await mailedTo(bob.email), [], 'Bob’s turn has not come');
    assert.ok(await page.getByText('mailed at their turn').isVisible());
    assert.equal(await page.getByRole('button', { name: 'Remind Bob Ray' }).count(), 0);
  });

  test('the sender reminds the first signer, once an hour at most', async () => {
    const { page } = sender;
    await page.goto(documentUrl);
    await h.clock.advance(1000);
    await page.getByRole('button', { name: 'Remind Ann Lee' }).click();
    await page.getByText('Reminder sent: the signer gets their link again by mail.').waitFor();
    assert.deepEqual(await mailedTo(ann.email), [`Reminder: please sign ${title}`, `Please sign: ${title}`]);
    await look(page, 'lifecycle-reminded', 'desktop');
    await lookAlso(page.url(), 'lifecycle-reminded', 'phone');
    await page.getByRole('button', { name: 'Remind Ann Lee' }).click();
    await page.getByText(/reminded less than an hour ago/).waitFor();
  });

  test('the first signer signs; only then the second is mailed, and he declines with a reason the owner reads', async () => {
    await h.clock.advance(1000);
    const first = await openPage(browser, h.baseUrl, watch, viewports.phone);
    try {
      await first.page.goto(await linkOf(ann.email));
      await first.page.getByLabel('Type your full name to sign').fill(ann.name);
      await first.page.getByLabel(/I agree to sign this document electronically/).check();
      await first.page.getByRole('button', { name: 'Sign document' }).click();
      await first.page.getByText('You signed this document. Thank you!').waitFor();
    } finally {
      await first.context.close();
    }
    assert.deepEqual(await mailedTo(bob.email), [`Please sign: ${title}`], 'his turn has come');

    await h.clock.advance(1000);
    const second = await openPage(browser, h.baseUrl, watch, viewports.desktop);
    try {
      await second.page.goto(await linkOf(bob.email));
      await second.page.getByText('Decline to sign…').click();
      await second.page
        .getByLabel('Reason (optional)')
        .fill('The support hours are wrong: we need weekends too.');
      await look(second.page, 'lifecycle-decline', 'desktop');
      // The browser asks for the confirmation box before anything is sent.
      await second.page.getByRole('button', { name: 'Decline to sign' }).click();
      assert.equal(await second.page.getByText('You declined to sign this document.').count(), 0);
      await second.page.getByLabel('Yes, I decline to sign this document.').check();
      await second.page.getByRole('button', { name: 'Decline to sign' }).click();
      await second.page.getByText('You declined to sign this document.').waitFor();
    } finally {
      await second.context.close();
    }

    const { page } = sender;
    await page.goto(`${h.baseUrl}/mails`);
    const mail = page.locator('details', { hasText: `Declined: ${title}` });
    await mail.locator('summary').click();
    assert.match(await mail.innerText(), /Bob Ray \(bob@client\.example\) declined to sign/);
    assert.match(await mail.innerText(), /> The support hours are wrong: we need weekends too\./);
    await look(page, 'lifecycle-owner-mail', 'desktop');
    await lookAlso(page.url(), 'lifecycle-owner-mail', 'phone');
  });

  test('a sent document is withdrawn after the sender is asked; its link then says so', async () => {
    // Long unbroken names wrap instead of widening the pages (lookAt fails a page wider than the phone).
    const lease = 'Frameworkagreementforfacilitymanagementservices20272030finalversion7';
    const tenant = {
      email: 'procurementdepartmentfacilitymanagement@clientinternationalholdings.example',
      name: 'MaximilianAlexanderBartholomewFeatherstonehaughCholmondeley',
    };
    const { id } = await createDocument(h.ctx, {
      workspaceId,
      title: lease,
      recipients: [recipient(tenant.email, tenant.name)],
      pricing: {
        currency: 'EUR',
        pricesIncludeVat: false,
        items: [
          {
            name: 'Facilitymanagementservicesincludingcleaningsecurityandmaintenance',
            quantity: '1',
            unitPrice: '1200',
            vatRate: '21',
            billing: { type: 'one-off' },
          },
        ],
      },
    });
    await sendDocument(h.ctx, workspaceId, id);
    const link = await linkOf(tenant.email, id);
    for (const [url, name, words, anonymous] of [
      [`${h.baseUrl}/documents/${id}`, 'lifecycle-long-names', [lease, tenant.name, tenant.email], false],
      [`${h.baseUrl}/documents`, 'lifecycle-long-names-list', [lease], false],
      [link, 'lifecycle-long-names-signing', [lease, tenant.name], true],
    ] as const) {
      await lookAlso(url, name, 'phone', anonymous, async (page) => {
        for (const word of words) {
          const box = await page.getByText(word, { exact: true }).first().boundingBox();
          const right = (box?.x ?? 0) + (box?.width ?? Number.POSITIVE_INFINITY);
          assert.ok(right <= viewports.phone.viewport.width, `${name}: ${word} wraps within the screen`);
        }
      });
    }
    const { page } = sender;
    await page.goto(`${h.baseUrl}/documents/${id}`);
    await page.getByRole('link', { name: 'Withdraw…' }).click();
    await page.getByRole('heading', { level: 1, name: 'Withdraw this document?' }).waitFor();
    await look(page, 'lifecycle-withdraw', 'desktop');
    await lookAlso(page.url(), 'lifecycle-withdraw', 'phone');
    await h.clock.advance(1000);
    await page.getByRole('button', { name: 'Withdraw document' }).click();
    await page.getByText('Document withdrawn: signing has ended').waitFor();
    assert.deepEqual(await mailedTo(tenant.email, id), [`Withdrawn: ${lease}`, `Please sign: ${lease}`]);

    const signer = await openPage(browser, h.baseUrl, watch, viewports.phone);
    try {
      await signer.page.goto(link);
      await signer.page.getByText(/The sender withdrew this document on/).waitFor();
      assert.equal(await signer.page.getByRole('button', { name: 'Sign document' }).count(), 0);
      await look(signer.page, 'lifecycle-withdrawn-link', 'phone');
    } finally {
      await signer.context.close();
    }
    await lookAlso(link, 'lifecycle-withdrawn-link', 'desktop', true);
  });

  test('the browser talked to the app only and the pages raised no errors', () => {
    assert.deepEqual(watch.foreignRequests, []);
    // The refusals this journey asks for are answered as pages with their status, which
    // Chromium reports on the console; anything else is an error.
    const refusals = [
      /\/documents: Failed to load resource: the server responded with a status of 400/,
      /\/remind: Failed to load resource: the server responded with a status of 409/,
    ];
    assert.deepEqual(
      watch.pageErrors.filter((error) => !refusals.some((refusal) => refusal.test(error))),
      [],
    );
  });
});
