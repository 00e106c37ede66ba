// The contract of the document writes (sending.routes.ts): create, replace, send and delete a
// draft; remind a signer, withdraw, a fresh signing link. Each operation sits beside the route
// that serves it, built from the schemas that validate the body and serialise the answer
// (sending.schemas.ts); the prose is for readers (/docs and every OpenAPI tool).

import { DocumentDetailSchema } from '../documents/documents.schemas.ts';
import type { ErrorCode } from '../http/errors.ts';
import {
  bodyRefusals,
  envelope,
  idempotencyParameter,
  idParameter,
  json,
  jsonBody,
  type Operation,
  one,
  success,
} from '../http/openapi-parts.ts';
import {
  createDocumentBodyExample,
  createdDocumentExample,
  deletedDocumentExample,
  signingUrlExample,
  withdrawnDocumentExample,
  writtenExamples,
} from './sending.examples.ts';
import {
  CreateDocumentBody,
  DeletedDocumentSchema,
  FieldInputSchema,
  MultipartDocumentPart,
  RecipientInputSchema,
  SigningUrlSchema,
  WithdrawBody,
  WrittenDocumentSchema,
} from './sending.schemas.ts';

const recipientIdParameter = {
  ...idParameter,
  name: 'recipientId',
  description:
    'A recipient of the document (its `recipients[].id`); anything but a UUID is 400 `invalid-id`.',
};

/** A create's or a replacement's body: JSON with the PDF in base64, or multipart with it as a part. */
function documentContent(jsonExamples: Record<string, unknown>) {
  return {
    'application/json': { schema: json(CreateDocumentBody), examples: jsonExamples },
    'multipart/form-data': {
      schema: {
        type: 'object',
        required: ['document'],
        properties: {
          document: json(MultipartDocumentPart),
          file: { type: 'string', contentMediaType: 'application/pdf', description: 'The PDF' },
        },
      },
      encoding: { document: { contentType: 'application/json' } },
      examples: one('with its PDF', {
        document: {
          title: 'Service level agreement',
          recipients: createDocumentBodyExample.recipients,
        },
        file: '%PDF-1.7 … (the file’s bytes)',
      }),
    },
  };
}

/** What every write on an existing document can answer: a read key, a bad id or query, another workspace's id. */
const documentWriteErrors: ErrorCode[] = ['insufficient-scope', 'invalid-id', 'invalid-query', 'not-found'];

const documentIdempotency = idempotencyParameter(
  'Optional: 1 to 255 visible ASCII characters. The same key, operation and body (the PDF included) within 24 hours answers the document as it is now (with `Idempotent-Replayed: true`) instead of changing anything again; if it was deleted since, 404 `not-found`. The same key with another operation or body is 409 `idempotency-key-reused`. Refusals are not remembered.',
);

const replayedHeader = {
  'Idempotent-Replayed': {
    description:
      '`true` when an earlier request with the same `Idempotency-Key` and body made the change; absent otherwise.',
    schema: { type: 'string', const: 'true' },
  },
};

export const createDocumentOperation: Operation = {
  method: 'POST',
  path: '/documents',
  operationId: 'createDocument',
  tag: 'Documents',
  summary: 'A new document (write key): a draft, or sent at once with `send: true`',
  description: `Takes what the web application's new-document form takes: a title, the PDF (or a \`text\` made into the PDF at sending), the recipients, the fields on the PDF's pages, a pricing table, expiry and automatic reminders. Send it as JSON with the PDF in base64 (\`file\`), or as \`multipart/form-data\` with a \`document\` part holding the same JSON without \`file\` and a \`file\` part holding the PDF (no base64: a third smaller).

Every check of the web form applies, and nothing is stored when one fails: the body's shape (\`invalid-body\`), then every rule (addresses, names, orders, the PDF's pages for each field, pricing), then the PDF itself (\`invalid-file\`: not a PDF, encrypted, cut off, too many pages). The answer's \`pointer\` names the member at fault: \`/recipients/1/email\`, \`/fields/3\`, \`/file\`. A PDF over the upload limit is 413 \`payload-too-large\`; past the workspace's uploads for the day, 429 \`upload-limit-reached\`. With \`send: true\`, a document with nothing to sign (no PDF, no text, no pricing) is 409 \`document-not-sendable\`, nothing stored.

Sent, the first signing group is mailed its personal links at once, later groups as their turn comes, exactly as from the web application, and \`document.sent\` is delivered to your endpoints. With \`delivery: "none"\`, Signet mails no recipient anything (nor reminders, a withdrawal or the signed PDF; the workspace's owners still get it): the answer's \`signingUrls\` holds the first group's links for you to deliver, once, and \`signing-url\` makes the later ones. With an \`Idempotency-Key\`, a repeat of the same body answers the document as it is now (with \`Idempotent-Replayed: true\`) instead of making a second one; a create with \`send: true\` whose send did not happen is sent by the repeat. The key covers the whole body, \`send\` included: a repeat that adds \`send: true\` to a draft's create is 409 \`idempotency-key-reused\` (send the draft with \`POST /documents/{id}/send\`).`,
  parameters: [documentIdempotency],
  requestBody: { required: true, content: documentContent(one('sent at once', createDocumentBodyExample)) },
  answers: success(
    201,
    'Created (and sent, with `send: true`): the document in detail, and the links made for a document you deliver yourself.',
    envelope(json(WrittenDocumentSchema)),
    writtenExamples,
    replayedHeader,
  ),
  errors: [
    'insufficient-scope',
    'invalid-query',
    'invalid-json',
    'invalid-body',
    'invalid-file',
    'upload-limit-reached',
    'document-not-sendable',
    'invalid-idempotency-key',
    'idempotency-key-reused',
    'not-found',
    'payload-too-large',
    'unsupported-media-type',
  ],
};

