// The web application in a real browser, as a new workspace admin uses it: headless
// Chromium (Debian's, at /usr/bin/chromium) driven by playwright-core over the harness's
// HTTP server, with the production worker running (deliveries, mail outbox). Sign up and
// confirm by mail, switch to Max, create a key and call the API with it, add an endpoint
// that points at a local receiver, press Test and see the signed ping arrive and the log
// show 200, make the receiver fail until the endpoint is paused, see the banner, switch it
// back on, create and send a document, sign it through the mailed link, see
// document.completed in the timeline and its delivery in the log. Every page is checked
// with axe-core (no serious or critical violation) on a desktop and a phone viewport, and
// the first database kind of the run saves their screenshots to test/output/screenshots/
// (docs/screenshots/ through `npm run screenshots`). The
// browser may only talk to the app; a console error (a CSP violation, say) fails the test.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createLogger } from '../../src/context.ts';
import { triggerEvent } from '../../src/demo/trigger.ts';
import { listMails } from '../../src/mail/mail.service.ts';
import { createMailTransport } from '../../src/mail/mailer.ts';
import { startWorker } from '../../src/worker/worker.ts';
import { launchChromium, lookAt, openPage, viewports } from '../support/chromium.ts';
import { databaseKinds, describeEachDatabase, useHarness } from '../support/harness.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';

const admin = {
  email: 'admin@northwind.example',
  password: 'a long and careful password',
  workspace: 'Northwind',
};

