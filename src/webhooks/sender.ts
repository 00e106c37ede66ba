// The one function that sends a webhook request. It never throws: it returns what
// happened, and the dispatcher alone decides what that means.
//
// Safety at connect time: the URL's shape is checked again, an IP-literal host is judged
// directly, and a name is resolved by our own lookup, which refuses unless every address
// is allowed and then connects to exactly the address it checked (no second resolution
// an attacker could rebind). Redirects are never followed (undici follows none without a
// redirect interceptor, and none is installed); the response body is read up
// to 4 KB and the connection dropped after that; the whole exchange has one deadline.
import type { LookupAddress } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { Agent, request } from 'undici';
import type { AttemptErrorClass } from '../db/schema.ts';
import {
  bareHost,
  checkAddresses,
  checkUrlShape,
  type DestinationPolicy,
  type Resolver,
} from './destination.ts';

export const maxResponseBytes = 4096;

export interface OutgoingWebhook {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  errorClass: AttemptErrorClass | null;
  /** The address connected to (or refused), when one was chosen. */
  address: string | null;
  durationMs: number;
  /** The first 4 KB of the response body, as text. */
  responseBody: string | null;
}

class BlockedAddressError extends Error {
  readonly address: string | null;
  constructor(address: string | null, reason: string) {
    super(reason);
    this.name = 'BlockedAddressError';
    this.address = address;
  }
}

class DnsError extends Error {
  constructor(hostname: string) {
    super(`${hostname} does not resolve`);
    this.name = 'DnsError';
  }
}

function classify(error: unknown): AttemptErrorClass {
  const chain: unknown[] = [];
  for (let e: unknown = error; e && chain.length < 5; e = (e as { cause?: unknown }).cause) chain.push(e);
  for (const e of chain) {
    if (e instanceof BlockedAddressError) return 'blocked';
    if (e instanceof DnsError) return 'dns';
  }
  for (const e of chain) {
    const { name, code } = e as { name?: string; code?: string };
    if (
      name === 'TimeoutError' ||
      name === 'AbortError' ||
      code === 'UND_ERR_CONNECT_TIMEOUT' ||
      code === 'UND_ERR_HEADERS_TIMEOUT' ||
      code === 'UND_ERR_BODY_TIMEOUT'
    ) {
      return 'timeout';
    }
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'dns';
    if (code && /^ERR_TLS_|^ERR_SSL_|CERT|^EPROTO$|SELF_SIGNED|UNABLE_TO_/.test(code)) return 'tls';
  }
  return 'connect';
}

export async function sendWebhook(
  message: OutgoingWebhook,
  options: { timeoutMs: number; policy: DestinationPolicy; resolver: Resolver },
): Promise<AttemptResult> {
  const started = performance.now();
  let address: string | null = null;
  const done = (result: Omit<AttemptResult, 'durationMs' | 'address'>): AttemptResult => ({
    ...result,
    address,
    durationMs: Math.round(performance.now() - started),
  });

  const shape = checkUrlShape(message.url, options.policy);
  if (!shape.ok) return done({ ok: false, statusCode: null, errorClass: 'blocked', responseBody: null });
  const host = bareHost(shape.url);
  if (ipaddr.isValid(host)) {
    address = host;
    if (checkAddresses([host], options.policy)) {
      return done({ ok: false, statusCode: null, errorClass: 'blocked', responseBody: null });
    }
  }

  const lookup = (
    hostname: string,
    lookupOptions: { all?: boolean },
    callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    options.resolver.resolve(hostname.replace(/\.+$/, '')).then(
      (addresses) => {
        if (addresses.length === 0) return callback(new DnsError(hostname), '');
        const refusal = checkAddresses(addresses, options.policy);
        if (refusal && !refusal.ok) {
          address =
            addresses.find((a) => !ipaddr.isValid(a) || refusal.reason.includes(a)) ?? addresses[0] ?? null;
          return callback(new BlockedAddressError(address, refusal.reason), '');
        }
        const chosen = addresses[0] as string;
        address = chosen;
        const family = ipaddr.parse(chosen).kind() === 'ipv6' ? 6 : 4;
        if (lookupOptions.all) callback(null, [{ address: chosen, family }]);
        else callback(null, chosen, family);
      },
      () => callback(new DnsError(hostname), ''),
    );
  };

  // One connection per attempt: the address checked is the address used, and nothing
  // from one endpoint's connection can leak into another attempt.
  const agent = new Agent({ connect: { lookup, timeout: options.timeoutMs }, pipelining: 0 });
  const signal = AbortSignal.timeout(options.timeoutMs);
  try {
    const response = await request(shape.url, {
      method: 'POST',
      headers: message.headers,
      body: message.body,
      dispatcher: agent,
      signal,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of response.body) {
        const buffer = chunk as Buffer;
        chunks.push(buffer.subarray(0, maxResponseBytes - size));
        size += Math.min(buffer.length, maxResponseBytes - size);
        if (size >= maxResponseBytes) break;
      }
    } catch {
      // A body cut short (deadline, reset) still leaves the status code as the outcome.
    } finally {
      response.body.destroy();
    }
    const status = response.statusCode;
    const responseBody = Buffer.concat(chunks).toString('utf8');
    if (status >= 200 && status < 300)
      return done({ ok: true, statusCode: status, errorClass: null, responseBody });
    return done({
      ok: false,
      statusCode: status,
      errorClass: status >= 300 && status < 400 ? 'redirect' : 'http-status',
      responseBody,
    });
  } catch (error) {
    return done({
      ok: false,
      statusCode: null,
      errorClass: signal.aborted ? 'timeout' : classify(error),
      responseBody: null,
    });
  } finally {
    agent.destroy().catch(() => {});
  }
}
