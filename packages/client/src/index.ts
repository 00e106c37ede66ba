// @signet/client: the Signet API from TypeScript or JavaScript, with no dependencies.
// Runs wherever `fetch` and Web Crypto exist (Node 20+, Deno, Bun, browsers' workers).
// - Every operation of the API as a typed method; `documents.list()` walks every page.
// - Failures are typed: `SignetApiError` (the API answered with an error code) and
//   `SignetNetworkError` (no answer); 429, and 503 `unavailable` on reads, are waited out
//   and retried, within bounds.
// - `documents.download(id, kind)` streams a document's original or sealed PDF from its
//   download link (a capability URL outside /v1, fetched without the API key);
//   `verifySha256` checks it against the API's hash as it passes.
// - `webhookEndpoints.deliveries` reads an endpoint's delivery log and resends a dropped
//   delivery; `webhookEndpoints.create(body, {idempotencyKey})` makes a create safe to retry;
//   `webhookEndpoints.rotateSecret` replaces a secret with an overlap in which both sign.
// - `verifyWebhook` checks a delivery's X-Service-Signature on the raw body in constant
//   time and returns the parsed event.
import { createSha256 } from './sha256.ts';
import type {
  CreatedWebhookEndpoint,
  CreateWebhookEndpointBody,
  Document,
  DocumentDetail,
  ErrorCode,
  Recipient,
  ResendResult,
  RotatedWebhookEndpoint,
  RotateWebhookEndpointSecretBody,
  UpdateWebhookEndpointBody,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEventType,
} from './types.ts';

export type * from './types.ts';
export { errorStatus, webhookEventTypes } from './types.ts';

/** The API answered with an error: `code` is the stable code, `status` the HTTP status. */
export class SignetApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Seconds to wait, on `rate-limited`. */
  readonly retryAfter: number | null;
  constructor(code: ErrorCode, status: number, retryAfter: number | null) {
    super(`${status} ${code}`);
    this.name = 'SignetApiError';
    this.code = code;
    this.status = status;
    this.retryAfter = retryAfter;
  }
}

/** No usable answer: the connection failed, or the response was not the API's. */
export class SignetNetworkError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SignetNetworkError';
  }
}

/** One of a document's PDFs: `original` (what the signers saw) or `sealed` (signed, with its certificate). */
export type FileKind = DocumentFile['kind'];

/** A file as `GET /documents/{id}` lists it, with its 15-minute download link. */
export type DocumentFile = DocumentDetail['files'][number];

/**
 * The document has no file of that kind (yet): a draft without an uploaded PDF has no
 * original; a document has a sealed file only once it is completed (`document.completed`
 * has happened), which comes shortly after the last signature, not with it.
 */
export class SignetFileUnavailableError extends Error {
  readonly documentId: string;
  readonly kind: FileKind;
  /** The document's status when it was asked for the file, e.g. `draft` or `signed`. */
  readonly documentStatus: string;
  constructor(documentId: string, kind: FileKind, documentStatus: string) {
    super(
      kind === 'sealed'
        ? `document ${documentId} has no sealed PDF (status ${documentStatus}): only a completed document has one (document.completed)`
        : `document ${documentId} has no original PDF (status ${documentStatus}): a draft has one once a PDF is uploaded or it is sent`,
    );
    this.name = 'SignetFileUnavailableError';
    this.documentId = documentId;
    this.kind = kind;
    this.documentStatus = documentStatus;
  }
}

/**
 * The download link answered something other than the PDF: `status` is its HTTP status
 * (404 for a link the server does not recognise, 410 once it has expired) or 200 when the
 * answer was not `application/pdf`. Links come fresh with every call, so a retry may help.
 */
export class SignetDownloadError extends Error {
  readonly documentId: string;
  readonly kind: FileKind;
  readonly status: number;
  constructor(documentId: string, kind: FileKind, status: number, detail: string) {
    super(`download of document ${documentId}'s ${kind} PDF: ${detail}`);
    this.name = 'SignetDownloadError';
    this.documentId = documentId;
    this.kind = kind;
    this.status = status;
  }
}

