// The contract of the templates (issue 38, templates.routes.ts): the paged list, one template,
// its create, replacement and deletion, and documents made from it. Each operation sits beside
// the route that serves it, built from the schemas that validate the requests and serialise
// the answers (templates.schemas.ts); its examples are templates.examples.ts.
import { defaultPageSize } from '../documents/documents.schemas.ts';
import type { ErrorCode } from '../http/errors.ts';
import {
  bodyRefusals,
  cursorParameter,
  envelope,
  idempotencyParameter,
  idParameter,
  json,
  jsonBody,
  limitParameter,
  type Operation,
  one,
  success,
} from '../http/openapi-parts.ts';
import {
  madeDeliveryNoneExample,
  madeExample,
  replaceBodyExample,
  templateBodyExample,
  templateExample,
  templateId,
  templateSummaryExample,
  useBodyExample,
} from './templates.examples.ts';
import {
  DeletedTemplateSchema,
  MadeDocumentsSchema,
  TemplateBody,
  TemplateSchema,
  TemplateSummarySchema,
  UseTemplateBody,
} from './templates.schemas.ts';

const writeErrors: ErrorCode[] = ['insufficient-scope', 'invalid-query'];

const itemIdempotency =
  'Optional: 1 to 255 visible ASCII characters. The key is bound to the whole request for 24 hours: the same key with another body (an item added, changed or given `send`) is 409 `idempotency-key-reused`, and nothing is made. Each item is also remembered on its own (the key and its index): a repeat of the same request answers the documents already made, as they are now, instead of making them again, and makes those that were refused or not reached.';

export const listTemplatesOperation: Operation = {
  method: 'GET',
  path: '/templates',
  operationId: 'listTemplates',
  tag: 'Templates',
  summary: 'The workspace’s templates, newest first, a page at a time',
  description: 'A cursor the service did not issue (or issued more than 24 hours ago) is `invalid-cursor`.',
  parameters: [
    limitParameter(defaultPageSize),
    cursorParameter('The `nextCursor` of the previous page, as issued.'),
  ],
  answers: success(
    200,
    'A page; `nextCursor` is null on the last one.',
    envelope(json(TemplateSummarySchema), true),
    one('page', { ok: true, data: [templateSummaryExample], nextCursor: null }),
  ),
  errors: ['invalid-query', 'invalid-cursor'],
};

export const createTemplateOperation: Operation = {
  method: 'POST',
  path: '/templates',
  operationId: 'createTemplate',
  tag: 'Templates',
  summary: 'A new template (write key): a PDF, its roles and their fields',
  description:
    'JSON with the PDF in base64 (`file`), checked as a document’s PDF is (`invalid-file`) and counted in the day’s uploads. Roles stand where recipients would: each has a name unique in the template, a kind, a signing order and a method; each field belongs to a signing role, by its name. A field with `senderFills` (text or checkbox, with a label) is filled by whoever uses the template. Every problem is `invalid-body` with the `pointer` of the first (`/roles/1/name`, `/fields/3`).',
  requestBody: jsonBody(TemplateBody, one('create', templateBodyExample)),
  answers: success(
    201,
    'Created.',
    envelope(json(TemplateSchema)),
    one('created', { ok: true, data: templateExample }),
  ),
  errors: [...writeErrors, 'invalid-body', 'invalid-file', 'upload-limit-reached', ...bodyRefusals],
};

export const getTemplateOperation: Operation = {
  method: 'GET',
  path: '/templates/{id}',
  operationId: 'getTemplate',
  tag: 'Templates',
  summary: 'One template with its roles and their fields',
  description: 'Another workspace’s template is `not-found`, as a missing one.',
  parameters: [idParameter],
  answers: success(
    200,
    'The template.',
    envelope(json(TemplateSchema)),
    one('template', { ok: true, data: templateExample }),
  ),
  errors: ['invalid-query', 'invalid-id', 'not-found'],
};

export const replaceTemplateOperation: Operation = {
  method: 'PUT',
  path: '/templates/{id}',
  operationId: 'replaceTemplate',
  tag: 'Templates',
  summary: 'Replaces a template whole (write key); without a `file` it keeps its PDF',
  description:
    'Checked as a create, and nothing changes when refused. Documents made from it before are not changed: they hold their own recipients, fields and file.',
  parameters: [idParameter],
  requestBody: jsonBody(TemplateBody, one('replace', replaceBodyExample)),
  answers: success(
    200,
    'Replaced.',
    envelope(json(TemplateSchema)),
    one('replaced', { ok: true, data: templateExample }),
  ),
  errors: [
    ...writeErrors,
    'invalid-id',
    'not-found',
    'invalid-body',
    'invalid-file',
    'upload-limit-reached',
    ...bodyRefusals,
  ],
};

export const deleteTemplateOperation: Operation = {
  method: 'DELETE',
  path: '/templates/{id}',
  operationId: 'deleteTemplate',
  tag: 'Templates',
  summary: 'Deletes a template (write key); documents made from it stay as they are',
  description:
    'Its roles and fields go with it. Documents made from it keep their recipients, fields and PDF (the file stays stored while a document points at it); they no longer name the template. It takes no body.',
  parameters: [idParameter],
  answers: success(
    200,
    'Deleted.',
    envelope(json(DeletedTemplateSchema)),
    one('deleted', { ok: true, data: { id: templateId, deleted: true } }),
  ),
  errors: [...writeErrors, 'invalid-id', 'not-found', ...bodyRefusals],
};

export const useTemplateOperation: Operation = {
  method: 'POST',
  path: '/templates/{id}/documents',
  operationId: 'useTemplate',
  tag: 'Templates',
  summary: 'Documents made from a template (write key), up to 100 in a request',
  description: `Each item names each role's person (\`recipients\`, by role name) and the values the template asks of you (\`values\`, by label), and may send at once (\`send\`) or leave the document you deliver yourself (\`delivery: "none"\`, its links in \`signingUrls\`). Each becomes an ordinary document (its PDF the template's own file, shared, not copied: no upload is counted), made and sent exactly as \`POST /documents\` makes and sends one, its webhooks included.

Items are made one by one, each on its own: the answer lists the documents made (\`documents\`, with each item's \`index\`) and the items refused (\`refused\`: the index, the code the item alone would have been answered with, and a pointer into this request such as \`/items/3/recipients/Client/email\` or \`/items/5/values/Monthly fee\`). A request whose shape is wrong is refused whole (\`invalid-body\`), nothing made. The rate limit counts the request once, whatever its items.`,
  parameters: [idParameter, idempotencyParameter(itemIdempotency)],
  requestBody: jsonBody(UseTemplateBody, one('two documents', useBodyExample)),
  answers: success(200, 'Each item made or refused.', envelope(json(MadeDocumentsSchema)), {
    'one made, one refused': { value: { ok: true, data: madeExample } },
    'delivery none': { value: { ok: true, data: madeDeliveryNoneExample } },
  }),
  errors: [
    ...writeErrors,
    'invalid-id',
    'not-found',
    'invalid-body',
    'invalid-idempotency-key',
    'idempotency-key-reused',
    ...bodyRefusals,
  ],
};

/** The named objects of the templates; wherever one appears inline in the contract it becomes a `$ref`. */
export const templateComponents = {
  Template: TemplateSchema,
  TemplateSummary: TemplateSummarySchema,
  NewTemplate: TemplateBody,
  TemplateDocuments: UseTemplateBody,
  MadeDocuments: MadeDocumentsSchema,
  DeletedTemplate: DeletedTemplateSchema,
};
