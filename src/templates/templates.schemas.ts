// JSON schemas of /v1's templates (issue 38): a template read, listed, created and replaced
// (JSON, the PDF in base64), and documents made from one, up to 100 in a request. Shapes and
// bounds only: every rule is the services' (template-input.ts, use-template.ts, and the
// document's own through sending/), so the web and the API refuse the same input. Also the
// source of the contract (templates.contract.ts).
import { Type } from '@sinclair/typebox';
import { DocumentIdParams } from '../documents/documents.schemas.ts';
import { recipientRoles, signingMethods } from '../documents/lifecycle.ts';
import { fieldTypes, fieldTypesInApi } from '../fields/field-types.ts';
import { errorEnvelope, listEnvelope, okEnvelope } from '../http/envelope.ts';
import { Enum, Uuid } from '../http/schema-kinds.ts';
import { languages } from '../i18n/languages.ts';
import { maxRecipients } from '../sending/draft-input.ts';
import { autoReminderChoices } from '../sending/reminders.ts';
import { WrittenDocumentSchema } from '../sending/sending.schemas.ts';
import { maxRoleNameLength, maxTemplateNameLength } from './template-input.ts';

const text = (maxLength: number, description: string) => Type.String({ maxLength, description });

/** Documents made from a template in one request, at most. */
export const maxTemplateItems = 100;

const roleMembers = {
  name: text(maxRoleNameLength, 'How the role is called, e.g. "Client": unique in the template (case aside)'),
  role: Enum(recipientRoles, { description: '`signer` must sign; `viewer` only receives the document' }),
  signingOrder: Type.Integer({
    minimum: 1,
    maximum: 100,
    description: 'Lower orders are mailed and sign first; equal orders in parallel',
  }),
  signingMethod: Enum(signingMethods, {
    description: '`standard`: the link, a typed name and consent; `email-code`: also a code mailed to them',
  }),
  language: Type.Optional(
    Type.Union([Type.String({ maxLength: 35 }), Type.Null()], {
      description: `The language its recipient's mails and signing page default to, a BCP 47 tag: ${languages.map((l) => `\`${l}\``).join(', ')} (read as a recipient’s \`language\` is). Null or absent: the workspace’s default language. A use of the template may give each person their own`,
    }),
  ),
};

const placement = {
  type: Enum(fieldTypes, { description: fieldTypesInApi }),
  page: Type.Integer({ minimum: 1, description: 'The page of the PDF, from 1' }),
  x: Type.Number({ description: 'PDF points from the left of the page as displayed' }),
  y: Type.Number({ description: 'PDF points from the bottom of the page as displayed' }),
  width: Type.Number({ description: 'PDF points, at least 6' }),
  height: Type.Number({ description: 'PDF points, at least 6' }),
};

export const TemplateRoleInputSchema = Type.Object(roleMembers, { additionalProperties: false });

export const TemplateFieldInputSchema = Type.Object(
  {
    role: text(maxRoleNameLength, 'The name of the signing role that fills it, as given in `roles`'),
    ...placement,
    required: Type.Optional(Type.Boolean({ description: 'True by default' })),
    label: Type.Optional(Type.Union([text(100, 'Shown to the signer'), Type.Null()])),
    maxLength: Type.Optional(
      Type.Union([Type.Integer({ description: 'A text field’s most characters' }), Type.Null()]),
    ),
    senderFills: Type.Optional(
      Type.Boolean({
        description:
          'True: whoever uses the template gives its value (a text or checkbox field, with a `label`: the value is asked for by it), and the signer sees it filled. False (the default): the signer fills it',
      }),
    ),
  },
  { additionalProperties: false },
);

const templateMembers = {
  name: text(maxTemplateNameLength, 'How the template is listed'),
  title: text(1000, 'The title of the documents made from it; at most 200 characters once trimmed'),
  text: Type.Optional(text(50_000, 'The message of the documents made from it')),
  roles: Type.Array(TemplateRoleInputSchema, {
    minItems: 1,
    maxItems: maxRecipients,
    description: `1 to ${maxRecipients}, at least one signer`,
  }),
  fields: Type.Optional(
    Type.Array(TemplateFieldInputSchema, {
      maxItems: 200,
      description: 'Fields on the PDF’s pages, each for a signing role',
    }),
  ),
  expiresInSeconds: Type.Optional(
    Type.Integer({
      minimum: 60,
      maximum: 365 * 24 * 60 * 60,
      description: 'How long after sending its documents can be signed; 30 days (2592000) by default',
    }),
  ),
  remindEveryDays: Type.Optional(
    Type.Union([...autoReminderChoices.map((days) => Type.Literal(days)), Type.Null()], {
      description: `Remind pending signers every this many days (${autoReminderChoices.join(', ')}); null (the default) for never`,
    }),
  ),
  file: Type.Optional(
    Type.String({
      contentEncoding: 'base64',
      contentMediaType: 'application/pdf',
      description:
        'The PDF, in base64: required to create a template; to replace one, without it the template keeps its PDF',
    }),
  ),
};

export const TemplateBody = Type.Object(templateMembers, { additionalProperties: false });

const TemplateFieldSchema = Type.Object({
  id: Uuid,
  ...placement,
  required: Type.Boolean(),
  label: Type.Union([Type.String(), Type.Null()]),
  maxLength: Type.Union([Type.Integer(), Type.Null()]),
  senderFills: Type.Boolean({ description: 'Whoever uses the template gives its value, by its label' }),
});

