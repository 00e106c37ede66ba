// An audit trail that holds up (issue 36 §2), on both databases, over real HTTP:
// - "Opened" means viewed: a fetch of the link's page alone (curl, a scanner, a preview) is
//   history's link.fetched, never document.opened (no event in the API, no webhook, status
//   stays sent); the first page image the link loads, or a post through it, opens it.
// - the certificate of completion (read with pdftotext) gives each recipient the time of
//   their own first mail (a later order's later; a viewer mailed only the sealed file says
//   so), lists reminders by hand and automatic, codes mailed, refused and accepted, and the
//   initials' value; none of those history kinds reaches the API's events or a webhook.
// - the owner's page shows a decliner as declined with the reason, and a withdrawn document
//   as withdrawn with its time and reason (the API keeps `expired`), and its timeline.
// - a browser looks at the owner's page with the decliner (desktop and phone, axe-clean).
// Screenshots: issue36-certificate-<n>.png (the certificate's pages), issue36-owner-declined-*.png.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import type { Browser } from 'playwright-core';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { documentEventTypes, historyEventTypes } from '../../src/documents/event-types.ts';
import { readFile } from '../../src/files/files.service.ts';
import { sealDueDocuments } from '../../src/sealing/sealing.service.ts';
import { remindDueSigners, remindRecipient } from '../../src/sending/reminders.ts';
import { launchChromium, lookAtAddress, openPage, type PageWatch } from '../support/chromium.ts';
import {
  callApi,
  createSentDocument,
  createTestWorkspace,
  describeEachDatabase,
  latestCodeFor,
  linkFor,
  recipient,
  recipientRow,
  type TestWorkspace,
  useHarness,
} from '../support/harness.ts';
import { pdftotext } from '../support/pdf-tools.ts';
import { ensureScreenshotDir } from '../support/screenshots.ts';
import { assertPage, testPassword, webPeople } from '../support/web-client.ts';

interface Detail {
  status: string;
  events: Array<{ type: string; recipientEmail: string | null; createdAt: string }>;
}

/** The certificate's way to write a time. */
const utc = (at: Date) => `${at.toISOString().slice(0, 19).replace('T', ' ')} UTC`;

async function threePagePdf(): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= 3; i++)
    pdf.addPage([595, 842]).drawText(`Supply agreement, page ${i}`, { x: 72, y: 760, size: 14, font });
  return pdf.save();
}

const ann = 'ann@client.example';
const bob = 'bob@client.example';
const wes = 'wes@client.example';
const val = 'val@client.example';

