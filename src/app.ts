// buildApp(ctx): the whole HTTP surface as a Fastify instance that never listens by
// itself, so tests inject requests or listen on a port of their choosing.
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Context } from './context.ts';
import { apiPlugin } from './http/api.ts';
import { sendError } from './http/error-handler.ts';
import { ApiError } from './http/errors.ts';
import type { RateLimiter } from './http/rate-limiter.ts';

export const bodyLimitBytes = 1024 * 1024;

export interface AppDeps {
  rateLimiter: RateLimiter;
}

export async function buildApp(ctx: Context, deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: ctx.log as FastifyBaseLogger,
    trustProxy: ctx.config.trustProxy,
    bodyLimit: bodyLimitBytes,
    routerOptions: { maxParamLength: 1000 },
    // Unknown fields must be seen and refused, never silently dropped.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: false } },
  });

  app.setErrorHandler((error: Error, request, reply) => sendError(error, request, reply));
  app.setNotFoundHandler(async () => {
    throw new ApiError('not-found');
  });

  await app.register(apiPlugin(ctx, deps.rateLimiter), { prefix: '/v1' });
  return app;
}
