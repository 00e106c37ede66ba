// The contract's templates (issue 38): each path with its prose and examples, assembled by
// openapi.ts like the others from the schemas that validate the requests and serialise the
// answers (templates/templates.schemas.ts). Its examples follow openapi-examples.ts's
// workspace: the service level agreement as a template, its two roles, a price asked of its
// user, and documents made from it.
import type { ErrorCode } from '../http/errors.ts';
import {
  DeletedTemplateSchema,
  MadeDocumentsSchema,
  TemplateBody,
  TemplateSchema,
  TemplateSummarySchema,
  UseTemplateBody,
} from '../templates/templates.schemas.ts';
import { createdDocumentExample, signingUrlExample } from './openapi-examples.ts';
import {
  bodyRefusals,
  envelope,
  errorResponses,
  idempotencyParameter,
  idParameter,
  json,
  jsonBody,
  limitParameter,
  one,
  success,
} from './openapi-parts.ts';

const templateId = '6a8c0e2f-4b6d-4f8a-9c1e-3a5c7e9b1d4f';
const clientRole = '7b9d1f3a-5c7e-4a9b-8d2f-4b6d8f0a2c5e';
const companyRole = '8c0e2a4b-6d8f-4b0c-9e3a-5c7e9a1b3d6f';

const templateExample = {
  id: templateId,
  name: 'Service level agreement',
  title: 'Service level agreement',
  createdAt: '2026-03-01T10:00:00.000Z',
  updatedAt: '2026-03-01T10:20:00.000Z',
  documents: 12,
  text: 'Please sign the agreement for the coming year.',
  expiresInSeconds: 2592000,
  remindEveryDays: 3,
  file: {
    sha256: '1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a2c4e6a8b0d1f3a5c7e9b2d',
    bytes: 61204,
    pages: 2,
  },
  roles: [
    {
      id: clientRole,
      name: 'Client',
      role: 'signer',
      signingOrder: 1,
      signingMethod: 'standard',
      fields: [
        {
          id: '9d1f3b5c-7e9a-4c1d-8f4b-6d8f0b2c4e7a',
          type: 'signature',
          page: 2,
          x: 72,
          y: 120,
          width: 180,
          height: 48,
          required: true,
          label: null,
          maxLength: null,
          senderFills: false,
        },
        {
          id: 'ae2a4c6d-8f0b-4d2e-9a5c-7e9a1c3d5f8b',
          type: 'text',
          page: 1,
          x: 380,
          y: 640,
          width: 140,
          height: 20,
          required: true,
          label: 'Monthly fee',
          maxLength: null,
          senderFills: true,
        },
      ],
    },
    {
      id: companyRole,
      name: 'Company',
      role: 'signer',
      signingOrder: 2,
      signingMethod: 'email-code',
      fields: [
        {
          id: 'bf3b5d7e-9a1c-4e3f-8b6d-8f0b2d4e6a9c',
          type: 'signature',
          page: 2,
          x: 320,
          y: 120,
          width: 180,
          height: 48,
          required: true,
          label: null,
          maxLength: null,
          senderFills: false,
        },
      ],
    },
  ],
};

const {
  text: _text,
  expiresInSeconds: _e,
  remindEveryDays: _r,
  file: _f,
  roles: _roles,
  ...summary
} = templateExample;

const templateBodyExample = {
  name: 'Service level agreement',
  title: 'Service level agreement',
  text: 'Please sign the agreement for the coming year.',
  file: 'JVBERi0xLjcKJcfsj6IKMSAwIG9iago8PC9UeXBlL0NhdGFsb2cvUGFnZXMgMiAwIFI+PgplbmRvYmoK…',
  roles: [
    { name: 'Client', role: 'signer', signingOrder: 1, signingMethod: 'standard' },
    { name: 'Company', role: 'signer', signingOrder: 2, signingMethod: 'email-code' },
  ],
  fields: [
    { role: 'Client', type: 'signature', page: 2, x: 72, y: 120, width: 180, height: 48 },
    {
      role: 'Client',
      type: 'text',
      page: 1,
      x: 380,
      y: 640,
      width: 140,
      height: 20,
      label: 'Monthly fee',
      senderFills: true,
    },
    { role: 'Company', type: 'signature', page: 2, x: 320, y: 120, width: 180, height: 48 },
  ],
  remindEveryDays: 3,
};

