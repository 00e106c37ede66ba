// The OpenAPI 3.1 contract of /v1, assembled from the very schemas that validate requests
// and serialise responses (documents.schemas.ts, endpoints.schemas.ts, envelope.ts) and
// from the one table of error codes (errors.ts): no field or schema is restated here, only
// the prose for readers (summaries, Markdown descriptions) and the examples
// (openapi-examples.ts). Served at GET /v1/openapi.json and committed as docs/openapi.json
// (`npm run openapi`); a test fails when the two differ, and `npm run check` lints it.
// Deliveries are described as OpenAPI `webhooks`. This module owns the assembly: the API's
// description and tags, each path and webhook with its prose, and the named components every
// inline copy becomes a `$ref` to (`useComponents`); the parts operations are built from
// (envelopes, error responses, parameters, a webhook's operation) are openapi-parts.ts.
import { eventStreamDefaults } from '../config.ts';
import {
  CompletedDocumentSchema,
  DetailRecipientSchema,
  DocumentDetailSchema,
  DocumentEventSchema,
  DocumentFileSchema,
  DocumentSchema,
  FieldSchema,
  MoneySchema,
  RecipientSchema,
} from '../documents/documents.schemas.ts';
import { documentEventTypes } from '../documents/events.ts';
import { type ErrorCode, errorStatus } from '../http/errors.ts';
import {
  CreateDocumentBody,
  DeletedDocumentSchema,
  FieldInputSchema,
  MultipartDocumentPart,
  RecipientInputSchema,
  SigningUrlSchema,
  WithdrawBody,
  WrittenDocumentSchema,
} from '../sending/sending.schemas.ts';
import {
  AttemptSchema,
  CreatedEndpointSchema,
  CreateEndpointBody,
  DeletedSchema,
  DeliverySchema,
  EndpointSchema,
  ResendResultSchema,
  RotatedEndpointSchema,
  RotateSecretBody,
  UpdateEndpointBody,
} from '../webhooks/endpoints.schemas.ts';
import { heartbeatMs, reconnectMs } from '../webhooks/event-stream.ts';
import * as examples from './openapi-examples.ts';
import {
  answerHeaders,
  bodyRefusals,
  envelope,
  errorResponses,
  idempotencyParameter,
  idParameter,
  json,
  jsonBody,
  limitParameter,
  one,
  queryParameters,
  success,
  webhook,
} from './openapi-parts.ts';
import { templateComponents, templatePaths } from './openapi-templates.ts';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

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
          recipients: examples.createDocumentBodyExample.recipients,
        },
        file: '%PDF-1.7 … (the file’s bytes)',
      }),
    },
  };
}

/** What every write on an existing document can answer: a read key, a bad id or query, another workspace's id. */
const documentWriteErrors: ErrorCode[] = ['insufficient-scope', 'invalid-id', 'invalid-query', 'not-found'];

const documentIdempotency =
  'Optional: 1 to 255 visible ASCII characters. The same key, operation and body (the PDF included) within 24 hours answers the document as it is now (with `Idempotent-Replayed: true`) instead of changing anything again; if it was deleted since, 404 `not-found`. The same key with another operation or body is 409 `idempotency-key-reused`. Refusals are not remembered.';

const replayedHeader = {
  'Idempotent-Replayed': {
    description:
      '`true` when an earlier request with the same `Idempotency-Key` and body made the change; absent otherwise.',
    schema: { type: 'string', const: 'true' },
  },
};

/** The named objects of the contract; wherever one appears inline it becomes a `$ref` (`useComponents`). */
const componentSchemas = {
  Document: DocumentSchema,
  Money: MoneySchema,
  CompletedDocument: CompletedDocumentSchema,
  DocumentDetail: DocumentDetailSchema,
  Recipient: RecipientSchema,
  DetailRecipient: DetailRecipientSchema,
  Field: FieldSchema,
  DocumentEvent: DocumentEventSchema,
  DocumentFile: DocumentFileSchema,
  NewDocument: CreateDocumentBody,
  NewDocumentPart: MultipartDocumentPart,
  RecipientInput: RecipientInputSchema,
  FieldInput: FieldInputSchema,
  DeletedDocument: DeletedDocumentSchema,
  WrittenDocument: WrittenDocumentSchema,
  SigningUrl: SigningUrlSchema,
  WebhookEndpoint: EndpointSchema,
  CreatedWebhookEndpoint: CreatedEndpointSchema,
  RotatedWebhookEndpoint: RotatedEndpointSchema,
  DeletedWebhookEndpoint: DeletedSchema,
  WebhookDelivery: DeliverySchema,
  DeliveryAttempt: AttemptSchema,
  ResendResult: ResendResultSchema,
  ...templateComponents,
};

