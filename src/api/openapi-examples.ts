// The examples of the contract: one coherent workspace (a consulting agreement signed by two
// recipients and copied to a third, a draft, an endpoint and its deliveries) written as the
// API answers it. Each example is validated against its own schema by test/openapi.test.ts,
// and every operation and webhook must have them, so an example can neither go missing nor
// drift from what the API really sends.

const publicUrl = 'https://sign.example.com';
const documentId = '3f0c9a52-5b1e-4c47-9d2a-6a1f0e8b7c21';
const draftId = '8d2b61f4-0c3a-4e9b-a5d7-1b9e4f6c2a80';
const ann = '0b7e5c1d-2f4a-4b8e-9c6d-3a5f7e9b1c2d';
const bob = '5a9c3e7f-1b2d-4f6a-8e0c-7d9b1f3a5c4e';
const val = 'c4e6a8b0-2d4f-4a6c-9e1b-5f7d9b3c1a6e';
const endpointId = '7e1f3a5c-9b2d-4e6f-a8c0-2d4b6f8a1c3e';
const deliveryId = '9b6f2d4a-8c1e-3a5b-b7d9-0e2c4a6f8b1d';
const eventIds = {
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

const draftExample = {
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

const recipients = [
  {
    id: ann,
    email: 'ann.lee@northwind.example',
    fullName: 'Ann Lee',
    role: 'signer',
    signingMethod: 'standard',
    signingOrder: 1,
    signedAt: '2026-03-02T14:31:09.004Z',
  },
  {
    id: bob,
    email: 'bob.ray@northwind.example',
    fullName: 'Bob Ray',
    role: 'signer',
    signingMethod: 'email-code',
    signingOrder: 2,
    signedAt: '2026-03-03T16:02:11.870Z',
  },
  {
    id: val,
    email: 'legal@northwind.example',
    fullName: 'Val Kim',
    role: 'viewer',
    signingMethod: 'standard',
    signingOrder: 3,
    signedAt: null,
  },
];

const signatureField = (id: string, y: number, filledAt: string | null = null) => ({
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
const inDetail = <T>(recipient: T) => ({ ...recipient, declinedAt: null, declineReason: null });

const files = [
  { kind: 'original', sha256: sha256.original, bytes: 48213, pages: 2 },
  { kind: 'sealed', sha256: sha256.sealed, bytes: 91877, pages: 3 },
];

/** The detail: the document, its recipients with their fields, its history and its files. */
export const documentDetailExample = {
  ...documentExample,
  recipients: [
    {
      ...inDetail(recipients[0]),
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
      ...inDetail(recipients[1]),
      fields: [signatureField('f2b4d6c8-0e1a-4b3d-9c5e-7a9b1d3f5c7e', 60, '2026-03-03T16:02:11.870Z')],
    },
    { ...inDetail(recipients[2]), fields: [] },
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
  files: files.map((file) => ({
    ...file,
    downloadUrl: `${publicUrl}/files/${documentId}/${file.kind}.pdf?expires=1772553734&sig=Xq3v0n8KcJm2Wb5tYpR7sLd9fHg4aE1uZoN6iT0kQyM`,
  })),
};

export const documentListExample = { ok: true, data: [draftExample, documentExample], nextCursor: null };

const endpoint = {
  id: endpointId,
  url: 'https://hooks.northwind.example/signet',
  events: ['document.completed', 'document.declined'],
  enabled: true,
  description: 'CRM sync',
  createdAt: '2026-03-01T10:00:00.000Z',
  failureCount: 0,
  disabledReason: null,
};

export const endpointExample = endpoint;
/** A second endpoint, paused by Signet after 20 consecutive failures. */
export const pausedEndpointExample = {
  ...endpoint,
  id: '2c4e6a8b-0d1f-4a3c-9e5b-7d9f1b3c5e6a',
  url: 'https://erp.northwind.example/hooks/signet',
  events: ['document.sent'],
  enabled: false,
  description: null,
  failureCount: 20,
  disabledReason: 'failures',
};
export const createdEndpointExample = {
  ...endpoint,
  secret: 'whsec_Zt4mQ8vX2nR6kB1yH9cW3pL7dF5sJ0gA-uE_oT2iN4e',
};
export const createEndpointBodyExample = {
  url: endpoint.url,
  events: endpoint.events,
  description: endpoint.description,
};
export const updateEndpointBodyExamples = {
  rename: { summary: 'Change the description', value: { description: 'CRM sync (production)' } },
  resume: { summary: 'Switch a paused endpoint back on', value: { enabled: true } },
};

/** A rotation at 2026-03-05T09:00:00.000Z with the default overlap of 24 hours. */
export const rotatedEndpointExample = {
  ...endpoint,
  secret: 'whsec_Pq7wE3rT9yU1iO5pA8sD2fG6hJ0kL4zX-cV_bN3mQ1w',
  previousSecretExpiresAt: '2026-03-06T09:00:00.000Z',
};
export const rotateSecretBodyExamples = {
  default: { summary: 'The previous secret signs too for 24 hours', value: {} },
  leaked: { summary: 'A leaked secret: stop it at once', value: { overlapHours: 0 } },
  week: { summary: 'A week to switch every receiver', value: { overlapHours: 168 } },
};

export const deliveryExample = {
  id: deliveryId,
  eventId: eventIds.completed,
  eventType: 'document.completed',
  status: 'delivered',
  attempts: 2,
  createdAt: '2026-03-03T16:02:14.519Z',
  nextAttemptAt: null,
  deliveredAt: '2026-03-03T16:12:30.884Z',
  attemptLog: [
    {
      attempt: 1,
      startedAt: '2026-03-03T16:02:14.640Z',
      durationMs: 10003,
      statusCode: null,
      errorClass: 'timeout',
    },
    {
      attempt: 2,
      startedAt: '2026-03-03T16:12:30.712Z',
      durationMs: 172,
      statusCode: 200,
      errorClass: null,
    },
  ],
};

export const resendResultExample = {
  deliveryId,
  attempt: 5,
  delivered: true,
  statusCode: 204,
  errorClass: null,
  durationMs: 143,
};

export const deletedExample = { id: endpointId, deleted: true };

/** A webhook body of `type`, about the example document. */
export function webhookBodyExample(type: string): Record<string, unknown> {
  if (type === 'ping') {
    return {
      id: 'd8f0b2c4-6e9a-4c1b-a3d5-7f9b1d3e5a0c',
      type: 'ping',
      createdAt: '2026-03-01T10:05:00.000Z',
      data: { message: 'Test delivery from Signet: this endpoint can receive webhooks.' },
    };
  }
  const byType: Record<string, { id: string; createdAt: string; recipient: unknown; document: unknown }> = {
    'document.sent': {
      id: eventIds.sent,
      createdAt: '2026-03-02T09:20:41.503Z',
      recipient: null,
      document: { ...documentExample, status: 'sent', signedAt: null },
    },
    'document.opened': {
      id: eventIds.openedAnn,
      createdAt: '2026-03-02T14:28:50.311Z',
      recipient: { ...recipients[0], signedAt: null },
      document: { ...documentExample, status: 'viewed', signedAt: null },
    },
    'document.signed': {
      id: eventIds.signedBob,
      createdAt: '2026-03-03T16:02:11.870Z',
      recipient: recipients[1],
      document: documentExample,
    },
    'document.completed': {
      id: eventIds.completed,
      createdAt: '2026-03-03T16:02:14.519Z',
      recipient: null,
      document: { ...documentExample, files },
    },
    'document.declined': {
      id: '7c9e1a3b-5d8f-4a2c-b46e-8c0a2e4f6b7d',
      createdAt: '2026-03-02T15:40:00.000Z',
      recipient: { ...recipients[1], signedAt: null },
      document: { ...documentExample, status: 'declined', signedAt: null },
    },
    'document.expired': {
      id: '8d0f2b4c-6e9a-4b3d-857f-9d1b3f5a7c8e',
      createdAt: '2026-04-01T09:20:41.503Z',
      recipient: null,
      document: { ...documentExample, status: 'expired', signedAt: null, expiredReason: 'lapsed' },
    },
  };
  const event = byType[type];
  if (!event) throw new Error(`no example for the webhook ${type}`);
  return {
    id: event.id,
    type,
    createdAt: event.createdAt,
    data: { document: event.document, recipient: event.recipient },
  };
}

/** `POST /documents`: a PDF (shortened here) for two signers in turn, with a field each, sent at once. */
export const createDocumentBodyExample = {
  title: 'Service level agreement',
  file: 'JVBERi0xLjcKJcfsj6IKMSAwIG9iago8PC9UeXBlL0NhdGFsb2cvUGFnZXMgMiAwIFI+PgplbmRvYmoK…',
  recipients: [
    { email: 'ann.lee@northwind.example', fullName: 'Ann Lee' },
    { email: 'bob.ray@northwind.example', fullName: 'Bob Ray', signingMethod: 'email-code', signingOrder: 2 },
  ],
  fields: [
    {
      recipient: 'ann.lee@northwind.example',
      type: 'signature',
      page: 2,
      x: 72,
      y: 120,
      width: 180,
      height: 48,
    },
    {
      recipient: 'bob.ray@northwind.example',
      type: 'signature',
      page: 2,
      x: 72,
      y: 60,
      width: 180,
      height: 48,
    },
  ],
  remindEveryDays: 3,
  send: true,
};

const slaRecipient = (id: string, from: (typeof recipients)[number] | undefined, order: number) => ({
  ...from,
  id,
  signingOrder: order,
  signedAt: null,
});

/** The answer to that create: sent, Ann mailed first, nothing signed yet. */
export const createdDocumentExample = {
  ...draftExample,
  status: 'sent',
  sentAt: '2026-03-04T08:00:02.114Z',
  expiresAt: '2026-04-03T08:00:02.114Z',
  recipients: [
    {
      ...inDetail(slaRecipient('a1c3e5b7-2d4f-4a6c-8e0b-1d3f5b7a9c2e', recipients[0], 1)),
      fields: [signatureField('b2d4f6a8-3e5a-4b7d-9f1c-2e4a6c8b0d3f', 120)],
    },
    {
      ...inDetail(slaRecipient('c3e5a7b9-4f6b-4c8e-a02d-3f5b7d9c1e4a', recipients[1], 2)),
      fields: [signatureField('d4f6b8c0-5a7c-4d9f-b13e-4a6c8e0d2f5b', 60)],
    },
  ],
  events: [
    {
      id: 'e5a7c9d1-6b8d-4e0a-824f-5b7d9f1e3a6c',
      type: 'document.sent',
      recipientEmail: null,
      createdAt: '2026-03-04T08:00:02.114Z',
    },
  ],
  files: [
    {
      kind: 'original',
      sha256: '1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a2c4e6a8b0d1f3a5c7e9b2d',
      bytes: 61204,
      pages: 2,
      downloadUrl: `${publicUrl}/files/${draftId}/original.pdf?expires=1772612102&sig=Pk2c8Vn4Hs7Rb1yTq5Lm0Wd3Fg9Ja6Ez`,
    },
  ],
};

export const deletedDocumentExample = { id: draftId, deleted: true };

/** Answers of a create or a send: mailed (no links), or delivered by the integrator (`delivery: none`). */
export const writtenExamples = {
  mailed: { value: { ok: true, data: { ...createdDocumentExample, signingUrls: [] } } },
  'delivery none': {
    value: {
      ok: true,
      data: {
        ...createdDocumentExample,
        signingUrls: [signingUrlExample()],
      },
    },
  },
};

/** A personal link handed over for the integrator to deliver. */
export function signingUrlExample() {
  return {
    recipientId: 'a1c3e5b7-2d4f-4a6c-8e0b-1d3f5b7a9c2e',
    email: 'ann.lee@northwind.example',
    url: `${publicUrl}/sign/${draftId}/q8Zt3VbN1xKc5Rm7Wp2Ls9Fh4Jd6Ga0YeUo3Ti8Xk2M`,
  };
}

/** A withdrawn document as the detail shows it: expired at once, its history saying so. */
export const withdrawnDocumentExample = {
  ...createdDocumentExample,
  status: 'expired',
  expiresAt: '2026-03-05T10:12:00.000Z',
  withdrawnAt: '2026-03-05T10:12:00.000Z',
  expiredReason: 'withdrawn',
  events: [
    ...createdDocumentExample.events,
    {
      id: 'f6b8d0e2-7c9e-4f1b-935a-6c8e0a2f4b7d',
      type: 'document.expired',
      recipientEmail: null,
      createdAt: '2026-03-05T10:12:00.000Z',
    },
  ],
};