/** A replacement keeps the PDF: no `file`. */
const { file: _file, ...replaceBodyExample } = templateBodyExample;

const useBodyExample = {
  items: [
    {
      recipients: {
        Client: { email: 'ann.lee@northwind.example', fullName: 'Ann Lee' },
        Company: { email: 'bob.ray@northwind.example', fullName: 'Bob Ray' },
      },
      values: { 'Monthly fee': '1,200 EUR' },
      send: true,
    },
    {
      recipients: {
        Client: { email: 'carl@', fullName: 'Carl Diaz' },
        Company: { email: 'bob.ray@northwind.example', fullName: 'Bob Ray' },
      },
      values: { 'Monthly fee': '900 EUR' },
      send: true,
    },
  ],
};

const madeExample = {
  documents: [{ index: 0, document: { ...createdDocumentExample, signingUrls: [] } }],
  refused: [{ index: 1, error: 'invalid-body', pointer: '/items/1/recipients/Client/email' }],
};

const writeErrors: ErrorCode[] = ['insufficient-scope', 'invalid-query'];

const itemIdempotency =
  'Optional: 1 to 255 visible ASCII characters. The key is bound to the whole request for 24 hours: the same key with another body (an item added, changed or given `send`) is 409 `idempotency-key-reused`, and nothing is made. Each item is also remembered on its own (the key and its index): a repeat of the same request answers the documents already made, as they are now, instead of making them again, and makes those that were refused or not reached.';

