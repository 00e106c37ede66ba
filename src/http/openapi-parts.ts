// What every operation of the /v1 contract is built from, below every area that declares one:
// the `Operation` type (a route's contract, declared beside the route in its area's
// *.contract.ts and named by the route as `config: { operation }`), `operationObject` (an
// operation as OpenAPI writes it), a TypeBox schema as plain JSON Schema, the success
// envelope, the error responses of a list of codes (grouped by status, from errors.ts's one
// table, the codes every request can meet added), the rate-limit headers, the parameters
// several areas share (id, Idempotency-Key, limit, cursor) and a JSON request body. Prose
// that belongs to one operation stays with it, beside its route; api/openapi.ts assembles
// the document from the operations.
import type { TSchema } from '@sinclair/typebox';
import { uuidPattern } from '../ids.ts';
import { errorEnvelope } from './envelope.ts';
import { type ErrorCode, errorStatus } from './errors.ts';

/**
 * One operation of the contract, beside the route that serves it. `method` and `path` say
 * which route that is (the path under /v1 as OpenAPI writes it, `/documents/{id}`): the api
 * plugin refuses to start when a route and its operation disagree (api/route-contract.ts).
 */
export interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  /** Markdown, for /docs and every OpenAPI reader. */
  description: string;
  parameters?: readonly unknown[];
  requestBody?: Record<string, unknown>;
  /** The answers it succeeds with, by status (`success`, or written out for another media type). */
  answers: Record<string, unknown>;
  /** The error codes it can answer; those every request can meet are added (`errorResponses`). */
  errors: readonly ErrorCode[];
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's contract (a /v1 route must have one: api/route-contract.ts). */
    operation?: Operation;
  }
}

/** An operation as OpenAPI writes it under its path and method. */
export function operationObject(operation: Operation): Record<string, unknown> {
  return {
    operationId: operation.operationId,
    tags: [operation.tag],
    summary: operation.summary,
    description: operation.description,
    ...(operation.parameters ? { parameters: operation.parameters } : {}),
    ...(operation.requestBody ? { requestBody: operation.requestBody } : {}),
    responses: { ...operation.answers, ...errorResponses(operation.errors) },
  };
}

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
export function errorResponses(codes: readonly ErrorCode[]): Record<string, unknown> {
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

/** `Idempotency-Key`, with what a repeat of this operation answers. */
export function idempotencyParameter(description: string) {
  return {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
    example: '5f1d7c3a-8e2b-4b6d-9a0c-3e5f7a9b1c2d',
    description,
  };
}

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

/** A list's `cursor` (as its route's query schema takes it). */
export function cursorParameter(description: string) {
  return {
    name: 'cursor',
    in: 'query',
    required: false,
    schema: { type: 'string', minLength: 1, maxLength: 200 },
    description,
  };
}

export function jsonBody(schema: TSchema, bodyExamples: Record<string, unknown>) {
  return {
    required: true,
    content: { 'application/json': { schema: json(schema), examples: bodyExamples } },
  };
}
