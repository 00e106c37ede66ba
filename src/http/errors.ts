// The closed set of error codes and their HTTP statuses: the spec's table plus the few
// codes every HTTP API needs for requests the spec does not describe (documented in
// docs/api.md). Code throws `new ApiError(code)`; the error handler does the rest.

export const errorStatus = {
  'invalid-api-key': 401,
  'plan-required': 403,
  'rate-limited': 429,
  'invalid-query': 400,
  'invalid-cursor': 400,
  'invalid-id': 400,
  'not-found': 404,
  'invalid-json': 400,
  'invalid-body': 400,
  'invalid-url': 400,
  'unsafe-url': 400,
  'limit-reached': 409,
  // Beyond the spec's table: the document writes (issue 37).
  // A read-only key asked for an operation that needs a write key (keys/api-key-scope.ts).
  'insufficient-scope': 403,
  // The PDF is not one Signet can take (not a PDF, encrypted, too many pages, cut off, over
  // the upload limit); the answer's pointer is `/file`.
  'invalid-file': 400,
  // The workspace's uploads of the day are used up (SIGNET_MAX_UPLOAD_BYTES_PER_DAY); retry tomorrow.
  'upload-limit-reached': 429,
  // Only a draft can be changed, deleted or sent.
  'document-not-draft': 409,
  // The draft has no signer, or nothing to sign (neither a PDF, a text nor a pricing table).
  'document-not-sendable': 409,
  // Reminding or withdrawing needs a document out for signature (sent or viewed).
  'document-not-active': 409,
  // Only a signer whose turn it is, who has their link and has not signed, can be reminded.
  'recipient-not-remindable': 409,
  // That signer was reminded less than an hour ago (Retry-After says when the next may go).
  'reminded-recently': 429,
  // A fresh signing link is for a document its integrator delivers (delivery none); a mailed one keeps its mailed links.
  'document-delivered-by-mail': 409,
  // A fresh signing link for a recipient whose turn has not come yet (a later signing order).
  'recipient-not-invited': 409,
  // Beyond the spec's table: Idempotency-Key (http/idempotency.ts).
  'invalid-idempotency-key': 400,
  'idempotency-key-reused': 409,
  // A resend of a delivery that was not dropped (or whose body retention removed), or one in flight.
  'delivery-not-resendable': 409,
  // GET /v1/events/stream: this process already serves the workspace its most open streams (Retry-After set).
  'too-many-streams': 429,
  // Beyond the spec's table: HTTP-level failures.
  'method-not-allowed': 405,
  'payload-too-large': 413,
  'unsupported-media-type': 415,
  'malformed-request': 400,
  'request-timeout': 408,
  'header-too-large': 431,
  'internal-error': 500,
  // The database cannot be reached (Retry-After set); nothing was changed.
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

/** A request body past this is 413 `payload-too-large` (routes that take a PDF set their own). */
export const bodyLimitBytes = 1024 * 1024;

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  /** A JSON Pointer (RFC 6901) to the member of the request body at fault, answered as `pointer`. */
  readonly pointer: string | null;

  constructor(code: ErrorCode, headers: Record<string, string> = {}, pointer: string | null = null) {
    super(code);
    this.name = 'ApiError';
    this.code = code;
    this.statusCode = errorStatus[code];
    this.headers = headers;
    this.pointer = pointer;
  }
}

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(errorStatus, value);
}
