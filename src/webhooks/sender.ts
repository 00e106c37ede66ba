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
import { Agent, Client, type Dispatcher } from 'undici';
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
  /** For `blocked`: which destination rule refused which address, in words. */
  refusal?: string;
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

/** The error and what caused it, outermost first. */
function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e: unknown = error; e && chain.length < 5; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

/** The destination rule behind a `blocked` failure, if that is what it was. */
function refusalOf(error: unknown): string | undefined {
  return causeChain(error).find((e): e is BlockedAddressError => e instanceof BlockedAddressError)?.message;
}

function classify(error: unknown): AttemptErrorClass {
  const chain = causeChain(error);
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

type Lookup = (
  hostname: string,
  options: { all?: boolean },
  callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
) => void;

/**
 * A DNS lookup for net/tls.connect that refuses unless every address the name resolves
 * to is allowed, then hands back exactly the address it checked (reported to `onAddress`).
 */
function checkedLookup(
  resolver: Resolver,
  policy: DestinationPolicy,
  onAddress: (address: string) => void,
): Lookup {
  return (hostname, lookupOptions, callback) => {
    resolver.resolve(hostname.replace(/\.+$/, '')).then(
      (addresses) => {
        if (addresses.length === 0) return callback(new DnsError(hostname), '');
        const blocked = addresses.find((a) => checkAddresses([a], policy) !== null);
        if (blocked !== undefined) {
          onAddress(blocked);
          const reason = `${hostname} resolves to ${blocked}, which is not a public address`;
          return callback(new BlockedAddressError(blocked, reason), '');
        }
        const chosen = addresses[0] as string;
        onAddress(chosen);
        const family = ipaddr.parse(chosen).kind() === 'ipv6' ? 6 : 4;
        if (lookupOptions.all) callback(null, [{ address: chosen, family }]);
        else callback(null, chosen, family);
      },
      () => callback(new DnsError(hostname), ''),
    );
  };
}

interface PooledConnection {
  client: Client;
  busy: boolean;
  /** The address this client's (single) connection was made to, after the checks. */
  address: string | null;
  lastUsed: number;
}

/**
 * Keep-alive connections for a worker: one undici Client (one socket) per slot, so the
 * address of every attempt is known exactly, and every new socket goes through
 * checkedLookup, so a reconnect after the keep-alive expired is checked again.
 */
export class ConnectionPool {
  readonly #byOrigin = new Map<string, PooledConnection[]>();
  /** Each endpoint URL's checks that need no network, computed once per URL. */
  readonly #targets = new Map<string, Target>();
  readonly #resolver: Resolver;
  readonly #policy: DestinationPolicy;
  readonly #timeoutMs: number;

  constructor(options: { resolver: Resolver; policy: DestinationPolicy; timeoutMs: number }) {
    this.#resolver = options.resolver;
    this.#policy = options.policy;
    this.#timeoutMs = options.timeoutMs;
  }

  /** The URL's target under this pool's policy, remembered (at most 1,000 URLs). */
  target(url: string): Target {
    let target = this.#targets.get(url);
    if (!target) {
      if (this.#targets.size >= 1000) this.#targets.clear();
      target = targetOf(url, this.#policy);
      this.#targets.set(url, target);
    }
    return target;
  }

  acquire(origin: string, literalAddress: string | null): PooledConnection {
    const connections = this.#byOrigin.get(origin) ?? [];
    this.#byOrigin.set(origin, connections);
    let connection = connections.find((c) => !c.busy && !c.client.closed && !c.client.destroyed);
    if (!connection) {
      const created: PooledConnection = {
        client: null as unknown as Client,
        busy: false,
        address: literalAddress,
        lastUsed: 0,
      };
      const lookup = checkedLookup(this.#resolver, this.#policy, (address) => {
        created.address = address;
      });
      created.client = new Client(origin, {
        connect: { lookup, timeout: this.#timeoutMs },
        pipelining: 1,
        keepAliveTimeout: 10_000,
      });
      connections.push(created);
      connection = created;
    }
    connection.busy = true;
    return connection;
  }

  release(connection: PooledConnection, reusable: boolean): void {
    connection.busy = false;
    connection.lastUsed = Date.now();
    // After a timeout or a cut-off body the socket's state is unknown: start afresh.
    if (!reusable) this.#drop(connection);
  }

  /** Closes clients idle for longer than `idleMs`. */
  prune(idleMs = 60_000): void {
    for (const connections of this.#byOrigin.values()) {
      for (const c of [...connections]) if (!c.busy && Date.now() - c.lastUsed > idleMs) this.#drop(c);
    }
  }

  #drop(connection: PooledConnection) {
    for (const [origin, connections] of this.#byOrigin) {
      const i = connections.indexOf(connection);
      if (i >= 0) connections.splice(i, 1);
      if (connections.length === 0) this.#byOrigin.delete(origin);
    }
    connection.client.destroy().catch(() => {});
  }

  async close(): Promise<void> {
    const all = [...this.#byOrigin.values()].flat();
    this.#byOrigin.clear();
    await Promise.allSettled(all.map((c) => c.client.destroy()));
  }
}

/** Where a URL sends to, and whether the checks that need no network refuse it. */
interface Target {
  blocked: boolean;
  /** Why the checks that need no network refuse it. */
  refusal: string | null;
  origin: string;
  path: string;
  /** The host when it is an IP address (judged here, never resolved). */
  literal: string | null;
}

/**
 * The URL's shape checks and, for an IP-literal host, its address check: pure functions of
 * the URL and the policy, so a worker's pool computes them once per endpoint URL, not per
 * attempt. Names are still resolved and judged on every new connection (checkedLookup).
 */
function targetOf(raw: string, policy: DestinationPolicy): Target {
  const shape = checkUrlShape(raw, policy);
  if (!shape.ok) return { blocked: true, refusal: shape.reason, origin: '', path: '', literal: null };
  const host = bareHost(shape.url);
  const literal = ipaddr.isValid(host) ? host : null;
  const verdict = literal === null ? null : checkAddresses([literal], policy);
  return {
    blocked: verdict !== null,
    refusal: verdict && !verdict.ok ? `${literal} is not a public address` : null,
    origin: shape.url.origin,
    path: `${shape.url.pathname}${shape.url.search}`,
    literal,
  };
}

/** What a response status means (spec, Delivery outcome): 2xx success, a redirect is never followed. */
function statusOutcome(
  statusCode: number,
  responseBody: string,
): Omit<AttemptResult, 'durationMs' | 'address'> {
  if (statusCode >= 200 && statusCode < 300) return { ok: true, statusCode, errorClass: null, responseBody };
  return {
    ok: false,
    statusCode,
    errorClass: statusCode >= 300 && statusCode < 400 ? 'redirect' : 'http-status',
    responseBody,
  };
}

class DeadlineError extends Error {
  constructor() {
    super('the webhook exchange passed its deadline');
    this.name = 'TimeoutError';
  }
}

/**
 * Sends one request through undici's dispatch API (callbacks, no response stream): the
 * first 4 KB of the body are kept, and a longer body is cut off there; the whole exchange
 * (connect, headers, body) has one deadline. Once a status has arrived it is the outcome,
 * even if the body is then cut short. Never rejects.
 */
export function sendWebhook(
  message: OutgoingWebhook,
  options: { timeoutMs: number; policy: DestinationPolicy; resolver: Resolver; pool?: ConnectionPool },
): Promise<AttemptResult> {
  const started = performance.now();
  const target = options.pool?.target(message.url) ?? targetOf(message.url, options.policy);
  let lookedUp: string | null = null;
  const pooled = target.blocked ? null : (options.pool?.acquire(target.origin, target.literal) ?? null);
  // A pooled keep-alive connection, or (pings, one-off tools) a connection of its own.
  const ownAgent =
    target.blocked || pooled
      ? null
      : new Agent({
          connect: {
            lookup: checkedLookup(options.resolver, options.policy, (a) => {
              lookedUp = a;
            }),
            timeout: options.timeoutMs,
          },
          pipelining: 0,
        });

  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    let controller: Dispatcher.DispatchController | null = null;
    let statusCode = 0;
    const chunks: Buffer[] = [];
    let size = 0;

    const finish = (outcome: Omit<AttemptResult, 'durationMs' | 'address'>, reusable: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      // After a timeout or a cut-off body the socket's state is unknown: start afresh.
      if (pooled) options.pool?.release(pooled, reusable);
      ownAgent?.destroy().catch(() => {});
      resolve({
        ...outcome,
        address: pooled?.address ?? lookedUp ?? target.literal,
        durationMs: Math.round(performance.now() - started),
      });
    };
    // Kept as text; U+0000 is dropped because PostgreSQL text cannot hold it.
    const responded = (reusable: boolean) =>
      finish(
        statusOutcome(statusCode, Buffer.concat(chunks).toString('utf8').replaceAll('\u0000', '')),
        reusable,
      );
    const failed = (errorClass: AttemptErrorClass, refusal?: string) =>
      finish(
        { ok: false, statusCode: null, errorClass, responseBody: null, ...(refusal ? { refusal } : {}) },
        false,
      );

    const deadline = setTimeout(() => {
      if (statusCode > 0) responded(false);
      else failed('timeout');
      controller?.abort(new DeadlineError());
    }, options.timeoutMs);

    if (target.blocked) return failed('blocked', target.refusal ?? undefined);
    const dispatcher = (pooled?.client ?? ownAgent) as Dispatcher;
    dispatcher.dispatch(
      {
        origin: target.origin,
        path: target.path,
        method: 'POST',
        headers: message.headers,
        body: message.body,
      },
      {
        onRequestStart(c) {
          controller = c;
          if (settled) c.abort(new DeadlineError());
        },
        onResponseStart(_c, code) {
          statusCode = code;
        },
        onResponseData(c, chunk) {
          const room = maxResponseBytes - size;
          chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
          size += Math.min(chunk.length, room);
          if (size >= maxResponseBytes) {
            responded(false);
            c.abort(new Error('response body cut at 4 KB'));
          }
        },
        onResponseEnd() {
          responded(true);
        },
        onResponseError(_c, error) {
          // A body cut short (reset) still leaves the status code as the outcome.
          if (statusCode > 0) responded(false);
          else failed(classify(error), refusalOf(error));
        },
      },
    );
  });
}
