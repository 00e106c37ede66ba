// @signet/client: the Signet API from TypeScript or JavaScript, with no dependencies.
// Runs wherever `fetch` and Web Crypto exist (Node 20+, Deno, Bun, browsers' workers).
// - Every operation of the API as a typed method; `documents.list()` walks every page.
// - Documents are written as well as read: `documents.create` (and `update`, a draft
//   replaced whole) sends JSON, or multipart/form-data when a PDF goes with it (a path,
//   read with node:fs, loaded only then; bytes; a Blob; a stream); `send`, `delete`,
//   `remind`, `withdraw` and `signingUrl` follow the API's operations one to one.
// - Failures are typed: `SignetApiError` (the API answered with an error code, and the
//   `pointer` of a refused body) and `SignetNetworkError` (no answer, or none in time).
// - Every call has a timeout (`timeoutMs`, 30 s unless the client or the call says
//   otherwise) for each exchange, and takes a caller's `signal`: a timeout is a
//   `SignetNetworkError`, an abort rejects with the signal's reason (an `AbortError`).
//   Neither is ever retried, and an abort also ends a wait between retries.
// - Retries: 429 `rate-limited` is waited out (Retry-After) and retried, within bounds; so
//   is 503 `unavailable`, but only for reads and for writes that carry an Idempotency-Key.
//   A write without a key is never repeated, not on 503 and not after a network error or
//   a timeout: it may have landed, and only the key makes a repeat answer that instead of
//   doing it twice. No call is repeated after a network error or a timeout.
// - `documents.download(id, kind)` streams a document's original or sealed PDF from its
//   download link (a capability URL outside /v1, fetched without the API key);
//   `verifySha256` checks it against the API's hash as it passes.
// - `templates` covers the six template operations (list, get, create, update, delete, and
//   `documents`: up to 100 documents made, and sent with `send: true`, from one).
// - `events.stream()` reads GET /events/stream as an async iterator of the same events a
//   webhook delivers, reconnecting with Last-Event-ID after a dropped connection.
// - `webhookEndpoints.deliveries` reads an endpoint's delivery log and resends a dropped
//   delivery; `webhookEndpoints.create(body, {idempotencyKey})` makes a create safe to retry;
//   `webhookEndpoints.rotateSecret` replaces a secret with an overlap in which both sign.
// - `verifyWebhook` checks a delivery's X-Service-Signature on the raw body in constant
//   time and returns the parsed event.
import { readServerSentEvents } from './event-stream.ts';
import { createSha256 } from './sha256.ts';
import type {
  CreatedWebhookEndpoint,
  CreateWebhookEndpointBody,
  DeletedDocument,
  DeletedTemplate,
  Document,
  DocumentDetail,
  ErrorCode,
  MadeDocuments,
  NewDocument,
  NewTemplate,
  Recipient,
  ResendResult,
  RotatedWebhookEndpoint,
  RotateWebhookEndpointSecretBody,
  SigningUrl,
  Template,
  TemplateDocuments,
  TemplateSummary,
  UpdateWebhookEndpointBody,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEventType,
  WithdrawDocumentBody,
  WrittenDocument,
} from './types.ts';

export type * from './types.ts';
export { errorStatus, webhookEventTypes } from './types.ts';

/** The API answered with an error: `code` is the stable code, `status` the HTTP status. */
export class SignetApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Seconds to wait, on `rate-limited` (and the other answers that carry Retry-After). */
  readonly retryAfter: number | null;
  /**
   * For a refused body (`invalid-body`, `invalid-file`, `upload-limit-reached`): a JSON
   * Pointer to the member at fault, e.g. `/recipients/1/email` (`""` for the whole body);
   * null on every other answer.
   */
  readonly pointer: string | null;
  constructor(code: ErrorCode, status: number, retryAfter: number | null, pointer: string | null = null) {
    super(pointer === null ? `${status} ${code}` : `${status} ${code} at ${pointer || '(the body)'}`);
    this.name = 'SignetApiError';
    this.code = code;
    this.status = status;
    this.retryAfter = retryAfter;
    this.pointer = pointer;
  }
}

