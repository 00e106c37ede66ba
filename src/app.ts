// buildApp(ctx): the whole HTTP surface as a Fastify instance that never listens by
// itself, so tests and benchmarks listen on a port of their choosing.
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import { accountLimitShapes } from './accounts/account-limits.ts';
import { apiPlugin } from './api/api.ts';
import type { Context } from './context.ts';
import type { DatabaseHandle } from './db/handle.ts';
import { downloadRoutes } from './files/download.routes.ts';
import { createApiGuard, lacksHost } from './http/api-guard.ts';
import { createClientErrorHandler, createConnectHandler } from './http/client-error.ts';
import { addCommonHeaders, setCommonHeaders } from './http/common-headers.ts';
import { hasUnfitValue } from './http/control-characters.ts';
import { createErrorSender } from './http/error-handler.ts';
import { ApiError, bodyLimitBytes } from './http/errors.ts';
import { healthRoutes } from './http/health.ts';
import { createMemoryRateLimiter, type RateLimiter } from './http/rate-limiter.ts';
import { pageTranslator } from './i18n/messages.ts';
import { authenticateApiKey } from './keys/keys.service.ts';
import { metricsRoutes } from './metrics/metrics.ts';
import { verifyRoutes } from './sealing/verify.routes.ts';
import { signingRoutes } from './signing/signing.routes.ts';
import { html } from './ui/html.ts';
import { headerLanguage } from './ui/page-language.ts';
import { page, sendPlainPage } from './ui/shell.ts';
import { webPlugin } from './web/web.plugin.ts';

/**
 * A page outside every scope (no session, no navigation): what it says, and the way home, in
 * the language the request's headers ask for (a member's browser keeps theirs in its cookie).
 */
function rootPage(request: FastifyRequest, kind: 'notFound' | 'badRequest'): string {
  const tr = pageTranslator(headerLanguage(request));
  const [title, heading, text] =
    kind === 'notFound'
      ? [tr.t('page.notFound.title'), tr.t('page.notFound.title'), tr.t('page.notFound.message')]
      : [tr.t('page.badRequest.title'), tr.t('page.badRequest.heading'), tr.t('page.badRequest.message')];
  return page({
    title: `${title} · Signet`,
    language: tr,
    body: html`<main><div class="card"><h1>${heading}</h1><p>${text}</p><p><a href="/">${tr.t('app.notFound.start')}</a></p></div></main>`,
  });
}
export const apiPrefix = '/v1';

/** An absolute-form request target (`GET http://host/v1/documents`) as the origin-form path. */
function originForm(url: string): string {
  return url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '') || '/';
}

/** Whether a (rewritten, so origin-form) request URL is the API's. */
function isApiUrl(url: string): boolean {
  return url === apiPrefix || url.startsWith(`${apiPrefix}/`) || url.startsWith(`${apiPrefix}?`);
}

/** A year; no includeSubDomains: other services of the operator's domain are not ours to pin. */
const hstsValue = 'max-age=31536000';

export interface AppDeps {
  rateLimiter: RateLimiter;
  /**
   * The pages' buckets: log-in and sign-up (accounts/account-limits.ts) and /verify's per
   * address (each take names its shape); in memory unless given (Redis: shared).
   */
  accountLimiter?: RateLimiter;
  /** The database's LISTEN: wakes event streams (GET /v1/events/stream) when an event commits. */
  subscribe?: DatabaseHandle['subscribe'];
}

export async function buildApp(ctx: Context, deps: AppDeps): Promise<FastifyInstance> {
  const guard = createApiGuard(ctx, deps.rateLimiter, authenticateApiKey);
  const sendError = createErrorSender(ctx.outage);
  const app = Fastify({
    loggerInstance: ctx.log as FastifyBaseLogger,
    trustProxy: ctx.config.trustProxy,
    // While closing, requests already on a connection are served, not answered with
    // Fastify's own 503 body: the listener is closed, so nothing new arrives.
    return503OnClosing: false,
    // HTTP/1.1 requires Host; Node would refuse a request without one itself, with an empty
    // 400 and no envelope. Let it through, and refuse it below (the API guard, or a page).
    http: { requireHostHeader: false },
    // The absolute form (`GET http://host/v1/documents`, which servers must accept) routes
    // like the path it names, through the same guard; every request.url after this is a path.
    rewriteUrl: (request) => {
      const url = request.url ?? '/';
      return url.startsWith('/') ? url : originForm(url);
    },
    bodyLimit: bodyLimitBytes,
    // Each request's id (the log's reqId, and the X-Request-Id of its answer): a UUID, unique
    // across processes; one a client sends is not taken, so nobody can pass for another answer.
    genReqId: () => ctx.ids.uuid(),
    requestIdHeader: false,
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
      setCommonHeaders(reply);
      if (!isApiUrl(request.url)) {
        sendPlainPage(reply, 400, rootPage(request, 'badRequest'));
        return;
      }
      guard(request, reply).then(
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
  addCommonHeaders(app);
  app.addHook('onSend', (request, reply, payload, done) => {
    if (draining) reply.header('connection', 'close');
    // HTTPS as this server sees it: TLS, or a proxy's X-Forwarded-Proto when
    // SIGNET_TRUST_PROXY says to believe it. The session cookie's Secure follows the same.
    if (request.protocol === 'https') reply.header('strict-transport-security', hstsValue);
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
    if (isApiUrl(request.url)) throw new ApiError('not-found');
    return sendPlainPage(reply, 404, rootPage(request, 'notFound'));
  });
  // A page asked for without Host (HTTP/1.1 requires it): refused. /v1 refuses it in its
  // guard, after the rate-limit headers are set.
  app.addHook('onRequest', (request, reply, done) => {
    if (lacksHost(request) && !isApiUrl(request.url)) {
      sendPlainPage(reply, 400, rootPage(request, 'badRequest'));
      return;
    }
    // A page's address with a control character (http/control-characters.ts) names nothing
    // (a token, an id or a search never holds one): refused before any page looks it up.
    if (!isApiUrl(request.url) && request.routeOptions.url !== undefined) {
      if (hasUnfitValue(request.params)) {
        sendPlainPage(reply, 404, rootPage(request, 'notFound'));
        return;
      }
      // Except `next`, the page to go to after logging in: it is never looked up or stored,
      // only made safe (a tab or line break in it still logs in and stays on the site).
      const { next: _next, ...lookedUp } = (request.query ?? {}) as Record<string, unknown>;
      if (hasUnfitValue(lookedUp)) {
        sendPlainPage(reply, 400, rootPage(request, 'badRequest'));
        return;
      }
    }
    done();
  });

  app.server.on('connect', createConnectHandler(ctx, deps.rateLimiter));
  await app.register(apiPlugin(ctx, guard, deps.subscribe), { prefix: apiPrefix });
  const accountLimiter = deps.accountLimiter ?? createMemoryRateLimiter(accountLimitShapes.loginPair);
  await app.register(signingRoutes(ctx), { prefix: '/sign' });
  await app.register(verifyRoutes(ctx, { limiter: accountLimiter }), { prefix: '/verify' });
  await app.register(downloadRoutes(ctx), { prefix: '/files' });
  await app.register(healthRoutes(ctx));
  if (ctx.config.metrics.enabled && ctx.config.metrics.port === null)
    await app.register(metricsRoutes(ctx.metrics));
  await app.register(webPlugin(ctx, { accountLimiter }));
  return app;
}
