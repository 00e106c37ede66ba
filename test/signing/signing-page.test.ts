// The recipient signing page (src/signing/signing-page.ts) and the HTML helper under it
// (src/ui/): what each kind of recipient sees, and that user text is always escaped.
// Writes the "sent, standard signer with pricing" page to /tmp/signing-page-sample.html.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { translator } from '../../src/i18n/messages.ts';
import {
  renderSigningMessagePage,
  renderSigningPage,
  type SigningPageView,
} from '../../src/signing/signing-page.ts';
import { signScript } from '../../src/ui/assets.ts';
import { escapeHtml, html, raw, renderToString } from '../../src/ui/html.ts';
import { plainPagePolicy as pageContentSecurityPolicy } from '../../src/ui/security.ts';
import { page } from '../../src/ui/shell.ts';

const en = translator('en');

const basePath = '/s/tok_abc123';

function sentView(overrides: Partial<SigningPageView> = {}): SigningPageView {
  return {
    brand: { accent: null, sentWithSignet: true },
    document: {
      title: 'Website maintenance agreement',
      sender: 'Acme B.V.',
      body: 'This agreement is between Acme B.V. and Example Ltd.\n\nThe supplier maintains the website.\nSupport is available on working days.\n\nEither party may end it with one month notice.',
      status: 'sent',
      sentAt: '2026-11-20T09:30:00.000Z',
      expiresAt: '2026-12-20T09:30:00.000Z',
      signedAt: null,
      withdrawnAt: null,
    },
    pricing: {
      pricesIncludeVat: false,
      lines: [
        {
          name: 'Setup',
          quantity: '1',
          unitPrice: '€500.00',
          vatRate: '21',
          billing: 'one-off',
          net: '€500.00',
          vat: '€105.00',
          gross: '€605.00',
        },
        {
          name: 'Maintenance',
          quantity: '2',
          unitPrice: '€49.75',
          vatRate: '21',
          billing: 'monthly × 12',
          net: '€1,194.00',
          vat: '€250.74',
          gross: '€1,444.74',
        },
      ],
      net: '€1,694.00',
      vat: '€355.74',
      gross: '€2,049.74',
    },
    recipient: {
      fullName: 'Alice Example',
      email: 'alice@example.com',
      role: 'signer',
      signingMethod: 'standard',
      signedAt: null,
      declined: false,
    },
    recipients: [
      {
        fullName: 'Alice Example',
        role: 'signer',
        signingOrder: 1,
        state: 'waiting',
        signedAt: null,
        isYou: true,
      },
      {
        fullName: 'Bob Builder',
        role: 'signer',
        signingOrder: 1,
        state: 'signed',
        signedAt: '2026-11-21T14:05:00.000Z',
        isYou: false,
      },
      {
        fullName: 'Carol Copy',
        role: 'viewer',
        signingOrder: 2,
        state: 'viewer',
        signedAt: null,
        isYou: false,
      },
    ],
    actions: { canSign: true, canDecline: true, waitingFor: [] },
    emailCode: null,
    entered: null,
    basePath,
    notice: null,
    pages: [],
    myFields: [],
    textIsPages: false,
    downloads: { original: null, sealed: null, sealPending: false },
    ...overrides,
  };
}

function emailCodeView(codeSent: boolean): SigningPageView {
  const view = sentView({ emailCode: { sentTo: 'a***e@example.com', codeSent } });
  view.recipient.signingMethod = 'email-code';
  return view;
}

/** The element (open tag through matching close tag, no nesting of the same tag) starting at `openTag`. */
function element(out: string, openTag: string, closeTag: string): string {
  const start = out.indexOf(openTag);
  assert.notEqual(start, -1, `missing ${openTag}`);
  const end = out.indexOf(closeTag, start);
  assert.notEqual(end, -1, `missing ${closeTag} after ${openTag}`);
  return out.slice(start, end + closeTag.length);
}

/** The form posting to `${basePath}/${action}`. */
function formFor(out: string, action: string): string {
  const open = out.match(new RegExp(`<form[^>]* method="post" action="${basePath}/${action}">`));
  assert.ok(open, `missing form posting to ${action}`);
  return element(out, open[0], '</form>');
}

