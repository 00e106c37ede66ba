// The recipients' signing pages (src/signing/signing.routes.ts) over real HTTP: what a
// recipient sees at their personal link, the forms that sign, decline and mail a code, the
// refusals, and what each action records (checked through the read API and the database).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Refusal, refusalMessages } from '../../src/documents/lifecycle.ts';
import { sealDueDocuments } from '../../src/sealing/sealing.service.ts';
import type { RecipientInput } from '../../src/sending/draft-input.ts';
import { escapeHtml } from '../../src/ui/html.ts';
import {
  callApi,
  createSentDocument,
  createTestWorkspace,
  describeEachDatabase,
  issueLinkOutOfTurn,
  latestCodeFor,
  linkFor,
  parallelSigners,
  parallelWithViewer,
  recipient,
  recipientRow,
  type SigningLink,
  type TestWorkspace,
  useHarness,
  withViewer,
} from '../support/harness.ts';

interface Detail {
  id: string;
  status: string;
  signedAt: string | null;
  recipients: Array<{ email: string; signedAt: string | null }>;
  events: Array<{ id: string; type: string; recipientEmail: string | null; createdAt: string }>;
}

interface Page {
  status: number;
  headers: Headers;
  text: string;
}

const ann = 'ann@client.example';
const bob = 'bob@client.example';

const codeSigner: RecipientInput[] = [
  recipient('cody@client.example', 'Cody Fox', { signingMethod: 'email-code' }),
];

const pricing = {
  currency: 'EUR',
  pricesIncludeVat: false,
  items: [
    { name: 'Setup', quantity: '1', unitPrice: '500.00', vatRate: '21', billing: { type: 'one-off' } },
    {
      name: 'Hosting',
      quantity: '2',
      unitPrice: '10.00',
      vatRate: '21',
      billing: { type: 'recurring', interval: 'month', periods: 12 },
    },
  ],
};

function message(refusal: Refusal): string {
  return escapeHtml(refusalMessages[refusal]);
}

