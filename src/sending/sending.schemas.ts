// JSON schemas of the document writes of /v1 (issue 37): what `POST /v1/documents` takes, as
// JSON (the PDF in base64) or as multipart/form-data (a `document` part holding the same JSON
// without `file`, and a `file` part). The schemas check shapes and bound sizes; every rule of
// the web form (addresses, names, orders, pricing, the PDF itself, the fields on its pages) is
// the services' (draft-input.ts, fields/field-rules.ts, documents/pricing.ts), so the web, the
// CLI and the API refuse the same input. Also the source of the contract (sending.contract.ts).
import { Type } from '@sinclair/typebox';
import { DocumentDetailSchema, DocumentIdParams, Enum, Uuid } from '../documents/documents.schemas.ts';
import { recipientRoles, signingMethods } from '../documents/lifecycle.ts';
import { fieldTypes, fieldTypesInApi } from '../fields/field-types.ts';
import { errorEnvelope, okEnvelope } from '../http/envelope.ts';
import { languages } from '../i18n/languages.ts';
import { uuidPattern } from '../ids.ts';
import { maxRecipients } from './draft-input.ts';
import { autoReminderChoices } from './reminders.ts';

const text = (maxLength: number, description: string) => Type.String({ maxLength, description });

export const RecipientInputSchema = Type.Object(
  {
    email: text(320, 'Their email address; each recipient’s differs (ignoring case and look-alike letters)'),
    fullName: text(200, 'As it appears on the certificate; the signer types it to sign'),
    role: Type.Optional(
      Enum(recipientRoles, { description: '`signer` (the default) must sign; `viewer` only receives it' }),
    ),
    signingMethod: Type.Optional(
      Enum(signingMethods, {
        description:
          '`standard` (the default): the link, a typed name and consent; `email-code`: also a code mailed to them',
      }),
    ),
    signingOrder: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100,
        description: 'Lower orders are mailed and sign first; equal orders in parallel. 1 by default',
      }),
    ),
    language: Type.Optional(
      Type.Union([Type.String({ maxLength: 35 }), Type.Null()], {
        description: `The language of their mails and signing page, a BCP 47 tag: ${languages.map((l) => `\`${l}\``).join(', ')} (a region Signet has no catalogue of reads as its language, e.g. \`de-AT\` as \`de\`; stored as listed). Null or absent: the workspace’s default language`,
      }),
    ),
  },
  { additionalProperties: false },
);