/** The tag of the element with this id, e.g. `<input type="text" id="x" ...>`. */
function tagWithId(out: string, id: string): string {
  const at = out.indexOf(`id="${id}"`);
  assert.notEqual(at, -1, `missing id ${id}`);
  return out.slice(out.lastIndexOf('<', at), out.indexOf('>', at) + 1);
}

function assertLabelled(out: string, id: string, labelText: string): void {
  assert.match(out, new RegExp(`<label[^>]* for="${id}"[^>]*>(<input[^>]*>)?(<span>)?${labelText}`));
}

function textOf(out: string): string {
  return out.replace(/<[^>]*>/g, '').replace(/\s+/g, ' ');
}

test('html escapes interpolations, keeps SafeHtml, joins arrays and drops null/undefined/false', () => {
  const evil = `<script>alert(1)</script>"'&`;
  assert.equal(escapeHtml(evil), '&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;');
  assert.equal(
    renderToString(html`<p title="${evil}">${evil}</p>`),
    '<p title="&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;">&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;</p>',
  );
  assert.equal(renderToString(html`<div>${html`<b>${'<i>'}</b>`}</div>`), '<div><b>&lt;i&gt;</b></div>');
  assert.equal(
    renderToString(html`<ul>${['<a>', html`<li>x</li>`, ['&']]}</ul>`),
    '<ul>&lt;a&gt;<li>x</li>&amp;</ul>',
  );
  assert.equal(renderToString(html`[${null}${undefined}${false}${0}${''}]`), '[0]');
  assert.equal(renderToString(raw('a > b')), 'a > b');
  // A look-alike object (e.g. parsed JSON) is not SafeHtml and cannot smuggle markup in.
  const forged = { __html: '<script>' } as unknown as string;
  assert.doesNotMatch(renderToString(html`${forged}`), /<script>/);
});