/**
 * Replaces every inline copy of a component schema (TypeBox composes by copying) with a
 * `$ref` to it, outermost first, so each object is described once and named wherever it
 * appears. Examples are values, not schemas: left alone.
 */
function useComponents<T>(node: T, components: Map<string, string>, self?: string): T {
  if (Array.isArray(node)) return node.map((item) => useComponents(item, components)) as T;
  if (node === null || typeof node !== 'object') return node;
  const name = components.get(JSON.stringify(node));
  if (name && name !== self) return ref(name) as T;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === 'examples' || key === 'example' ? value : useComponents(value, components),
    ]),
  ) as T;
}

const apiDescription = `Read a workspace's documents, create and send them, and manage the webhook endpoints Signet sends their events to.

- **Authentication**: every request carries \`Authorization: Bearer <API key>\`. Keys (\`sgn_…\`) are created and revoked in the web application (Settings → Integrations); the workspace must be on the Max plan.
- **Scopes**: a key reads (the default: documents, and webhook endpoints to manage); a key created with write access (\`signet key create --scope write\`, or *Read and write* in the web application, owners only) also creates, sends and deletes documents. A read key asking for those is 403 \`insufficient-scope\`, before its body is read.
- **Envelope**: every answer is JSON with a boolean \`ok\`: \`{"ok": true, "data": …}\` (lists add \`nextCursor\`), or \`{"ok": false, "error": "<code>"}\` with a stable code and no message; a refused request body adds \`pointer\`, a JSON Pointer to the member at fault (\`/recipients/1/email\`).
- **Rate limit**: a token bucket per key, 120 requests of burst refilled at 1 per second. Every answer carries \`X-RateLimit-Limit\` and \`X-RateLimit-Remaining\`; an empty bucket is 429 \`rate-limited\` with \`Retry-After\`.
- **Errors outside operations**: a method a path does not have is 405 \`method-not-allowed\` (with \`Allow\`); HTTP refused before any route is 400 \`malformed-request\`, 408 \`request-timeout\` or 431 \`header-too-large\`. \`x-error-codes\` lists every code with its status.
- **Pagination**: pass the \`nextCursor\` of a page as \`cursor\` for the next; null marks the last page. Cursors are opaque.
- **Conventions**: ids are UUIDs, timestamps ISO 8601 in UTC with milliseconds (\`2026-03-01T12:00:00.000Z\`), and a field without a value is \`null\`, never omitted.`;