export const remindOperation: Operation = {
  method: 'POST',
  path: '/documents/{id}/recipients/{recipientId}/remind',
  operationId: 'remindRecipient',
  tag: 'Documents',
  summary: 'Mails a signer their link again (write key), as the web application’s Remind does',
  description:
    'Only a signer whose turn it is, who has their link and has not signed (409 `recipient-not-remindable`; also for a document you deliver yourself: its reminders are yours to send), of a document out for signature (409 `document-not-active`), at most once an hour per signer (429 `reminded-recently`, `Retry-After` saying when the next may go). The link is the one first mailed. `reminder.sent` goes into the document’s history and certificate. It takes no body. With an `Idempotency-Key`, a repeat answers the document as it is now and mails nothing again.',
  parameters: [idParameter, recipientIdParameter, documentIdempotency],
  answers: success(
    200,
    'Reminded: the document in detail.',
    envelope(json(DocumentDetailSchema)),
    one('reminded', { ok: true, data: createdDocumentExample }),
    replayedHeader,
  ),
  errors: [
    ...documentWriteErrors,
    'document-not-active',
    'recipient-not-remindable',
    'reminded-recently',
    'invalid-idempotency-key',
    'idempotency-key-reused',
    ...bodyRefusals,
  ],
};

export const withdrawOperation: Operation = {
  method: 'POST',
  path: '/documents/{id}/withdraw',
  operationId: 'withdrawDocument',
  tag: 'Documents',
  summary: 'Withdraws a document out for signature (write key): it ends at once, as expired',
  description:
    'As the web application’s Withdraw: the status becomes `expired` (`document.expired` is delivered, `expiresAt` and `withdrawnAt` are the moment of withdrawal, and `expiredReason` is `withdrawn`, in the answer, the list and the event’s `data.document` alike, where a lapse of time says `lapsed`), the links only say it was withdrawn, and every recipient who had been mailed it is told (nobody, for a document you deliver yourself). The history and the certificate say it was withdrawn, by which key (its name), and the `reason` if given. A draft, or a document that has ended, is 409 `document-not-active`. The body is optional. With an `Idempotency-Key`, a repeat answers the document as it is now instead of `document-not-active`.',
  parameters: [idParameter, documentIdempotency],
  requestBody: {
    ...jsonBody(WithdrawBody, one('with a reason', { reason: 'The client chose another supplier.' })),
    required: false,
  },
  answers: success(
    200,
    'Withdrawn: the document in detail.',
    envelope(json(DocumentDetailSchema)),
    one('withdrawn', { ok: true, data: withdrawnDocumentExample }),
    replayedHeader,
  ),
  errors: [
    ...documentWriteErrors,
    'document-not-active',
    'invalid-body',
    'invalid-idempotency-key',
    'idempotency-key-reused',
    ...bodyRefusals,
  ],
};

