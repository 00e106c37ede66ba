// @signet/client: the Signet API from TypeScript or JavaScript, with no dependencies.
// Runs wherever `fetch` and Web Crypto exist (Node 20+, Deno, Bun, browsers' workers).
// - Every operation of the API as a typed method; `documents.list()` walks every page.
// - Failures are typed: `SignetApiError` (the API answered with an error code) and
//   `SignetNetworkError` (no answer); 429, and 503 `unavailable` on reads, are waited out
//   and retried, within bounds.
// - `verifyWebhook` checks a delivery's X-Service-Signature on the raw body in constant
//   time and returns the parsed event.
import type {
  CreatedWebhookEndpoint,
  CreateWebhookEndpointBody,
  Document,
  DocumentDetail,
  ErrorCode,
  Recipient,
  UpdateWebhookEndpointBody,
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
    init: { query?: Record<string, string | number | undefined>; body?: unknown } = {},
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
      // A write answered 503 is never repeated: it may have landed as the connection dropped.
      const retriable =
        envelope.error === 'rate-limited' || (envelope.error === 'unavailable' && method === 'GET');
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

  const id = (value: string) => encodeURIComponent(value);

  return {
    documents: {
      /** One page, newest first; pass the previous page's nextCursor to go on. */
      async page(params: ListDocumentsParams & { cursor?: string } = {}): Promise<Page<Document>> {
        return request<Document[]>('GET', '/documents', { query: { ...params } });
      },
      /** Every document, newest first, following nextCursor across pages. */
      async *list(params: ListDocumentsParams = {}): AsyncGenerator<Document> {
        let cursor: string | undefined;
        do {
          const page = await request<Document[]>('GET', '/documents', { query: { ...params, cursor } });
          yield* page.data;
          cursor = page.nextCursor ?? undefined;
        } while (cursor);
      },
      async get(documentId: string): Promise<DocumentDetail> {
        return (await request<DocumentDetail>('GET', `/documents/${id(documentId)}`)).data;
      },
    },
    webhookEndpoints: {
      async list(): Promise<WebhookEndpoint[]> {
        return (await request<WebhookEndpoint[]>('GET', '/webhook-endpoints')).data;
      },
      /** The only answer that holds the endpoint's secret: keep it. */
      async create(body: CreateWebhookEndpointBody): Promise<CreatedWebhookEndpoint> {
        return (await request<CreatedWebhookEndpoint>('POST', '/webhook-endpoints', { body })).data;
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
    },
  };
}

export type SignetClient = ReturnType<typeof createClient>;

export type WebhookEvent =
  | {
      id: string;
      type: Exclude<WebhookEventType, 'ping'>;
      createdAt: string;
      data: { document: Document; recipient: Recipient | null };
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
 * Checks a delivery: `X-Service-Signature: t=<timestamp>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`.
 * Pass the body exactly as received (before any JSON parsing). Refuses a malformed header,
 * an unreadable time, a time more than `toleranceSeconds` (300) from `now`, and a wrong
 * signature (compared in constant time by Web Crypto); returns the parsed event.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  signatureHeader: string | null | undefined,
  secret: string,
  options: { toleranceSeconds?: number; now?: Date } = {},
): Promise<WebhookEvent> {
  const match = /^t=([^,]+),v1=([0-9a-f]{64})$/.exec(signatureHeader ?? '');
  if (!match) throw new WebhookVerificationError('malformed-header');
  const [, timestamp, signature] = match as unknown as [string, string, string];
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
  if (!(await crypto.subtle.verify('HMAC', key, hexToBytes(signature), signed))) {
    throw new WebhookVerificationError('wrong-signature');
  }
  try {
    return JSON.parse(new TextDecoder().decode(body)) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('malformed-body');
  }
}
