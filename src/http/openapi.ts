// The OpenAPI 3.1 contract of /v1, assembled from the very schemas that validate requests
// and serialise responses (documents.schemas.ts, endpoints.schemas.ts, envelope.ts) and
// from the one table of error codes (errors.ts): nothing here restates a field or a rule.
// Served at GET /v1/openapi.json and committed as docs/openapi.json (`npm run openapi`);
// a test fails when the two differ. Deliveries are described as OpenAPI `webhooks`.
import type { TSchema } from '@sinclair/typebox';
import {
  CompletedDocumentSchema,
  DocumentDetailSchema,
  DocumentEventSchema,
  DocumentSchema,
  ListDocumentsQuery,
  RecipientSchema,
  uuidPattern,
} from '../documents/documents.schemas.ts';
import { documentEventTypes } from '../documents/events.ts';
import {
  CreatedEndpointSchema,
  CreateEndpointBody,
  DeliverySchema,
  EndpointSchema,
  ResendResultSchema,
  RotatedEndpointSchema,
  RotateSecretBody,
  UpdateEndpointBody,
} from '../webhooks/endpoints.schemas.ts';
import { heartbeatMs, maxStreamsPerWorkspace, reconnectMs } from '../webhooks/event-stream.ts';
import { type ErrorCode, errorStatus } from './errors.ts';

/** A TypeBox schema as plain JSON Schema (TypeBox's symbol keys dropped). */
function json(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const rateLimitHeaders = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
};

/** Every request can meet these, whatever the operation. */
const commonErrors: ErrorCode[] = [
  'invalid-api-key',
  'plan-required',
  'rate-limited',
  'internal-error',
  'unavailable',
];

/** Responses for the error codes an operation can answer, grouped by HTTP status. */
function errorResponses(codes: ErrorCode[]): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...codes, ...commonErrors]) {
    const status = errorStatus[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, unknown> = {};
  for (const [status, group] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: group.join(', '),
      headers: {
        ...rateLimitHeaders,
        ...(status === 429 || status === 503
          ? { 'Retry-After': { $ref: '#/components/headers/Retry-After' } }
          : {}),
      },
      content: {
        'application/json': {
          schema: {
            type: 'object',
            additionalProperties: false,
            required: ['ok', 'error'],
            properties: { ok: { const: false }, error: { enum: group } },
          },
        },
      },
    };
  }
  return responses;
}

function success(status: number, description: string, schema: Record<string, unknown>) {
  return {
    [String(status)]: {
      description,
      headers: rateLimitHeaders,
      content: { 'application/json': { schema } },
    },
  };
}

function envelope(data: Record<string, unknown>, list = false): Record<string, unknown> {
  return {
    type: 'object',
    additionalProperties: false,
    required: list ? ['ok', 'data', 'nextCursor'] : ['ok', 'data'],
    properties: {
      ok: { const: true },
      data: list ? { type: 'array', items: data } : data,
      ...(list ? { nextCursor: { anyOf: [{ type: 'string' }, { type: 'null' }] } } : {}),
    },
  };
}

const idParameter = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string', pattern: uuidPattern },
  description: 'A UUID; anything else is 400 invalid-id.',
};

const idempotencyParameter = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
  description:
    'Optional: 1 to 255 visible ASCII characters. The same key and body within 24 hours answers the first 201 again (with `Idempotent-Replayed: true`) instead of creating a second endpoint; the same key with another body is 409 idempotency-key-reused. Refusals are not remembered.',
};

function queryParameters(): unknown[] {
  const query = json(ListDocumentsQuery) as { properties: Record<string, Record<string, unknown>> };
  const descriptions: Record<string, string> = {
    limit: 'Page size, a whole number from 1 to 100; 25 when absent.',
    cursor:
      'The nextCursor of the previous page, as issued (at most 200 characters); never built by clients.',
    status: 'Only documents with this status.',
  };
  return Object.entries(query.properties).map(([name, schema]) => ({
    name,
    in: 'query',
    required: false,
    schema,
    description: descriptions[name],
  }));
}

function jsonBody(schema: TSchema) {
  return { required: true, content: { 'application/json': { schema: json(schema) } } };
}

const deliveryHeaders = {
  'X-Service-Event': {
    description: 'The event type, as `type` in the body.',
    schema: { type: 'string' },
    required: true,
  },
  'X-Service-Delivery-Id': {
    description: 'Unique per delivery (UUID) and the same for every attempt of it: the idempotency key.',
    schema: { type: 'string', format: 'uuid' },
    required: true,
  },
  'X-Service-Signature': {
    description:
      '`t=<timestamp>,v1=<hex HMAC-SHA256 of "<timestamp>.<raw body>" keyed with the endpoint secret>`; <timestamp> is the attempt time (ISO 8601 UTC with milliseconds).',
    schema: { type: 'string', pattern: '^t=[^,]+,v1=[0-9a-f]{64}$' },
    required: true,
  },
  'User-Agent': { schema: { const: 'Service-Webhooks/1.0' }, required: true },
};