export const signingUrlOperation: Operation = {
  method: 'POST',
  path: '/documents/{id}/recipients/{recipientId}/signing-url',
  operationId: 'renewSigningUrl',
  tag: 'Documents',
  summary: 'A fresh personal signing link (write key), for a document you deliver yourself',
  description:
    'For a document created with `delivery: "none"` and out for signature: a new link for a recipient whose turn has come (409 `recipient-not-invited` before it); the one before stops working at once. Use it to send a later signing group its links (sending answered only the first group’s) or to replace a link that was lost or leaked. A document Signet mails is 409 `document-delivered-by-mail`: a fresh link would break the one in the recipient’s mail. Shown once: keep it as a secret. It takes no body. With an `Idempotency-Key`, a repeat answers the same link.',
  parameters: [idParameter, recipientIdParameter, documentIdempotency],
  answers: success(
    200,
    'The new link.',
    envelope(json(SigningUrlSchema)),
    one('link', { ok: true, data: signingUrlExample() }),
    replayedHeader,
  ),
  errors: [
    ...documentWriteErrors,
    'document-not-active',
    'document-delivered-by-mail',
    'recipient-not-invited',
    'invalid-idempotency-key',
    'idempotency-key-reused',
    ...bodyRefusals,
  ],
};

export const sendDocumentOperation: Operation = {
  method: 'POST',
  path: '/documents/{id}/send',
  operationId: 'sendDocument',
  tag: 'Documents',
  summary: 'Sends a draft (write key), as the web application’s Send does',
  description:
    'The first signing group is mailed at once, later groups as their turn comes; a draft without a PDF gets one made from its text. A document that is not a draft is 409 `document-not-draft`; a draft with no signer or nothing to sign, 409 `document-not-sendable`. It takes no body. With an `Idempotency-Key`, a repeat answers the document as it is now instead of `document-not-draft`.',
  parameters: [idParameter, documentIdempotency],
  answers: success(
    200,
    'Sent: the document in detail, and the links made for a document you deliver yourself.',
    envelope(json(WrittenDocumentSchema)),
    writtenExamples,
    replayedHeader,
  ),
  errors: [
    ...documentWriteErrors,
    'document-not-draft',
    'document-not-sendable',
    'invalid-idempotency-key',
    'idempotency-key-reused',
    ...bodyRefusals,
  ],
};

export const replaceDocumentOperation: Operation = {
  method: 'PUT',
  path: '/documents/{id}',
  operationId: 'replaceDocument',
  tag: 'Documents',
  summary: 'Replaces a draft whole (write key), as the web application’s edit form does',
  description:
    'The body is a create’s (JSON, or multipart with the PDF as its own part), checked the same way, and nothing changes when it is refused. Recipients are matched by email (one who stays keeps their id); the fields are the body’s (none without `fields`); without a `file` the draft keeps its PDF, without `expiresInSeconds` its expiry. A document that is no longer a draft is 409 `document-not-draft`. With `send: true` it is sent at once after, as `POST …/send` does (an `Idempotency-Key` makes that safe to repeat).',
  parameters: [idParameter, documentIdempotency],
  requestBody: {
    required: true,
    content: documentContent(one('replaced', { ...createDocumentBodyExample, send: false })),
  },
  answers: success(
    200,
    'Replaced (and sent, with `send: true`): the document in detail.',
    envelope(json(WrittenDocumentSchema)),
    writtenExamples,
    replayedHeader,
  ),
  errors: [
    'insufficient-scope',
    'invalid-id',
    'invalid-query',
    'invalid-json',
    'invalid-body',
    'invalid-file',
    'upload-limit-reached',
    'not-found',
    'document-not-draft',
    'document-not-sendable',
    'invalid-idempotency-key',
    'idempotency-key-reused',
    'payload-too-large',
    'unsupported-media-type',
  ],
};

export const deleteDocumentOperation: Operation = {
  method: 'DELETE',
  path: '/documents/{id}',
  operationId: 'deleteDocument',
  tag: 'Documents',
  summary: 'Deletes a draft (write key) with its recipients and fields',
  description:
    'Only a draft: a sent document keeps its history (409 `document-not-draft`). It takes no body.',
  parameters: [idParameter],
  answers: success(
    200,
    'Deleted.',
    envelope(json(DeletedDocumentSchema)),
    one('deleted', { ok: true, data: deletedDocumentExample }),
  ),
  errors: [...documentWriteErrors, 'document-not-draft', ...bodyRefusals],
};

/** The named objects of the document writes; wherever one appears inline in the contract it becomes a `$ref`. */
export const sendingComponents = {
  NewDocument: CreateDocumentBody,
  NewDocumentPart: MultipartDocumentPart,
  RecipientInput: RecipientInputSchema,
  FieldInput: FieldInputSchema,
  DeletedDocument: DeletedDocumentSchema,
  WrittenDocument: WrittenDocumentSchema,
  SigningUrl: SigningUrlSchema,
};
