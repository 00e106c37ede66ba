// JSON schemas of the document read API: request validation and response serialisation,
// and the source for docs/api.md.

import { Type } from '@sinclair/typebox';
import { FieldSchema } from '../fields/fields.schemas.ts';
import { errorEnvelope, listEnvelope, okEnvelope } from '../http/envelope.ts';
import { Enum, Uuid } from '../http/schema-kinds.ts';
import { uuidPattern } from '../ids.ts';
import { maxCursorLength } from './cursor.ts';
import { documentEventTypes } from './events.ts';
import { documentStatuses, expiredReasons, recipientRoles, signingMethods } from './lifecycle.ts';

// Every area's schemas build on these (webhooks/endpoints.schemas.ts reads them from here).
export { Enum, FieldSchema, Uuid };

// `format` annotates what a value always is (the contract and its readers); nothing here
// validates a response, and fast-json-stringify writes these strings as they are.
/** A moment, as every timestamp of the API is written: ISO 8601 in UTC with milliseconds and Z. */
export const Timestamp = Type.String({
  format: 'date-time',
  description: 'ISO 8601 UTC with milliseconds and Z',
});
const NullableTimestamp = (description: string) => Type.Union([Timestamp, Type.Null()], { description });

export const DocumentStatusSchema = Enum(documentStatuses);

export const MoneySchema = Type.Object(
  {
    amount: Type.Number({ description: "In the currency's main unit (1234.5 is 1,234.50), excluding VAT" }),
    currency: Type.String({ description: 'ISO 4217 code' }),
  },
  { description: "The document's value, from its pricing block" },
);

export const DocumentSchema = Type.Object({
  id: Uuid,
  title: Type.String(),
  status: DocumentStatusSchema,
  url: Type.String({ description: 'The public signing address, `{public_url}/sign/{id}`' }),
  createdAt: Timestamp,
  sentAt: NullableTimestamp('Null until the document is sent'),
  signedAt: NullableTimestamp('Null until every signer has signed'),
  expiresAt: NullableTimestamp('Null when the document has no expiry'),
  withdrawnAt: NullableTimestamp(
    'When the sender withdrew the document (its status is then `expired`, and `expiresAt` the same moment); null otherwise',
  ),
  expiredReason: Type.Union([Enum(expiredReasons), Type.Null()], {
    description:
      'Why an `expired` document ended: `withdrawn` by its sender, or `lapsed` when its time ran out; null for every other status',
  }),
  value: Type.Union([MoneySchema, Type.Null()], {
    description: 'Null when the document has no pricing block',
  }),
});

export const RecipientSchema = Type.Object({
  id: Uuid,
  email: Type.String(),
  fullName: Type.String(),
  role: Enum(recipientRoles, { description: '`signer` must sign; `viewer` only receives the document' }),
  signingMethod: Enum(signingMethods, {
    description: '`standard`: the link, a typed name and consent; `email-code`: also a code mailed to them',
  }),
  signingOrder: Type.Integer({
    minimum: 1,
    description: 'Lower orders sign first; equal orders in parallel',
  }),
  signedAt: NullableTimestamp('Null until this recipient signs (always for viewers)'),
  language: Type.Union([Type.String(), Type.Null()], {
    description:
      'The language of their mails and signing page (a BCP 47 tag, e.g. `de`, `pt-BR`), as the sender chose it or they switched to; null: the workspace’s default language',
  }),
});

/** A recipient in the document detail: with why they declined, and the fields they fill. */
export const DetailRecipientSchema = Type.Composite([
  RecipientSchema,
  Type.Object({
    declinedAt: NullableTimestamp('Null unless this recipient declined to sign'),
    declineReason: Type.Union([Type.String(), Type.Null()], {
      description: 'The reason they gave when they declined; null when they gave none, or did not decline',
    }),
    fields: Type.Array(FieldSchema, {
      description: 'The fields placed for this recipient, in the order they were placed; empty for none',
    }),
  }),
]);

export const DocumentEventSchema = Type.Object({
  id: Uuid,
  type: Enum(documentEventTypes),
  recipientEmail: Type.Union([Type.String(), Type.Null()], {
    description: 'Null for events no recipient caused (`document.sent`, `document.completed`, …)',
  }),
  createdAt: Timestamp,
});

export const DocumentFileSchema = Type.Object({
  kind: Enum(['original', 'sealed'], {
    description: 'original: the PDF the signers saw; sealed: it with the certificate of completion, sealed',
  }),
  sha256: Type.String({ description: "The file's SHA-256, lower-case hex" }),
  bytes: Type.Integer({ minimum: 0 }),
  pages: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
  downloadUrl: Type.String({
    description:
      'Answers the PDF (Content-Disposition: attachment) without authentication for 15 minutes; outside /v1. Treat it as a secret.',
  }),
});

/** document.completed's document: as listed, with its files (no links: a body is kept and resent). */
export const CompletedDocumentSchema = Type.Composite([
  DocumentSchema,
  Type.Object({ files: Type.Array(Type.Omit(DocumentFileSchema, ['downloadUrl'])) }),
]);

export const DocumentDetailSchema = Type.Composite([
  DocumentSchema,
  Type.Object({
    language: Type.Union([Type.String(), Type.Null()], {
      description:
        'The language of its certificate of completion (a BCP 47 tag, e.g. `de`), as the sender chose it; null: the workspace’s default language when it is sealed',
    }),
    recipients: Type.Array(DetailRecipientSchema),
    events: Type.Array(DocumentEventSchema),
    files: Type.Array(DocumentFileSchema, {
      description:
        'The original PDF once the document has one (uploaded, or made from its text when sent), then the sealed PDF once made',
    }),
  }),
]);

/** A list's page size when the query gives no `limit` (the documents' and the templates'). */
export const defaultPageSize = 25;

// Query values arrive as strings; a repeated parameter arrives as an array and fails
// `type: string`. Patterns rather than coercion keep "010", "1.0" and "" out.
export const ListDocumentsQuery = Type.Object(
  {
    limit: Type.String({ pattern: '^(100|[1-9][0-9]?)$' }),
    cursor: Type.String({ minLength: 1, maxLength: maxCursorLength }),
    status: DocumentStatusSchema,
  },
  { additionalProperties: false },
);
export const ListDocumentsQueryPartial = Type.Partial(ListDocumentsQuery, { additionalProperties: false });

export const DocumentIdParams = Type.Object(
  { id: Type.String({ pattern: uuidPattern }) },
  { additionalProperties: false },
);

const errors = { '4xx': errorEnvelope, '5xx': errorEnvelope };

export const listDocumentsSchema = {
  querystring: ListDocumentsQueryPartial,
  response: { 200: listEnvelope(DocumentSchema), ...errors },
};

export const getDocumentSchema = {
  params: DocumentIdParams,
  // The detail view takes no parameters; any is refused rather than ignored.
  querystring: Type.Object({}, { additionalProperties: false }),
  response: { 200: okEnvelope(DocumentDetailSchema), ...errors },
};