const TemplateRoleSchema = Type.Object({
  id: Uuid,
  ...roleMembers,
  fields: Type.Array(TemplateFieldSchema),
});

export const TemplateSummarySchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  title: Type.String({ description: 'The title of the documents made from it' }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
  documents: Type.Integer({ minimum: 0, description: 'How many documents were made from it' }),
});

export const TemplateSchema = Type.Composite([
  TemplateSummarySchema,
  Type.Object({
    text: Type.String({ description: 'The message of the documents made from it' }),
    expiresInSeconds: Type.Integer(),
    remindEveryDays: Type.Union([Type.Integer(), Type.Null()]),
    file: Type.Object({
      sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
      bytes: Type.Integer(),
      pages: Type.Integer(),
    }),
    roles: Type.Array(TemplateRoleSchema, { description: 'In order, each with the fields it fills' }),
  }),
]);

const PersonSchema = Type.Object(
  {
    email: text(320, 'Their email address'),
    fullName: text(200, 'As it appears on the certificate; a signer types it to sign'),
    language: Type.Optional(
      Type.Union([Type.String({ maxLength: 35 }), Type.Null()], {
        description:
          'The language of their mails and signing page (a BCP 47 tag, read as a recipient’s `language` is); null or absent: their role’s default, else the workspace’s',
      }),
    ),
  },
  { additionalProperties: false },
);

export const TemplateItemSchema = Type.Object(
  {
    recipients: Type.Record(Type.String({ maxLength: maxRoleNameLength }), PersonSchema, {
      description: 'Each role’s person, by the role’s name (case aside): every role needs one',
    }),
    values: Type.Optional(
      Type.Record(Type.String({ maxLength: 100 }), Type.Union([text(500, 'A text'), Type.Boolean()]), {
        description:
          'The values the template asks of you (its fields with `senderFills`), by their label; fields sharing a label share the value. A required one needs a value; an optional one left out is left empty',
      }),
    ),
    title: Type.Optional(text(1000, 'Instead of the template’s')),
    text: Type.Optional(text(50_000, 'Instead of the template’s')),
    send: Type.Optional(Type.Boolean({ description: 'True: sent at once; false (the default): a draft' })),
    delivery: Type.Optional(
      Enum(['email', 'none'], { description: 'As when creating a document: `none` mails no recipient' }),
    ),
  },
  { additionalProperties: false },
);

export const UseTemplateBody = Type.Object(
  {
    items: Type.Array(TemplateItemSchema, {
      minItems: 1,
      maxItems: maxTemplateItems,
      description: `1 to ${maxTemplateItems} documents to make, each on its own: a refused item leaves the others made`,
    }),
  },
  { additionalProperties: false },
);

export const MadeDocumentsSchema = Type.Object({
  documents: Type.Array(
    Type.Object({
      index: Type.Integer({ minimum: 0, description: 'The item’s place in `items`, from 0' }),
      document: WrittenDocumentSchema,
    }),
    { description: 'The documents made, in the items’ order' },
  ),
  refused: Type.Array(
    Type.Object({
      index: Type.Integer({ minimum: 0 }),
      error: Type.String({ description: 'The code the item alone would have been answered with' }),
      pointer: Type.String({
        description: 'A JSON Pointer into the request body, e.g. `/items/3/recipients/Client/email`',
      }),
    }),
    { description: 'The items refused, in order: nothing was made for them' },
  ),
});

const errors = { '4xx': errorEnvelope, '5xx': errorEnvelope };
const NoQuery = Type.Object({}, { additionalProperties: false });
export const TemplateIdParams = DocumentIdParams;

export const ListTemplatesQuery = Type.Partial(
  Type.Object(
    {
      limit: Type.String({ pattern: '^(100|[1-9][0-9]?)$' }),
      cursor: Type.String({ minLength: 1, maxLength: 200 }),
    },
    { additionalProperties: false },
  ),
  { additionalProperties: false },
);

export const listTemplatesSchema = {
  querystring: ListTemplatesQuery,
  response: { 200: listEnvelope(TemplateSummarySchema), ...errors },
};
export const getTemplateSchema = {
  params: TemplateIdParams,
  querystring: NoQuery,
  response: { 200: okEnvelope(TemplateSchema), ...errors },
};
export const createTemplateSchema = {
  querystring: NoQuery,
  body: TemplateBody,
  response: { 201: okEnvelope(TemplateSchema), ...errors },
};
export const replaceTemplateSchema = {
  params: TemplateIdParams,
  querystring: NoQuery,
  body: TemplateBody,
  response: { 200: okEnvelope(TemplateSchema), ...errors },
};
export const DeletedTemplateSchema = Type.Object(
  { id: Uuid, deleted: Type.Literal(true) },
  { description: 'The template deleted; documents made from it keep everything they need' },
);
export const deleteTemplateSchema = {
  params: TemplateIdParams,
  querystring: NoQuery,
  response: { 200: okEnvelope(DeletedTemplateSchema), ...errors },
};
export const useTemplateSchema = {
  params: TemplateIdParams,
  querystring: NoQuery,
  body: UseTemplateBody,
  response: { 200: okEnvelope(MadeDocumentsSchema), ...errors },
};
