// `signet serve`: open the database, migrate, build the context and the app, listen, and
// shut down cleanly on SIGINT/SIGTERM. The API is the only role so far; the web app and
// the delivery worker join this process in later work, with --role to run them apart.
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { type Context, createContext, createLogger } from './context.ts';
import { openDatabase } from './db/connect.ts';
import { migrateToLatest } from './db/migrate.ts';
import { createMemoryRateLimiter, createRedisRateLimiter, type RateLimiter } from './http/rate-limiter.ts';

export interface RunningServer {
  ctx: Context;
  app: FastifyInstance;
  url: string;
  close(): Promise<void>;
}

export async function createRateLimiter(ctx: Context): Promise<RateLimiter> {
  return ctx.config.redisUrl
    ? createRedisRateLimiter(ctx.config.rateLimit, ctx.config.redisUrl, ctx.log)
    : createMemoryRateLimiter(ctx.config.rateLimit);
}

export async function startServer(config: Config): Promise<RunningServer> {
  const log = createLogger(config.logLevel);
  const database = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
  });
  await migrateToLatest(database.db);
  const ctx = await createContext(config, database.db, { log, subscribe: database.subscribe });
  const rateLimiter = await createRateLimiter(ctx);
  const app = await buildApp(ctx, { rateLimiter });
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  log.info(
    { database: database.kind, rateLimits: config.redisUrl ? 'redis' : 'memory' },
    'signet is serving',
  );

  let closing: Promise<void> | null = null;
  return {
    ctx,
    app,
    url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
    close() {
      closing ??= (async () => {
        await app.close();
        await ctx.close();
        await rateLimiter.close();
        await database.close();
      })();
      return closing;
    },
  };
}
