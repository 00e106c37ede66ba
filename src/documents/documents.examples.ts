// The examples of the contract's documents, and the workspace every area's examples build on
// (sending, templates, webhooks): a consulting agreement signed by two recipients and copied
// to a third, and a draft, written as the API answers them. Each example is validated against
// its own schema by test/api/openapi.test.ts, and every operation and webhook must have them, so
// an example can neither go missing nor drift from what the API really sends.

export const publicUrl = 'https://sign.example.com';
const documentId = '3f0c9a52-5b1e-4c47-9d2a-6a1f0e8b7c21';
export const draftId = '8d2b61f4-0c3a-4e9b-a5d7-1b9e4f6c2a80';
const ann = '0b7e5c1d-2f4a-4b8e-9c6d-3a5f7e9b1c2d';
const bob = '5a9c3e7f-1b2d-4f6a-8e0c-7d9b1f3a5c4e';
const val = 'c4e6a8b0-2d4f-4a6c-9e1b-5f7d9b3c1a6e';
/** The example document's events (its history, and the webhooks they caused). */
export const eventIds = {
  sent: '1c3e5a7b-9d2f-4b6c-8e0a-2c4e6a8b0d1f',
  openedAnn: '2d4f6b8c-0e3a-4c7d-9f1b-3d5f7b9c1e2a',
  signedAnn: '3e5a7c9d-1f4b-4d8e-a02c-4e6a8c0d2f3b',
  openedBob: '4f6b8d0e-2a5c-4e9f-b13d-5f7b9d1e3a4c',
  signedBob: '5a7c9e1f-3b6d-4fa0-824e-6a8c0e2f4b5d',
  completed: '6b8d0f2a-4c7e-40b1-935f-7b9d1f3a5c6e',
};
const sha256 = {
  original: '9f2c4e6a8b0d1f3a5c7e9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a',
  sealed: 'a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1',
};

/** A document as listed (and as a webhook body carries it). */
export const documentExample = {
  id: documentId,
  title: 'Consulting agreement — Northwind Traders',
  status: 'signed',
  url: `${publicUrl}/sign/${documentId}`,
  createdAt: '2026-03-02T09:14:05.120Z',
  sentAt: '2026-03-02T09:20:41.503Z',
  signedAt: '2026-03-03T16:02:11.870Z',
  expiresAt: '2026-04-01T09:20:41.503Z',
  withdrawnAt: null,
  expiredReason: null,
  value: { amount: 14400, currency: 'EUR' },
};

/** A draft: the service level agreement, before it is sent. */
export const draftExample = {
  id: draftId,
  title: 'Service level agreement',
  status: 'draft',
  url: `${publicUrl}/sign/${draftId}`,
  createdAt: '2026-03-04T08:00:00.000Z',
  sentAt: null,
  signedAt: null,
  expiresAt: null,
  withdrawnAt: null,
  expiredReason: null,
  value: null,
};

/** The example document's recipients, as listed and as a webhook carries them. */
export const recipientExamples = [
  {
    id: ann,
    email: 'ann.lee@northwind.example',
    fullName: 'Ann Lee',
    role: 'signer',
    signingMethod: 'standard',
    signingOrder: 1,
    signedAt: '2026-03-02T14:31:09.004Z',
    language: null,
  },
  {
    id: bob,
    email: 'bob.ray@northwind.example',
    fullName: 'Bob Ray',
    role: 'signer',
    signingMethod: 'email-code',
    signingOrder: 2,
    signedAt: '2026-03-03T16:02:11.870Z',
    language: 'de',
  },
  {
    id: val,
    email: 'legal@northwind.example',
    fullName: 'Val Kim',
    role: 'viewer',
    signingMethod: 'standard',
    signingOrder: 3,
    signedAt: null,
    language: null,
  },
];

/** A signature field of the example documents (the detail's shape), filled at `filledAt` or not yet. */
export const signatureField = (id: string, y: number, filledAt: string | null = null) => ({
  id,
  type: 'signature',
  page: 2,
  x: 72,
  y,
  width: 180,
  height: 48,
  required: true,
  label: null,
  filled: filledAt !== null,
  value: null,
  filledAt,
  prefilled: false,
});

/** A recipient as the detail shows them: none of these declined. */
export const inDetail = <T>(recipient: T) => ({ ...recipient, declinedAt: null, declineReason: null });

/** The example document's files: its original and the sealed PDF. */
export const fileExamples = [
  { kind: 'original', sha256: sha256.original, bytes: 48213, pages: 2 },
  { kind: 'sealed', sha256: sha256.sealed, bytes: 91877, pages: 3 },
];

/** The detail: the document, its recipients with their fields, its history and its files. */
export const documentDetailExample = {
  ...documentExample,
  language: null,
  recipients: [
    {
      ...inDetail(recipientExamples[0]),
      fields: [
        signatureField('e1a3c5b7-9d0f-4a2c-8b4d-6f8a0c2e4b6d', 120, '2026-03-02T14:31:09.004Z'),
        {
          ...signatureField('a7c9e1b3-5d7f-4a9b-8c1d-3e5f7a9b1c4d', 200, '2026-03-02T14:31:09.004Z'),
          type: 'text',
          label: 'Purchase order',
          value: 'PO-2026-0117',
        },
        {
          ...signatureField('c3e5a7b9-1d3f-4b5a-9c7e-5b7d9f1a3c5e', 260, '2026-03-02T14:31:09.004Z'),
          type: 'text',
          label: 'Monthly fee',
          value: '1,200 EUR',
          prefilled: true,
        },
      ],
    },
    {
      ...inDetail(recipientExamples[1]),
      fields: [signatureField('f2b4d6c8-0e1a-4b3d-9c5e-7a9b1d3f5c7e', 60, '2026-03-03T16:02:11.870Z')],
    },
    { ...inDetail(recipientExamples[2]), fields: [] },
  ],
  events: [
    { id: eventIds.sent, type: 'document.sent', recipientEmail: null, createdAt: '2026-03-02T09:20:41.503Z' },
    {
      id: eventIds.openedAnn,
      type: 'document.opened',
      recipientEmail: 'ann.lee@northwind.example',
      createdAt: '2026-03-02T14:28:50.311Z',
    },
    {
      id: eventIds.signedAnn,
      type: 'document.signed',
      recipientEmail: 'ann.lee@northwind.example',
      createdAt: '2026-03-02T14:31:09.004Z',
    },
    {
      id: eventIds.openedBob,
      type: 'document.opened',
      recipientEmail: 'bob.ray@northwind.example',
      createdAt: '2026-03-03T15:58:40.262Z',
    },
    {
      id: eventIds.signedBob,
      type: 'document.signed',
      recipientEmail: 'bob.ray@northwind.example',
      createdAt: '2026-03-03T16:02:11.870Z',
    },
    {
      id: eventIds.completed,
      type: 'document.completed',
      recipientEmail: null,
      createdAt: '2026-03-03T16:02:14.519Z',
    },
  ],
  files: fileExamples.map((file) => ({
    ...file,
    downloadUrl: `${publicUrl}/files/${documentId}/${file.kind}.pdf?expires=1772553734&sig=Xq3v0n8KcJm2Wb5tYpR7sLd9fHg4aE1uZoN6iT0kQyM`,
  })),
};

export const documentListExample = { ok: true, data: [draftExample, documentExample], nextCursor: null };