export function buildOpenApiDocument(options: {
  serverUrl: string;
  version: string;
}): Record<string, unknown> {
  const documentEvent = {
    type: 'object',
    required: ['document', 'recipient'],
    properties: {
      document: json(DocumentSchema),
      recipient: {
        anyOf: [json(RecipientSchema), { type: 'null' }],
        description: 'The recipient who caused the event; null for events no recipient caused.',
      },
    },
  };
  // document.completed's document also carries its files (as in the detail, without links).
  const completedEvent = {
    ...documentEvent,
    properties: { ...documentEvent.properties, document: json(CompletedDocumentSchema) },
  };
  const components = Object.fromEntries(
    Object.entries(componentSchemas).map(([name, schema]) => [name, json(schema)]),
  );
  const byJson = new Map(Object.entries(components).map(([name, schema]) => [JSON.stringify(schema), name]));
  const document = {
    openapi: '3.1.0',
    info: {
      title: 'Signet API',
      version: options.version,
      description: apiDescription,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: options.serverUrl, description: 'This installation' }],
    security: [{ bearer: [] }],
    tags: [
      {
        name: 'Documents',
        description:
          "The workspace's documents: a paged list, one in detail; with a write key, new documents (drafts, or sent at once), a draft sent or deleted.",
      },
      {
        name: 'Events',
        description:
          'The workspace’s events as a stream (server-sent events), for `signet listen` and tools like it: the same bodies webhooks carry, without registering an endpoint.',
      },
      {
        name: 'Templates',
        description:
          'A PDF with its fields placed once for roles ("Client", "Company"), and documents made from it: any key reads them; a write key makes, replaces and deletes them, and makes up to 100 documents from one in a request.',
      },
      {
        name: 'Webhook endpoints',
        description: 'Where Signet sends events (at most 10 per workspace), and their delivery log.',
      },
      {
        name: 'Webhooks',
        description:
          'What Signet POSTs to your endpoints: signed with the endpoint secret (`X-Service-Signature`), retried 3 times, at least once per delivery id.',
      },
    ],
    // Every error code and its status, the spec's and the HTTP-level ones (a method a path
    // does not have is 405 method-not-allowed, with Allow, on every path).
    'x-error-codes': { ...errorStatus },
    paths: {
      '/documents': {
        get: {
          operationId: 'listDocuments',
          tags: ['Documents'],
          summary: 'The workspace’s documents, newest first, a page at a time',
          description:
            'Newest first (by `createdAt`, then `id`). A parameter out of range, repeated, empty or not recognised is `invalid-query`; a cursor the service did not issue (or issued for another `status`, or more than 24 hours ago) is `invalid-cursor`.',
          parameters: queryParameters(),
          responses: {
            ...success(
              200,
              'A page; `nextCursor` is null on the last one.',
              envelope(json(DocumentSchema), true),
              one('page', examples.documentListExample),
            ),
            ...errorResponses(['invalid-query', 'invalid-cursor']),
          },
        },
        post: {
          operationId: 'createDocument',
          tags: ['Documents'],
          summary: 'A new document (write key): a draft, or sent at once with `send: true`',
          description: `Takes what the web application's new-document form takes: a title, the PDF (or a \`text\` made into the PDF at sending), the recipients, the fields on the PDF's pages, a pricing table, expiry and automatic reminders. Send it as JSON with the PDF in base64 (\`file\`), or as \`multipart/form-data\` with a \`document\` part holding the same JSON without \`file\` and a \`file\` part holding the PDF (no base64: a third smaller).

Every check of the web form applies, and nothing is stored when one fails: the body's shape (\`invalid-body\`), then every rule (addresses, names, orders, the PDF's pages for each field, pricing), then the PDF itself (\`invalid-file\`: not a PDF, encrypted, cut off, too many pages). The answer's \`pointer\` names the member at fault: \`/recipients/1/email\`, \`/fields/3\`, \`/file\`. A PDF over the upload limit is 413 \`payload-too-large\`; past the workspace's uploads for the day, 429 \`upload-limit-reached\`. With \`send: true\`, a document with nothing to sign (no PDF, no text, no pricing) is 409 \`document-not-sendable\`, nothing stored.

Sent, the first signing group is mailed its personal links at once, later groups as their turn comes, exactly as from the web application, and \`document.sent\` is delivered to your endpoints. With \`delivery: "none"\`, Signet mails no recipient anything (nor reminders, a withdrawal or the signed PDF; the workspace's owners still get it): the answer's \`signingUrls\` holds the first group's links for you to deliver, once, and \`signing-url\` makes the later ones. With an \`Idempotency-Key\`, a repeat of the same body answers the document as it is now (with \`Idempotent-Replayed: true\`) instead of making a second one; a create with \`send: true\` whose send did not happen is sent by the repeat. The key covers the whole body, \`send\` included: a repeat that adds \`send: true\` to a draft's create is 409 \`idempotency-key-reused\` (send the draft with \`POST /documents/{id}/send\`).`,
          parameters: [{ ...idempotencyParameter, description: documentIdempotency }],
          requestBody: {
            required: true,
            content: documentContent(one('sent at once', examples.createDocumentBodyExample)),
          },
          responses: {
            ...success(
              201,
              'Created (and sent, with `send: true`): the document in detail, and the links made for a document you deliver yourself.',
              envelope(json(WrittenDocumentSchema)),
              examples.writtenExamples,
              replayedHeader,
            ),
            ...errorResponses([
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
            ]),
          },
        },
      },
      '/documents/{id}/recipients/{recipientId}/remind': {
        post: {
          operationId: 'remindRecipient',
          tags: ['Documents'],
          summary: 'Mails a signer their link again (write key), as the web application’s Remind does',
          description:
            'Only a signer whose turn it is, who has their link and has not signed (409 `recipient-not-remindable`; also for a document you deliver yourself: its reminders are yours to send), of a document out for signature (409 `document-not-active`), at most once an hour per signer (429 `reminded-recently`, `Retry-After` saying when the next may go). The link is the one first mailed. `reminder.sent` goes into the document’s history and certificate. It takes no body. With an `Idempotency-Key`, a repeat answers the document as it is now and mails nothing again.',
          parameters: [
            idParameter,
            recipientIdParameter,
            { ...idempotencyParameter, description: documentIdempotency },
          ],
          responses: {
            ...success(
              200,
              'Reminded: the document in detail.',
              envelope(json(DocumentDetailSchema)),
              one('reminded', { ok: true, data: examples.createdDocumentExample }),
              replayedHeader,
            ),
            ...errorResponses([
              ...documentWriteErrors,
              'document-not-active',
              'recipient-not-remindable',
              'reminded-recently',
              'invalid-idempotency-key',
              'idempotency-key-reused',
              ...bodyRefusals,
            ]),
          },
        },
      },
      '/documents/{id}/withdraw': {
        post: {
          operationId: 'withdrawDocument',
          tags: ['Documents'],
          summary: 'Withdraws a document out for signature (write key): it ends at once, as expired',
          description:
            'As the web application’s Withdraw: the status becomes `expired` (`document.expired` is delivered, `expiresAt` and `withdrawnAt` are the moment of withdrawal, and `expiredReason` is `withdrawn`, in the answer, the list and the event’s `data.document` alike, where a lapse of time says `lapsed`), the links only say it was withdrawn, and every recipient who had been mailed it is told (nobody, for a document you deliver yourself). The history and the certificate say it was withdrawn, by which key (its name), and the `reason` if given. A draft, or a document that has ended, is 409 `document-not-active`. The body is optional. With an `Idempotency-Key`, a repeat answers the document as it is now instead of `document-not-active`.',
          parameters: [idParameter, { ...idempotencyParameter, description: documentIdempotency }],
          requestBody: {
            ...jsonBody(WithdrawBody, one('with a reason', { reason: 'The client chose another supplier.' })),
            required: false,
          },
          responses: {
            ...success(
              200,
              'Withdrawn: the document in detail.',
              envelope(json(DocumentDetailSchema)),
              one('withdrawn', { ok: true, data: examples.withdrawnDocumentExample }),
              replayedHeader,
            ),
            ...errorResponses([
              ...documentWriteErrors,
              'document-not-active',
              'invalid-body',
              'invalid-idempotency-key',
              'idempotency-key-reused',
              ...bodyRefusals,
            ]),
          },
        },
      },
      '/documents/{id}/recipients/{recipientId}/signing-url': {
        post: {
          operationId: 'renewSigningUrl',
          tags: ['Documents'],
          summary: 'A fresh personal signing link (write key), for a document you deliver yourself',
          description:
            'For a document created with `delivery: "none"` and out for signature: a new link for a recipient whose turn has come (409 `recipient-not-invited` before it); the one before stops working at once. Use it to send a later signing group its links (sending answered only the first group’s) or to replace a link that was lost or leaked. A document Signet mails is 409 `document-delivered-by-mail`: a fresh link would break the one in the recipient’s mail. Shown once: keep it as a secret. It takes no body. With an `Idempotency-Key`, a repeat answers the same link.',
          parameters: [
            idParameter,
            recipientIdParameter,
            { ...idempotencyParameter, description: documentIdempotency },
          ],
          responses: {
            ...success(
              200,
              'The new link.',
              envelope(json(SigningUrlSchema)),
              one('link', { ok: true, data: examples.signingUrlExample() }),
              replayedHeader,
            ),
            ...errorResponses([
              ...documentWriteErrors,
              'document-not-active',
              'document-delivered-by-mail',
              'recipient-not-invited',
              'invalid-idempotency-key',
              'idempotency-key-reused',
              ...bodyRefusals,
            ]),
          },
        },
      },
      '/documents/{id}/send': {
        post: {
          operationId: 'sendDocument',
          tags: ['Documents'],
          summary: 'Sends a draft (write key), as the web application’s Send does',
          description:
            'The first signing group is mailed at once, later groups as their turn comes; a draft without a PDF gets one made from its text. A document that is not a draft is 409 `document-not-draft`; a draft with no signer or nothing to sign, 409 `document-not-sendable`. It takes no body. With an `Idempotency-Key`, a repeat answers the document as it is now instead of `document-not-draft`.',
          parameters: [idParameter, { ...idempotencyParameter, description: documentIdempotency }],
          responses: {
            ...success(
              200,
              'Sent: the document in detail, and the links made for a document you deliver yourself.',
              envelope(json(WrittenDocumentSchema)),
              examples.writtenExamples,
              replayedHeader,
            ),
            ...errorResponses([
              ...documentWriteErrors,
              'document-not-draft',
              'document-not-sendable',
              'invalid-idempotency-key',
              'idempotency-key-reused',
              ...bodyRefusals,
            ]),
          },
        },
      },
      '/documents/{id}': {
        get: {
          operationId: 'getDocument',
          tags: ['Documents'],
          summary: 'One document with its recipients and events',
          description:
            'A document that does not exist in your workspace, including one in another workspace, is `not-found`: the same answer either way. The route takes no query parameters (any is `invalid-query`). A file’s `downloadUrl` works for 15 minutes without a key: fetch the detail again for fresh links.',
          parameters: [idParameter],
          responses: {
            ...success(
              200,
              'The document.',
              envelope(json(DocumentDetailSchema)),
              one('signed', { ok: true, data: examples.documentDetailExample }),
            ),
            ...errorResponses(['invalid-query', 'invalid-id', 'not-found']),
          },
        },
        put: {
          operationId: 'replaceDocument',
          tags: ['Documents'],
          summary: 'Replaces a draft whole (write key), as the web application’s edit form does',
          description:
            'The body is a create’s (JSON, or multipart with the PDF as its own part), checked the same way, and nothing changes when it is refused. Recipients are matched by email (one who stays keeps their id); the fields are the body’s (none without `fields`); without a `file` the draft keeps its PDF, without `expiresInSeconds` its expiry. A document that is no longer a draft is 409 `document-not-draft`. With `send: true` it is sent at once after, as `POST …/send` does (an `Idempotency-Key` makes that safe to repeat).',
          parameters: [idParameter, { ...idempotencyParameter, description: documentIdempotency }],
          requestBody: {
            required: true,
            content: documentContent(one('replaced', { ...examples.createDocumentBodyExample, send: false })),
          },
          responses: {
            ...success(
              200,
              'Replaced (and sent, with `send: true`): the document in detail.',
              envelope(json(WrittenDocumentSchema)),
              examples.writtenExamples,
              replayedHeader,
            ),
            ...errorResponses([
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
            ]),
          },
        },
        delete: {
          operationId: 'deleteDocument',
          tags: ['Documents'],
          summary: 'Deletes a draft (write key) with its recipients and fields',
          description:
            'Only a draft: a sent document keeps its history (409 `document-not-draft`). It takes no body.',
          parameters: [idParameter],
          responses: {
            ...success(
              200,
              'Deleted.',
              envelope(json(DeletedDocumentSchema)),
              one('deleted', { ok: true, data: examples.deletedDocumentExample }),
            ),
            ...errorResponses([...documentWriteErrors, 'document-not-draft', ...bodyRefusals]),
          },
        },
      },
      ...templatePaths(),
      '/webhook-endpoints': {
        get: {
          operationId: 'listWebhookEndpoints',
          tags: ['Webhook endpoints'],
          summary: 'The workspace’s webhook endpoints (never their secrets)',
          description: 'All of them in one page (at most 10), oldest first.',
          responses: {
            ...success(
              200,
              'All of them (at most 10); `nextCursor` is always null.',
              envelope(json(EndpointSchema), true),
              one('endpoints', {
                ok: true,
                data: [examples.endpointExample, examples.pausedEndpointExample],
                nextCursor: null,
              }),
            ),
            ...errorResponses(['invalid-query']),
          },
        },
        post: {
          operationId: 'createWebhookEndpoint',
          tags: ['Webhook endpoints'],
          summary: 'Registers an endpoint; the response is the only one that holds its secret',
          description: `Checked in this order: the body is JSON (\`invalid-json\`) with exactly the allowed fields and types, nothing coerced (\`invalid-body\`); \`url\` is an absolute URL of at most 2,048 characters (\`invalid-url\`); its destination is public HTTPS on port 443, every address its host resolves to public unicast (\`unsafe-url\`); then the limit of 10 endpoints (409 \`limit-reached\`).

Keep the \`secret\`: it verifies the signature of every delivery, and **no later answer shows it**. A lost or leaked secret is replaced with \`rotate-secret\`, which keeps the endpoint and its log.`,
          parameters: [idempotencyParameter],
          requestBody: jsonBody(CreateEndpointBody, one('create', examples.createEndpointBodyExample)),
          responses: {
            ...success(
              201,
              'Created, with its secret.',
              envelope(json(CreatedEndpointSchema)),
              one('created', { ok: true, data: examples.createdEndpointExample }),
              {
                'Idempotent-Replayed': {
                  description:
                    '`true` when this is the kept answer to an earlier request with the same `Idempotency-Key` and body; absent otherwise.',
                  schema: { type: 'string', const: 'true' },
                },
              },
            ),
            ...errorResponses([
              'invalid-query',
              'invalid-json',
              'invalid-body',
              'invalid-url',
              'unsafe-url',
              'limit-reached',
              'invalid-idempotency-key',
              'idempotency-key-reused',
              'not-found',
              'payload-too-large',
              'unsupported-media-type',
            ]),
          },
        },
      },
      '/webhook-endpoints/{id}': {
        get: {
          operationId: 'getWebhookEndpoint',
          tags: ['Webhook endpoints'],
          summary: 'One endpoint (never its secret)',
          description: 'An endpoint of another workspace is `not-found`, as one that does not exist.',
          parameters: [idParameter],
          responses: {
            ...success(
              200,
              'The endpoint.',
              envelope(json(EndpointSchema)),
              one('endpoint', { ok: true, data: examples.endpointExample }),
            ),
            ...errorResponses(['invalid-id', 'invalid-query', 'not-found']),
          },
        },
        patch: {
          operationId: 'updateWebhookEndpoint',
          tags: ['Webhook endpoints'],
          summary: 'Changes the fields sent; `enabled: true` on a paused endpoint clears its failure count',
          description:
            'Send only the fields to change (`{}` changes nothing); `description: null` clears it. The body is checked as for a create, before the endpoint is looked up: a malformed body is refused the same for every id.',
          parameters: [idParameter],
          requestBody: jsonBody(UpdateEndpointBody, examples.updateEndpointBodyExamples),
          responses: {
            ...success(
              200,
              'The endpoint as changed.',
              envelope(json(EndpointSchema)),
              one('resumed', { ok: true, data: examples.endpointExample }),
            ),
            ...errorResponses([
              'invalid-id',
              'invalid-query',
              'not-found',
              'invalid-json',
              'invalid-body',
              'invalid-url',
              'unsafe-url',
              'payload-too-large',
              'unsupported-media-type',
            ]),
          },
        },
        delete: {
          operationId: 'deleteWebhookEndpoint',
          tags: ['Webhook endpoints'],
          summary: 'Deletes the endpoint and its delivery log (a lost or leaked secret: rotate it instead)',
          description:
            'Nothing more is sent to it, including retries that were pending. It takes no body; one sent is read all the same, so a body that is not JSON, too large or of another type is refused as for any body.',
          parameters: [idParameter],
          responses: {
            ...success(
              200,
              'Deleted.',
              envelope(json(DeletedSchema)),
              one('deleted', { ok: true, data: examples.deletedExample }),
            ),
            ...errorResponses(['invalid-id', 'invalid-query', 'not-found', ...bodyRefusals]),
          },
        },
      },
      '/webhook-endpoints/{id}/rotate-secret': {
        post: {
          operationId: 'rotateWebhookEndpointSecret',
          tags: ['Webhook endpoints'],
          summary:
            'A new signing secret, shown once; the previous one keeps signing too for an overlap, so receivers switch without missing a delivery',
          description:
            'For `overlapHours` (whole hours, 0 to 168; 24 when the body is absent or `{}`) every delivery, retry, resend and ping carries one `v1=` per secret in `X-Service-Signature`, the new one first: `t=<timestamp>,v1=<new>,v1=<previous>`. A receiver that accepts any valid `v1=` keeps working while it switches. `overlapHours: 0` stops the previous secret at once (a leaked one). Rotating again during an overlap ends it: at most two secrets ever sign. Neither the secret nor the overlap appears in later answers.',
          parameters: [idParameter],
          requestBody: { ...jsonBody(RotateSecretBody, examples.rotateSecretBodyExamples), required: false },
          responses: {
            ...success(
              200,
              'The endpoint with its new `secret`, and `previousSecretExpiresAt`: when the previous secret stops signing (null with `overlapHours: 0`).',
              envelope(json(RotatedEndpointSchema)),
              one('rotated', { ok: true, data: examples.rotatedEndpointExample }),
            ),
            ...errorResponses(['invalid-id', 'invalid-query', 'not-found', 'invalid-body', ...bodyRefusals]),
          },
        },
      },
      '/webhook-endpoints/{id}/deliveries': {
        get: {
          operationId: 'listWebhookDeliveries',
          tags: ['Webhook endpoints'],
          summary:
            "The endpoint's deliveries, newest first, with each attempt's outcome (the receiver's answers stay in the web application)",
          description:
            'A delivery is `pending` (its next attempt is due at `nextAttemptAt`), `delivered`, or `dropped` after 4 failed attempts (or while its endpoint was paused): a dropped one can be sent again with the resend below.',
          parameters: [
            idParameter,
            limitParameter(50),
            {
              name: 'cursor',
              in: 'query',
              required: false,
              schema: { type: 'string', minLength: 1, maxLength: 200 },
              description: 'The `nextCursor` of the previous page.',
            },
          ],
          responses: {
            ...success(
              200,
              'A page of deliveries.',
              envelope(json(DeliverySchema), true),
              one('deliveries', { ok: true, data: [examples.deliveryExample], nextCursor: null }),
            ),
            ...errorResponses(['invalid-id', 'invalid-query', 'invalid-cursor', 'not-found']),
          },
        },
      },
      '/webhook-endpoints/{id}/deliveries/{deliveryId}/resend': {
        post: {
          operationId: 'resendWebhookDelivery',
          tags: ['Webhook endpoints'],
          summary:
            'Sends a dropped delivery once more, now: the same X-Service-Delivery-Id and body, signed anew, recorded as its next attempt',
          description:
            'Works on a paused endpoint too and never counts toward pausing. A delivery that is pending, delivered, being resent at that moment, or whose body retention removed is 409 `delivery-not-resendable`. Events that happened while an endpoint was paused were never made into deliveries: nothing here replays them. It takes no body; one sent is read all the same, and refused when it is not JSON, too large or of another type.',
          parameters: [
            idParameter,
            { ...idParameter, name: 'deliveryId', description: "The delivery's id (a UUID)." },
          ],
          responses: {
            ...success(
              200,
              "The attempt's outcome; `delivered` tells whether the receiver took it.",
              envelope(json(ResendResultSchema)),
              one('delivered', { ok: true, data: examples.resendResultExample }),
            ),
            ...errorResponses([
              'invalid-id',
              'invalid-query',
              'not-found',
              'delivery-not-resendable',
              ...bodyRefusals,
            ]),
          },
        },
      },
      '/events/stream': {
        get: {
          operationId: 'streamEvents',
          tags: ['Events'],
          summary:
            'The workspace’s events as server-sent events, each with the body its webhook deliveries carry (what `signet listen --api-url` reads)',
          description: [
            `A \`text/event-stream\` that stays open. It starts with \`retry: ${reconnectMs}\` and an \`event: ready\` whose \`data\` is JSON: \`workspaceId\`, \`secret\` (the signing secret of this API key, \`whsec_…\`: the same on every connection of the key, never stored; a new key has a new one) and \`resumedAfter\` (the Last-Event-ID it resumed after, or null).`,
            `Then each event of the workspace as it happens: \`id:\` the event id, \`event:\` its type, \`data:\` the exact JSON body a webhook delivery of that event carries (see \`webhooks\`). A comment line \`: keep-alive\` comes every ${heartbeatMs / 1000} seconds. Pings are never sent.`,
            'Send `Last-Event-ID` (EventSource does) to resume after that event while it is stored; an unknown id starts from now. An event may come twice around a reconnection: its id tells.',
            `The stream ends when the server shuts down or the key is revoked (reconnect: the next answer says why). Refusals come before the stream starts, as JSON. A process serves a workspace at most ${eventStreamDefaults.perWorkspace} streams at once (SIGNET_EVENT_STREAMS_PER_WORKSPACE), and all workspaces at most ${eventStreamDefaults.max} (SIGNET_EVENT_STREAMS_MAX); past either, 429 too-many-streams with Retry-After.`,
          ].join('\n\n'),
          parameters: [
            {
              name: 'types',
              in: 'query',
              required: false,
              schema: { type: 'string', minLength: 1, maxLength: 500 },
              description: `Only these event types, comma-separated (${documentEventTypes.join(', ')}); any other is 400 invalid-query.`,
              example: 'document.signed,document.completed',
            },
            {
              name: 'Last-Event-ID',
              in: 'header',
              required: false,
              schema: { type: 'string' },
              description: 'The id of the last event received: the stream resumes after it.',
            },
          ],
          responses: {
            '200': {
              description: 'The stream (see the description for its messages).',
              headers: answerHeaders,
              content: {
                'text/event-stream': {
                  schema: { type: 'string' },
                  examples: one(
                    'stream',
                    'retry: 2000\nevent: ready\ndata: {"workspaceId":"0b8e9c52-7c1f-4e1d-9a6b-3f1e2d4c5b6a","secret":"whsec_Vx1o8m9kQ2n3T5r7Y0a2c4e6g8i0k2m4o6q8s0u2w4y","resumedAfter":null}\n\nid: 5f0c2a8e-3b1d-4c6e-9a7f-1d2e3f4a5b6c\nevent: document.signed\ndata: {"id":"5f0c2a8e-3b1d-4c6e-9a7f-1d2e3f4a5b6c","type":"document.signed","createdAt":"2026-03-01T12:00:00.000Z","data":{"document":{…},"recipient":{…}}}\n\n: keep-alive\n\n',
                  ),
                },
              },
            },
            ...errorResponses(['invalid-query', 'too-many-streams']),
          },
        },
      },
    },
    webhooks: Object.fromEntries([
      ...documentEventTypes.map((type) => [
        type,
        webhook(type, type === 'document.completed' ? completedEvent : documentEvent),
      ]),
      [
        'ping',
        webhook('ping', {
          type: 'object',
          required: ['message'],
          properties: { message: { type: 'string' } },
        }),
      ],
    ]),
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An API key (`sgn_…`) created in the web application; 401 `invalid-api-key` when missing, malformed or revoked.',
        },
      },
      headers: {
        'X-RateLimit-Limit': {
          description: 'The bucket size (120).',
          required: true,
          schema: { type: 'integer', minimum: 1 },
        },
        'X-RateLimit-Remaining': {
          description: 'Whole requests left in the bucket.',
          required: true,
          schema: { type: 'integer', minimum: 0 },
        },
        'X-Request-Id': {
          description:
            'This answer’s id (a UUID), also in the server’s log lines of the request (`reqId`): quote it in a support request. One you send is not taken.',
          required: true,
          schema: { type: 'string', format: 'uuid' },
        },
        'Retry-After': {
          description:
            'Seconds until a request is accepted again (429), or after which to retry while the database is unreachable (503).',
          required: true,
          schema: { type: 'integer', minimum: 0 },
        },
      },
      schemas: components,
    },
  };
  return {
    ...document,
    paths: useComponents(document.paths, byJson),
    webhooks: useComponents(document.webhooks, byJson),
    components: {
      ...document.components,
      schemas: Object.fromEntries(
        Object.entries(components).map(([name, schema]) => [name, useComponents(schema, byJson, name)]),
      ),
    },
  };
}
