// buildApp(ctx): the whole HTTP surface as a Fastify instance that never listens by
// itself, so tests and benchmarks listen on a port of their choosing.
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Context } from './context.ts';
import { loadServerSecret } from './db/server-secrets.ts';
import { apiPlugin } from './http/api.ts';
import { createApiGuard } from './http/api-guard.ts';
import { sendError } from './http/error-handler.ts';
import { ApiError } from './http/errors.ts';
import { createMemoryRateLimiter, type RateLimiter } from './http/rate-limiter.ts';
import { signingRoutes } from './signing/signing.routes.ts';
import { loginAttempts, webPlugin } from './web/web.plugin.ts';

export const bodyLimitBytes = 1024 * 1024;
export const apiPrefix = '/v1';

export interface AppDeps {
  rateLimiter: RateLimiter;
  /** Sign-in attempts of the web application; in memory unless given (Redis: shared). */
  loginLimiter?: RateLimiter;
}

export async function buildApp(ctx: Context, deps: AppDeps): Promise<FastifyInstance> {
  const guard = createApiGuard(ctx, deps.rateLimiter);
  const app = Fastify({
    loggerInstance: ctx.log as FastifyBaseLogger,
    trustProxy: ctx.config.trustProxy,
    bodyLimit: bodyLimitBytes,
    // Long enough that any path id the HTTP parser accepts reaches validation (invalid-id).
    routerOptions: { maxParamLength: 16_384 },
    // Unknown fields must be seen and refused, never silently dropped; a value of the wrong
    // type is refused too, never coerced ("true" is not a boolean, 123 is not a URL).
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false } },
    // A URL Fastify cannot even decode never reaches a route or a hook: it is still
    // answered in the envelope, and under /v1 still authenticated and rate limited.
    frameworkErrors: (error, request, reply) => {
      const isApi = request.url === apiPrefix || request.url.startsWith(`${apiPrefix}/`);
      (isApi ? guard(request, reply) : Promise.resolve()).then(
        () => sendError(error, request, reply),
        (guardError: Error) => sendError(guardError, request, reply),
      );
    },
  });

  app.setErrorHandler((error: Error, request, reply) => sendError(error, request, reply));
  app.setNotFoundHandler(async () => {
    throw new ApiError('not-found');
  });

  await app.register(apiPlugin(ctx, guard), { prefix: apiPrefix });
  await app.register(signingRoutes(ctx), { prefix: '/sign' });
  await app.register(
    webPlugin(ctx, {
      loginLimiter: deps.loginLimiter ?? createMemoryRateLimiter(loginAttempts),
      csrfKey: await loadServerSecret(ctx.db, 'csrf-hmac', ctx),
    }),
  );
  return app;
}
