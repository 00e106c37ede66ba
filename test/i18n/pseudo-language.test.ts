// No sentence a recipient reads stays outside the catalogues (issue 51): the signing page in
// every state, its message pages and every mail to a recipient, rendered in the
// pseudo-language (support/pseudo-language.ts), leave no English word but the values shown
// (names, titles, addresses).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { translator } from '../../src/i18n/messages.ts';
import {
  completionMail,
  reminderMail,
  signingCodeMail,
  signingRequestMail,
  withdrawnMail,
} from '../../src/mail/templates.ts';
import {
  renderSigningMessagePage,
  renderSigningPage,
  type SigningPageView,
} from '../../src/signing/signing-page.ts';
import { englishLeft, pseudoTranslator, readableText } from '../support/pseudo-language.ts';
import { signingViewIn, signingViewValues } from '../support/signing-views.ts';

const tr = pseudoTranslator();
const values = signingViewValues;
const view = (overrides: Partial<SigningPageView> = {}) => signingViewIn(tr, overrides);

const states: Array<[string, Partial<SigningPageView>]> = [
  ['open, with fields, pages, pricing and a code to ask for', {}],
  ['code sent', { emailCode: { sentTo: 'al•••@example.com', codeSent: true } }],
  [
    'waiting for an earlier signer',
    { actions: { canSign: false, canDecline: true, waitingFor: ['Bob Builder', 'Carol Copy'] } },
  ],
  [
    'signed by everyone',
    {
      document: { ...view().document, status: 'signed', signedAt: '2026-11-22T08:00:00.000Z' },
      actions: { canSign: false, canDecline: false, waitingFor: [] },
      downloads: { original: '/files/original', sealed: '/files/sealed', sealPending: false },
    },
  ],
  [
    'being sealed',
    {
      document: { ...view().document, status: 'signed', signedAt: '2026-11-22T08:00:00.000Z' },
      actions: { canSign: false, canDecline: false, waitingFor: [] },
      downloads: { original: null, sealed: null, sealPending: true },
    },
  ],
  [
    'declined by this recipient',
    {
      document: { ...view().document, status: 'declined' },
      recipient: { ...view().recipient, declined: true },
      actions: { canSign: false, canDecline: false, waitingFor: [] },
    },
  ],
  [
    'declined by another, signed by this one',
    {
      document: { ...view().document, status: 'declined' },
      recipient: { ...view().recipient, signedAt: '2026-11-22T08:00:00.000Z' },
      actions: { canSign: false, canDecline: false, waitingFor: [] },
    },
  ],
  [
    'withdrawn',
    {
      document: { ...view().document, status: 'expired', withdrawnAt: '2026-11-23T08:00:00.000Z' },
      actions: { canSign: false, canDecline: false, waitingFor: [] },
    },
  ],
  [
    'expired',
    {
      document: { ...view().document, status: 'expired' },
      actions: { canSign: false, canDecline: false, waitingFor: [] },
    },
  ],
  [
    'signed, others still to sign',
    {
      recipient: { ...view().recipient, signedAt: '2026-11-22T08:00:00.000Z' },
      actions: { canSign: false, canDecline: false, waitingFor: [] },
    },
  ],
  [
    'a viewer, no pages yet, the text alone',
    {
      recipient: { ...view().recipient, role: 'viewer' },
      actions: { canSign: false, canDecline: false, waitingFor: [] },
      pages: [],
      document: { ...view().document, body: '' },
    },
  ],
];

for (const [name, overrides] of states)
  test(`the signing page in the pseudo-language leaves no English: ${name}`, () => {
    const page = renderSigningPage(view(overrides), tr);
    assert.match(page, /<html lang="en-XA" dir="ltr">/);
    assert.deepEqual(englishLeft(readableText(page), values), [], readableText(page));
  });

test('the signing link’s message pages in the pseudo-language leave no English', () => {
  for (const prefix of ['sign.notFound', 'sign.askLink'] as const) {
    const page = renderSigningMessagePage(
      {
        title: tr.t(`${prefix}.title`),
        heading: tr.t(`${prefix}.heading`),
        message: tr.t(`${prefix}.message`),
        status: 404,
      },
      tr,
    );
    assert.deepEqual(englishLeft(readableText(page), values), [], page);
  }
});

test('every mail to a recipient in the pseudo-language leaves no English', () => {
  const common = {
    recipientName: 'Alice Example',
    documentTitle: 'Website maintenance agreement',
    workspaceName: 'Acme B.V.',
  };
  const mails = [
    signingRequestMail(tr, {
      ...common,
      link: values[10] as string,
      role: 'signer',
      expiresAt: new Date('2026-12-20T09:30:00Z'),
      timeZone: 'UTC',
    }),
    signingRequestMail(tr, {
      ...common,
      link: values[10] as string,
      role: 'viewer',
      expiresAt: null,
      timeZone: 'UTC',
    }),
    reminderMail(tr, {
      ...common,
      link: values[10] as string,
      expiresAt: new Date('2026-12-20T09:30:00Z'),
      timeZone: 'UTC',
    }),
    signingCodeMail(tr, {
      code: '123456',
      documentTitle: common.documentTitle,
      workspaceName: common.workspaceName,
      validMinutes: 10,
    }),
    withdrawnMail(tr, common),
    completionMail(tr, {
      ...common,
      attachmentName: values[12] as string,
      link: null,
      linkValidDays: 7,
      verifyUrl: values[11] as string,
    }),
    completionMail(tr, {
      ...common,
      attachmentName: null,
      link: values[10] as string,
      linkValidDays: 7,
      verifyUrl: values[11] as string,
    }),
  ];
  for (const mail of mails) {
    assert.deepEqual(englishLeft(mail.subject, values), [], mail.subject);
    assert.deepEqual(englishLeft(mail.text, values), [], mail.text);
    // The name it comes from too ("Acme via Signet").
    assert.deepEqual(englishLeft(mail.fromName, values), [], mail.fromName);
  }
});

test('the check finds English: the same page in English, and one sentence written outside the catalogues', () => {
  const english = renderSigningPage(view(), translator('en'));
  assert.ok(englishLeft(readableText(english), values).length > 20, 'an English page is English');
  const stray = renderSigningPage(view(), tr).replace('</main>', '<p>Please sign here</p></main>');
  assert.deepEqual(englishLeft(readableText(stray), values), ['please', 'sign', 'here']);
});
