// buildApp(ctx): the whole HTTP surface as a Fastify instance that never listens by
// itself, so tests and benchmarks listen on a port of their choosing.
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Context } from './context.ts';
import { apiPlugin } from './http/api.ts';
import { createApiGuard } from './http/api-guard.ts';
import { createClientErrorHandler } from './http/client-error.ts';
import { createErrorSender } from './http/error-handler.ts';
import { ApiError } from './http/errors.ts';
import { healthRoutes } from './http/health.ts';
import { createMemoryRateLimiter, type RateLimiter } from './http/rate-limiter.ts';
import { metricsRoutes } from './metrics/metrics.ts';
import { signingRoutes } from './signing/signing.routes.ts';
import { loginAttempts, webPlugin } from './web/web.plugin.ts';

export const bodyLimitBytes = 1024 * 1024;

const notFoundPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Not found · Signet</title><link rel="stylesheet" href="/assets/app.css"></head>
<body><main class="container"><div class="card"><h1>Not found</h1><p>There is nothing at this address.</p><p><a href="/">Go to the start page</a></p></div></main></body></html>
`;
export const apiPrefix = '/v1';

export interface AppDeps {
  rateLimiter: RateLimiter;
  /** Sign-in attempts of the web application; in memory unless given (Redis: shared). */
  loginLimiter?: RateLimiter;
}

export async function buildApp(ctx: Context, deps: AppDeps): Promise<FastifyInstance> {
  const guard = createApiGuard(ctx, deps.rateLimiter);
  const sendError = createErrorSender(ctx.outage);
  const app = Fastify({
    loggerInstance: ctx.log as FastifyBaseLogger,
    trustProxy: ctx.config.trustProxy,
    // While closing, requests already on a connection are served, not answered with
    // Fastify's own 503 body: the listener is closed, so nothing new arrives.
    return503OnClosing: false,
    bodyLimit: bodyLimitBytes,
    // Long enough that any path id the HTTP parser accepts reaches validation (invalid-id).
    routerOptions: { maxParamLength: 16_384 },
    // Unknown fields must be seen and refused, never silently dropped; a value of the wrong
    // type is refused too, never coerced ("true" is not a boolean, 123 is not a URL).
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false } },
    // A URL Fastify cannot even decode never reaches a route or a hook: it is still
    // answered in the envelope, and under /v1 still authenticated and rate limited.
    // Malformed HTTP never reaches a route: still the envelope and the rate-limit headers.
    clientErrorHandler: createClientErrorHandler(ctx, deps.rateLimiter),
    frameworkErrors: (error, request, reply) => {
      const isApi = request.url === apiPrefix || request.url.startsWith(`${apiPrefix}/`);
      (isApi ? guard(request, reply) : Promise.resolve()).then(
        () => sendError(error, request, reply),
        (guardError: Error) => sendError(guardError, request, reply),
      );
    },
  });

  app.setErrorHandler((error: Error, request, reply) => sendError(error, request, reply));
  // Graceful shutdown: once closing, each answer closes its connection, so keep-alive
  // clients move to another process instead of holding this one open until the bound.
  let draining = false;
  app.addHook('preClose', (done) => {
    draining = true;
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (draining) reply.header('connection', 'close');
    done(null, payload);
  });
  // Requests by route template (never the raw URL: ids would make a series per document).
  const { httpRequests, httpDuration } = ctx.metrics;
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    httpRequests.inc({ route, method: request.method, status: reply.statusCode });
    httpDuration.observe({ route, method: request.method }, reply.elapsedTime / 1000);
    done();
  });
  // The API answers in its envelope; anything else is a page a person asked for.
  app.setNotFoundHandler(async (request, reply) => {
    if (request.url === apiPrefix || request.url.startsWith(`${apiPrefix}/`)) throw new ApiError('not-found');
    return reply
      .code(404)
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', "default-src 'none'; style-src 'self'; frame-ancestors 'none'")
      .send(notFoundPage);
  });

  await app.register(apiPlugin(ctx, guard), { prefix: apiPrefix });
  await app.register(signingRoutes(ctx), { prefix: '/sign' });
  await app.register(healthRoutes(ctx));
  if (ctx.config.metrics.enabled && ctx.config.metrics.port === null)
    await app.register(metricsRoutes(ctx.metrics));
  await app.register(
    webPlugin(ctx, {
      loginLimiter: deps.loginLimiter ?? createMemoryRateLimiter(loginAttempts),
    }),
  );
  return app;
}