/** A file's bytes did not hash to the SHA-256 they were meant to (see `verifySha256`). */
export class SignetIntegrityError extends Error {
  readonly expected: string;
  readonly actual: string;
  /** How many bytes were hashed. */
  readonly bytes: number;
  constructor(expected: string, actual: string, bytes: number) {
    super(`SHA-256 mismatch: expected ${expected}, got ${actual} over ${bytes} bytes`);
    this.name = 'SignetIntegrityError';
    this.expected = expected;
    this.actual = actual;
    this.bytes = bytes;
  }
}

/** A PDF on its way: what the API says about it, and its bytes as they arrive. */
export interface FileDownload {
  documentId: string;
  kind: FileKind;
  /**
   * The PDF's bytes as the server sends them, never held whole in memory. Read it once, to
   * the end, or `cancel()` it: until then the connection stays open.
   */
  stream: ReadableStream<Uint8Array>;
  /** From the API (not from the download): lower-case hex, for `verifySha256`. */
  sha256: string;
  bytes: number;
  pages: number | null;
  /**
   * The name the server suggests (Content-Disposition, its UTF-8 `filename*` first), e.g.
   * `Consulting agreement (signed).pdf`, reduced to a bare name (no folders, no control
   * characters); `<documentId>-<kind>.pdf` when there is none. Still check it before using
   * it in a path of yours.
   */
  fileName: string;
}

export interface ClientOptions {
  /** `sgn_…`, created in Signet's web application. Keep it on servers only. */
  apiKey: string;
  /** Ends in /v1, e.g. https://sign.example.com/v1. */
  baseUrl: string;
  /**
   * On 429 (and on 503 `unavailable` for GET requests), wait Retry-After and try again: at
   * most `retries` times and `maxWaitSeconds` in all. `false` throws at once.
   */
  rateLimitRetry?: false | { retries?: number; maxWaitSeconds?: number };
  fetch?: typeof fetch;
  /** For tests: how to wait. */
  sleep?: (ms: number) => Promise<void>;
}