/** A form that acts on the document (sign, decline, code): the language switch is always there. */
const actionForm = /<form(?! class="language-switch)/;

function linkOf(links: Map<string, SigningLink>, email: string): string {
  const link = links.get(email);
  assert.ok(link, `no signing link mailed to ${email}`);
  return link.path;
}

function assertHtml(page: Page, status: number): void {
  assert.equal(page.status, status, page.text.slice(0, 500));
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(page.text, /^<!doctype html>/);
}

/** A page of the signing flow refusing with `status` and the refusal's sentence. */
function assertRefused(page: Page, status: number, refusal: Refusal): void {
  assertHtml(page, status);
  assert.ok(page.text.includes(message(refusal)));
}

/** A sign or decline form for this link is on the page. */
function hasForm(page: Page, path: string, action: 'sign' | 'decline' | 'code'): boolean {
  return page.text.includes(`action="${path}/${action}"`);
}

describeEachDatabase('signing pages over HTTP', (kind) => {
  const h = useHarness(kind);

  async function get(path: string, method: 'GET' | 'HEAD' = 'GET'): Promise<Page> {
    const response = await fetch(h.baseUrl + path, { method, redirect: 'manual' });
    return { status: response.status, headers: response.headers, text: await response.text() };
  }

  async function post(path: string, fields: Record<string, string> = {}): Promise<Page> {
    const response = await fetch(h.baseUrl + path, {
      method: 'POST',
      body: new URLSearchParams(fields),
      redirect: 'manual',
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  }

  /** A POST whose body is not a form: `body` sent as `contentType`. */
  async function postAs(path: string, contentType: string, body: string): Promise<Page> {
    const response = await fetch(h.baseUrl + path, {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
      redirect: 'manual',
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  }

  async function sign(path: string, fullName: string, extra: Record<string, string> = {}): Promise<Page> {
    return post(`${path}/sign`, { fullName, consent: 'yes', ...extra });
  }

  function assertRedirect(page: Page, path: string, done: string): void {
    assert.equal(page.status, 303, page.text.slice(0, 500));
    assert.equal(page.headers.get('location'), `${path}?done=${done}`);
  }

  async function detail(ws: TestWorkspace, id: string): Promise<Detail> {
    const res = await callApi(h, 'GET', `/v1/documents/${id}`, { key: ws.apiKey });
    assert.equal(res.status, 200, res.text);
    return res.body.data as Detail;
  }

  function eventsOf(doc: Detail, type: string): Detail['events'] {
    return doc.events.filter((e) => e.type === type);
  }

  test('the personal link answers an HTML page with the title, body, recipients and pricing totals', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { links } = await createSentDocument(h.ctx, ws.id, {
      title: 'Website maintenance agreement',
      body: 'The supplier maintains the website.\n\nEither party may end it with one month notice.',
      pricing,
    });
    const page = await get(linkOf(links, ann));
    assertHtml(page, 200);
    assert.match(page.text, /<h1>Website maintenance agreement<\/h1>/);
    assert.ok(page.text.includes('<title>Website maintenance agreement</title>'));
    assert.ok(page.text.includes('The supplier maintains the website.'));
    assert.ok(page.text.includes('Either party may end it with one month notice.'));
    assert.ok(page.text.includes('Ann Lee'));
    assert.ok(page.text.includes('Bob Ray'));
    // 500.00 + 2 × 10.00 × 12 = 740.00 net, 21 % VAT = 155.40, 895.40 in all.
    assert.ok(page.text.includes('Pricing'));
    assert.ok(page.text.includes('€740.00'), 'net total');
    assert.ok(page.text.includes('€155.40'), 'VAT total');
    assert.ok(page.text.includes('€895.40'), 'gross total');
    assert.ok(hasForm(page, linkOf(links, ann), 'sign'));
    assert.ok(hasForm(page, linkOf(links, ann), 'decline'));
  });

  test('signing pages are not cached, not referred, not framed and allow nothing by default', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, ws.id);
    for (const path of [linkOf(links, ann), `/sign/${id}`, `/sign/${id}/${'A'.repeat(43)}`]) {
      const page = await get(path);
      assert.equal(page.headers.get('cache-control'), 'no-store', path);
      assert.equal(page.headers.get('referrer-policy'), 'no-referrer', path);
      assert.equal(page.headers.get('x-frame-options'), 'DENY', path);
      assert.equal(page.headers.get('x-content-type-options'), 'nosniff', path);
      const csp = page.headers.get('content-security-policy') ?? '';
      assert.ok(
        csp.split(';').some((d) => d.trim() === "default-src 'none'"),
        csp,
      );
      // The signing page runs one script, the signature pad, allowed by its hash alone.
      const scripts = csp.split(';').filter((d) => d.trim().startsWith('script-src'));
      assert.ok(
        scripts.every((d) => /^script-src 'sha256-[A-Za-z0-9+/=]+'$/.test(d.trim())),
        csp,
      );
    }
  });

  test("fetching the link's page is not opening it; the first page image each recipient loads records one document.opened", async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, ws.id, { recipients: parallelSigners });
    assert.equal((await detail(ws, id)).status, 'sent');

    // A mail scanner, a link preview, curl: the HTML alone.
    assertHtml(await get(linkOf(links, ann)), 200);
    let doc = await detail(ws, id);
    assert.equal(doc.status, 'sent', 'a fetch of the page is not a view');
    assert.equal(eventsOf(doc, 'document.opened').length, 0);

    // A browser renders the page and loads its images: viewed.
    const image = await get(`${linkOf(links, ann)}/pages/1`);
    assert.equal(image.status, 200);
    assert.equal(image.headers.get('content-type'), 'image/png');
    doc = await detail(ws, id);
    assert.equal(doc.status, 'viewed');
    assert.deepEqual(
      eventsOf(doc, 'document.opened').map((e) => e.recipientEmail),
      [ann],
    );

    assertHtml(await get(linkOf(links, ann)), 200);
    assert.equal((await get(`${linkOf(links, ann)}/pages/1?size=thumbnail`)).status, 200);
    doc = await detail(ws, id);
    assert.equal(eventsOf(doc, 'document.opened').length, 1, 'a second view records nothing');

    assert.equal((await get(`${linkOf(links, bob)}/pages/1`, 'HEAD')).status, 200);
    assert.equal(eventsOf(await detail(ws, id), 'document.opened').length, 1, 'HEAD of an image is no view');
    assert.equal((await get(`${linkOf(links, bob)}/pages/1?size=thumbnail`)).status, 200);
    doc = await detail(ws, id);
    assert.equal(doc.status, 'viewed');
    assert.deepEqual(
      eventsOf(doc, 'document.opened').map((e) => e.recipientEmail),
      [ann, bob],
    );
    assert.deepEqual(
      doc.events.map((e) => e.type),
      ['document.sent', 'document.opened', 'document.opened'],
      'link.fetched is history only: not in the API',
    );
  });

  test('HEAD of a personal link does not count as opening the document', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, ws.id);
    const head = await get(linkOf(links, ann), 'HEAD');
    assert.equal(head.status, 200);
    assert.match(head.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(head.text, '');
    const doc = await detail(ws, id);
    assert.equal(doc.status, 'sent');
    assert.equal(eventsOf(doc, 'document.opened').length, 0);
  });

  test('links that are not a recipient’s answer a 404 HTML page without details', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, ws.id);
    const other = await createSentDocument(h.ctx, ws.id);
    const token = linkOf(links, ann).split('/')[3] as string;
    const otherToken = linkOf(other.links, ann).split('/')[3] as string;
    const cases: Record<string, string> = {
      'unknown token': `/sign/${id}/${'A'.repeat(43)}`,
      'token of another document': `/sign/${id}/${otherToken}`,
      'malformed document id': `/sign/not-a-uuid/${token}`,
      'document id with a character missing': `/sign/${id.slice(1)}/${token}`,
      'truncated token': `/sign/${id}/${token.slice(0, 42)}`,
      'token with an extra character': `/sign/${id}/${token}A`,
      'path below a link': `/sign/${id}/${token}/more/parts`,
    };
    for (const [name, path] of Object.entries(cases)) {
      const page = await get(path);
      assertHtml(page, 404);
      assert.ok(page.text.includes('This signing link does not work'), name);
      assert.ok(page.text.includes('Error 404'), name);
      assert.ok(!page.text.includes('"ok"'), `${name}: no JSON envelope`);
      assert.ok(!/\bat .+\.ts:\d+/.test(page.text), `${name}: no stack trace`);
      assert.ok(!page.text.includes(token) && !page.text.includes(otherToken), `${name}: no token echoed`);
    }
    const posted = await post(`/sign/${id}/${'A'.repeat(43)}/sign`, { fullName: 'Ann Lee', consent: 'yes' });
    assertHtml(posted, 404);
    const doc = await detail(ws, id);
    assert.equal(doc.status, 'sent', 'none of these opened the document');
  });

  test('the document address without a token asks for the personal link', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id } = await createSentDocument(h.ctx, ws.id, { title: 'Secret merger terms' });
    const page = await get(`/sign/${id}`);
    assertHtml(page, 200);
    assert.ok(page.text.includes('Open the link from your email'));
    assert.ok(!page.text.includes('Secret merger terms'), 'shows nothing of the document');
  });

  test('signing with the typed name and consent redirects to a success notice and completes with the last signer', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, ws.id);
    const annPath = linkOf(links, ann);
    const signed = await sign(annPath, '  ann   LEE ');
    assertRedirect(signed, annPath, 'signed');
    assert.equal(signed.headers.get('cache-control'), 'no-store');

    const after = await get(signed.headers.get('location') as string);
    assertHtml(after, 200);
    assert.ok(after.text.includes('You signed this document. Thank you!'));
    assert.ok(after.text.includes('Other signers have not signed yet.'));
    assert.ok(!hasForm(after, annPath, 'sign'), 'no second signature offered');
    assert.ok(!hasForm(after, annPath, 'decline'));

    let doc = await detail(ws, id);
    assert.equal(doc.status, 'viewed');
    assert.equal(doc.signedAt, null);
    assert.equal(doc.recipients.find((r) => r.email === ann)?.signedAt, h.clock.now().toISOString());
    assert.equal(doc.recipients.find((r) => r.email === bob)?.signedAt, null);
    assert.deepEqual(
      eventsOf(doc, 'document.signed').map((e) => e.recipientEmail),
      [ann],
    );
    assert.equal(eventsOf(doc, 'document.completed').length, 0);
    const stored = await recipientRow(h.ctx, id, ann);
    assert.equal(stored.signature_name, 'ann   LEE');

    h.clock.advance(5_000);
    // Bob, of order 2, is mailed his link now that Ann has signed.
    const bobPath = (await linkFor(h.ctx, id, bob)).path;
    assertRedirect(await sign(bobPath, 'Bob Ray'), bobPath, 'signed');
    await sealDueDocuments(h.ctx);
    doc = await detail(ws, id);
    assert.equal(doc.status, 'signed');
    assert.equal(doc.signedAt, h.clock.now().toISOString());
    assert.deepEqual(
      doc.events.map((e) => [e.type, e.recipientEmail]),
      [
        ['document.sent', null],
        ['document.opened', ann],
        ['document.signed', ann],
        ['document.opened', bob],
        ['document.signed', bob],
        ['document.completed', null],
      ],
    );
    const final = await get(bobPath);
    assert.ok(final.text.includes('This document was signed by everyone'));
    assert.ok(!actionForm.test(final.text));
  });

  test('missing consent and a wrong name re-render the page with 400 and sign nothing', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, ws.id);
    const path = linkOf(links, ann);

    const noConsent = await post(`${path}/sign`, { fullName: 'Ann Lee' });
    assertRefused(noConsent, 400, 'consent-required');
    assert.ok(hasForm(noConsent, path, 'sign'), 'the form is offered again');
    assert.equal(noConsent.headers.get('cache-control'), 'no-store');

    const consentNotYes = await post(`${path}/sign`, { fullName: 'Ann Lee', consent: 'on' });
    assertRefused(consentNotYes, 400, 'consent-required');

    const wrongName = await sign(path, 'Ann Leigh');
    assertRefused(wrongName, 400, 'name-mismatch');

    const noName = await post(`${path}/sign`, { consent: 'yes' });
    assertRefused(noName, 400, 'name-mismatch');

    const doc = await detail(ws, id);
    assert.equal(doc.recipients.find((r) => r.email === ann)?.signedAt, null);
    assert.equal(eventsOf(doc, 'document.signed').length, 0);
  });

  test('a signer whose turn has not come has no link; one issued out of turn is refused with 409 and sees whom they wait for', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, ws.id);
    assert.ok(!links.has(bob), 'Bob is mailed at his turn, not at send');
    // Defence in depth: the link Bob would hold had the document been sent before signing
    // order was honoured by mail (every recipient was mailed at send then).
    const bobPath = (await issueLinkOutOfTurn(h.ctx, id, bob)).path;

    const before = await get(bobPath);
    assertHtml(before, 200);
    assert.ok(before.text.includes('You can sign once Ann Lee has signed.'));
    assert.ok(!hasForm(before, bobPath, 'sign'), 'no sign form before their turn');

    const early = await sign(bobPath, 'Bob Ray');
    assertRefused(early, 409, 'not-your-turn');
    assert.ok(
      early.text.includes('You can sign once Ann Lee has signed.'),
      'the refusal names whom he waits for',
    );
    assert.ok(!hasForm(early, bobPath, 'sign'));
    const doc = await detail(ws, id);
    assert.equal(doc.recipients.find((r) => r.email === bob)?.signedAt, null);
    assert.equal(eventsOf(doc, 'document.signed').length, 0);

    assertRedirect(await sign(linkOf(links, ann), 'Ann Lee'), linkOf(links, ann), 'signed');
    const now = await get(bobPath);
    assert.ok(!now.text.includes('You can sign once'));
    assert.ok(hasForm(now, bobPath, 'sign'), 'their turn now');
  });

  test('signing twice and a viewer signing are refused with 409', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, ws.id, { recipients: withViewer });
    const annPath = linkOf(links, ann);
    assertRedirect(await sign(annPath, 'Ann Lee'), annPath, 'signed');
    const again = await sign(annPath, 'Ann Lee');
    assertRefused(again, 409, 'already-signed');

    const valPath = linkOf(links, 'val@client.example');
    const viewerPage = await get(valPath);
    assert.ok(viewerPage.text.includes('no signature is needed from you'));
    assert.ok(!actionForm.test(viewerPage.text), 'a viewer is offered no form');
    const viewer = await sign(valPath, 'Val Kim');
    assertRefused(viewer, 409, 'not-a-signer');
    const viewerDecline = await post(`${valPath}/decline`, { reason: 'no', confirm: 'yes' });
    assertRefused(viewerDecline, 409, 'not-a-signer');

    const doc = await detail(ws, id);
    assert.deepEqual(
      eventsOf(doc, 'document.signed').map((e) => e.recipientEmail),
      [ann],
    );
    assert.equal(doc.status, 'viewed');
  });

  test('declining with a reason redirects, declines the document for everyone and stores the reason', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, ws.id, { recipients: parallelWithViewer });
    const annPath = linkOf(links, ann);
    const declined = await post(`${annPath}/decline`, { reason: '  The price is wrong.  ', confirm: 'yes' });
    assertRedirect(declined, annPath, 'declined');

    const own = await get(declined.headers.get('location') as string);
    assertHtml(own, 200);
    assert.ok(own.text.includes('You declined this document. The sender has been told.'));
    assert.ok(own.text.includes('You declined to sign this document.'));
    assert.ok(!actionForm.test(own.text));

    const doc = await detail(ws, id);
    assert.equal(doc.status, 'declined');
    assert.deepEqual(
      eventsOf(doc, 'document.declined').map((e) => e.recipientEmail),
      [ann],
    );
    const row = await recipientRow(h.ctx, id, ann);
    assert.equal(row.decline_reason, 'The price is wrong.');
    assert.ok(row.declined_at);

    for (const email of [bob, 'val@client.example']) {
      const page = await get(linkOf(links, email));
      assertHtml(page, 200);
      assert.ok(page.text.includes('This document was declined.'), email);
      assert.ok(!actionForm.test(page.text), `${email}: no forms on a declined document`);
    }
    const late = await sign(annPath, 'Ann Lee');
    assertRefused(late, 409, 'not-allowed');
    const bobDeclines = await post(`${linkOf(links, bob)}/decline`, { confirm: 'yes' });
    assertHtml(bobDeclines, 409);
    assert.equal(eventsOf(await detail(ws, id), 'document.declined').length, 1);
  });

  test('signing a declined document is refused with 409', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, ws.id, { recipients: parallelSigners });
    assertRedirect(
      await post(`${linkOf(links, bob)}/decline`, { confirm: 'yes' }),
      linkOf(links, bob),
      'declined',
    );
    const page = await sign(linkOf(links, ann), 'Ann Lee');
    assertRefused(page, 409, 'not-allowed');
    assert.ok(page.text.includes('This document was declined.'));
    const row = await recipientRow(h.ctx, id, bob);
    assert.equal(row.decline_reason, null, 'no reason given is stored as null');
    assert.equal((await detail(ws, id)).status, 'declined');
  });

  test('an email-code signer gets a code by mail, a wrong code is refused and the right one signs', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, ws.id, { recipients: codeSigner });
    const email = 'cody@client.example';
    const path = linkOf(links, email);

    const page = await get(path);
    assertHtml(page, 200);
    assert.ok(page.text.includes('name="code"'), 'the code field');
    assert.ok(hasForm(page, path, 'code'));
    assert.ok(page.text.includes('>Send code</button>'));
    assert.ok(page.text.includes('code sent to co••@client.example'), 'the code hint masks the address');

    const noCode = await sign(path, 'Cody Fox');
    assertRefused(noCode, 400, 'code-required');

    const sent = await post(`${path}/code`);
    assertRedirect(sent, path, 'code-sent');
    const notice = await get(sent.headers.get('location') as string);
    assert.ok(notice.text.includes('We emailed you a 6-digit one-time code.'));
    assert.ok(notice.text.includes('>Send a new code</button>'));
    const code = await latestCodeFor(h.ctx, email);
    assert.match(code, /^\d{6}$/);

    h.clock.advance(30_000);
    const tooSoon = await post(`${path}/code`);
    assertRefused(tooSoon, 409, 'code-too-soon');
    assert.equal(await latestCodeFor(h.ctx, email), code, 'no second code was mailed');

    const wrong = code === '000000' ? '111111' : '000000';
    const refused = await sign(path, 'Cody Fox', { code: wrong });
    assertRefused(refused, 400, 'code-invalid');
    assert.equal((await detail(ws, id)).recipients[0]?.signedAt, null);

    const signed = await sign(path, 'Cody Fox', { code });
    assertRedirect(signed, path, 'signed');
    await sealDueDocuments(h.ctx);
    const doc = await detail(ws, id);
    assert.equal(doc.status, 'signed');
    assert.equal(eventsOf(doc, 'document.completed').length, 1);
  });

  test('a new code may be requested once a minute and replaces the previous one', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { links } = await createSentDocument(h.ctx, ws.id, {
      recipients: [{ ...(codeSigner[0] as RecipientInput), email: 'cody2@client.example' }],
    });
    const email = 'cody2@client.example';
    const path = linkOf(links, email);
    assertRedirect(await post(`${path}/code`), path, 'code-sent');
    const first = await latestCodeFor(h.ctx, email);
    h.clock.advance(59_999);
    assertHtml(await post(`${path}/code`), 409);
    h.clock.advance(1);
    assertRedirect(await post(`${path}/code`), path, 'code-sent');
    const second = await latestCodeFor(h.ctx, email);
    const mails = await h.ctx.db
      .selectFrom('mails')
      .select('subject')
      .where('to_address', '=', email)
      .where('subject', 'like', 'Your one-time code%')
      .execute();
    assert.equal(mails.length, 2);
    if (first !== second) {
      const old = await sign(path, 'Cody Fox', { code: first });
      assertRefused(old, 400, 'code-invalid');
    }
    assertRedirect(await sign(path, 'Cody Fox', { code: second }), path, 'signed');
  });

  test('opening an overdue document expires it, and signing it is refused with 409', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, ws.id, { expiresInSeconds: 60 });
    h.clock.advance(61_000);
    const path = linkOf(links, ann);
    const page = await get(path);
    assertHtml(page, 200);
    assert.ok(page.text.includes('This document expired'));
    assert.ok(page.text.includes('>Expired</span>'));
    assert.ok(!actionForm.test(page.text));

    let doc = await detail(ws, id);
    assert.equal(doc.status, 'expired');
    assert.equal(eventsOf(doc, 'document.expired').length, 1);
    assert.equal(eventsOf(doc, 'document.opened').length, 0, 'an expired document is not opened');

    const signed = await sign(path, 'Ann Lee');
    assertHtml(signed, 409);
    assert.ok(signed.text.includes('This document expired'));
    const declined = await post(`${path}/decline`, { confirm: 'yes' });
    assertHtml(declined, 409);
    doc = await detail(ws, id);
    assert.equal(doc.status, 'expired');
    assert.equal(eventsOf(doc, 'document.expired').length, 1);
    assert.equal(eventsOf(doc, 'document.signed').length, 0);
  });

  test('signing an overdue document that nobody opened expires it and answers 409 expired', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, ws.id, { expiresInSeconds: 60 });
    h.clock.advance(60_000);
    const page = await sign(linkOf(links, ann), 'Ann Lee');
    assertRefused(page, 409, 'expired');
    const doc = await detail(ws, id);
    assert.equal(doc.status, 'expired');
    assert.equal(eventsOf(doc, 'document.expired').length, 1);
  });

  test('two parallel signers posting at the same moment both sign and the document completes once', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, ws.id, { recipients: parallelSigners });
    const [first, second] = await Promise.all([
      sign(linkOf(links, ann), 'Ann Lee'),
      sign(linkOf(links, bob), 'Bob Ray'),
    ]);
    assertRedirect(first as Page, linkOf(links, ann), 'signed');
    assertRedirect(second as Page, linkOf(links, bob), 'signed');
    await sealDueDocuments(h.ctx);
    const doc = await detail(ws, id);
    assert.equal(doc.status, 'signed');
    assert.ok(doc.signedAt);
    assert.equal(eventsOf(doc, 'document.completed').length, 1);
    assert.deepEqual(
      eventsOf(doc, 'document.signed')
        .map((e) => e.recipientEmail)
        .sort(),
      [ann, bob],
    );
    assert.equal(doc.events.at(-1)?.type, 'document.completed');
  });

  test('a form body over 16 KB is refused with 413, not a server error', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, ws.id);
    const path = linkOf(links, ann);
    const page = await post(`${path}/decline`, { reason: 'x'.repeat(17_000) });
    assert.equal(page.status, 413, page.text.slice(0, 300));
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    // The sign form carries a drawn signature, a PNG: it may be larger, but not unbounded.
    const signPage = await sign(path, 'Ann Lee', { padding: 'y'.repeat(800 * 1024) });
    assert.equal(signPage.status, 413);
    const doc = await detail(ws, id);
    assert.equal(doc.status, 'sent', 'nothing was declined or signed');
  });

  // Only form bodies are read on the signing pages: a JSON body could carry non-string
  // fields, and a text/plain one can be sent cross-site without a preflight.
  test('a JSON body on a signing form is refused with 415 and does nothing', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, ws.id);
    const path = linkOf(links, ann);
    const postJson = (action: string, body: string) => postAs(`${path}/${action}`, 'application/json', body);
    const nonString = await postJson('sign', JSON.stringify({ fullName: ['Ann Lee'], consent: 'yes' }));
    assert.notEqual(nonString.status, 500, 'a non-string field is not a server error');
    assert.equal(nonString.status, 415, nonString.text.slice(0, 300));
    const reason = await postJson('decline', JSON.stringify({ reason: 5 }));
    assert.equal(reason.status, 415, reason.text.slice(0, 300));
    const signed = await postJson('sign', JSON.stringify({ fullName: 'Ann Lee', consent: 'yes' }));
    assert.equal(signed.status, 415, signed.text.slice(0, 300));
    const doc = await detail(ws, id);
    assert.equal(doc.recipients.find((r) => r.email === ann)?.signedAt, null, 'nothing was signed');
  });

  test('a text/plain body on a signing form is refused with 415 and does nothing', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, ws.id);
    const response = await postAs(`${linkOf(links, ann)}/decline`, 'text/plain', 'reason=whatever');
    assert.equal(response.status, 415, response.text.slice(0, 300));
    assert.equal((await detail(ws, id)).status, 'sent', 'nothing was declined');
  });

  test('a body of a type no form sends is refused with 415 in HTML', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, ws.id);
    const page = await postAs(
      `${linkOf(links, ann)}/sign`,
      'application/xml',
      '<fullName>Ann Lee</fullName>',
    );
    assertHtml(page, 415);
    assert.ok(page.text.includes('We could not accept this request'));
    assert.equal((await detail(ws, id)).recipients.find((r) => r.email === ann)?.signedAt, null);
  });

  test('a title and a recipient name containing a script tag are escaped on every page', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const evil = '<script>alert(1)</script>';
    const { id, links } = await createSentDocument(h.ctx, ws.id, {
      title: `Offer ${evil}`,
      body: `Body ${evil}`,
      recipients: [
        recipient('eve@client.example', `Eve ${evil}`),
        recipient('bob@client.example', 'Bob Ray', { signingOrder: 2 }),
      ],
    });
    const escaped = '&lt;script&gt;alert(1)&lt;/script&gt;';
    const assertEscaped = (page: Page, email: string) => {
      assertHtml(page, 200);
      assert.ok(!page.text.includes(evil), `${email}: no raw <script>`);
      assert.ok(page.text.includes(`Offer ${escaped}`), `${email}: the title, escaped`);
      assert.ok(page.text.includes(`Eve ${escaped}`), `${email}: the name, escaped`);
      assert.ok(page.text.includes(`Body ${escaped}`), `${email}: the body, escaped`);
    };
    const evePath = linkOf(links, 'eve@client.example');
    assertEscaped(await get(evePath), 'eve@client.example');
    // Eve is refused (wrong name): the page re-renders her name.
    const refused = await sign(evePath, 'Eve');
    assertHtml(refused, 400);
    assert.ok(!refused.text.includes(evil));
    const signed = await sign(evePath, `Eve ${evil}`);
    assert.equal(signed.status, 303);
    const after = await get(evePath);
    assert.ok(!after.text.includes(evil));
    // Bob, mailed his link now that Eve has signed, sees her among the recipients.
    assertEscaped(await get((await linkFor(h.ctx, id, bob)).path), bob);
  });
});