/**
 * No usable answer: the connection failed, no answer came within `timeoutMs`, or the
 * response was not the API's.
 */
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
   * On 429 (and on 503 `unavailable` for reads and for writes with an Idempotency-Key),
   * wait Retry-After and try again: at most `retries` times and `maxWaitSeconds` in all.
   * `false` throws at once.
   */
  rateLimitRetry?: false | { retries?: number; maxWaitSeconds?: number };
  /**
   * How long one exchange with the API may take, from sending the request to the end of
   * its answer (for a download: until the PDF's headers arrive), in milliseconds: 30,000
   * unless given; a call's own `timeoutMs` overrides it. Past it the call fails with
   * `SignetNetworkError`, and is not retried. `0` (or `Infinity`) waits without a bound.
   */
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** For tests: how to wait. */
  sleep?: (ms: number) => Promise<void>;
}

/** What every call takes beside its own arguments. */
export interface CallOptions {
  /**
   * Ends the call when it aborts: a request under way, and a wait between retries. The
   * call rejects with the signal's reason (an `AbortError` DOMException unless you gave
   * another); nothing is retried after it. A download keeps it for its stream.
   */
  signal?: AbortSignal;
  /** The client's `timeoutMs`, for this call. */
  timeoutMs?: number;
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

export interface ListTemplatesParams {
  /** 1 to 100 (the API's default is 25). */
  limit?: number;
}

/** `POST /templates`' body, with the PDF as `PdfInput` instead of base64 (sent in base64). */
export type TemplateInput = Omit<NewTemplate, 'file'> & { file: PdfInput };

/** `PUT /templates/{id}`' body: without `file` the template keeps its PDF. */
export type TemplateUpdate = Omit<NewTemplate, 'file'> & { file?: PdfInput };

/** The first message of an event stream: the workspace, and the secret `signet listen` signs with. */
export interface EventStreamReady {
  workspaceId: string;
  /** The key's stream signing secret (derived, not the key). */
  secret: string;
  /** The event id the stream resumed after (the Last-Event-ID it was given), or null. */
  resumedAfter: string | null;
}

export interface EventStreamOptions {
  /** Only these event types (all document events unless given). */
  types?: Array<Exclude<WebhookEventType, 'ping'>>;
  /** Resume after this event id (what the last event you handled had as `id`). */
  lastEventId?: string;
  /** Ends the stream: the iterator returns (no error) once it aborts. */
  signal?: AbortSignal;
  /**
   * After a dropped connection or a server's end of the stream, connect again with the last
   * event's id as Last-Event-ID (the server's `retry:` delay, then doubling to 30 s while it
   * fails; 429's Retry-After). `false` ends the iterator instead. 401 and 403 always throw.
   */
  reconnect?: boolean;
  /** Called with each connection's `ready` message. */
  onReady?: (ready: EventStreamReady) => void;
  /** How long the answer's headers may take, per connection (the client's `timeoutMs` unless given). */
  timeoutMs?: number;
}

export interface ListDeliveriesParams {
  /** 1 to 100 (the API's default is 50). */
  limit?: number;
}

export interface CreateOptions extends CallOptions {
  /**
   * Sent as `Idempotency-Key` (1 to 255 visible ASCII characters, e.g. a UUID you keep):
   * the same write repeated with the same key (and body) within 24 hours answers the first
   * one's result instead of doing it again. With a key, a 503 `unavailable` is retried
   * like a read; without one, a write is never repeated.
   */
  idempotencyKey?: string;
}

/**
 * A PDF to send with a document: a path to the file (a string: read with node:fs, so in
 * Node, Deno or Bun only; **not** base64), its bytes (`Uint8Array`, Node's `Buffer`), a
 * `Blob` (or `File`), or a stream (a web `ReadableStream`, or any async iterable of bytes
 * such as Node's `Readable`), which is collected into a Blob before it is sent.
 */
export type PdfInput = string | Uint8Array | Blob | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

/** `POST /documents`' body, with the PDF as `PdfInput` instead of base64. */
export type DocumentInput = Omit<NewDocument, 'file'> & { file?: PdfInput };

type Envelope<T> =
  | { ok: true; data: T; nextCursor?: string | null }
  | { ok: false; error: ErrorCode; pointer?: string };

/** A request's body as it goes on the wire: built once, sent again as is on a retry. */
interface Payload {
  contentType: string;
  body: string | Blob;
}

interface RequestInit {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  payload?: Payload;
  idempotencyKey?: string | undefined;
  call?: CallOptions;
}

const defaultTimeoutMs = 30_000;

export function createClient(options: ClientOptions) {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const retry =
    options.rateLimitRetry === false ? null : { retries: 3, maxWaitSeconds: 60, ...options.rateLimitRetry };
  const clientTimeoutMs = options.timeoutMs ?? defaultTimeoutMs;

  /** One exchange: the request sent and its answer read, within the timeout. */
  async function exchange<T>(
    method: string,
    url: URL,
    payload: Payload | undefined,
    init: RequestInit,
  ): Promise<{ response: Response; envelope: Envelope<T> }> {
    const label = `${method} ${url.pathname}`;
    const bound = deadline(label, init.call?.timeoutMs ?? clientTimeoutMs, init.call?.signal);
    try {
      let response: Response;
      try {
        response = await doFetch(url, {
          method,
          headers: {
            authorization: `Bearer ${options.apiKey}`,
            ...(payload === undefined ? {} : { 'content-type': payload.contentType }),
            ...(init.idempotencyKey === undefined ? {} : { 'idempotency-key': init.idempotencyKey }),
          },
          body: payload?.body,
          signal: bound.signal,
        });
      } catch (error) {
        throw bound.failure(error, `${label} failed: ${(error as Error).message}`);
      }
      try {
        return { response, envelope: (await response.json()) as Envelope<T> };
      } catch (error) {
        throw bound.failure(error, `${label}: HTTP ${response.status} without the API's JSON`);
      }
    } finally {
      bound.clear();
    }
  }

  async function request<T>(
    method: string,
    path: string,
    init: RequestInit = {},
  ): Promise<{ data: T; nextCursor: string | null }> {
    const url = new URL(base + path);
    for (const [name, value] of Object.entries(init.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const payload = init.payload ?? (init.body === undefined ? undefined : jsonPayload(init.body));
    // A write answered 503 is repeated only under an Idempotency-Key: it may have landed as
    // the connection dropped, and only the key makes the repeat answer that instead.
    const repeatable = method === 'GET' || init.idempotencyKey !== undefined;
    const signal = init.call?.signal;
    let waited = 0;
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted();
      const { response, envelope } = await exchange<T>(method, url, payload, init);
      if (envelope.ok) return { data: envelope.data, nextCursor: envelope.nextCursor ?? null };
      const retryAfter = Number(response.headers.get('retry-after'));
      const seconds = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null;
      const retriable = envelope.error === 'rate-limited' || (envelope.error === 'unavailable' && repeatable);
      if (retriable && retry && seconds !== null && attempt < retry.retries) {
        if (waited + seconds <= retry.maxWaitSeconds) {
          waited += seconds;
          await abortableWait(sleep(seconds * 1000), signal);
          continue;
        }
      }
      throw new SignetApiError(envelope.error, response.status, seconds, envelope.pointer ?? null);
    }
  }

  /** Every item of a paged list, following nextCursor page after page. */
  async function* everyItem<T>(
    path: string,
    query: Record<string, string | number | undefined>,
    call: CallOptions,
  ) {
    let cursor: string | undefined;
    do {
      const page = await request<T[]>('GET', path, { query: { ...query, cursor }, call });
      yield* page.data;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }

  /** A document's body, JSON or multipart, read before the request (and checked for an abort after). */
  async function documentPayload(input: DocumentInput, call: CallOptions): Promise<Payload> {
    const { file, ...document } = input;
    if (file === undefined) return jsonPayload(document);
    const payload = multipartPayload(document, await pdfBlob(file));
    call.signal?.throwIfAborted();
    return payload;
  }

  /** The download link fetched, without the API key, until its headers arrive within the timeout. */
  async function fetchLink(url: string, kind: FileKind, call: CallOptions): Promise<Response> {
    const bound = deadline(`download of ${kind}.pdf`, call.timeoutMs ?? clientTimeoutMs, call.signal);
    try {
      return await doFetch(url, {
        method: 'GET',
        credentials: 'omit',
        referrerPolicy: 'no-referrer',
        signal: bound.signal,
      });
    } catch (error) {
      throw bound.failure(error, `download of ${kind}.pdf failed: ${(error as Error).message}`);
    } finally {
      bound.clear();
    }
  }

  /** A template's JSON body, its PDF (if any) read and written in base64. */
  async function templateBody(input: TemplateInput | TemplateUpdate, call: CallOptions) {
    const { file, ...rest } = input;
    if (file === undefined) return rest;
    const bytes = new Uint8Array(await (await pdfBlob(file)).arrayBuffer());
    call.signal?.throwIfAborted();
    return { ...rest, file: base64Of(bytes) };
  }

  /** The event stream's connections, one after another, as one iterator of events. */
  async function* eventStream(streamOptions: EventStreamOptions): AsyncGenerator<WebhookEvent> {
    const { signal } = streamOptions;
    let lastEventId = streamOptions.lastEventId;
    let delayMs = 1000;
    const url = new URL(`${base}/events/stream`);
    if (streamOptions.types?.length) url.searchParams.set('types', streamOptions.types.join(','));
    while (!signal?.aborted) {
      let response: Response | null = null;
      const bound = deadline('GET /events/stream', streamOptions.timeoutMs ?? clientTimeoutMs, signal);
      try {
        response = await doFetch(url, {
          method: 'GET',
          headers: {
            authorization: `Bearer ${options.apiKey}`,
            accept: 'text/event-stream',
            ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }),
          },
          // The timeout bounds the headers only: cleared once they arrive, the body reads on.
          signal: bound.signal,
        }).finally(() => bound.clear());
      } catch (error) {
        if (signal?.aborted) return;
        if (streamOptions.reconnect === false)
          throw bound.failure(error, `GET /events/stream failed: ${(error as Error).message}`);
      }
      if (response && !(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
        const envelope = (await response.json().catch(() => null)) as Envelope<unknown> | null;
        const code = envelope && !envelope.ok ? envelope.error : 'internal-error';
        const retryAfter = Number(response.headers.get('retry-after'));
        const seconds = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null;
        const final = response.status === 401 || response.status === 403 || response.status === 400;
        if (final || streamOptions.reconnect === false)
          throw new SignetApiError(code, response.status, seconds);
        if (seconds !== null) delayMs = seconds * 1000;
        response = null;
      }
      if (response?.body) {
        try {
          for await (const message of readServerSentEvents(response.body)) {
            if (message.retry !== undefined) delayMs = message.retry;
            if (message.event === 'ready') {
              streamOptions.onReady?.(JSON.parse(message.data) as EventStreamReady);
              continue;
            }
            if (message.id !== undefined) lastEventId = message.id;
            yield JSON.parse(message.data) as WebhookEvent;
            // Aborted while the caller held the event: no further one, even one already read.
            if (signal?.aborted) return;
          }
        } catch (error) {
          if (signal?.aborted) return;
          if (streamOptions.reconnect === false)
            throw new SignetNetworkError(`GET /events/stream: ${(error as Error).message}`, { cause: error });
        }
      }
      if (signal?.aborted || streamOptions.reconnect === false) return;
      try {
        await abortableWait(sleep(delayMs), signal);
      } catch {
        return;
      }
      delayMs = Math.min(delayMs * 2, 30_000);
    }
  }

  const id = (value: string) => encodeURIComponent(value);
  const one = async <T>(method: string, path: string, init: RequestInit = {}) =>
    (await request<T>(method, path, init)).data;

  return {
    documents: {
      /** One page, newest first; pass the previous page's nextCursor to go on. */
      async page(
        params: ListDocumentsParams & { cursor?: string } = {},
        call: CallOptions = {},
      ): Promise<Page<Document>> {
        return request<Document[]>('GET', '/documents', { query: { ...params }, call });
      },
      /** Every document, newest first, following nextCursor across pages. */
      list(params: ListDocumentsParams = {}, call: CallOptions = {}): AsyncGenerator<Document> {
        return everyItem<Document>('/documents', { ...params }, call);
      },
      async get(documentId: string, call: CallOptions = {}): Promise<DocumentDetail> {
        return one<DocumentDetail>('GET', `/documents/${id(documentId)}`, { call });
      },
      /**
       * `POST /documents`: a draft, or with `send: true` a document sent at once (201). With a
       * `file` it goes as multipart/form-data (the JSON in a `document` part, the PDF in a
       * `file` part), without one as JSON (`text` made into the PDF when it is sent). The
       * answer's `signingUrls` hold the links of a `delivery: 'none'` document sent at once.
       */
      async create(input: DocumentInput, options: CreateOptions = {}): Promise<WrittenDocument> {
        return one<WrittenDocument>('POST', '/documents', {
          payload: await documentPayload(input, options),
          idempotencyKey: options.idempotencyKey,
          call: options,
        });
      },
      /**
       * `PUT /documents/{id}`: a draft replaced whole by the same body as `create` takes (200):
       * recipients matched by email keep their ids; without `file` it keeps its PDF; with
       * `send: true` it is sent after. `409 document-not-draft` once it was sent.
       */
      async update(
        documentId: string,
        input: DocumentInput,
        options: CreateOptions = {},
      ): Promise<WrittenDocument> {
        return one<WrittenDocument>('PUT', `/documents/${id(documentId)}`, {
          payload: await documentPayload(input, options),
          idempotencyKey: options.idempotencyKey,
          call: options,
        });
      },
      /** Sends a draft; `signingUrls` holds the first group's links of a `delivery: 'none'` document. */
      async send(documentId: string, options: CreateOptions = {}): Promise<WrittenDocument> {
        return one<WrittenDocument>('POST', `/documents/${id(documentId)}/send`, {
          idempotencyKey: options.idempotencyKey,
          call: options,
        });
      },
      /** Deletes a draft with its recipients and fields; a sent document is `409 document-not-draft`. */
      async delete(documentId: string, call: CallOptions = {}): Promise<DeletedDocument> {
        return one<DeletedDocument>('DELETE', `/documents/${id(documentId)}`, { call });
      },
      /**
       * Mails a signer whose turn it is their link again (at most once an hour per signer);
       * with an `idempotencyKey` a repeat answers the document and mails nothing again.
       */
      async remind(
        documentId: string,
        recipientId: string,
        options: CreateOptions = {},
      ): Promise<DocumentDetail> {
        return one<DocumentDetail>(
          'POST',
          `/documents/${id(documentId)}/recipients/${id(recipientId)}/remind`,
          { idempotencyKey: options.idempotencyKey, call: options },
        );
      },
      /**
       * Ends a document out for signature: it becomes `expired` with `expiredReason:
       * 'withdrawn'`; the reason goes to its history. With an `idempotencyKey` a repeat
       * answers the document instead of `document-not-active`.
       */
      async withdraw(
        documentId: string,
        body: WithdrawDocumentBody = {},
        options: CreateOptions = {},
      ): Promise<DocumentDetail> {
        return one<DocumentDetail>('POST', `/documents/${id(documentId)}/withdraw`, {
          body,
          idempotencyKey: options.idempotencyKey,
          call: options,
        });
      },
      /**
       * A fresh signing link for a recipient of a `delivery: 'none'` document whose turn has
       * come; the link before it stops working. A secret: deliver it, keep it from logs.
       */
      async signingUrl(
        documentId: string,
        recipientId: string,
        options: CreateOptions = {},
      ): Promise<SigningUrl> {
        return one<SigningUrl>(
          'POST',
          `/documents/${id(documentId)}/recipients/${id(recipientId)}/signing-url`,
          { idempotencyKey: options.idempotencyKey, call: options },
        );
      },
      /**
       * The document's original or sealed PDF, streamed: fetches the detail (with the API
       * key) for a fresh download link, then the link itself, which is the credential: no
       * API key, no cookies, no referrer go with it. Throws `SignetFileUnavailableError` when
       * the document has no such file yet, `SignetDownloadError` when the link answers
       * anything but the PDF, and `SignetApiError`/`SignetNetworkError` as every call does.
       * The timeout bounds each step until the PDF's headers arrive; `signal` also ends the
       * stream (reading it then rejects with the signal's reason).
       */
      async download(documentId: string, kind: FileKind, call: CallOptions = {}): Promise<FileDownload> {
        const detail = await one<DocumentDetail>('GET', `/documents/${id(documentId)}`, { call });
        const file = detail.files.find((f) => f.kind === kind);
        if (!file) throw new SignetFileUnavailableError(detail.id, kind, detail.status);
        const response = await fetchLink(file.downloadUrl, kind, call);
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
    templates: {
      /** One page of templates, newest first; pass the previous page's nextCursor to go on. */
      async page(
        params: ListTemplatesParams & { cursor?: string } = {},
        call: CallOptions = {},
      ): Promise<Page<TemplateSummary>> {
        return request<TemplateSummary[]>('GET', '/templates', { query: { ...params }, call });
      },
      /** Every template, newest first, following nextCursor across pages. */
      list(params: ListTemplatesParams = {}, call: CallOptions = {}): AsyncGenerator<TemplateSummary> {
        return everyItem<TemplateSummary>('/templates', { ...params }, call);
      },
      /** One template: its roles, their fields, and its PDF's facts. */
      async get(templateId: string, call: CallOptions = {}): Promise<Template> {
        return one<Template>('GET', `/templates/${id(templateId)}`, { call });
      },
      /** `POST /templates` (write key): a PDF with fields placed for roles (201). */
      async create(input: TemplateInput, call: CallOptions = {}): Promise<Template> {
        return one<Template>('POST', '/templates', { body: await templateBody(input, call), call });
      },
      /** `PUT /templates/{id}` (write key): replaced whole; without `file` it keeps its PDF. */
      async update(templateId: string, input: TemplateUpdate, call: CallOptions = {}): Promise<Template> {
        return one<Template>('PUT', `/templates/${id(templateId)}`, {
          body: await templateBody(input, call),
          call,
        });
      },
      /** Deletes a template; the documents made from it stay. */
      async delete(templateId: string, call: CallOptions = {}): Promise<DeletedTemplate> {
        return one<DeletedTemplate>('DELETE', `/templates/${id(templateId)}`, { call });
      },
      /**
       * `POST /templates/{id}/documents` (write key): up to 100 documents, each item on its
       * own (sent at once with `send: true`); `refused` lists the items not made, with their
       * code and pointer. With an `idempotencyKey` a repeat of the same body makes nothing
       * twice; another body under the key is `409 idempotency-key-reused`.
       */
      async documents(
        templateId: string,
        body: TemplateDocuments,
        options: CreateOptions = {},
      ): Promise<MadeDocuments> {
        return one<MadeDocuments>('POST', `/templates/${id(templateId)}/documents`, {
          body,
          idempotencyKey: options.idempotencyKey,
          call: options,
        });
      },
    },
    events: {
      /**
       * `GET /events/stream`: the workspace's events as they happen, each the very body a
       * webhook delivery carries, for as long as you read (or until `signal` aborts). See
       * `EventStreamOptions` for resuming and reconnecting.
       */
      stream(streamOptions: EventStreamOptions = {}): AsyncGenerator<WebhookEvent> {
        return eventStream(streamOptions);
      },
    },
    webhookEndpoints: {
      async list(call: CallOptions = {}): Promise<WebhookEndpoint[]> {
        return one<WebhookEndpoint[]>('GET', '/webhook-endpoints', { call });
      },
      /**
       * The only answer that holds the endpoint's secret: keep it. Pass an `idempotencyKey`
       * to make a retry after a lost answer safe (it answers the first endpoint again).
       */
      async create(
        body: CreateWebhookEndpointBody,
        options: CreateOptions = {},
      ): Promise<CreatedWebhookEndpoint> {
        return one<CreatedWebhookEndpoint>('POST', '/webhook-endpoints', {
          body,
          idempotencyKey: options.idempotencyKey,
          call: options,
        });
      },
      async get(endpointId: string, call: CallOptions = {}): Promise<WebhookEndpoint> {
        return one<WebhookEndpoint>('GET', `/webhook-endpoints/${id(endpointId)}`, { call });
      },
      async update(
        endpointId: string,
        body: UpdateWebhookEndpointBody,
        call: CallOptions = {},
      ): Promise<WebhookEndpoint> {
        return one<WebhookEndpoint>('PATCH', `/webhook-endpoints/${id(endpointId)}`, { body, call });
      },
      async delete(endpointId: string, call: CallOptions = {}): Promise<{ id: string; deleted: true }> {
        return one<{ id: string; deleted: true }>('DELETE', `/webhook-endpoints/${id(endpointId)}`, { call });
      },
      /**
       * A new signing secret, in this answer only: keep it. For `overlapHours` (0 to 168, 24
       * unless given) every delivery carries a v1= with the previous secret too, until
       * `previousSecretExpiresAt`, so receivers switch without missing one.
       */
      async rotateSecret(
        endpointId: string,
        body: RotateWebhookEndpointSecretBody = {},
        call: CallOptions = {},
      ): Promise<RotatedWebhookEndpoint> {
        return one<RotatedWebhookEndpoint>('POST', `/webhook-endpoints/${id(endpointId)}/rotate-secret`, {
          body,
          call,
        });
      },
      /** An endpoint's delivery log: each delivery with its attempts' outcomes, newest first. */
      deliveries: {
        /** One page (50 unless `limit` says otherwise); pass the previous page's nextCursor to go on. */
        async page(
          endpointId: string,
          params: ListDeliveriesParams & { cursor?: string } = {},
          call: CallOptions = {},
        ): Promise<Page<WebhookDelivery>> {
          return request<WebhookDelivery[]>('GET', `/webhook-endpoints/${id(endpointId)}/deliveries`, {
            query: { ...params },
            call,
          });
        },
        /** Every delivery of the endpoint, newest first, following nextCursor across pages. */
        list(
          endpointId: string,
          params: ListDeliveriesParams = {},
          call: CallOptions = {},
        ): AsyncGenerator<WebhookDelivery> {
          return everyItem<WebhookDelivery>(
            `/webhook-endpoints/${id(endpointId)}/deliveries`,
            { ...params },
            call,
          );
        },
        /**
         * Sends a dropped delivery once more, now: the same delivery id and body, signed anew,
         * recorded as its next attempt. `delivered` says whether the receiver took it; a
         * delivery that is not dropped is `409 delivery-not-resendable`.
         */
        async resend(endpointId: string, deliveryId: string, call: CallOptions = {}): Promise<ResendResult> {
          return one<ResendResult>(
            'POST',
            `/webhook-endpoints/${id(endpointId)}/deliveries/${id(deliveryId)}/resend`,
            { call },
          );
        },
      },
    },
  };
}

/** The longest delay timers take (about 24.8 days); a longer timeout is no timeout. */
const maxTimerMs = 2 ** 31 - 1;

/**
 * One exchange's signal: the caller's, and a timer that aborts with a `SignetNetworkError`.
 * `failure` says what an error under it was: the caller's abort reason, the timeout, or a
 * network error made of `message`.
 */
function deadline(label: string, timeoutMs: number, caller: AbortSignal | undefined) {
  const timer = new AbortController();
  const bounded = timeoutMs > 0 && timeoutMs <= maxTimerMs;
  const handle = bounded
    ? setTimeout(
        () => timer.abort(new SignetNetworkError(`${label}: no answer within ${timeoutMs} ms (timeoutMs)`)),
        timeoutMs,
      )
    : undefined;
  return {
    signal: caller ? AbortSignal.any([caller, timer.signal]) : timer.signal,
    clear: () => clearTimeout(handle),
    failure(error: unknown, message: string): unknown {
      if (caller?.aborted) return caller.reason;
      if (timer.signal.aborted) return timer.signal.reason;
      return new SignetNetworkError(message, { cause: error });
    },
  };
}

/** `wait`, cut short by the signal: rejects with its reason as soon as it aborts. */
async function abortableWait(wait: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return wait;
  signal.throwIfAborted();
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([wait, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** Bytes as base64, in slices (String.fromCharCode takes a bounded number of arguments). */
function base64Of(bytes: Uint8Array): string {
  let binary = '';
  for (let at = 0; at < bytes.length; at += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  return btoa(binary);
}

function jsonPayload(body: unknown): Payload {
  return { contentType: 'application/json', body: JSON.stringify(body) };
}

/**
 * multipart/form-data as the API reads it: a `document` part holding the JSON (typed
 * application/json) and a `file` part holding the PDF (application/pdf). Written by hand,
 * as FormData cannot give a field a type; the PDF's Blob goes in as it is, not copied.
 */
function multipartPayload(document: object, pdf: Blob): Payload {
  const boundary = `signet-${crypto.randomUUID()}`;
  const head =
    `--${boundary}\r\nContent-Disposition: form-data; name="document"\r\n` +
    `Content-Type: application/json\r\n\r\n${JSON.stringify(document)}\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="document.pdf"\r\n` +
    'Content-Type: application/pdf\r\n\r\n';
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    body: new Blob([head, pdf, `\r\n--${boundary}--\r\n`]),
  };
}

/** Any `PdfInput` as a Blob: a path opened lazily by node:fs, a stream collected. */
async function pdfBlob(file: PdfInput): Promise<Blob> {
  if (typeof file === 'string') return fileBlob(file);
  if (file instanceof Blob) return file;
  if (file instanceof Uint8Array) return new Blob([file.slice()]);
  if (typeof ReadableStream !== 'undefined' && file instanceof ReadableStream)
    return new Response(file).blob();
  const chunks: Array<Uint8Array<ArrayBuffer>> = [];
  for await (const chunk of file as AsyncIterable<Uint8Array>) chunks.push(chunk.slice());
  return new Blob(chunks);
}

/**
 * A file on disk as a Blob read as it is sent (`fs.openAsBlob`), after a `stat` so that a
 * missing file fails with its own error (ENOENT, naming the path). node:fs is imported
 * here, by a name the bundlers and the build leave alone, so the client loads where it does
 * not exist (a browser's worker) as long as no path is given.
 */
async function fileBlob(path: string): Promise<Blob> {
  const specifier = 'node:fs';
  const fs = (await import(specifier)) as {
    openAsBlob(path: string, options?: { type?: string }): Promise<Blob>;
    promises: { stat(path: string): Promise<{ isFile(): boolean }> };
  };
  if (!(await fs.promises.stat(path)).isFile()) throw new TypeError(`${path} is not a file`);
  return fs.openAsBlob(path, { type: 'application/pdf' });
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
