// Turns every failure into the envelope: ApiErrors keep their code; schema failures get
// the code of where they failed; Fastify's own HTTP errors get theirs; an unreachable
// database is a 503 `unavailable` with Retry-After (the outage is logged once, by the
// monitor); anything else is a 500 `internal-error`, logged in full and never shown.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import {
  isDatabaseUnavailable,
  type OutageMonitor,
  unavailableRetryAfterSeconds,
} from '../db/availability.ts';
import { ApiError, type ErrorCode, errorStatus } from './errors.ts';

const validationCodes: Record<string, ErrorCode> = {
  querystring: 'invalid-query',
  params: 'invalid-id',
  body: 'invalid-body',
  headers: 'invalid-query',
};

const fastifyCodes: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload-too-large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported-media-type',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid-json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid-json',
  // A multipart part declared application/json that is not JSON (POST /v1/documents' `document`).
  FST_INVALID_JSON_FIELD_ERROR: 'invalid-json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid-body',
  FST_ERR_BAD_URL: 'not-found',
};

const statusCodes: Record<number, ErrorCode> = {
  404: 'not-found',
  405: 'method-not-allowed',
  413: 'payload-too-large',
  415: 'unsupported-media-type',
};

export function errorCodeFor(error: FastifyError | ApiError | Error): ErrorCode {
  if (error instanceof ApiError) return error.code;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation)
    return validationCodes[fastifyError.validationContext ?? 'body'] ?? 'invalid-body';
  if (fastifyError.code && fastifyCodes[fastifyError.code])
    return fastifyCodes[fastifyError.code] as ErrorCode;
  // Text PostgreSQL cannot store (U+0000, broken encodings) that a schema let through.
  if (fastifyError.code === '22021' || fastifyError.code === '22P05') return 'invalid-body';
  // JSON.parse failures surface as SyntaxError with a 400 status.
  if (error instanceof SyntaxError && fastifyError.statusCode === 400) return 'invalid-json';
  if (isDatabaseUnavailable(error)) return 'unavailable';
  const status = fastifyError.statusCode ?? 500;
  if (status >= 400 && status < 500) return statusCodes[status] ?? 'invalid-body';
  return 'internal-error';
}

/** One JSON Pointer token (RFC 6901): `~` and `/` escaped. */
export function pointerToken(name: string | number): string {
  return String(name).replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * The body member a failure is about: an ApiError's own pointer, or where the schema check
 * of a body failed (ajv's instancePath, and the member missing or not allowed); null for
 * anything else (a query, a path id, a header, a body that is not JSON).
 */
export function pointerFor(error: FastifyError | ApiError | Error): string | null {
  if (error instanceof ApiError) return error.pointer;
  const fastifyError = error as FastifyError;
  const first = fastifyError.validation?.[0];
  if (!first || (fastifyError.validationContext ?? 'body') !== 'body') return null;
  const params = (first.params ?? {}) as Record<string, unknown>;
  const member = params.missingProperty ?? params.additionalProperty;
  return typeof member === 'string' ? `${first.instancePath}/${pointerToken(member)}` : first.instancePath;
}

const answeredCode = Symbol('answeredCode');
type CodedReply = FastifyReply & { [answeredCode]?: ErrorCode };

/** The envelope's `error` this reply answered with, or null (a success, a page): the request log line's `errorCode`. */
export function answeredErrorCode(reply: unknown): ErrorCode | null {
  return (reply as CodedReply | null)?.[answeredCode] ?? null;
}

export type SendError = (
  error: FastifyError | ApiError | Error,
  request: FastifyRequest,
  reply: FastifyReply,
) => FastifyReply;

export function createErrorSender(outage: Pick<OutageMonitor, 'report'>): SendError {
  return function sendError(error, request, reply) {
    const code = errorCodeFor(error);
    if (code === 'internal-error') request.log.error({ err: error }, 'unexpected failure');
    if (code === 'unavailable') {
      outage.report(error);
      reply.header('Retry-After', String(unavailableRetryAfterSeconds));
    }
    if (error instanceof ApiError) reply.headers(error.headers);
    const pointer = code === 'unavailable' || code === 'internal-error' ? null : pointerFor(error);
    (reply as CodedReply)[answeredCode] = code;
    return reply
      .code(errorStatus[code])
      .send(pointer === null ? { ok: false, error: code } : { ok: false, error: code, pointer });
  };
}
