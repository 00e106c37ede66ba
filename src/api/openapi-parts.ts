// The parts every operation of the /v1 contract (openapi.ts) is built from: a TypeBox schema as
// plain JSON Schema, the success envelope, the error responses of a list of codes (grouped by
// status, from errors.ts's one table, the codes every request can meet added), the rate-limit
// headers, the shared parameters (id, Idempotency-Key, limit, the document list's query), a
// JSON request body, and a webhook's operation with its signed headers. Prose that belongs to
// one operation stays with it in openapi.ts.
import type { TSchema } from '@sinclair/typebox';
import { defaultPageSize } from '../documents/documents.routes.ts';
import { ListDocumentsQuery, Timestamp } from '../documents/documents.schemas.ts';
import { errorEnvelope } from '../http/envelope.ts';
import { type ErrorCode, errorStatus } from '../http/errors.ts';
import { uuidPattern } from '../ids.ts';
import * as examples from './openapi-examples.ts';

/** A TypeBox schema as plain JSON Schema (TypeBox's symbol keys dropped). */
export function json(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

/** The headers every /v1 answer carries: the rate limit's, and the request's id. */
export const answerHeaders = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
};

/**
 * A DELETE or POST that takes no body still has one read if it is sent: a body that is not
 * JSON, is too large or is of another type is refused as for any body.
 */
export const bodyRefusals: ErrorCode[] = ['invalid-json', 'payload-too-large', 'unsupported-media-type'];

/** The error envelope's `pointer`, as envelope.ts declares it (it serialises every error answer). */
const pointerSchema = (json(errorEnvelope) as { properties: Record<string, unknown> }).properties.pointer;

/** Every request can meet these, whatever the operation. */
const commonErrors: ErrorCode[] = [
  'invalid-api-key',
  'plan-required',
  'rate-limited',
  'internal-error',
  'unavailable',
];

/** Responses for the error codes an operation can answer, grouped by HTTP status, an example per code. */
export function errorResponses(codes: ErrorCode[]): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...codes, ...commonErrors]) {
    const status = errorStatus[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, unknown> = {};
  for (const [status, group] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: group.map((code) => `\`${code}\``).join(', '),
      headers: {
        ...answerHeaders,
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
            properties: {
              ok: { const: false },
              error: { type: 'string', enum: group },
              pointer: pointerSchema,
            },
          },
          examples: Object.fromEntries(group.map((code) => [code, { value: { ok: false, error: code } }])),
        },
      },
    };
  }
  return responses;
}

export function success(
  status: number,
  description: string,
  schema: Record<string, unknown>,
  answerExamples: Record<string, unknown>,
  headers: Record<string, unknown> = {},
) {
  return {
    [String(status)]: {
      description,
      headers: { ...answerHeaders, ...headers },
      content: { 'application/json': { schema, examples: answerExamples } },
    },
  };
}

/** An `examples` map holding one example. */
export const one = (name: string, value: unknown) => ({ [name]: { value } });

export function envelope(data: Record<string, unknown>, list = false): Record<string, unknown> {
  return {
    type: 'object',
    additionalProperties: false,
    required: list ? ['ok', 'data', 'nextCursor'] : ['ok', 'data'],
    properties: {
      ok: { const: true },
      data: list ? { type: 'array', items: data } : data,
      ...(list
        ? {
            nextCursor: {
              anyOf: [{ type: 'string' }, { type: 'null' }],
              description: 'Pass it as `cursor` for the next page; null on the last page.',
            },
          }
        : {}),
    },
  };
}

export const idParameter = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string', format: 'uuid', pattern: uuidPattern },
  description: 'A UUID; anything else is 400 `invalid-id`.',
};

export const idempotencyParameter = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
  example: '5f1d7c3a-8e2b-4b6d-9a0c-3e5f7a9b1c2d',
  description:
    'Optional: 1 to 255 visible ASCII characters. The same key and body within 24 hours answers the first 201 again, secret included (with `Idempotent-Replayed: true`), instead of creating a second endpoint; the kept answer is stored encrypted. If that endpoint was deleted since, the repeat is 404 `not-found`. The same key with another body is 409 `idempotency-key-reused`. Refusals are not remembered.',
};

/**
 * The page size of a list: an integer (the contract's type; on the wire a query value is
 * text, which the route checks is written plainly).
 */
export function limitParameter(defaultValue: number) {
  return {
    name: 'limit',
    in: 'query',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: 100, default: defaultValue },
    description: `Page size, a whole number from 1 to 100 written plainly (\`25\`; not \`025\`, \`2.5\` or \`1e1\`); ${defaultValue} when absent.`,
  };
}

export function queryParameters(): unknown[] {
  const query = json(ListDocumentsQuery) as { properties: Record<string, Record<string, unknown>> };
  const descriptions: Record<string, string> = {
    cursor:
      'The `nextCursor` of the previous page, as issued (at most 200 characters), for the same `status`; never built by clients, valid 24 hours.',
    status: 'Only documents with this status.',
  };
  return Object.entries(query.properties).map(([name, schema]) =>
    name === 'limit'
      ? limitParameter(defaultPageSize)
      : { name, in: 'query', required: false, schema, description: descriptions[name] },
  );
}

export function jsonBody(schema: TSchema, bodyExamples: Record<string, unknown>) {
  return {
    required: true,
    content: { 'application/json': { schema: json(schema), examples: bodyExamples } },
  };
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
      '`t=<timestamp>,v1=<hex HMAC-SHA256 of "<timestamp>.<raw body>" keyed with the endpoint secret>`; `<timestamp>` is the attempt time (ISO 8601 UTC with milliseconds). While a rotated secret\'s overlap lasts, one `v1=` per secret, the new one first: a delivery is authentic when any one matches.',
    schema: { type: 'string', pattern: '^t=[^,]+(,v1=[0-9a-f]{64})+$' },
    required: true,
  },
  'User-Agent': {
    description: 'Always this value.',
    schema: { type: 'string', const: 'Service-Webhooks/1.0' },
    required: true,
  },
};

/** `document.sent` → `documentSent`. */
const camel = (type: string) => type.replace(/[.-](\w)/g, (_, c: string) => c.toUpperCase());

export function webhook(type: string, data: Record<string, unknown>) {
  return {
    post: {
      operationId: `${camel(type)}Webhook`,
      tags: ['Webhooks'],
      summary: type === 'ping' ? 'A test delivery (the Test button)' : `Delivered when ${type} happens`,
      description:
        type === 'ping'
          ? 'Sent only when the **Test** button of an endpoint is used in the web application. Signed like any delivery; it cannot be subscribed to.'
          : `Sent to every enabled endpoint subscribed to \`${type}\`. \`data.document\` is the document as it was when the event happened; \`data.recipient\` is the recipient who caused it, or null.`,
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
                type: { type: 'string', const: type },
                createdAt: json(Timestamp),
                data,
              },
            },
            examples: one(type, examples.webhookBodyExample(type)),
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