export const FieldInputSchema = Type.Object(
  {
    recipient: text(320, 'The email of the signer who fills it, as given in `recipients`'),
    type: Enum(fieldTypes, { description: fieldTypesInApi }),
    page: Type.Integer({ minimum: 1, description: 'The page of the PDF, from 1' }),
    x: Type.Number({ description: 'PDF points from the left of the page as displayed' }),
    y: Type.Number({ description: 'PDF points from the bottom of the page as displayed' }),
    width: Type.Number({ description: 'PDF points, at least 6' }),
    height: Type.Number({ description: 'PDF points, at least 6' }),
    required: Type.Optional(Type.Boolean({ description: 'True by default' })),
    label: Type.Optional(Type.Union([text(100, 'Shown to the signer'), Type.Null()])),
    maxLength: Type.Optional(
      Type.Union([Type.Integer({ description: 'A text field’s most characters' }), Type.Null()]),
    ),
    value: Type.Optional(
      Type.Union(
        [
          text(500, 'A text field’s text'),
          Type.Boolean({ description: 'A checkbox ticked or not' }),
          Type.Null(),
        ],
        {
          description:
            'Filled in by you now (text and checkbox fields only): the recipient sees the value and cannot change it, and it is drawn in the sealed PDF. Null or absent: the recipient fills it',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

const PricingItemSchema = Type.Object(
  {
    name: Type.String(),
    quantity: Type.String({ description: 'A decimal written as a string, e.g. "2" or "0.5"' }),
    unitPrice: Type.String({ description: 'A decimal written as a string, e.g. "19.99"' }),
    vatRate: Type.String({ description: 'Percent, as a string, e.g. "20"' }),
    billing: Type.Union([
      Type.Object({ type: Type.Literal('one-off') }, { additionalProperties: false }),
      Type.Object(
        {
          type: Type.Literal('recurring'),
          interval: Enum(['week', 'month', 'quarter', 'year']),
          periods: Type.Integer({ minimum: 1 }),
        },
        { additionalProperties: false },
      ),
    ]),
  },
  { additionalProperties: false },
);

/**
 * The pricing table, as the CLI's JSON takes it; described here for readers and checked by
 * documents/pricing.ts (so a refusal points where its rule says, as on the web form).
 */
export const PricingInputSchema = Type.Unsafe<unknown>({
  description:
    'A pricing table drawn on the PDF made from `text` (and the document’s `value`): `{currency, pricesIncludeVat, items: [{name, quantity, unitPrice, vatRate, billing}]}`, amounts as decimal strings.',
  anyOf: [
    {
      type: 'object',
      properties: {
        currency: { type: 'string', description: 'ISO 4217 code, e.g. "EUR"' },
        pricesIncludeVat: { type: 'boolean' },
        items: { type: 'array', items: JSON.parse(JSON.stringify(PricingItemSchema)) },
      },
    },
    { type: 'null' },
  ],
});

/** The members of a new document (and, later, of a draft replaced whole), without its file. */
const documentMembers = {
  title: text(1000, 'At most 200 characters once trimmed'),
  text: Type.Optional(
    text(
      50_000,
      'The document’s text. Without a `file`, it is made into the PDF at sending (a document needs a PDF, a text or a pricing table to be sent)',
    ),
  ),
  recipients: Type.Array(RecipientInputSchema, {
    maxItems: maxRecipients,
    description: `1 to ${maxRecipients}, at least one signer`,
  }),
  fields: Type.Optional(
    Type.Array(FieldInputSchema, {
      maxItems: 200,
      description: 'Fields on the PDF’s pages for signers to fill; only with a PDF',
    }),
  ),
  pricing: Type.Optional(PricingInputSchema),
  expiresInSeconds: Type.Optional(
    Type.Integer({
      minimum: 60,
      maximum: 365 * 24 * 60 * 60,
      description: 'How long after sending it can be signed; 30 days (2592000) by default',
    }),
  ),
  remindEveryDays: Type.Optional(
    Type.Union([...autoReminderChoices.map((days) => Type.Literal(days)), Type.Null()], {
      description: `Remind pending signers every this many days (${autoReminderChoices.join(', ')}) until it expires; null (the default) for never`,
    }),
  ),
  language: Type.Optional(
    Type.Union([Type.String({ maxLength: 35 }), Type.Null()], {
      description: `The language of its certificate of completion, a BCP 47 tag: ${languages.map((l) => `\`${l}\``).join(', ')} (read as a recipient’s \`language\` is). Null or absent: the workspace’s default language when it is sealed. Each recipient’s mails and pages follow their own \`language\``,
    }),
  ),
  send: Type.Optional(Type.Boolean({ description: 'True: sent at once; false (the default): a draft' })),
  delivery: Type.Optional(
    Enum(['email', 'none'], {
      description:
        '`email` (the default): Signet mails each recipient their link, reminders, a withdrawal and the signed PDF. `none`: Signet mails no recipient; sending answers each link in `signingUrls` for you to deliver, and `signing-url` makes a fresh one',
    }),
  ),
};

export const CreateDocumentBody = Type.Object(
  {
    ...documentMembers,
    file: Type.Optional(
      Type.String({
        contentEncoding: 'base64',
        contentMediaType: 'application/pdf',
        description: 'The PDF, in base64 (JSON requests; a multipart request sends it as its `file` part)',
      }),
    ),
  },
  { additionalProperties: false },
);

/** The multipart request's `document` part: the same members, the file in its own part. */
export const MultipartDocumentPart = Type.Object(documentMembers, { additionalProperties: false });

/** A personal signing link handed to the integrator (`delivery: none`). */
export const SigningUrlSchema = Type.Object({
  recipientId: Uuid,
  email: Type.String(),
  url: Type.String({
    description:
      'The recipient’s personal signing link. A secret, shown once: whoever holds it acts as the recipient (an `email-code` signer also needs the code mailed to them)',
  }),
});

/** A document as a create or a send answers it: the detail, and the links the send made. */
export const WrittenDocumentSchema = Type.Composite([
  DocumentDetailSchema,
  Type.Object({
    signingUrls: Type.Array(SigningUrlSchema, {
      description:
        'The personal links this send made, for a document with `delivery: none` (each recipient whose turn has come; later ones when their turn comes, with `signing-url`). Empty for a mailed document, and for a draft',
    }),
  }),
]);

export const RecipientParams = Type.Object(
  { id: Type.String({ pattern: uuidPattern }), recipientId: Type.String({ pattern: uuidPattern }) },
  { additionalProperties: false },
);

export const WithdrawBody = Type.Object(
  {
    reason: Type.Optional(
      Type.String({ maxLength: 1000, description: 'Kept in the document’s history and its certificate' }),
    ),
  },
  { additionalProperties: false },
);

const errors = { '4xx': errorEnvelope, '5xx': errorEnvelope };
const NoQuery = Type.Object({}, { additionalProperties: false });

export const DeletedDocumentSchema = Type.Object(
  { id: Uuid, deleted: Type.Literal(true) },
  { description: 'The draft deleted, with its recipients and fields' },
);

export const createDocumentSchema = {
  querystring: NoQuery,
  body: CreateDocumentBody,
  response: { 201: okEnvelope(WrittenDocumentSchema), ...errors },
};

export const replaceDocumentSchema = {
  params: DocumentIdParams,
  querystring: NoQuery,
  body: CreateDocumentBody,
  response: { 200: okEnvelope(WrittenDocumentSchema), ...errors },
};

export const sendDocumentSchema = {
  params: DocumentIdParams,
  querystring: NoQuery,
  response: { 200: okEnvelope(WrittenDocumentSchema), ...errors },
};

export const remindSchema = {
  params: RecipientParams,
  querystring: NoQuery,
  response: { 200: okEnvelope(DocumentDetailSchema), ...errors },
};

export const withdrawSchema = {
  params: DocumentIdParams,
  querystring: NoQuery,
  body: WithdrawBody,
  response: { 200: okEnvelope(DocumentDetailSchema), ...errors },
};

export const signingUrlSchema = {
  params: RecipientParams,
  querystring: NoQuery,
  response: { 200: okEnvelope(SigningUrlSchema), ...errors },
};

export const deleteDocumentSchema = {
  params: DocumentIdParams,
  querystring: NoQuery,
  response: { 200: okEnvelope(DeletedDocumentSchema), ...errors },
};
