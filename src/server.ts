// `signet serve`: open the database, migrate, build the context, then run the roles this
// process has: `api` (HTTP: the /v1 API and the signing pages), `worker` (expiry, mail),
// or `all` (both, the default). Shuts down cleanly on SIGINT/SIGTERM.
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { type Context, createContext, createLogger } from './context.ts';
import { openDatabase } from './db/connect.ts';
import { migrateToLatest } from './db/migrate.ts';
import { createMemoryRateLimiter, createRedisRateLimiter, type RateLimiter } from './http/rate-limiter.ts';
import { createMailTransport } from './mail/mailer.ts';
import { loginAttempts } from './web/web.plugin.ts';
import { startWorker } from './worker/worker.ts';

export const roles = ['all', 'api', 'worker'] as const;
export type Role = (typeof roles)[number];

export interface RunningServer {
  ctx: Context;
  app: FastifyInstance | null;
  /** Where HTTP is served; null for a worker-only process. */
  url: string | null;
  close(): Promise<void>;
}

export async function createRateLimiter(ctx: Context, shape = ctx.config.rateLimit): Promise<RateLimiter> {
  return ctx.config.redisUrl
    ? createRedisRateLimiter(shape, ctx.config.redisUrl, ctx.log)
    : createMemoryRateLimiter(shape);
}

export async function startServer(config: Config, role: Role = 'all'): Promise<RunningServer> {
  const log = createLogger(config.logLevel);
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
    ctx = await createContext(config, database.db, { log, subscribe: database.subscribe });
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
      log.warn('SMTP_URL is not set: mails are written to the log and kept in the mails table');
    const worker = await startWorker(ctx, { transport, subscribe: database.subscribe });
    stops.push(async () => {
      await worker.stop();
      transport.close();
    });
  }

  let app: FastifyInstance | null = null;
  let url: string | null = null;
  if (role === 'all' || role === 'api') {
    const rateLimiter = await createRateLimiter(ctx);
    const loginLimiter = await createRateLimiter(ctx, loginAttempts);
    app = await buildApp(ctx, { rateLimiter, loginLimiter });
    await app.listen({ host: config.host, port: config.port });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
    const listening = app;
    stops.unshift(async () => {
      await listening.close();
      await rateLimiter.close();
      await loginLimiter.close();
    });
  }
  log.info(
    { role, database: database.kind, rateLimits: config.redisUrl ? 'redis' : 'memory' },
    'signet started',
  );

  let closing: Promise<void> | null = null;
  return {
    ctx,
    app,
    url,
    close() {
      closing ??= (async () => {
        for (const stop of stops) await stop();
        await ctx.close();
        await database.close();
      })();
      return closing;
    },
  };
}