test('page() is a full HTML5 document with the required meta, no script and no external resources', () => {
  const out = page({ title: 'A & B <c>', body: html`<main><p>Hello</p></main>` });
  assert.match(out, /^<!doctype html>\n<html lang="en" dir="ltr">/);
  assert.ok(out.includes('<meta charset="utf-8">'));
  assert.ok(out.includes('<meta name="viewport" content="width=device-width, initial-scale=1">'));
  assert.ok(out.includes('<meta name="robots" content="noindex">'));
  assert.ok(out.includes('<meta name="referrer" content="no-referrer">'));
  assert.ok(out.includes('<title>A &amp; B &lt;c&gt;</title>'));
  assert.equal(out.match(/<style>/g)?.length, 1);
  assert.doesNotMatch(out, /<script/i);
  assert.doesNotMatch(out, /https?:/i);
  assert.doesNotMatch(out, /<link|<img|<iframe|@import|url\(|src=/i);
  assert.ok(out.includes('<main><p>Hello</p></main>'));
  assert.match(pageContentSecurityPolicy, /default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'/);
  assert.match(pageContentSecurityPolicy, /frame-ancestors 'none'/);
});

test('sent document, standard signer: header, body, pricing, recipients, sign and decline forms', () => {
  const out = renderSigningPage(sentView(), en);
  writeFileSync('/tmp/signing-page-sample.html', out);

  assert.match(
    out,
    /<header class="page-header">[\s\S]*<h1>Website maintenance agreement<\/h1>[\s\S]*<\/header>/,
  );
  assert.ok(out.includes('<span class="badge badge-pending">Awaiting signatures</span>'));
  assert.ok(out.includes('<time datetime="2026-11-20T09:30:00.000Z">20 Nov 2026, 09:30 UTC</time>'));
  assert.ok(out.includes('<title>Website maintenance agreement</title>'));
  assert.match(out, /<main[^>]*>[\s\S]*<\/main>/);
  // One script: the signature pad's, allowed by its hash; nothing else.
  assert.deepEqual(
    [...out.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]),
    [signScript],
  );

  // Body: paragraphs on blank lines, <br> on single newlines.
  const body = element(out, '<div class="document-body" dir="auto">', '</div>');
  assert.equal(body.match(/<p>/g)?.length, 3);
  assert.match(
    body,
    /<p>The supplier maintains the website.<br>\nSupport is available on working days.<\/p>/,
  );

  // Pricing: columns, net amounts (prices exclude VAT), totals and the note.
  const table = element(out, '<table class="pricing">', '</table>');
  const headers = [...element(table, '<thead>', '</thead>').matchAll(/<th[^>]*>([^<]*)<\/th>/g)].map(
    (m) => m[1],
  );
  assert.deepEqual(headers, ['Item', 'Billing', 'Qty', 'Unit price', 'VAT %', 'Amount']);
  const tbody = element(table, '<tbody>', '</tbody>');
  assert.equal(tbody.match(/<tr>/g)?.length, 2);
  assert.ok(tbody.includes('<td class="num amount">€1,194.00</td></tr>'));
  assert.ok(tbody.includes('monthly × 12'));
  assert.ok(!tbody.includes('€1,444.74'), 'gross is not the amount when prices exclude VAT');
  const tfoot = textOf(element(table, '<tfoot>', '</tfoot>'));
  assert.ok(tfoot.includes('Subtotal (excl. VAT)€1,694.00'));
  assert.ok(tfoot.includes('VAT€355.74'));
  assert.ok(tfoot.includes('Total€2,049.74'));
  assert.ok(out.includes('Prices exclude VAT'));

  // Recipients and their progress.
  const recipients = textOf(element(out, '<ul class="recipients">', '</ul>'));
  assert.match(recipients, /Alice Example \(you\)Your turn/);
  assert.match(recipients, /Bob Builder✓ Signed 21 Nov 2026, 14:05 UTC/);
  assert.match(recipients, /Carol CopyViewer \(receives a copy\)/);

  // Sign form.
  const sign = formFor(out, 'sign');
  assert.equal(tagWithId(sign, 'sign-full-name').match(/name="fullName"/)?.length, 1);
  assert.match(tagWithId(sign, 'sign-full-name'), /autocomplete="name"[^>]* required/);
  assertLabelled(sign, 'sign-full-name', 'Type your full name to sign');
  assert.match(tagWithId(sign, 'sign-consent'), /type="checkbox"[^>]* name="consent" value="yes" required/);
  assertLabelled(
    sign,
    'sign-consent',
    'I agree to sign this document electronically, and that the signature I adopt here \\(typed or drawn\\) is my signature.',
  );
  assert.ok(sign.includes('<button type="submit" class="button button-primary">Sign document</button>'));
  assert.ok(!sign.includes('name="code"'));
  assert.ok(!out.includes(`action="${basePath}/code"`));

  // Decline form, tucked away in <details>.
  const details = element(out, '<details class="decline">', '</details>');
  assert.ok(details.includes('<summary>Decline to sign…</summary>'));
  const decline = formFor(details, 'decline');
  assert.match(tagWithId(decline, 'decline-reason'), /<textarea[^>]* name="reason" maxlength="1000"/);
  assert.ok(!/<textarea[^>]*required/.test(decline));
  assertLabelled(decline, 'decline-reason', 'Reason \\(optional\\)');
  assert.match(decline, /<button type="submit" class="button button-danger">Decline to sign<\/button>/);

  // Every input and textarea has a label.
  for (const m of out.matchAll(/<(?:input|textarea)[^>]* id="([^"]+)"/g))
    assert.ok(out.includes(`for="${m[1]}"`), `label for ${m[1]}`);
  assert.ok(!out.includes('You can sign once'));
  assert.ok(!out.includes('no signature is needed'));
});

test('prices including VAT show the gross amount and say so', () => {
  const view = sentView();
  assert.ok(view.pricing);
  view.pricing.pricesIncludeVat = true;
  const out = renderSigningPage(view, en);
  const tbody = element(out, '<tbody>', '</tbody>');
  assert.ok(tbody.includes('<td class="num amount">€1,444.74</td></tr>'));
  assert.ok(tbody.includes('<td class="num amount">€605.00</td></tr>'));
  assert.ok(out.includes('Prices include VAT'));
  assert.ok(textOf(out).includes('Total€2,049.74'));
});

test('email-code signer before the code is sent: "Send code" form and the code input', () => {
  const out = renderSigningPage(emailCodeView(false), en);
  const codeForm = formFor(out, 'code');
  assert.ok(codeForm.includes('>Send code</button>'));
  assert.ok(codeForm.includes('a***e@example.com'));
  const sign = formFor(out, 'sign');
  const code = tagWithId(sign, 'sign-code');
  for (const attr of [
    'name="code"',
    'inputmode="numeric"',
    'pattern="[0-9]{6}"',
    'maxlength="6"',
    'autocomplete="one-time-code"',
  ])
    assert.ok(code.includes(attr), attr);
  assertLabelled(sign, 'sign-code', '6-digit one-time code sent to a\\*\\*\\*e@example.com');
  assert.ok(sign.includes('name="fullName"'));
  assert.ok(sign.includes('name="consent"'));
  // The code form is separate from (not nested in) the sign form.
  assert.ok(!sign.includes(`/code"`));
  assert.ok(out.indexOf(`action="${basePath}/code"`) < out.indexOf(`action="${basePath}/sign"`));
});

test('email-code signer after the code was sent: "Send a new code"', () => {
  const out = renderSigningPage(emailCodeView(true), en);
  const codeForm = formFor(out, 'code');
  assert.ok(codeForm.includes('>Send a new code</button>'));
  assert.ok(!codeForm.includes('>Send code</button>'));
  assert.ok(formFor(out, 'sign').includes('name="code"'));
});

test('a notice is shown with its kind; errors are alerts', () => {
  const error = renderSigningPage(
    {
      ...emailCodeView(true),
      notice: { kind: 'error', text: 'The code is wrong or expired.' },
    },
    en,
  );
  assert.ok(
    error.includes('<div class="notice notice-error" role="alert">The code is wrong or expired.</div>'),
  );
  const success = renderSigningPage(sentView({ notice: { kind: 'success', text: 'Code sent.' } }), en);
  assert.ok(success.includes('<div class="notice notice-success" role="status">Code sent.</div>'));
  assert.ok(!renderSigningPage(sentView(), en).includes('class="notice'));
});

test('a signer waiting for earlier signers sees who they wait for and no sign form', () => {
  const out = renderSigningPage(
    sentView({ actions: { canSign: false, canDecline: true, waitingFor: ['Bob Builder', 'Dana Doe'] } }),
    en,
  );
  assert.ok(out.includes('You can sign once Bob Builder and Dana Doe have signed.'));
  assert.ok(!out.includes(`action="${basePath}/sign"`));
  assert.ok(!out.includes('name="fullName"'));
  assert.ok(formFor(out, 'decline').includes('name="reason"'));
});

test('a viewer is told no signature is needed and gets no forms', () => {
  const view = sentView({ actions: { canSign: false, canDecline: false, waitingFor: [] } });
  view.recipient = { ...view.recipient, fullName: 'Carol Copy', role: 'viewer' };
  view.recipients = view.recipients.map((r) => ({ ...r, isYou: r.fullName === 'Carol Copy' }));
  const out = renderSigningPage(view, en);
  assert.ok(out.includes('You receive this document for your information; no signature is needed from you.'));
  assert.doesNotMatch(out, /<form(?! class="language-switch)/, 'no form but the language switch');
  assert.doesNotMatch(out, /<details/);
  assert.match(textOf(out), /Carol Copy \(you\)Viewer \(receives a copy\)/);
});

test('a document signed by everyone shows the final state with its date', () => {
  const view = sentView({ actions: { canSign: false, canDecline: false, waitingFor: [] } });
  view.document = { ...view.document, status: 'signed', signedAt: '2026-11-23T14:05:00.000Z' };
  view.recipient = { ...view.recipient, signedAt: '2026-11-22T08:00:00.000Z' };
  view.recipients = view.recipients.map((r) =>
    r.isYou ? { ...r, state: 'signed', signedAt: '2026-11-22T08:00:00.000Z' } : r,
  );
  const out = renderSigningPage(view, en);
  assert.ok(out.includes('<span class="badge badge-success">Signed</span>'));
  assert.ok(
    textOf(out).includes('This document was signed by everyone on 23 Nov 2026, 14:05 UTC.'),
    'final-state message',
  );
  assert.ok(out.includes('<time datetime="2026-11-23T14:05:00.000Z">'));
  // The header says when it was signed; the expiry no longer matters.
  assert.match(textOf(element(out, '<header', '</header>')), /Signed\s*23 Nov 2026, 14:05 UTC/);
  assert.ok(!textOf(out).includes('Expires'));
  assert.match(textOf(out), /Alice Example \(you\)✓ Signed 22 Nov 2026, 08:00 UTC/);
  assert.doesNotMatch(out, /<form(?! class="language-switch)/, 'no form but the language switch');
});

test('a signer who signed while others still have to sees their own signature date', () => {
  const view = sentView({ actions: { canSign: false, canDecline: false, waitingFor: [] } });
  view.recipient = { ...view.recipient, signedAt: '2026-11-22T08:00:00.000Z' };
  view.recipients = [
    {
      ...view.recipients[0],
      state: 'signed',
      signedAt: '2026-11-22T08:00:00.000Z',
    } as SigningPageView['recipients'][number],
    {
      fullName: 'Eve Later',
      role: 'signer',
      signingOrder: 2,
      state: 'waiting',
      signedAt: null,
      isYou: false,
    },
  ];
  const out = renderSigningPage(view, en);
  assert.ok(textOf(out).includes('You signed this document on 22 Nov 2026, 08:00 UTC.'));
  assert.ok(textOf(out).includes('Other signers have not signed yet.'));
  assert.doesNotMatch(out, /<form(?! class="language-switch)/, 'no form but the language switch');
});

test('a declined document says so, for the decliner and for others', () => {
  const view = sentView({ actions: { canSign: false, canDecline: false, waitingFor: [] } });
  view.document = { ...view.document, status: 'declined' };
  view.recipients = view.recipients.map((r) =>
    r.fullName === 'Bob Builder' ? { ...r, state: 'declined' } : r,
  );
  const out = renderSigningPage(view, en);
  assert.ok(out.includes('<span class="badge badge-danger">Declined</span>'));
  assert.ok(out.includes('This document was declined.'));
  assert.match(textOf(out), /Bob BuilderDeclined/);
  assert.doesNotMatch(out, /<form(?! class="language-switch)/, 'no form but the language switch');

  view.recipient = { ...view.recipient, declined: true };
  assert.ok(renderSigningPage(view, en).includes('You declined to sign this document.'));
});

test('an expired document says when it expired', () => {
  const view = sentView({ actions: { canSign: false, canDecline: false, waitingFor: [] } });
  view.document = { ...view.document, status: 'expired' };
  const out = renderSigningPage(view, en);
  assert.ok(out.includes('<span class="badge badge-neutral">Expired</span>'));
  assert.ok(textOf(out).includes('This document expired on 20 Dec 2026, 09:30 UTC.'));
  assert.ok(out.includes('<time datetime="2026-12-20T09:30:00.000Z">20 Dec 2026, 09:30 UTC</time>'));
  assert.match(textOf(element(out, '<header', '</header>')), /Expired\s*20 Dec 2026, 09:30 UTC/);
  assert.doesNotMatch(out, /<form(?! class="language-switch)/, 'no form but the language switch');
});

test('timestamps are shown in UTC; a string that is not a date is shown as it is', () => {
  assert.equal(en.dateTime('2026-11-23T14:05:59Z', 'UTC'), '23 Nov 2026, 14:05 UTC');
  assert.equal(en.dateTime('2026-11-23T23:30:00+02:00', 'UTC'), '23 Nov 2026, 21:30 UTC');
  const view = sentView();
  view.document = { ...view.document, sentAt: 'not a <date>' };
  const out = renderSigningPage(view, en);
  assert.ok(out.includes('<dt>Sent</dt><dd>not a &lt;date&gt;</dd>'));
});

test('a document without pricing has no pricing table', () => {
  const out = renderSigningPage(sentView({ pricing: null }), en);
  assert.doesNotMatch(out, /<table/);
  assert.ok(!out.includes('Pricing'));
  assert.ok(!out.includes('Prices exclude VAT'));
  assert.ok(out.includes(`action="${basePath}/sign"`));
});

test('user-provided text is escaped everywhere', () => {
  const evil = `<script>alert(1)</script>"'&`;
  const escaped = '&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;';
  const view = emailCodeView(true);
  view.document = { ...view.document, title: evil, body: `${evil}\n${evil}\n\n${evil}` };
  assert.ok(view.pricing);
  view.pricing.lines = [
    {
      name: evil,
      quantity: evil,
      unitPrice: evil,
      vatRate: evil,
      billing: evil,
      net: evil,
      vat: evil,
      gross: evil,
    },
  ];
  view.pricing = { ...view.pricing, net: evil, vat: evil, gross: evil };
  view.recipient = { ...view.recipient, fullName: evil, email: evil };
  view.recipients = view.recipients.map((r) => ({ ...r, fullName: evil }));
  view.actions = { canSign: true, canDecline: true, waitingFor: [evil] };
  view.emailCode = { sentTo: evil, codeSent: false };
  view.notice = { kind: 'error', text: evil };
  const out = renderSigningPage(view, en);
  assert.ok(!out.includes('<script>alert'), 'no value became markup');
  assert.equal(out.match(/<script/g)?.length, 1, 'the one script is the signature pad');
  assert.ok(!out.includes(`"'&`));
  // Title (twice), body (3), pricing (9), recipient name+email, 3 recipients, waiting, code (2), notice.
  assert.ok(out.split(escaped).length - 1 >= 20, 'every value is present, escaped');
  assert.ok(out.includes(`<title>${escaped}</title>`));
  assert.ok(out.includes(`<h1>${escaped}</h1>`));

  const message = renderSigningMessagePage({ title: evil, heading: evil, message: evil, status: 404 }, en);
  assert.doesNotMatch(message, /<script/i);
  assert.equal(message.split(escaped).length - 1, 3);
});

test('a basePath that is not a same-origin path is refused', () => {
  for (const bad of ['javascript:alert(1)//', '//evil.example/s', 'https://evil.example', 's/abc', '/\\evil'])
    assert.throws(() => renderSigningPage(sentView({ basePath: bad }), en), /basePath/, bad);
  assert.ok(renderSigningPage(sentView({ basePath: '/s/x/' }), en).includes('action="/s/x/sign"'));
});

test('the message page shows the heading, the message and an error status', () => {
  const out = renderSigningMessagePage(
    {
      title: 'Link not found',
      heading: 'This signing link does not work',
      message: 'Ask the sender for a new link.',
      status: 404,
    },
    en,
  );
  assert.ok(out.includes('<title>Link not found</title>'));
  assert.ok(out.includes('<h1 id="message-heading">This signing link does not work</h1>'));
  assert.ok(out.includes('<p>Ask the sender for a new link.</p>'));
  assert.ok(out.includes('Error 404'));
  assert.ok(out.includes('<meta name="viewport" content="width=device-width, initial-scale=1">'));
  assert.doesNotMatch(out, /<script|<form/i);
  assert.ok(
    !renderSigningMessagePage({ title: 't', heading: 'h', message: 'Use your personal link.' }, en).includes(
      'Error',
    ),
  );
});

test('waiting for one signer reads "has signed"', () => {
  const out = renderSigningPage(
    sentView({ actions: { canSign: false, canDecline: true, waitingFor: ['Bob Builder'] } }),
    en,
  );
  assert.ok(out.includes('You can sign once Bob Builder has signed.'));
});

test('the recipient whose turn it is sees "Your turn", others waiting see "Waiting"', () => {
  const out = renderSigningPage(sentView(), en);
  assert.ok(out.includes('Your turn'));
});
