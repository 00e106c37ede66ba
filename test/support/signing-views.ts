// A signing page's view as the signing routes build it, in one language: a signer with the
// one-time code to ask for, fields on two pages and one filled in for them, a pricing table,
// another signer who signed and a viewer. The pseudo-language test renders it in every state,
// bench/signing-language.ts in each language beside English. `signingViewValues`: the values
// it shows (names, titles, addresses), which no catalogue translates.
import { pricingView } from '../../src/documents/pricing.ts';
import type { Translator } from '../../src/i18n/messages.ts';
import type { SigningPageView } from '../../src/signing/signing-page.ts';
import { describeFieldIn } from '../../src/signing/signing-view.ts';

export const signingViewValues = [
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

export function signingViewIn(tr: Translator, overrides: Partial<SigningPageView> = {}): SigningPageView {
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
    brand: { accent: null, sentWithSignet: true },
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