export interface ListDocumentsParams {
  /** 1 to 100 (the API's default is 25). */
  limit?: number;
  status?: 'draft' | 'sent' | 'viewed' | 'signed' | 'declined' | 'expired';
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export interface ListDeliveriesParams {
  /** 1 to 100 (the API's default is 50). */
  limit?: number;
}

export interface CreateOptions {
  /**
   * Sent as `Idempotency-Key` (1 to 255 visible ASCII characters, e.g. a UUID you keep):
   * a create retried with the same key and body within 24 hours answers the first
   * endpoint again, secret included, instead of making a second. With a key, a 503
   * `unavailable` is retried like a read.
   */
  idempotencyKey?: string;
}

type Envelope<T> = { ok: true; data: T; nextCursor?: string | null } | { ok: false; error: ErrorCode };

export function createClient(options: ClientOptions) {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const retry =
    options.rateLimitRetry === false ? null : { retries: 3, maxWaitSeconds: 60, ...options.rateLimitRetry };

  async function request<T>(
    method: string,
    path: string,
    init: {
      query?: Record<string, string | number | undefined>;
      body?: unknown;
      idempotencyKey?: string | undefined;
    } = {},
  ): Promise<{ data: T; nextCursor: string | null }> {
    const url = new URL(base + path);
    for (const [name, value] of Object.entries(init.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    let waited = 0;
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await doFetch(url, {
          method,
          headers: {
            authorization: `Bearer ${options.apiKey}`,
            ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
            ...(init.idempotencyKey === undefined ? {} : { 'idempotency-key': init.idempotencyKey }),
          },
          body: init.body === undefined ? undefined : JSON.stringify(init.body),
        });
      } catch (error) {
        throw new SignetNetworkError(`${method} ${url.pathname} failed: ${(error as Error).message}`, {
          cause: error,
        });
      }
      let envelope: Envelope<T>;
      try {
        envelope = (await response.json()) as Envelope<T>;
      } catch (error) {
        throw new SignetNetworkError(
          `${method} ${url.pathname}: HTTP ${response.status} without the API's JSON`,
          {
            cause: error,
          },
        );
      }
      if (envelope.ok) return { data: envelope.data, nextCursor: envelope.nextCursor ?? null };
      const retryAfter = Number(response.headers.get('retry-after'));
      const seconds = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null;
      // A write answered 503 is repeated only under an Idempotency-Key: it may have landed as
      // the connection dropped, and only the key makes the repeat answer that instead.
      const repeatable = method === 'GET' || init.idempotencyKey !== undefined;
      const retriable = envelope.error === 'rate-limited' || (envelope.error === 'unavailable' && repeatable);
      if (retriable && retry && seconds !== null && attempt < retry.retries) {
        if (waited + seconds <= retry.maxWaitSeconds) {
          waited += seconds;
          await sleep(seconds * 1000);
          continue;
        }
      }
      throw new SignetApiError(envelope.error, response.status, seconds);
    }
  }

  /** Every item of a paged list, following nextCursor page after page. */
  async function* everyItem<T>(path: string, query: Record<string, string | number | undefined>) {
    let cursor: string | undefined;
    do {
      const page = await request<T[]>('GET', path, { query: { ...query, cursor } });
      yield* page.data;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }

  const id = (value: string) => encodeURIComponent(value);

  return {
    documents: {
      /** One page, newest first; pass the previous page's nextCursor to go on. */
      async page(params: ListDocumentsParams & { cursor?: string } = {}): Promise<Page<Document>> {
        return request<Document[]>('GET', '/documents', { query: { ...params } });
      },
      /** Every document, newest first, following nextCursor across pages. */
      list(params: ListDocumentsParams = {}): AsyncGenerator<Document> {
        return everyItem<Document>('/documents', { ...params });
      },
      async get(documentId: string): Promise<DocumentDetail> {
        return (await request<DocumentDetail>('GET', `/documents/${id(documentId)}`)).data;
      },
      /**
       * The document's original or sealed PDF, streamed: fetches the detail (with the API
       * key) for a fresh download link, then the link itself, which is the credential: no
       * API key, no cookies, no referrer go with it. Throws `SignetFileUnavailableError` when
       * the document has no such file yet, `SignetDownloadError` when the link answers
       * anything but the PDF, and `SignetApiError`/`SignetNetworkError` as every call does.
       */
      async download(documentId: string, kind: FileKind): Promise<FileDownload> {
        const detail = (await request<DocumentDetail>('GET', `/documents/${id(documentId)}`)).data;
        const file = detail.files.find((f) => f.kind === kind);
        if (!file) throw new SignetFileUnavailableError(detail.id, kind, detail.status);
        let response: Response;
        try {
          response = await doFetch(file.downloadUrl, {
            method: 'GET',
            credentials: 'omit',
            referrerPolicy: 'no-referrer',
          });
        } catch (error) {
          throw new SignetNetworkError(`download of ${kind}.pdf failed: ${(error as Error).message}`, {
            cause: error,
          });
        }
        const type = response.headers.get('content-type') ?? '';
        if (response.status !== 200 || !/^application\/pdf\b/i.test(type) || !response.body) {
          await response.body?.cancel().catch(() => {});
          throw new SignetDownloadError(
            detail.id,
            kind,
            response.status,
            response.status === 200
              ? `answered ${type || 'no Content-Type'}, not a PDF`
              : `HTTP ${response.status}`,
          );
        }
        return {
          documentId: detail.id,
          kind,
          stream: response.body,
          sha256: file.sha256,
          bytes: file.bytes,
          pages: file.pages,
          fileName:
            dispositionFileName(response.headers.get('content-disposition')) ?? `${detail.id}-${kind}.pdf`,
        };
      },
    },
    webhookEndpoints: {
      async list(): Promise<WebhookEndpoint[]> {
        return (await request<WebhookEndpoint[]>('GET', '/webhook-endpoints')).data;
      },
      /**
       * The only answer that holds the endpoint's secret: keep it. Pass an `idempotencyKey`
       * to make a retry after a lost answer safe (it answers the first endpoint again).
       */
      async create(
        body: CreateWebhookEndpointBody,
        options: CreateOptions = {},
      ): Promise<CreatedWebhookEndpoint> {
        return (
          await request<CreatedWebhookEndpoint>('POST', '/webhook-endpoints', {
            body,
            idempotencyKey: options.idempotencyKey,
          })
        ).data;
      },
      async get(endpointId: string): Promise<WebhookEndpoint> {
        return (await request<WebhookEndpoint>('GET', `/webhook-endpoints/${id(endpointId)}`)).data;
      },
      async update(endpointId: string, body: UpdateWebhookEndpointBody): Promise<WebhookEndpoint> {
        return (await request<WebhookEndpoint>('PATCH', `/webhook-endpoints/${id(endpointId)}`, { body }))
          .data;
      },
      async delete(endpointId: string): Promise<{ id: string; deleted: true }> {
        return (
          await request<{ id: string; deleted: true }>('DELETE', `/webhook-endpoints/${id(endpointId)}`)
        ).data;
      },
      /**
       * A new signing secret, in this answer only: keep it. For `overlapHours` (0 to 168, 24
       * unless given) every delivery carries a v1= with the previous secret too, until
       * `previousSecretExpiresAt`, so receivers switch without missing one.
       */
      async rotateSecret(
        endpointId: string,
        body: RotateWebhookEndpointSecretBody = {},
      ): Promise<RotatedWebhookEndpoint> {
        return (
          await request<RotatedWebhookEndpoint>(
            'POST',
            `/webhook-endpoints/${id(endpointId)}/rotate-secret`,
            {
              body,
            },
          )
        ).data;
      },
      /** An endpoint's delivery log: each delivery with its attempts' outcomes, newest first. */
      deliveries: {
        /** One page (50 unless `limit` says otherwise); pass the previous page's nextCursor to go on. */
        async page(
          endpointId: string,
          params: ListDeliveriesParams & { cursor?: string } = {},
        ): Promise<Page<WebhookDelivery>> {
          return request<WebhookDelivery[]>('GET', `/webhook-endpoints/${id(endpointId)}/deliveries`, {
            query: { ...params },
          });
        },
        /** Every delivery of the endpoint, newest first, following nextCursor across pages. */
        list(endpointId: string, params: ListDeliveriesParams = {}): AsyncGenerator<WebhookDelivery> {
          return everyItem<WebhookDelivery>(`/webhook-endpoints/${id(endpointId)}/deliveries`, { ...params });
        },
        /**
         * Sends a dropped delivery once more, now: the same delivery id and body, signed anew,
         * recorded as its next attempt. `delivered` says whether the receiver took it; a
         * delivery that is not dropped is `409 delivery-not-resendable`.
         */
        async resend(endpointId: string, deliveryId: string): Promise<ResendResult> {
          return (
            await request<ResendResult>(
              'POST',
              `/webhook-endpoints/${id(endpointId)}/deliveries/${id(deliveryId)}/resend`,
            )
          ).data;
        },
      },
    },
  };
}

export type SignetClient = ReturnType<typeof createClient>;

/** A file as the `document.completed` delivery describes it: no link (fetch one with `documents.download`). */
export type CompletedFile = Omit<DocumentFile, 'downloadUrl'>;

export type WebhookEvent =
  | {
      id: string;
      type: Exclude<WebhookEventType, 'ping' | 'document.completed'>;
      createdAt: string;
      data: { document: Document; recipient: Recipient | null };
    }
  | {
      id: string;
      type: 'document.completed';
      createdAt: string;
      /**
       * `files`: the original and the sealed PDF, as they were when it completed (absent
       * only from deliveries recorded before Signet sealed documents).
       */
      data: { document: Document & { files?: CompletedFile[] }; recipient: null };
    }
  | { id: string; type: 'ping'; createdAt: string; data: { message: string } };

export type WebhookVerificationFailure =
  | 'malformed-header'
  | 'unreadable-time'
  | 'outside-tolerance'
  | 'wrong-signature'
  | 'malformed-body';

export class WebhookVerificationError extends Error {
  readonly reason: WebhookVerificationFailure;
  constructor(reason: WebhookVerificationFailure) {
    super(`webhook refused: ${reason}`);
    this.name = 'WebhookVerificationError';
    this.reason = reason;
  }
}

const encoder = new TextEncoder();

function hexToBytes(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/**
 * Checks a delivery: `X-Service-Signature: t=<timestamp>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`
 * (more than one `v1=` is accepted, any one of them valid, so a signature made with another
 * secret beside yours does no harm). Pass the body exactly as received (before any JSON
 * parsing) and the header as your framework gives it: node:http's `string | string[]` is
 * taken as is, and a header sent twice is refused. Refuses a malformed header, an
 * unreadable time, a time more than `toleranceSeconds` (300) from `now`, and a wrong
 * signature (compared in constant time by Web Crypto); returns the parsed event.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  signatureHeader: string | readonly string[] | null | undefined,
  secret: string,
  options: { toleranceSeconds?: number; now?: Date } = {},
): Promise<WebhookEvent> {
  const header =
    typeof signatureHeader === 'string' || signatureHeader == null
      ? signatureHeader
      : signatureHeader.length === 1
        ? signatureHeader[0]
        : null;
  const match = /^t=([^,]+)((?:,v1=[0-9a-f]{64})+)$/.exec(header ?? '');
  if (!match) throw new WebhookVerificationError('malformed-header');
  const [, timestamp, list] = match as unknown as [string, string, string];
  const signatures = list
    .slice(1)
    .split(',')
    .map((part) => part.slice('v1='.length));
  const sentAt = Date.parse(timestamp);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(timestamp) || Number.isNaN(sentAt)) {
    throw new WebhookVerificationError('unreadable-time');
  }
  const now = (options.now ?? new Date()).getTime();
  if (!(Math.abs(now - sentAt) <= (options.toleranceSeconds ?? 300) * 1000)) {
    throw new WebhookVerificationError('outside-tolerance');
  }
  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody;
  const signed = new Uint8Array(timestamp.length + 1 + body.length);
  signed.set(encoder.encode(`${timestamp}.`), 0);
  signed.set(body, timestamp.length + 1);
  const key = await crypto.subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['verify'],
  );
  let valid = false;
  for (const signature of signatures)
    valid = (await crypto.subtle.verify('HMAC', key, hexToBytes(signature), signed)) || valid;
  if (!valid) throw new WebhookVerificationError('wrong-signature');
  try {
    return JSON.parse(new TextDecoder().decode(body)) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('malformed-body');
  }
}

/**
 * The `filename*` (RFC 8187, UTF-8 or ISO-8859-1) or else the `filename` of a
 * Content-Disposition header, as a bare file name (no folder, no control characters), or
 * null when it has none worth using.
 */
export function dispositionFileName(header: string | null | undefined): string | null {
  const parameters = new Map<string, string>();
  // disposition-type, then `; name=value` with value a token or a quoted string.
  const parameter = /;\s*([^\s=;]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g;
  for (const match of (header ?? '').matchAll(parameter)) {
    const name = (match[1] as string).toLowerCase();
    const value = match[2] === undefined ? (match[3] ?? '').trim() : match[2].replace(/\\(.)/g, '$1');
    if (!parameters.has(name)) parameters.set(name, value);
  }
  const extended = /^([\w!#$%&+^`{}~.-]+)'[^']*'(.*)$/.exec(parameters.get('filename*') ?? '');
  const decoded = extended ? decodeExtended(extended[1] as string, extended[2] as string) : null;
  return bareName(decoded) ?? bareName(parameters.get('filename') ?? null);
}

function decodeExtended(charset: string, value: string): string | null {
  try {
    const bytes: number[] = [];
    for (let i = 0; i < value.length; i++) {
      const char = value[i] as string;
      if (char === '%' && /^[0-9a-f]{2}$/i.test(value.slice(i + 1, i + 3))) {
        bytes.push(Number.parseInt(value.slice(i + 1, i + 3), 16));
        i += 2;
      } else {
        const code = char.charCodeAt(0);
        if (code > 0x7e) return null;
        bytes.push(code);
      }
    }
    return new TextDecoder(charset, { fatal: true }).decode(new Uint8Array(bytes));
  } catch {
    return null;
  }
}

function bareName(name: string | null): string | null {
  if (name === null) return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
  const bare = (name.split(/[/\\]/).at(-1) ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return bare === '' || bare === '.' || bare === '..' ? null : bare;
}

/**
 * A pass-through stream that hashes what flows through it and, at the end, errors the
 * stream with `SignetIntegrityError` unless the bytes hash to `expectedSha256` (hex):
 * `download.stream.pipeThrough(verifySha256(download.sha256))`. Nothing is held whole in
 * memory, so the bytes have already gone on when a mismatch is found: whoever wrote them
 * should discard them when the stream errors (a `pipeline` rejects).
 */
export function verifySha256(expectedSha256: string): TransformStream<Uint8Array, Uint8Array> {
  const expected = expectedSha256.toLowerCase();
  const hash = createSha256();
  let bytes = 0;
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      hash.update(chunk);
      bytes += chunk.byteLength;
      controller.enqueue(chunk);
    },
    flush(controller) {
      const actual = hash.digest();
      if (actual !== expected) controller.error(new SignetIntegrityError(expected, actual, bytes));
    },
  });
}
