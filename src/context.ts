// The Context every domain function takes: database, clock, ids, logger, config and the
// keys shared between processes. Nothing in src/ reaches for a global instead; tests build
// as many contexts as they like, each with its own clock and database.
import { createSecretKey, type KeyObject, randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { passwordCost, type ScryptCost } from './accounts/passwords.ts';
import { type Clock, systemClock } from './clock.ts';
import type { Config } from './config.ts';
import { createOutageMonitor, type OutageMonitor } from './db/availability.ts';
import type { DatabaseHandle } from './db/connect.ts';
import { authChangesChannel } from './db/notify.ts';
import type { Database } from './db/schema.ts';
import { loadServerSecret } from './db/server-secrets.ts';
import { redactUrl } from './http/capability-urls.ts';
import { answeredErrorCode } from './http/error-handler.ts';
import { prettyLogDestination } from './http/pretty-log.ts';
import { createKeyCache, type KeyCache } from './keys/key-cache.ts';
import { createKeyUsage, type KeyUsage } from './keys/key-usage.ts';
import { createMetrics, type Metrics, type PoolStats } from './metrics/metrics.ts';
import { type Resolver, systemResolver } from './webhooks/destination.ts';

export type { Clock };
export { systemClock };

export interface Ids {
  uuid(): string;
  randomBytes(size: number): Buffer;
}

export interface Context {
  db: Kysely<Database>;
  clock: Clock;
  ids: Ids;
  log: Logger;
  config: Config;
  /** HMAC key for list cursors, shared by every process through the database. */
  cursorKey: KeyObject;
  /** HMAC key for the web application's CSRF tokens, shared likewise. */
  csrfKey: Buffer;
  /** HMAC key of download links (files/download-links.ts), shared likewise. */
  downloadKey: Buffer;
  /** DNS for webhook destinations; tests point names at any address. */
  resolver: Resolver;
  /**
   * scrypt's cost for new password hashes: passwords.ts `passwordCost` in every process
   * Signet runs; tests pass a cheaper one (a hash records its cost, so any hash verifies).
   */
  passwordCost: ScryptCost;
  /** Valid and invalid API key hashes, trusted only while auth changes are heard. */
  keyCache: KeyCache;
  /** Records, at most once a minute per key, when a key was last used. */
  keyUsage: KeyUsage;
  /** This process's Prometheus series (src/metrics/metrics.ts). */
  metrics: Metrics;
  /** Whether the database is reachable; logs an outage once, wakes listeners when it ends. */
  outage: OutageMonitor;
  /** Stops listening for changes; call once, when the process shuts down. */
  close(): Promise<void>;
}

export const systemIds: Ids = { uuid: () => randomUUID(), randomBytes: (size) => randomBytes(size) };

/** Header and field names whose values are secrets: pino writes "[redacted]" instead. */
export const redactedPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'apiKey',
  'secret',
  '*.secret',
  '*.apiKey',
];

/** A request as Fastify logs it, with its URL's secrets redacted (capability-urls.ts). */
interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number } | null;
}

/** An answer as Fastify logs it at its end ("request completed"). */
interface LoggedReply {
  statusCode: number;
  request?: { identity?: { keyId: string; workspaceId: string } | null };
}

/**
 * Every logger of the project: secret headers and fields censored, and every request's URL
 * redacted, since a signing link or an invitation in a URL is a password in the log. The line
 * each request ends with says, beside its `reqId`, what an operator asks first: the
 * envelope's `errorCode` of a refusal, and the key's id and its workspace's id when a key
 * was recognised (never the key).
 */
export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: redactedPaths, censor: '[redacted]' },
    serializers: {
      req: (request: LoggedRequest) => ({
        method: request.method,
        url: typeof request.url === 'string' ? redactUrl(request.url) : request.url,
        host: request.host,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
      res: (reply: LoggedReply) => {
        const identity = reply.request?.identity;
        const errorCode = answeredErrorCode(reply);
        return {
          statusCode: reply.statusCode,
          ...(errorCode ? { errorCode } : {}),
          ...(identity ? { keyId: identity.keyId, workspaceId: identity.workspaceId } : {}),
        };
      },
    },
  };
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return destination ? pino(loggerOptions(level), destination) : pino(loggerOptions(level));
}

/** The process's logger as the configuration asks: JSON lines, or readable ones (SIGNET_LOG_FORMAT). */
export function configuredLogger(config: Pick<Config, 'logLevel' | 'logFormat'>): Logger {
  return config.logFormat === 'pretty'
    ? createLogger(config.logLevel, prettyLogDestination(process.stdout))
    : createLogger(config.logLevel);
}

export interface ContextOptions
  extends Partial<Pick<Context, 'clock' | 'ids' | 'log' | 'resolver' | 'passwordCost'>> {
  /** How to hear other processes' changes; without it nothing auth-related is cached. */
  subscribe?: DatabaseHandle['subscribe'];
  /** The PostgreSQL pool's use, for the metrics. */
  poolStats?: () => PoolStats;
  /** Export process metrics (CPU, memory, event loop): servers only. */
  processMetrics?: boolean;
}

export async function createContext(
  config: Config,
  db: Kysely<Database>,
  options: ContextOptions = {},
): Promise<Context> {
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? systemIds;
  const log = options.log ?? configuredLogger(config);
  const cursorKey = createSecretKey(await loadServerSecret(db, 'cursor-hmac', { clock, ids }));
  const csrfKey = await loadServerSecret(db, 'csrf-hmac', { clock, ids });
  const downloadKey = await loadServerSecret(db, 'download-hmac', { clock, ids });
  const keyCache = createKeyCache(clock);
  const resolver = options.resolver ?? systemResolver;
  const keyUsage = createKeyUsage(db, clock, log);
  const metrics = createMetrics({
    db,
    clock,
    ...(options.poolStats ? { poolStats: options.poolStats } : {}),
    ...(options.processMetrics ? { processMetrics: true } : {}),
  });
  const unsubscribe = options.subscribe
    ? await options.subscribe(authChangesChannel, {
        onNotify: () => {
          keyCache.clear();
          metrics.authChangesHeard.inc();
        },
        onStateChange: (isListening) => keyCache.setListening(isListening),
      })
    : async () => {};
  const outage = createOutageMonitor({
    db,
    log,
    onChange: (down) => metrics.databaseUp.set(down ? 0 : 1),
  });
  return {
    db,
    clock,
    ids,
    log,
    config,
    cursorKey,
    csrfKey,
    downloadKey,
    resolver,
    passwordCost: options.passwordCost ?? passwordCost,
    keyCache,
    keyUsage,
    metrics,
    outage,
    async close() {
      outage.close();
      await unsubscribe();
    },
  };
}