function webhook(type: string, data: Record<string, unknown>) {
  return {
    post: {
      summary: type === 'ping' ? 'A test delivery (the Test button)' : `Delivered when ${type} happens`,
      parameters: Object.entries(deliveryHeaders).map(([name, header]) => ({
        name,
        in: 'header',
        ...header,
      })),
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['id', 'type', 'createdAt', 'data'],
              properties: {
                id: { type: 'string', format: 'uuid', description: 'The event id.' },
                type: { const: type },
                createdAt: { type: 'string' },
                data,
              },
            },
          },
        },
      },
      responses: {
        '2XX': {
          description:
            'Delivered. Anything else, a timeout (10 s) or a redirect is a failure, retried 3 times.',
        },
      },
    },
  };
}

export function buildOpenApiDocument(options: {
  serverUrl: string;
  version: string;
}): Record<string, unknown> {
  const documentEvent = {
    type: 'object',
    required: ['document', 'recipient'],
    properties: { document: ref('Document'), recipient: { anyOf: [ref('Recipient'), { type: 'null' }] } },
  };
  // document.completed's document also carries its files (as in the detail, without links).
  const completedEvent = {
    ...documentEvent,
    properties: { ...documentEvent.properties, document: ref('CompletedDocument') },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Signet API',
      version: options.version,
      description:
        'Read a workspace’s documents and manage webhook endpoints. Every response is JSON with a boolean `ok`; errors carry a stable `error` code and no message. Keys are created in the web application.',
    },
    servers: [{ url: options.serverUrl }],
    security: [{ bearer: [] }],
    // Every error code and its status, the spec's and the HTTP-level ones (a method a path
    // does not have is 405 method-not-allowed, with Allow, on every path).
    'x-error-codes': { ...errorStatus },
    paths: {
      '/documents': {
        get: {
          operationId: 'listDocuments',
          summary: 'The workspace’s documents, newest first, a page at a time',
          parameters: queryParameters(),
          responses: {
            ...success(200, 'A page; nextCursor is null on the last one.', envelope(ref('Document'), true)),
            ...errorResponses(['invalid-query', 'invalid-cursor']),
          },
        },
      },
      '/documents/{id}': {
        get: {
          operationId: 'getDocument',
          summary: 'One document with its recipients and events',
          parameters: [idParameter],
          responses: {
            ...success(200, 'The document.', envelope(ref('DocumentDetail'))),
            ...errorResponses(['invalid-id', 'not-found']),
          },
        },
      },
      '/webhook-endpoints': {
        get: {
          operationId: 'listWebhookEndpoints',
          summary: 'The workspace’s webhook endpoints (never their secrets)',
          responses: {
            ...success(
              200,
              'All of them (at most 10); nextCursor is always null.',
              envelope(ref('WebhookEndpoint'), true),
            ),
            ...errorResponses(['invalid-query']),
          },
        },
        post: {
          operationId: 'createWebhookEndpoint',
          summary: 'Registers an endpoint; the response is the only one that holds its secret',
          parameters: [idempotencyParameter],
          requestBody: jsonBody(CreateEndpointBody),
          responses: {
            ...success(201, 'Created, with its secret.', envelope(ref('CreatedWebhookEndpoint'))),
            ...errorResponses([
              'invalid-query',
              'invalid-json',
              'invalid-body',
              'invalid-url',
              'unsafe-url',
              'limit-reached',
              'invalid-idempotency-key',
              'idempotency-key-reused',
              'payload-too-large',
              'unsupported-media-type',
            ]),
          },
        },
      },
      '/webhook-endpoints/{id}': {
        get: {
          operationId: 'getWebhookEndpoint',
          summary: 'One endpoint (never its secret)',
          parameters: [idParameter],
          responses: {
            ...success(200, 'The endpoint.', envelope(ref('WebhookEndpoint'))),
            ...errorResponses(['invalid-id', 'invalid-query', 'not-found']),
          },
        },
        patch: {
          operationId: 'updateWebhookEndpoint',
          summary: 'Changes the fields sent; `enabled: true` on a paused endpoint clears its failure count',
          parameters: [idParameter],
          requestBody: jsonBody(UpdateEndpointBody),
          responses: {
            ...success(200, 'The endpoint as changed.', envelope(ref('WebhookEndpoint'))),
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
          summary: 'Deletes the endpoint and its delivery log (a lost or leaked secret: rotate it instead)',
          parameters: [idParameter],
          responses: {
            ...success(
              200,
              'Deleted.',
              envelope({
                type: 'object',
                required: ['id', 'deleted'],
                properties: { id: { type: 'string' }, deleted: { const: true } },
              }),
            ),
            ...errorResponses(['invalid-id', 'invalid-query', 'not-found']),
          },
        },
      },
      '/webhook-endpoints/{id}/rotate-secret': {
        post: {
          operationId: 'rotateWebhookEndpointSecret',
          summary:
            'A new signing secret, shown once; the previous one keeps signing too (a second `v1=` in X-Service-Signature) for `overlapHours`, 24 by default, so receivers switch without missing a delivery',
          parameters: [idParameter],
          requestBody: { ...jsonBody(RotateSecretBody), required: false },
          responses: {
            ...success(
              200,
              'The endpoint with its new `secret`, and `previousSecretExpiresAt`: when the previous secret stops signing (null with `overlapHours: 0`).',
              envelope(ref('RotatedWebhookEndpoint')),
            ),
            ...errorResponses([
              'invalid-id',
              'invalid-query',
              'not-found',
              'invalid-json',
              'invalid-body',
              'payload-too-large',
              'unsupported-media-type',
            ]),
          },
        },
      },
      '/webhook-endpoints/{id}/deliveries': {
        get: {
          operationId: 'listWebhookDeliveries',
          summary:
            "The endpoint's deliveries, newest first, with each attempt's outcome (the receiver's answers stay in the web application)",
          parameters: [
            idParameter,
            {
              name: 'limit',
              in: 'query',
              required: false,
              schema: { type: 'string', pattern: '^(100|[1-9][0-9]?)$' },
              description: '1 to 100; 50 by default.',
            },
            {
              name: 'cursor',
              in: 'query',
              required: false,
              schema: { type: 'string', maxLength: 200 },
              description: 'The `nextCursor` of the previous page.',
            },
          ],
          responses: {
            ...success(200, 'A page of deliveries.', envelope(ref('WebhookDelivery'), true)),
            ...errorResponses(['invalid-id', 'invalid-query', 'invalid-cursor', 'not-found']),
          },
        },
      },
      '/webhook-endpoints/{id}/deliveries/{deliveryId}/resend': {
        post: {
          operationId: 'resendWebhookDelivery',
          summary:
            'Sends a dropped delivery once more, now: the same X-Service-Delivery-Id and body, signed anew, recorded as its next attempt',
          parameters: [
            idParameter,
            { ...idParameter, name: 'deliveryId', description: "The delivery's id (a UUID)." },
          ],
          responses: {
            ...success(
              200,
              "The attempt's outcome; `delivered` tells whether the receiver took it.",
              envelope(ref('ResendResult')),
            ),
            ...errorResponses(['invalid-id', 'invalid-query', 'not-found', 'delivery-not-resendable']),
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
            `The stream ends when the server shuts down or the key is revoked (reconnect: the next answer says why). Refusals come before the stream starts, as JSON. A process serves a workspace at most ${maxStreamsPerWorkspace} streams at once (429 too-many-streams).`,
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
              headers: rateLimitHeaders,
              content: {
                'text/event-stream': {
                  schema: { type: 'string' },
                  example:
                    'retry: 2000\nevent: ready\ndata: {"workspaceId":"0b8e9c52-7c1f-4e1d-9a6b-3f1e2d4c5b6a","secret":"whsec_Vx1o8m9kQ2n3T5r7Y0a2c4e6g8i0k2m4o6q8s0u2w4y","resumedAfter":null}\n\nid: 5f0c2a8e-3b1d-4c6e-9a7f-1d2e3f4a5b6c\nevent: document.signed\ndata: {"id":"5f0c2a8e-3b1d-4c6e-9a7f-1d2e3f4a5b6c","type":"document.signed","createdAt":"2026-03-01T12:00:00.000Z","data":{"document":{…},"recipient":{…}}}\n\n: keep-alive\n\n',
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
            'An API key (`sgn_…`) created in the web application; 401 invalid-api-key when missing, malformed or revoked.',
        },
      },
      headers: {
        'X-RateLimit-Limit': { description: 'The bucket size (120).', schema: { type: 'integer' } },
        'X-RateLimit-Remaining': {
          description: 'Whole requests left in the bucket.',
          schema: { type: 'integer' },
        },
        'Retry-After': {
          description:
            'Seconds until a request is accepted again (429), or after which to retry while the database is unreachable (503).',
          schema: { type: 'integer' },
        },
      },
      schemas: {
        Document: json(DocumentSchema),
        CompletedDocument: json(CompletedDocumentSchema),
        DocumentDetail: json(DocumentDetailSchema),
        Recipient: json(RecipientSchema),
        DocumentEvent: json(DocumentEventSchema),
        WebhookEndpoint: json(EndpointSchema),
        CreatedWebhookEndpoint: json(CreatedEndpointSchema),
        RotatedWebhookEndpoint: json(RotatedEndpointSchema),
        WebhookDelivery: json(DeliverySchema),
        ResendResult: json(ResendResultSchema),
      },
    },
  };
}
