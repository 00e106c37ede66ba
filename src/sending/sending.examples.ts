// The examples of the document writes: the create of the service level agreement (the
// example workspace's draft, documents.examples.ts) sent at once, its answer mailed or with
// the links for a document delivered by the integrator, a deletion and a withdrawal.
import {
  draftExample,
  draftId,
  inDetail,
  publicUrl,
  recipientExamples,
  signatureField,
} from '../documents/documents.examples.ts';

/** `POST /documents`: a PDF (shortened here) for two signers in turn, with a field each, sent at once. */
export const createDocumentBodyExample = {
  title: 'Service level agreement',
  file: 'JVBERi0xLjcKJcfsj6IKMSAwIG9iago8PC9UeXBlL0NhdGFsb2cvUGFnZXMgMiAwIFI+PgplbmRvYmoK…',
  recipients: [
    { email: 'ann.lee@northwind.example', fullName: 'Ann Lee' },
    {
      email: 'bob.ray@northwind.example',
      fullName: 'Bob Ray',
      signingMethod: 'email-code',
      signingOrder: 2,
      language: 'de',
    },
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

const slaRecipient = (id: string, from: (typeof recipientExamples)[number] | undefined, order: number) => ({
  ...from,
  id,
  signingOrder: order,
  signedAt: null,
});

/** The answer to that create: sent, Ann mailed first, nothing signed yet. */
export const createdDocumentExample = {
  ...draftExample,
  language: null,
  status: 'sent',
  sentAt: '2026-03-04T08:00:02.114Z',
  expiresAt: '2026-04-03T08:00:02.114Z',
  recipients: [
    {
      ...inDetail(slaRecipient('a1c3e5b7-2d4f-4a6c-8e0b-1d3f5b7a9c2e', recipientExamples[0], 1)),
      fields: [signatureField('b2d4f6a8-3e5a-4b7d-9f1c-2e4a6c8b0d3f', 120)],
    },
    {
      ...inDetail(slaRecipient('c3e5a7b9-4f6b-4c8e-a02d-3f5b7d9c1e4a', recipientExamples[1], 2)),
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