describeEachDatabase('an audit trail that holds up', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: '1' } });
  const people = webPeople(h, '10.36');
  const saveScreenshots = kind === 'pglite';
  const folder = mkdtempSync(join(tmpdir(), 'signet-audit-'));

  async function get(path: string, method: 'GET' | 'HEAD' = 'GET') {
    const response = await fetch(h.baseUrl + path, {
      method,
      redirect: 'manual',
      headers: { 'user-agent': 'curl/8.5.0' },
    });
    return {
      status: response.status,
      type: response.headers.get('content-type'),
      body: await response.text(),
    };
  }

  async function post(path: string, fields: Record<string, string>) {
    const response = await fetch(h.baseUrl + path, {
      method: 'POST',
      body: new URLSearchParams(fields),
      redirect: 'manual',
    });
    await response.text();
    return response.status;
  }

  async function detail(ws: TestWorkspace, id: string): Promise<Detail> {
    const res = await callApi(h, 'GET', `/v1/documents/${id}`, { key: ws.apiKey });
    assert.equal(res.status, 200, res.text);
    return res.body.data as Detail;
  }

  /** The types of the webhook bodies stored for the workspace (what endpoints would get). */
  async function webhookTypes(workspaceId: string): Promise<string[]> {
    const rows = await h.ctx.db
      .selectFrom('webhook_events')
      .select('type')
      .where('workspace_id', '=', workspaceId)
      .orderBy('created_at')
      .execute();
    return rows.map((r) => r.type);
  }

  /** The document's whole history, as stored: [type, recipient email, detail]. */
  async function history(id: string) {
    const rows = await h.ctx.db
      .selectFrom('document_events')
      .select(['type', 'recipient_email', 'detail'])
      .where('document_id', '=', id)
      .orderBy('created_at')
      .orderBy('seq')
      .execute();
    return rows.map((r) => [r.type, r.recipient_email, r.detail]);
  }

  test('a curl-like GET of the link is not an opening; the first page image is, once, with its webhook', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, ws.id, { recipients: [recipient(ann, 'Ann Lee')] });
    const path = links.get(ann)?.path as string;

    for (let i = 0; i < 2; i++) {
      const page = await get(path);
      assert.equal(page.status, 200);
      assert.match(page.type ?? '', /^text\/html/);
    }
    let doc = await detail(ws, id);
    assert.equal(doc.status, 'sent', 'fetching the HTML is not viewing the document');
    assert.deepEqual(
      doc.events.map((e) => e.type),
      ['document.sent'],
    );
    assert.deepEqual(await webhookTypes(ws.id), ['document.sent'], 'no document.opened webhook');
    assert.deepEqual(await history(id), [
      ['document.sent', null, null],
      ['link.fetched', ann, null],
    ]);
    assert.equal((await recipientRow(h.ctx, id, ann)).opened_at, null);

    h.clock.advance(30_000);
    const image = await get(`${path}/pages/1`);
    assert.equal(image.status, 200);
    assert.equal(image.type, 'image/png');
    assert.equal((await get(`${path}/pages/1?size=thumbnail`)).status, 200);
    doc = await detail(ws, id);
    assert.equal(doc.status, 'viewed');
    assert.deepEqual(
      doc.events.map((e) => [e.type, e.recipientEmail, e.createdAt]),
      [
        ['document.sent', null, doc.events[0]?.createdAt],
        ['document.opened', ann, h.clock.now().toISOString()],
      ],
    );
    assert.deepEqual(await webhookTypes(ws.id), ['document.sent', 'document.opened']);
    assert.equal((await recipientRow(h.ctx, id, ann)).opened_at?.toISOString(), h.clock.now().toISOString());
  });

  test('posting through the link opens it too: asking for a code', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, ws.id, {
      recipients: [recipient(ann, 'Ann Lee', { signingMethod: 'email-code' })],
    });
    assert.equal(await post(`${links.get(ann)?.path}/code`, {}), 303);
    const doc = await detail(ws, id);
    assert.equal(doc.status, 'viewed');
    assert.deepEqual(
      doc.events.map((e) => e.type),
      ['document.sent', 'document.opened'],
    );
  });

  test('the certificate: each recipient sent at their own turn, reminders, codes and initials; none of it in the API or webhooks', async () => {
    const { ws, email } = await ownerOf();
    const sentAt = h.clock.now();
    const { id, links } = await createSentDocument(h.ctx, ws.id, {
      title: 'Supply agreement',
      file: await threePagePdf(),
      remindEveryDays: 1,
      recipients: [
        recipient(ann, 'Ann Lee', { signingMethod: 'email-code' }),
        recipient(wes, 'Wes Park', { role: 'viewer' }),
        recipient(bob, 'Bob Ray', { signingOrder: 2 }),
        recipient(val, 'Val Kim', { role: 'viewer', signingOrder: 3 }),
      ],
      fields: [
        { recipient: ann, type: 'signature', page: 3, x: 72, y: 600, width: 180, height: 40 },
        { recipient: ann, type: 'initials', page: 1, x: 480, y: 780, width: 60, height: 30 },
        { recipient: bob, type: 'signature', page: 3, x: 320, y: 600, width: 180, height: 40 },
      ],
    });
    const annPath = links.get(ann)?.path as string;

    // A scanner fetches Ann's link at once; she is reminded by hand, then automatically.
    assert.equal((await get(annPath)).status, 200);
    h.clock.advance(2 * 3_600_000);
    await remindRecipient(h.ctx, ws.id, id, (await recipientRow(h.ctx, id, ann)).id);
    h.clock.advance(86_400_000 + 60_000);
    assert.equal(await remindDueSigners(h.ctx), 1);

    // Ann views it, asks for a code, types a wrong one, then the right one, with her initials.
    h.clock.advance(60_000);
    assert.equal((await get(`${annPath}/pages/1`)).status, 200);
    assert.equal(await post(`${annPath}/code`, {}), 303);
    const code = await latestCodeFor(h.ctx, ann);
    const wrong = code === '000000' ? '111111' : '000000';
    const fieldIds = await h.ctx.db
      .selectFrom('document_fields')
      .select(['id', 'type'])
      .where('document_id', '=', id)
      .where('type', '=', 'initials')
      .execute();
    const initials = { [`field.${fieldIds[0]?.id}`]: 'AL' };
    const form = { fullName: 'Ann Lee', consent: 'yes', ...initials };
    assert.equal(await post(`${annPath}/sign`, { ...form, code: wrong }), 400);
    h.clock.advance(30_000);
    assert.equal(await post(`${annPath}/sign`, { ...form, code }), 303);

    // Bob is mailed now, his turn come: his Sent is this time, not the document's.
    h.clock.advance(3_600_000);
    const bobInvited = (await recipientRow(h.ctx, id, bob)).invited_at as Date;
    assert.ok(bobInvited.getTime() > sentAt.getTime());
    const bobPath = (await linkFor(h.ctx, id, bob)).path;
    assert.equal((await get(`${bobPath}/pages/1`)).status, 200);
    assert.equal(await post(`${bobPath}/sign`, { fullName: 'Bob Ray', consent: 'yes' }), 303);
    h.clock.advance(1_000);
    const sealedAt = h.clock.now();
    assert.equal(await sealDueDocuments(h.ctx), 1);

    const row = await h.ctx.db
      .selectFrom('documents')
      .select('sealed_sha256')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const sealed = await readFile(h.ctx.db, row.sealed_sha256 as string);
    assert.ok(sealed);
    // The page footers left out: a recipient's rows may run onto the next page.
    const text = (await pdftotext(sealed)).replace(/Certificate of completion · \S+ · page \d+ of \d+ /g, '');
    const block = (email: string) => {
      const start = text.indexOf(`<${email}> Role`);
      assert.ok(start >= 0, `${email} is listed under Recipients`);
      return text.slice(start, text.indexOf('User agent', start));
    };
    assert.match(block(ann), new RegExp(`Sent ${utc(sentAt)} Opened`));
    assert.match(block(wes), new RegExp(`Sent ${utc(sentAt)} Opened`));
    assert.match(block(bob), new RegExp(`Sent ${utc(bobInvited)} Opened`));
    assert.match(block(val), new RegExp(`Sent only the completion mail, ${utc(sealedAt)} Opened`));
    assert.match(text, /Initials: AL/, 'initials listed with their value');
    for (const event of [
      'Link fetched, not viewed',
      'Reminder sent (by hand)',
      'Reminder sent (automatic)',
      'One-time code sent',
      `One-time code refused: wrong code (1 of 5 tries)`,
      'One-time code accepted',
    ]) {
      assert.ok(text.replace(/\s+/g, ' ').includes(event), `the certificate's history lists "${event}"`);
    }

    // The owner's page says the same of each recipient (logged in now: days have passed).
    const client = await people.signedIn({ email });
    const page = await client.get(`/documents/${id}`);
    assertPage(page, 200);
    const item = (name: string) => {
      const start = page.text.indexOf(`<span class="recipient-name">${name}</span>`);
      return page.text.slice(start, page.text.indexOf('</li>', start));
    };
    assert.match(
      item('Bob Ray'),
      new RegExp(`Sent ${bobInvited.toISOString().slice(0, 10)} ${bobInvited.toISOString().slice(11, 16)}`),
    );
    assert.match(item('Val Kim'), /Sent only the completion mail, \d{4}-\d\d-\d\d/);
    assert.match(item('Ann Lee'), /opened \d{4}-/);

    // The spec's event list and webhooks hold none of the history kinds.
    const doc = await detail(ws, id);
    assert.deepEqual(
      doc.events.map((e) => e.type),
      [
        'document.sent',
        'document.opened',
        'document.signed',
        'document.opened',
        'document.signed',
        'document.completed',
      ],
    );
    const stored = await webhookTypes(ws.id);
    assert.ok(
      stored.every((t) => (documentEventTypes as readonly string[]).includes(t)),
      stored.join(),
    );
    const kinds = new Set((await history(id)).map(([type]) => type));
    for (const type of historyEventTypes.filter((t) => t !== 'document.withdrawn'))
      assert.ok(kinds.has(type), `${type} is in the history`);

    // The certificate's pages, drawn as a reader shows them.
    const file = join(folder, 'sealed.pdf');
    writeFileSync(file, sealed);
    const pages = Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [file], { encoding: 'utf8' }))?.[1]);
    for (let page = 4; page <= pages; page++) {
      const prefix = join(folder, `certificate-${page - 3}`);
      execFileSync('pdftoppm', [
        '-png',
        '-r',
        '80',
        '-f',
        `${page}`,
        '-l',
        `${page}`,
        '-singlefile',
        file,
        prefix,
      ]);
      const png = readFileSync(`${prefix}.png`);
      assert.ok(png.byteLength > 5_000);
      if (saveScreenshots)
        writeFileSync(join(ensureScreenshotDir(), `issue36-certificate-${page - 3}.png`), png);
    }
  });

  /** A workspace with an API key and an owner who can log in to the web application. */
  async function ownerOf() {
    const ws = await createTestWorkspace(h.ctx);
    const email = `owner-${ws.id.slice(0, 8)}@acme.example`;
    await createAccount(h.ctx, { email, password: testPassword, workspaceId: ws.id, role: 'owner' });
    return { ws, email, client: await people.signedIn({ email }) };
  }

  test("the owner's page: a decliner is declined with the reason; the timeline lists the whole history", async () => {
    const { ws, client } = await ownerOf();
    const { id, links } = await createSentDocument(h.ctx, ws.id, {
      recipients: [recipient(ann, 'Ann Lee'), recipient(bob, 'Bob Ray')],
    });
    h.clock.advance(60_000);
    const reason = 'The delivery dates are <wrong>';
    assert.equal(await post(`${links.get(bob)?.path}/decline`, { confirm: 'yes', reason }), 303);
    const page = await client.get(`/documents/${id}`);
    assertPage(page, 200);
    const bobItem = page.text.slice(
      page.text.indexOf('Bob Ray'),
      page.text.indexOf('</li>', page.text.indexOf('Bob Ray')),
    );
    assert.match(bobItem, /badge-danger">declined /);
    assert.ok(bobItem.includes('Reason: “The delivery dates are &lt;wrong&gt;”'), bobItem);
    assert.match(bobItem, /Sent \d/);
    assert.ok(
      page.text.includes(`Declined: The delivery dates are &lt;wrong&gt; (${bob})`),
      'in the timeline',
    );
    assert.equal((await detail(ws, id)).status, 'declined');
  });

  test("the owner's page: a withdrawn document is withdrawn with its time and reason; the API keeps expired", async () => {
    const { ws, email, client } = await ownerOf();
    const { id } = await createSentDocument(h.ctx, ws.id);
    h.clock.advance(60_000);
    const confirm = await client.get(`/documents/${id}/withdraw`);
    assertPage(confirm, 200);
    assert.ok(confirm.text.includes('name="reason"'));
    const res = await client.post(`/documents/${id}/withdraw`, { reason: 'Replaced by version 2' });
    assert.equal(res.status, 303);
    const page = await client.get(`/documents/${id}`);
    assertPage(page, 200);
    assert.match(page.text, /<span class="badge badge-neutral">withdrawn<\/span>/);
    assert.ok(!page.text.includes('>expired</span>'));
    assert.match(page.text, /<dt>Withdrawn<\/dt><dd>[^<]+<\/dd>/);
    assert.ok(page.text.includes(`Withdrawn: by ${email}: Replaced by version 2`));
    const doc = await detail(ws, id);
    assert.equal(doc.status, 'expired');
    assert.deepEqual(
      doc.events.map((e) => e.type),
      ['document.sent', 'document.expired'],
    );
    assert.deepEqual(await webhookTypes(ws.id), ['document.sent', 'document.expired']);
  });

  test("a browser sees the owner's page with a decliner and the timeline (desktop and phone, axe-clean)", async () => {
    const { ws, email } = await ownerOf();
    const { id, links } = await createSentDocument(h.ctx, ws.id, {
      title: 'Supply agreement',
      recipients: [
        recipient(ann, 'Ann Lee'),
        recipient(bob, 'Bob Ray'),
        recipient(val, 'Val Kim', { role: 'viewer' }),
      ],
    });
    const annPath = links.get(ann)?.path as string;
    await get(annPath);
    h.clock.advance(2 * 3_600_000);
    assert.equal((await get(`${annPath}/pages/1`)).status, 200);
    await remindRecipient(h.ctx, ws.id, id, (await recipientRow(h.ctx, id, bob)).id);
    h.clock.advance(600_000);
    assert.equal(
      await post(`${links.get(bob)?.path}/decline`, {
        confirm: 'yes',
        reason: 'The delivery dates are wrong.',
      }),
      303,
    );

    const watch: PageWatch = { foreignRequests: [], pageErrors: [] };
    const browser: Browser = await launchChromium({ screenshots: saveScreenshots });
    try {
      const { context, page } = await openPage(browser, h.baseUrl, watch);
      await page.goto(`${h.baseUrl}/login`);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(testPassword);
      await page.getByRole('button', { name: /log in/i }).click();
      await page.waitForURL(/\/documents$/);
      const storageState = await context.storageState();
      await context.close();
      for (const viewport of ['desktop', 'phone'] as const) {
        await lookAtAddress(
          browser,
          h.baseUrl,
          watch,
          `${h.baseUrl}/documents/${id}`,
          'owner page',
          viewport,
          {
            storageState,
            file: saveScreenshots ? `issue36-owner-declined-${viewport}.png` : undefined,
            check: async (p) => {
              assert.ok(await p.getByText('Reason: “The delivery dates are wrong.”').isVisible());
              assert.ok(await p.getByText('Reminder sent (by hand)').isVisible());
            },
          },
        );
      }
    } finally {
      await browser.close();
    }
    assert.deepEqual(watch, { foreignRequests: [], pageErrors: [] });
  });
});
