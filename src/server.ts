// `signet serve`: open the database, migrate, build the context, then run the roles this
// process has: `api` (HTTP: the /v1 API, the web application and the signing pages),
// `worker` (deliveries, expiry, mail), or `all` (both, the default). With
// SIGNET_METRICS_PORT, a second listener serves /metrics, /healthz and /readyz (any role).
// close() is the graceful shutdown: stop accepting, finish in-flight requests and webhook
// attempts, hand back claimed deliveries; connections still open after
// SIGNET_SHUTDOWN_TIMEOUT are closed.
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { accountLimitShapes } from './accounts/account-limits.ts';
import { refreshEmailKeys } from './accounts/email-keys.ts';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { type Context, configuredLogger, createContext } from './context.ts';
import { openDatabase } from './db/connect.ts';
import { migrateToLatest } from './db/migrate.ts';
import { recordPublicUrl } from './db/server-settings.ts';
import { addCommonHeaders } from './http/common-headers.ts';
import { healthRoutes } from './http/health.ts';
import { createMemoryRateLimiter, createRedisRateLimiter, type RateLimiter } from './http/rate-limiter.ts';
import { createMailTransport } from './mail/mailer.ts';
import { metricsRoutes } from './metrics/metrics.ts';
import { prepareSealKeys } from './sealing/seal-key.ts';
import { startWorker } from './worker/worker.ts';

export const roles = ['all', 'api', 'worker'] as const;
export type Role = (typeof roles)[number];

export interface RunningServer {
  ctx: Context;
  app: FastifyInstance | null;
  /** Where HTTP is served; null for a worker-only process. */
  url: string | null;
  /** The SIGNET_METRICS_PORT listener (/metrics, /healthz, /readyz), when configured. */
  metricsUrl: string | null;
  close(): Promise<void>;
}

export async function createRateLimiter(
  ctx: Context,
  name: 'api' | 'login',
  shape = ctx.config.rateLimit,
): Promise<RateLimiter> {
  return ctx.config.redisUrl
    ? createRedisRateLimiter(shape, ctx.config.redisUrl, ctx.log, { name, metrics: ctx.metrics })
    : createMemoryRateLimiter(shape);
}

export async function startServer(config: Config, role: Role = 'all'): Promise<RunningServer> {
  const log = configuredLogger(config);
  const database = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
    exclusive: true,
    purpose: 'serve',
  });
  let ctx: Context;
  try {
    await migrateToLatest(database.db);
    ctx = await createContext(config, database.db, {
      log,
      subscribe: database.subscribe,
      processMetrics: true,
      ...(database.poolStats ? { poolStats: database.poolStats } : {}),
    });
    // A worker that cannot seal would take signed documents and leave them unsealed: it does
    // not start (the API role needs no key, and starts).
    const sealProblem = await prepareSealKeys(ctx, { seals: role !== 'api' });
    if (sealProblem !== null)
      throw new Error(
        `${sealProblem}. A process that runs the worker (--role worker or all) seals completed documents, so it does not start without it; --role api needs no key`,
      );
    await refreshEmailKeys(ctx);
    // An embedded data folder: the CLI reaches this process's database from now on.
    await database.share?.(log);
  } catch (error) {
    await database.close();
    throw error;
  }
  if (config.webhooks.allowUnsafe) {
    log.warn(
      'SIGNET_WEBHOOK_ALLOW_UNSAFE is on: webhooks may target http, any port and private or loopback addresses. Never use this in production.',
    );
  }
  const stops: Array<() => Promise<void>> = [];

  if (role === 'all' || role === 'worker') {
    const transport = createMailTransport({ smtpUrl: config.smtpUrl, from: config.mailFrom, log });
    if (!config.smtpUrl)
      log.warn(
        'SMTP_URL is not set: mails are kept in the mails table, not sent (signet mail list shows them)',
      );
    const worker = await startWorker(ctx, { transport, subscribe: database.subscribe });
    stops.push(async () => {
      await worker.stop();
      transport.close();
    });
  }

  let app: FastifyInstance | null = null;
  let url: string | null = null;
  if (role === 'all' || role === 'api') {
    const rateLimiter = await createRateLimiter(ctx, 'api');
    const accountLimiter = await createRateLimiter(ctx, 'login', accountLimitShapes.loginPair);
    app = await buildApp(ctx, { rateLimiter, accountLimiter, subscribe: database.subscribe });
    await app.listen({ host: config.host, port: config.port });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
    // PORT=0 without SIGNET_PUBLIC_URL: links name the port the system chose. Config is
    // parsed once; this fills in the one value only listening can tell.
    if (!config.publicUrlSet && config.port === 0) {
      const chosen = new URL(config.publicUrl);
      chosen.port = String(port);
      config.publicUrl = chosen.origin;
    }
    // Commands run beside this server make their links with its address (server-settings.ts).
    await recordPublicUrl(ctx.db, config.publicUrl, ctx.clock.now());
    const listening = app;
    stops.unshift(async () => {
      await listening.close();
      await rateLimiter.close();
      await accountLimiter.close();
    });
  }
  let metricsUrl: string | null = null;
  if (config.metrics.enabled && config.metrics.port !== null) {
    // Scrapes and health checks come every few seconds: no request log lines for them.
    const quiet = (log.levels.values[log.level] ?? 0) > (log.levels.values.warn ?? 40) ? log.level : 'warn';
    const operations = Fastify({ loggerInstance: log.child({}, { level: quiet }) as FastifyBaseLogger });
    addCommonHeaders(operations);
    await operations.register(healthRoutes(ctx));
    await operations.register(metricsRoutes(ctx.metrics));
    metricsUrl = await operations.listen({ host: config.host, port: config.metrics.port });
    stops.push(() => operations.close());
  }
  log.info(
    { role, database: database.kind, rateLimits: config.redisUrl ? 'redis' : 'memory', metricsUrl },
    'signet started',
  );

  let closing: Promise<void> | null = null;
  return {
    ctx,
    app,
    url,
    metricsUrl,
    close() {
      closing ??= (async () => {
        // Listeners close and the worker finishes its attempts at the same time; whatever
        // is still connected when the bound is reached is cut off.
        const bound = setTimeout(() => {
          log.warn({ afterMs: config.shutdownTimeoutMs }, 'shutdown: closing connections still open');
          app?.server.closeAllConnections();
        }, config.shutdownTimeoutMs);
        bound.unref();
        try {
          await Promise.all(stops.map((stop) => stop()));
        } finally {
          clearTimeout(bound);
        }
        await ctx.close();
        await database.close();
      })();
      return closing;
    },
  };
}
