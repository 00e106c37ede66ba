// A document's page as its sender sees it, made by hand (no database): a document being
// signed, with a PDF of two pages, a value, automatic reminders, a signer who signed, one who
// opened it and signs with a mailed code (their link shown), a viewer mailed at their turn,
// and a history of sent, reminded, opened and signed. bench/member-pages-language.ts renders
// it in several languages.
import type { OwnerDocument } from '../../src/documents/documents.service.ts';
import type { SenderDocument } from '../../src/web/document-page.views.ts';

const sentAt = '2026-11-20T09:30:00.000Z';
const openedAt = '2026-11-20T11:02:00.000Z';
const signedAt = '2026-11-21T08:15:00.000Z';

const recipients: OwnerDocument['recipients'] = [
  {
    id: 'r-maria',
    email: 'maria@client.example',
    fullName: 'Maria Jansen',
    role: 'signer',
    signingMethod: 'standard',
    signingOrder: 1,
    signedAt,
    language: null,
    declinedAt: null,
    declineReason: null,
    fields: [],
  },
  {
    id: 'r-tomasz',
    email: 'tomasz@client.example',
    fullName: 'Tomasz Wójcik',
    role: 'signer',
    signingMethod: 'email-code',
    signingOrder: 1,
    signedAt: null,
    language: 'pl',
    declinedAt: null,
    declineReason: null,
    fields: [],
  },
  {
    id: 'r-books',
    email: 'books@acme.example',
    fullName: 'Acme Books',
    role: 'viewer',
    signingMethod: 'standard',
    signingOrder: 2,
    signedAt: null,
    language: null,
    declinedAt: null,
    declineReason: null,
    fields: [],
  },
];

const audit = (invited: boolean, opened: string | null) => ({
  invitedAt: invited ? sentAt : null,
  linkFetchedAt: opened,
  openedAt: opened,
  declinedAt: null,
  declineReason: null,
});

export function senderViewFixture(): SenderDocument {
  const document: OwnerDocument = {
    id: 'd-statement',
    title: 'Website redesign — statement of work',
    status: 'viewed',
    url: 'https://sign.example.test/sign/d-statement',
    createdAt: '2026-11-20T09:12:00.000Z',
    sentAt,
    signedAt: null,
    expiresAt: '2026-12-20T09:30:00.000Z',
    withdrawnAt: null,
    expiredReason: null,
    value: { amount: 12_450.5, currency: 'EUR' },
    language: 'de',
    recipients,
    events: [],
    files: [
      { kind: 'original', sha256: 'ab'.repeat(32), bytes: 56_320, pages: 2, downloadUrl: '/files/original' },
    ],
    body: 'Please sign.',
    pricing: null,
    remindEveryDays: 3,
    history: [
      {
        type: 'document.sent',
        label: 'Sent',
        detail: null,
        webhook: true,
        recipientEmail: null,
        createdAt: sentAt,
      },
      {
        type: 'document.opened',
        label: 'Opened',
        detail: null,
        webhook: true,
        recipientEmail: 'tomasz@client.example',
        createdAt: openedAt,
      },
      {
        type: 'reminder.sent',
        label: 'Reminder sent (automatic)',
        detail: 'automatic',
        webhook: false,
        recipientEmail: 'tomasz@client.example',
        createdAt: '2026-11-23T09:30:00.000Z',
      },
      {
        type: 'document.signed',
        label: 'Signed',
        detail: null,
        webhook: true,
        recipientEmail: 'maria@client.example',
        createdAt: signedAt,
      },
    ],
    audit: new Map([
      ['r-maria', audit(true, '2026-11-20T10:00:00.000Z')],
      ['r-tomasz', audit(true, openedAt)],
      ['r-books', audit(false, null)],
    ]),
  };
  return {
    document,
    pricing: null,
    progress: new Map([
      ['r-maria', 'signed'],
      ['r-tomasz', 'opened'],
      ['r-books', 'queued'],
    ]),
    links: new Map([['r-tomasz', 'https://sign.example.test/sign/d-statement/tomasz-link']]),
    timeZone: 'Europe/Berlin',
  };
}
