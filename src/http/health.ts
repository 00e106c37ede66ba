// Health outside /v1, for load balancers and orchestrators (no key, no envelope):
//   GET /healthz   the process answers (liveness): 200 {"status":"ok"}
//   GET /readyz    it can serve: the database answers and its schema has every migration
//                  of this version; 503 {"status":"unavailable","reason":…} otherwise
import type { FastifyInstance } from 'fastify';
import { Migrator, sql } from 'kysely';
import type { Context } from '../context.ts';
import { migrations } from '../db/migrations/index.ts';

/** Why this process cannot serve now, or null when it can. */
export async function unreadiness(ctx: Context): Promise<string | null> {
  try {
    await sql`select 1`.execute(ctx.db);
  } catch {
    return 'database unreachable';
  }
  try {
    const applied = await new Migrator({
      db: ctx.db,
      provider: { getMigrations: async () => migrations },
    }).getMigrations();
    const pending = applied.filter((m) => !m.executedAt).map((m) => m.name);
    return pending.length ? `migrations pending: ${pending.join(', ')}` : null;
  } catch {
    return 'migrations unreadable';
  }
}

export function healthRoutes(ctx: Context) {
  return async function register(app: FastifyInstance) {
    app.get('/healthz', (_request, reply) =>
      reply.header('cache-control', 'no-store').send({ status: 'ok' }),
    );
    app.get('/readyz', async (_request, reply) => {
      const reason = await unreadiness(ctx);
      reply.header('cache-control', 'no-store');
      return reason ? reply.code(503).send({ status: 'unavailable', reason }) : reply.send({ status: 'ok' });
    });
  };
}