/** The template paths of the contract, and its named schemas. */
export function templatePaths() {
  return {
    '/templates': {
      get: {
        operationId: 'listTemplates',
        tags: ['Templates'],
        summary: 'The workspace’s templates, newest first, a page at a time',
        description:
          'A cursor the service did not issue (or issued more than 24 hours ago) is `invalid-cursor`.',
        parameters: [
          limitParameter(25),
          {
            name: 'cursor',
            in: 'query',
            required: false,
            schema: { type: 'string', minLength: 1, maxLength: 200 },
            description: 'The `nextCursor` of the previous page, as issued.',
          },
        ],
        responses: {
          ...success(
            200,
            'A page; `nextCursor` is null on the last one.',
            envelope(json(TemplateSummarySchema), true),
            one('page', { ok: true, data: [summary], nextCursor: null }),
          ),
          ...errorResponses(['invalid-query', 'invalid-cursor']),
        },
      },
      post: {
        operationId: 'createTemplate',
        tags: ['Templates'],
        summary: 'A new template (write key): a PDF, its roles and their fields',
        description:
          'JSON with the PDF in base64 (`file`), checked as a document’s PDF is (`invalid-file`) and counted in the day’s uploads. Roles stand where recipients would: each has a name unique in the template, a kind, a signing order and a method; each field belongs to a signing role, by its name. A field with `senderFills` (text or checkbox, with a label) is filled by whoever uses the template. Every problem is `invalid-body` with the `pointer` of the first (`/roles/1/name`, `/fields/3`).',
        requestBody: jsonBody(TemplateBody, one('create', templateBodyExample)),
        responses: {
          ...success(
            201,
            'Created.',
            envelope(json(TemplateSchema)),
            one('created', { ok: true, data: templateExample }),
          ),
          ...errorResponses([
            ...writeErrors,
            'invalid-body',
            'invalid-file',
            'upload-limit-reached',
            ...bodyRefusals,
          ]),
        },
      },
    },
    '/templates/{id}': {
      get: {
        operationId: 'getTemplate',
        tags: ['Templates'],
        summary: 'One template with its roles and their fields',
        description: 'Another workspace’s template is `not-found`, as a missing one.',
        parameters: [idParameter],
        responses: {
          ...success(
            200,
            'The template.',
            envelope(json(TemplateSchema)),
            one('template', { ok: true, data: templateExample }),
          ),
          ...errorResponses(['invalid-query', 'invalid-id', 'not-found']),
        },
      },
      put: {
        operationId: 'replaceTemplate',
        tags: ['Templates'],
        summary: 'Replaces a template whole (write key); without a `file` it keeps its PDF',
        description:
          'Checked as a create, and nothing changes when refused. Documents made from it before are not changed: they hold their own recipients, fields and file.',
        parameters: [idParameter],
        requestBody: jsonBody(TemplateBody, one('replace', replaceBodyExample)),
        responses: {
          ...success(
            200,
            'Replaced.',
            envelope(json(TemplateSchema)),
            one('replaced', { ok: true, data: templateExample }),
          ),
          ...errorResponses([
            ...writeErrors,
            'invalid-id',
            'not-found',
            'invalid-body',
            'invalid-file',
            'upload-limit-reached',
            ...bodyRefusals,
          ]),
        },
      },
      delete: {
        operationId: 'deleteTemplate',
        tags: ['Templates'],
        summary: 'Deletes a template (write key); documents made from it stay as they are',
        description:
          'Its roles and fields go with it. Documents made from it keep their recipients, fields and PDF (the file stays stored while a document points at it); they no longer name the template. It takes no body.',
        parameters: [idParameter],
        responses: {
          ...success(
            200,
            'Deleted.',
            envelope(json(DeletedTemplateSchema)),
            one('deleted', { ok: true, data: { id: templateId, deleted: true } }),
          ),
          ...errorResponses([...writeErrors, 'invalid-id', 'not-found', ...bodyRefusals]),
        },
      },
    },
    '/templates/{id}/documents': {
      post: {
        operationId: 'useTemplate',
        tags: ['Templates'],
        summary: 'Documents made from a template (write key), up to 100 in a request',
        description: `Each item names each role's person (\`recipients\`, by role name) and the values the template asks of you (\`values\`, by label), and may send at once (\`send\`) or leave the document you deliver yourself (\`delivery: "none"\`, its links in \`signingUrls\`). Each becomes an ordinary document (its PDF the template's own file, shared, not copied: no upload is counted), made and sent exactly as \`POST /documents\` makes and sends one, its webhooks included.

Items are made one by one, each on its own: the answer lists the documents made (\`documents\`, with each item's \`index\`) and the items refused (\`refused\`: the index, the code the item alone would have been answered with, and a pointer into this request such as \`/items/3/recipients/Client/email\` or \`/items/5/values/Monthly fee\`). A request whose shape is wrong is refused whole (\`invalid-body\`), nothing made. The rate limit counts the request once, whatever its items.`,
        parameters: [idParameter, { ...idempotencyParameter, description: itemIdempotency }],
        requestBody: jsonBody(UseTemplateBody, one('two documents', useBodyExample)),
        responses: {
          ...success(200, 'Each item made or refused.', envelope(json(MadeDocumentsSchema)), {
            'one made, one refused': { value: { ok: true, data: madeExample } },
            'delivery none': {
              value: {
                ok: true,
                data: {
                  documents: [
                    { index: 0, document: { ...createdDocumentExample, signingUrls: [signingUrlExample()] } },
                  ],
                  refused: [],
                },
              },
            },
          }),
          ...errorResponses([
            ...writeErrors,
            'invalid-id',
            'not-found',
            'invalid-body',
            'invalid-idempotency-key',
            'idempotency-key-reused',
            ...bodyRefusals,
          ]),
        },
      },
    },
  };
}

/** The named objects of the templates, for openapi.ts's components. */
export const templateComponents = {
  Template: TemplateSchema,
  TemplateSummary: TemplateSummarySchema,
  NewTemplate: TemplateBody,
  TemplateDocuments: UseTemplateBody,
  MadeDocuments: MadeDocumentsSchema,
  DeletedTemplate: DeletedTemplateSchema,
};
