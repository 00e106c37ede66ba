// No sentence a recipient reads stays outside the catalogues (issue 51): the signing page in
// every state, its message pages and every mail to a recipient, rendered in the
// pseudo-language (support/pseudo-language.ts), leave no English word but the values shown
// (names, titles, addresses).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pricingView } from '../../src/documents/pricing.ts';
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
import { describeFieldIn } from '../../src/signing/signing-view.ts';
import { englishLeft, pseudoTranslator, readableText } from '../support/pseudo-language.ts';

const tr = pseudoTranslator();
const values = [
  'Website maintenance agreement',
  'Acme B.V.',
  'Alice Example',
  'alice@example.com',
  'Bob Builder',
  'Carol Copy',
  'al•••@example.com',
  'Setup',
  'Maintenance',
  'Company',
  'https://sign.example/sign/d/token',
  'https://sign.example/verify',
  'Website maintenance agreement-sealed.pdf',
];

function view(overrides: Partial<SigningPageView> = {}): SigningPageView {
  const field = (
    id: string,
    type: 'text' | 'checkbox' | 'signature',
    page: number,
    label: string | null,
  ) => ({
    id,
    type,
    page,
    name: describeFieldIn(tr, { type, label, page }),
    required: type !== 'checkbox',
  });
  return {
    document: {
      title: 'Website maintenance agreement',
      sender: 'Acme B.V.',
      body: '',
      status: 'sent',
      sentAt: '2026-11-20T09:30:00.000Z',
      expiresAt: '2026-12-20T09:30:00.000Z',
      signedAt: null,
      withdrawnAt: null,
    },
    pricing: pricingView(
      {
        currency: 'EUR',
        pricesIncludeVat: false,
        items: [
          { name: 'Setup', quantity: '1', unitPrice: '500', vatRate: '21', billing: { type: 'one-off' } },
          {
            name: 'Maintenance',
            quantity: '2',
            unitPrice: '49.75',
            vatRate: '21',
            billing: { type: 'recurring', interval: 'month', periods: 12 },
          },
        ],
      },
      tr,
    ),
    recipient: {
      fullName: 'Alice Example',
      email: 'alice@example.com',
      role: 'signer',
      signingMethod: 'email-code',
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
    emailCode: { sentTo: 'al•••@example.com', codeSent: false },
    entered: null,
    basePath: '/sign/d/token',
    notice: { kind: 'success', text: tr.t('sign.notice.codeSent', { minutes: 10 }) },
    pages: [1, 2].map((number) => ({
      number,
      src: `/sign/d/token/pages/${number}`,
      size: { width: 595, height: 842 },
      fields: {
        width: 595,
        height: 842,
        boxes: [
          {
            id: `b${number}`,
            x: 72,
            y: 100,
            width: 180,
            height: 24,
            mine: true,
            filled: false,
            title: tr.t('sign.fieldTitle', {
              field: describeFieldIn(tr, { type: 'text', label: null, page: number }),
              name: 'Alice Example',
            }),
            value: null,
          },
        ],
      },
    })),
    myFields: [
      {
        ...field('f1', 'text', 1, 'Company'),
        input: { kind: 'text', value: '', maxLength: 100 },
        filledBy: null,
        error: null,
      },
      {
        ...field('f2', 'checkbox', 9, null),
        input: { kind: 'checkbox', value: '', maxLength: null },
        filledBy: null,
        error: null,
      },
      {
        ...field('f3', 'signature', 2, null),
        input: null,
        filledBy: tr.t('field.filledWith.signature'),
        error: null,
      },
    ],
    textIsPages: true,
    downloads: { original: '/files/original', sealed: null, sealPending: false },
    ...overrides,
  };
}

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
  }
});

test('the check finds English: the same page in English, and one sentence written outside the catalogues', () => {
  const english = renderSigningPage(view(), translator('en'));
  assert.ok(englishLeft(readableText(english), values).length > 20, 'an English page is English');
  const stray = renderSigningPage(view(), tr).replace('</main>', '<p>Please sign here</p></main>');
  assert.deepEqual(englishLeft(readableText(stray), values), ['please', 'sign', 'here']);
});