describeEachDatabase('the web application in a browser', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_WEBHOOK_ALLOW_UNSAFE: '1' } });
  const saveScreenshots = kind === databaseKinds[0];
  let browser: Browser;
  let receiver: Receiver;
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let desktop: { context: BrowserContext; page: Page };
  /** Pages visited while signed in, to revisit on a phone. */
  const visited = new Map<string, string>();
  const foreignRequests: string[] = [];
  const pageErrors: string[] = [];
  let receiverFails = false;
  let endpointSecret = '';
  let endpointPath = '';

  before(async () => {
    browser = await launchChromium({ screenshots: saveScreenshots });
    receiver = await startReceiver((_request, response) => {
      response.statusCode = receiverFails ? 500 : 200;
      response.end(receiverFails ? 'down for maintenance' : 'ok');
    });
    const log = createLogger('silent');
    worker = await startWorker(h.ctx, {
      transport: createMailTransport({ smtpUrl: null, from: 'Signet <no-reply@test>', log }),
      subscribe: h.subscribe,
      mailIntervalMs: 200,
    });
    desktop = await newPage('desktop');
  });

  after(async () => {
    await worker?.stop();
    await browser?.close();
    await receiver?.close();
  });

  async function newPage(name: keyof typeof viewports): Promise<{ context: BrowserContext; page: Page }> {
    return openPage(browser, h.baseUrl, { foreignRequests, pageErrors }, viewports[name]);
  }

  /** The app's address for a link the app mailed (it names the public URL). */
  function local(link: string): string {
    return h.baseUrl + new URL(link).pathname;
  }

  async function look(page: Page, name: string, viewport: keyof typeof viewports): Promise<void> {
    await lookAt(page, name, viewport, saveScreenshots ? `app-${name}-${viewport}.png` : undefined);
    if (viewport === 'desktop') visited.set(name, page.url());
  }

  async function latestMailTo(email: string, pattern: RegExp): Promise<string> {
    for (let i = 0; i < 50; i++) {
      const mails = await listMails(h.ctx, { to: email, limit: 20 });
      const link = mails.map((m) => pattern.exec(m.text)?.[0]).find(Boolean);
      if (link) return link;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.fail(`no mail to ${email} matching ${pattern}`);
  }

  async function until(what: string, check: () => Promise<boolean>): Promise<void> {
    for (let i = 0; i < 200; i++) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.fail(`timed out waiting for ${what}`);
  }

  test('sign up, confirm through the mailed link, and land on Documents with the first steps', async () => {
    const { page } = desktop;
    await page.goto(`${h.baseUrl}/`);
    assert.match(page.url(), /\/login$/);
    await look(page, 'login', 'desktop');
    await page.goto(`${h.baseUrl}/docs`);
    await page.getByRole('heading', { level: 1, name: 'Signet API reference' }).waitFor();
    // Nested fields listed, an example unfolded without a script, Markdown rendered; axe
    // then runs on the page with the example open (and on a phone, below).
    const getDocument = page.locator('#getDocument');
    assert.ok(await getDocument.getByText('data.recipients[].fields[].type', { exact: true }).isVisible());
    assert.ok(
      !(await getDocument.getByText('Northwind Traders').first().isVisible()),
      'examples start folded',
    );
    await getDocument.locator('details.example summary').first().click();
    assert.ok(await getDocument.getByText('Northwind Traders').first().isVisible());
    assert.ok(await page.locator('li strong', { hasText: 'Authentication' }).isVisible());
    await look(page, 'reference', 'desktop');
    await page.goto(`${h.baseUrl}/login`);
    await page.getByRole('link', { name: 'Create a workspace' }).click();
    await look(page, 'signup', 'desktop');
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(admin.password);
    await page.getByLabel('Workspace name').fill(admin.workspace);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByRole('heading', { name: 'Check your inbox' }).waitFor();
    await look(page, 'signup-sent', 'desktop');
    const link = await latestMailTo(admin.email, /https?:\/\/\S+\/signup\/confirm\/\S+/);
    await page.goto(local(link));
    await look(page, 'signup-confirm', 'desktop');
    await page.getByRole('button', { name: 'Create workspace and log in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Documents' }).waitFor();
    assert.ok(await page.getByRole('heading', { name: 'Your first document in three steps' }).isVisible());
    await page.getByRole('link', { name: 'Integrations' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Integrations' }).waitFor();
    assert.ok(await page.getByText('This workspace is on the Free plan').isVisible());
  });

  test('switch to Max, create a key, and GET /v1/documents answers 200 with it', async () => {
    const { page } = desktop;
    await page.getByRole('link', { name: 'Billing' }).click();
    await look(page, 'billing', 'desktop');
    await page.getByRole('button', { name: 'Switch to Max' }).click();
    await page.getByText('is now on the Max plan').waitFor();
    await page.getByRole('link', { name: 'Integrations' }).click();
    await page.getByLabel('Name').first().fill('CRM sync');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const secret = (await page.locator('#new-key').innerText()).trim();
    assert.match(secret, /^sgn_[0-9A-Za-z]{43}$/);
    await look(page, 'integrations-new-key', 'desktop');
    const response = await fetch(`${h.baseUrl}/v1/documents`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    assert.equal(response.status, 200);
    // The keys list says when the key was last used (never, until a moment ago).
    const row = page.getByRole('row', { name: /CRM sync/ });
    await until('the last use shown', async () => {
      await page.goto(`${h.baseUrl}/settings/integrations`);
      return !(await row.getByText('never').isVisible());
    });
  });

  test('an endpoint at a local receiver: Test sends a signed ping, and the log shows 200', async () => {
    const { page } = desktop;
    await page.goto(`${h.baseUrl}/settings/integrations`);
    await page.getByLabel('URL').fill(`${receiver.url}/hooks`);
    for (const event of ['document.sent', 'document.completed']) await page.getByLabel(event).check();
    await page.getByLabel('Description (optional)').fill('Northwind CRM');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    endpointSecret = (await page.locator('#new-secret').innerText()).trim();
    assert.match(endpointSecret, /^whsec_/);
    await page.getByRole('link', { name: 'Open the endpoint' }).click();
    endpointPath = new URL(page.url()).pathname;
    await page.getByRole('button', { name: 'Test: send a ping' }).click();
    await page.getByText('The ping was delivered: HTTP 200').waitFor();
    const ping = receiver.requests.at(-1);
    assert.ok(ping);
    assert.equal(ping.headers['x-service-event'], 'ping');
    const [t, v1] = String(ping.headers['x-service-signature']).replace('t=', '').split(',v1=');
    assert.equal(v1, createHmac('sha256', endpointSecret).update(`${t}.${ping.body}`).digest('hex'));
    assert.ok(await page.locator('#log').getByText('ping delivered').isVisible());
    assert.ok(await page.locator('#log').getByText('200').first().isVisible());
    await look(page, 'endpoint', 'desktop');
    visited.set('endpoint', h.baseUrl + endpointPath);
    await page.locator('#log a').first().click();
    await page.getByRole('heading', { name: 'Body' }).waitFor();
    assert.ok((await page.locator('#delivery-body').innerText()).includes('"type":"ping"'));
    assert.ok(await page.getByText(String(ping.headers['x-service-signature'])).isVisible());
    await look(page, 'delivery', 'desktop');

    // Rotating the secret: the new one shown once, and the next ping signed with both.
    await page.goto(h.baseUrl + endpointPath);
    await page.getByLabel('The old secret keeps working for').selectOption('24');
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const rotated = (await page.locator('#rotated-secret').innerText()).trim();
    assert.match(rotated, /^whsec_/);
    assert.notEqual(rotated, endpointSecret);
    await look(page, 'endpoint-rotated', 'desktop');
    await page.getByRole('button', { name: 'Test: send a ping' }).click();
    await page.getByText('The ping was delivered: HTTP 200').waitFor();
    const twice = receiver.requests.at(-1);
    assert.ok(twice);
    const [at, ...signatures] = String(twice.headers['x-service-signature']).replace('t=', '').split(',v1=');
    assert.deepEqual(
      signatures,
      [rotated, endpointSecret].map((secret) =>
        createHmac('sha256', secret).update(`${at}.${twice.body}`).digest('hex'),
      ),
    );
    await page.goto(`${h.baseUrl}${endpointPath}/delete`);
    await look(page, 'endpoint-delete', 'desktop');
    await page.goto(`${h.baseUrl}/settings/integrations`);
    await page.getByRole('link', { name: 'Revoke CRM sync' }).click();
    await look(page, 'key-revoke', 'desktop');
  });

  test('a receiver that keeps failing gets the endpoint paused: the banner, then the switch clears the count', async () => {
    const { page } = desktop;
    receiverFails = true;
    const member = (await h.ctx.db.selectFrom('memberships').select('workspace_id').executeTakeFirstOrThrow())
      .workspace_id;
    const before = receiver.requests.length;
    for (let i = 0; i < 20; i++) await triggerEvent(h.ctx, member, 'document.sent');
    await until('20 failed deliveries', async () => receiver.requests.length >= before + 20);
    await until('the pause', async () => {
      const row = await h.ctx.db.selectFrom('webhook_endpoints').select('enabled').executeTakeFirstOrThrow();
      return !row.enabled;
    });
    receiverFails = false;
    await page.goto(h.baseUrl + endpointPath);
    const banner = page.getByRole('alert');
    await banner.getByText('after 20 consecutive failed deliveries').waitFor();
    assert.ok(await banner.getByText('GET /v1/documents').isVisible());
    await look(page, 'endpoint-paused', 'desktop');
    await page.goto(`${h.baseUrl}/settings/integrations`);
    assert.ok(
      await page.getByRole('alert').getByText('is paused').isVisible(),
      'banner on the integrations page',
    );
    await page.getByRole('button', { name: 'Turn it back on' }).click();
    await page.getByText('its failure count is back to 0').waitFor();
    assert.ok(await page.getByText('0 consecutive failures').isVisible());
    assert.equal(await page.getByRole('alert').count(), 0);
  });

  test('create and send a document, sign it through the mailed link, and see it completed and delivered', async () => {
    const { page } = desktop;
    // The test clock stands still; a minute on, this document's deliveries are the newest.
    h.clock.advance(60_000);
    await page.goto(`${h.baseUrl}/documents`);
    await page.getByRole('link', { name: 'New document' }).click();
    await page.getByLabel('Title').fill('Warehouse services agreement');
    await page
      .getByLabel('Text')
      .fill('Northwind stores and ships the goods.\n\nTerms apply for twelve months.');
    await page.getByLabel('Recipient 1 email').fill('maria.jansen@client.example');
    await page.getByLabel('Recipient 1 full name').fill('Maria Jansen');
    await page.getByLabel('Line 1 item').fill('Storage');
    await page.getByLabel('Line 1 unit price').fill('250.00');
    await page.getByLabel('Line 1 VAT rate').fill('21');
    await page.getByLabel('Line 1 billing').selectOption('month');
    await page.getByLabel('Line 1 periods').fill('12');
    // The live value (JavaScript) appears as the pricing is typed, computed by the server.
    await page.locator('#live-value').getByText('€3,000.00').waitFor();
    await page.getByRole('button', { name: 'Show the value' }).click();
    await page.getByText('€3,000.00').waitFor();
    await look(page, 'document-new', 'desktop');
    visited.set('document-new', `${h.baseUrl}/documents/new`);
    await page.getByRole('button', { name: 'Create draft' }).click();
    await page.getByRole('link', { name: 'Send to recipients…' }).click();
    await page.getByRole('heading', { level: 1, name: 'Send this document?' }).waitFor();
    await page.getByRole('button', { name: 'Send to recipients' }).click();
    await page.getByText('document.sent').waitFor();
    const link = await latestMailTo('maria.jansen@client.example', /https?:\/\/\S+\/sign\/\S+/);
    const signer = await newPage('phone');
    await signer.page.goto(local(link));
    await signer.page.getByLabel('Type your full name').fill('Maria Jansen');
    await signer.page.getByRole('checkbox', { name: /I agree to sign/ }).check();
    await signer.page.getByRole('button', { name: 'Sign document' }).click();
    await signer.page.getByText('You signed this document').waitFor();
    await signer.context.close();
    // The worker seals the document moments after the last signature, and records
    // document.completed with the sealed PDF: the sender reloads until it is there.
    await until('document.completed on the document page', async () => {
      await page.reload();
      return (await page.getByText('document.completed').count()) > 0;
    });
    await look(page, 'document', 'desktop');
    await until('document.completed delivered', async () =>
      receiver.requests.some((r) => r.headers['x-service-event'] === 'document.completed'),
    );
    await page.goto(h.baseUrl + endpointPath);
    assert.ok(await page.locator('#log').getByText('document.completed').first().isVisible());
    await page.goto(`${h.baseUrl}/documents`);
    await look(page, 'documents', 'desktop');
    await page.goto(`${h.baseUrl}/mails`);
    await look(page, 'mails', 'desktop');
    for (const path of ['/settings/members', '/settings/account', '/settings/language']) {
      await page.goto(h.baseUrl + path);
      await look(page, path.split('/').at(-1) as string, 'desktop');
    }
    await page.goto(`${h.baseUrl}/settings/members`);
    await page.getByLabel('Email').fill('tom.bakker@northwind.example');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText('The invitation is on its way').waitFor();
    const invitation = await latestMailTo('tom.bakker@northwind.example', /https?:\/\/\S+\/invitations\/\S+/);
    const invitee = await newPage('phone');
    await invitee.page.goto(local(invitation));
    await look(invitee.page, 'invitation', 'phone');
    await invitee.page.getByLabel('Choose a password').fill('another long password');
    await invitee.page.getByRole('button', { name: 'Create account and join' }).click();
    await invitee.page.waitForURL(/\/documents$/);
    assert.equal(
      await invitee.page.getByRole('link', { name: 'Billing' }).count(),
      0,
      'members see no Billing',
    );
    await invitee.context.close();
  });

  test('every page visited is usable on a phone too', async () => {
    const phone = await newPage('phone');
    await phone.page.goto(`${h.baseUrl}/login`);
    await look(phone.page, 'login', 'phone');
    await phone.page.getByLabel('Email').fill(admin.email);
    await phone.page.getByLabel('Password').fill(admin.password);
    await phone.page.getByRole('button', { name: 'Log in' }).tap();
    await phone.page.waitForURL(/\/documents$/);
    for (const [name, url] of visited) {
      // Pages that answer a form (or show a state that is gone) were seen on the desktop only.
      const onceOnly = [
        'login',
        'signup',
        'signup-sent',
        'signup-confirm',
        'integrations-new-key',
        'endpoint-paused',
        'endpoint-rotated',
      ];
      if (onceOnly.includes(name)) continue;
      await phone.page.goto(url);
      await look(phone.page, name, 'phone');
    }
    await phone.context.close();
  });

  test('the browser talked to the app only and no page raised an error', () => {
    assert.deepEqual(foreignRequests, []);
    assert.deepEqual(pageErrors, []);
  });
});
