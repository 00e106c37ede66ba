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
import { Agent, Client, request } from 'undici';
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
          return callback(new BlockedAddressError(blocked, `${hostname} resolves to ${blocked}`), '');
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
  readonly #resolver: Resolver;
  readonly #policy: DestinationPolicy;
  readonly #timeoutMs: number;

  constructor(options: { resolver: Resolver; policy: DestinationPolicy; timeoutMs: number }) {
    this.#resolver = options.resolver;
    this.#policy = options.policy;
    this.#timeoutMs = options.timeoutMs;
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
  origin: string;
  path: string;
  /** The host when it is an IP address (judged here, never resolved). */
  literal: string | null;
}

const targets = new Map<string, Target>();

/**
 * The URL's shape checks and, for an IP-literal host, its address check: pure functions of
 * the URL and the policy, so a worker computes them once per endpoint URL, not per attempt.
 * Names are still resolved and judged on every new connection (checkedLookup).
 */
function targetOf(raw: string, policy: DestinationPolicy): Target {
  const key = `${policy.allowUnsafe ? 'unsafe' : 'safe'} ${raw}`;
  let target = targets.get(key);
  if (target) return target;
  const shape = checkUrlShape(raw, policy);
  if (!shape.ok) {
    target = { blocked: true, origin: '', path: '', literal: null };
  } else {
    const host = bareHost(shape.url);
    const literal = ipaddr.isValid(host) ? host : null;
    target = {
      blocked: literal !== null && checkAddresses([literal], policy) !== null,
      origin: shape.url.origin,
      path: `${shape.url.pathname}${shape.url.search}`,
      literal,
    };
  }
  if (targets.size >= 1000) targets.clear();
  targets.set(key, target);
  return target;
}

export async function sendWebhook(
  message: OutgoingWebhook,
  options: { timeoutMs: number; policy: DestinationPolicy; resolver: Resolver; pool?: ConnectionPool },
): Promise<AttemptResult> {
  const started = performance.now();
  let address: string | null = null;
  let pooled: PooledConnection | null = null;
  const done = (result: Omit<AttemptResult, 'durationMs' | 'address'>): AttemptResult => ({
    ...result,
    address: pooled?.address ?? address,
    durationMs: Math.round(performance.now() - started),
  });

  const target = targetOf(message.url, options.policy);
  address = target.literal;
  if (target.blocked) return done({ ok: false, statusCode: null, errorClass: 'blocked', responseBody: null });

  // A pooled keep-alive connection, or (pings, one-off tools) a connection of its own.
  pooled = options.pool?.acquire(target.origin, target.literal) ?? null;
  const ownAgent = pooled
    ? null
    : new Agent({
        connect: {
          lookup: checkedLookup(options.resolver, options.policy, (a) => {
            address = a;
          }),
          timeout: options.timeoutMs,
        },
        pipelining: 0,
      });
  let reusable = false;
  const signal = AbortSignal.timeout(options.timeoutMs);
  try {
    const requestOptions = {
      method: 'POST' as const,
      path: target.path,
      headers: message.headers,
      body: message.body,
      signal,
    };
    const response = pooled
      ? await pooled.client.request(requestOptions)
      : await request(`${target.origin}${target.path}`, {
          method: requestOptions.method,
          headers: requestOptions.headers,
          body: requestOptions.body,
          signal,
          dispatcher: ownAgent as Agent,
        });
    const chunks: Buffer[] = [];
    let size = 0;
    let complete = false;
    try {
      for await (const chunk of response.body) {
        const buffer = chunk as Buffer;
        chunks.push(buffer.subarray(0, maxResponseBytes - size));
        size += Math.min(buffer.length, maxResponseBytes - size);
        if (size >= maxResponseBytes) break;
      }
      complete = size < maxResponseBytes;
    } catch {
      // A body cut short (deadline, reset) still leaves the status code as the outcome.
    } finally {
      response.body.destroy();
    }
    reusable = complete;
    const status = response.statusCode;
    // Kept as text; U+0000 is dropped because PostgreSQL text cannot hold it.
    const responseBody = Buffer.concat(chunks).toString('utf8').replaceAll('\u0000', '');
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
    if (pooled) options.pool?.release(pooled, reusable);
    ownAgent?.destroy().catch(() => {});
  }
}
