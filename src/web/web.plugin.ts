// The web application, mounted at `/` beside /v1 and /sign: one encapsulated Fastify
// scope holding everything pages need and the API must not have.
// - Forms: @fastify/formbody (urlencoded only; no JSON, no multipart in this scope).
// - Sessions: the `signet_session` cookie (@fastify/cookie) holds a random token; the
//   database holds its hash (accounts.service.ts). `request.member` is the signed-in
//   member or null; `requireMember` sends visitors to /login.
// - CSRF: @fastify/csrf-protection, a secret in its own cookie and tokens bound to the
//   session (userInfo) and signed with a key every process shares (ctx.csrfKey), so a
//   token from another session or a tossed cookie is refused. Checked on every POST.
// - Headers: @fastify/helmet with a CSP that allows this origin's stylesheet and script
//   only, no inline script or style, no framing; no-referrer; nosniff.
// Pages never build SQL: they parse the form, call the service the API calls, render.
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { resolveSession, type SessionUser } from '../accounts/accounts.service.ts';
import type { Context } from '../context.ts';
import { uuidPattern } from '../documents/documents.schemas.ts';
import { ApiError } from '../http/errors.ts';
import type { RateLimiter } from '../http/rate-limiter.ts';
import { authPages } from './auth.pages.ts';
import { billingPages } from './billing.pages.ts';
import { documentsPages } from './documents.pages.ts';
import { endpointsPages } from './endpoints.pages.ts';
import { html, type SafeHtml, sendUnavailablePage } from './html.ts';
import { integrationsPages } from './integrations.pages.ts';
import { appPage, appScript, appStylesheet, type PageOptions } from './layout.ts';
import { membersPages } from './members.pages.ts';
import { referencePages } from './reference.pages.ts';

declare module 'fastify' {
  interface FastifyRequest {
    member: SessionUser | null;
  }
}

export const sessionCookie = 'signet_session';

/** Sign-in attempts per account and per client address: 10 at once, then 1 a minute. */
export const loginAttempts = { burst: 10, refillPerSecond: 1 / 60 };

export interface WebDeps {
  /** Sign-in attempts, per account and per client address. */
  loginLimiter: RateLimiter;
}

/** A page's title, its place in the navigation, and its body given the form token. */
export interface WebPage extends Pick<PageOptions, 'title' | 'current'> {
  body: (csrfToken: string) => SafeHtml;
}

/** What a page handler needs besides the service functions. */
export interface Web {
  ctx: Context;
  deps: WebDeps;
  /** Renders a page with the shell, the member's navigation and a fresh CSRF token. */
  render(request: FastifyRequest, reply: FastifyReply, status: number, page: WebPage): FastifyReply;
  notFound(request: FastifyRequest, reply: FastifyReply): FastifyReply;
  setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string): void;
  clearSessionCookie(reply: FastifyReply): void;
}

function isSecure(request: FastifyRequest): boolean {
  return request.protocol === 'https';
}

export function webPlugin(ctx: Context, deps: WebDeps) {
  return async function register(app: FastifyInstance) {
    await app.register(cookie);
    await app.register(formbody, { bodyLimit: 64 * 1024 });
    await app.register(csrf, {
      sessionPlugin: '@fastify/cookie',
      cookieKey: 'signet_csrf',
      cookieOpts: { path: '/', sameSite: 'lax', httpOnly: true },
      getUserInfo: (request: FastifyRequest) => request.member?.sessionId ?? 'visitor',
      csrfOpts: { hmacKey: ctx.csrfKey },
    });
    await app.register(helmet, {
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'none'"],
          styleSrc: ["'self'"],
          scriptSrc: ["'self'"],
          imgSrc: ["'self'", 'data:'],
          connectSrc: ["'self'"],
          formAction: ["'self'"],
          baseUri: ["'none'"],
          frameAncestors: ["'none'"],
        },
      },
      referrerPolicy: { policy: 'no-referrer' },
      strictTransportSecurity: false,
      crossOriginEmbedderPolicy: false,
      frameguard: { action: 'deny' },
    });

    app.decorateRequest('member', null);
    app.addHook('onRequest', async (request) => {
      if (request.url.startsWith('/assets/')) return; // the same for everyone: no session needed
      const token = request.cookies[sessionCookie];
      request.member = token ? await resolveSession(ctx, token) : null;
    });
    // Every state-changing request must carry the token of a form this site rendered.
    app.addHook('preHandler', (request, reply, done) => {
      if (request.method === 'GET' || request.method === 'HEAD') return done();
      app.csrfProtection(request, reply, done);
    });

    const web: Web = {
      ctx,
      deps,
      render(request, reply, status, page) {
        const csrfToken = reply.generateCsrf({ userInfo: request.member?.sessionId ?? 'visitor' });
        return reply
          .code(status)
          .header('content-type', 'text/html; charset=utf-8')
          .header('cache-control', 'no-store')
          .send(appPage({ ...page, body: page.body(csrfToken), session: request.member, csrfToken }));
      },
      notFound(request, reply) {
        return web.render(request, reply, 404, {
          title: 'Not found',
          body: () =>
            html`<div class="card"><h1>Not found</h1><p>There is nothing here, or it belongs to another workspace.</p><p><a href="/">Go to the start page</a></p></div>`,
        });
      },
      setSessionCookie(request, reply, token) {
        reply.setCookie(sessionCookie, token, {
          path: '/',
          httpOnly: true,
          sameSite: 'lax',
          secure: isSecure(request),
          maxAge: 7 * 24 * 60 * 60,
        });
      },
      clearSessionCookie(reply) {
        reply.clearCookie(sessionCookie, { path: '/' });
      },
    };

    app.setErrorHandler((error: Error & { code?: string; statusCode?: number }, request, reply) => {
      if (error.code === 'FST_CSRF_INVALID_TOKEN' || error.code === 'FST_CSRF_MISSING_SECRET') {
        return web.render(request, reply, 403, {
          title: 'Form expired',
          body: () =>
            html`<div class="card narrow"><h1>This form has expired</h1><p>Nothing was changed. Go back, reload the page and try again.</p></div>`,
        });
      }
      if (ctx.outage.report(error)) return sendUnavailablePage(reply);
      if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
        return web.render(request, reply, error.statusCode, {
          title: 'Bad request',
          body: () =>
            html`<div class="card narrow"><h1>That request could not be read</h1><p>Nothing was changed.</p></div>`,
        });
      }
      request.log.error({ err: error }, 'web page failed');
      return web.render(request, reply, 500, {
        title: 'Something went wrong',
        body: () =>
          html`<div class="card narrow"><h1>Something went wrong</h1><p>Nothing you did caused this. Try again in a moment.</p></div>`,
      });
    });

    app.get('/assets/app.css', (_request, reply) =>
      reply
        .header('content-type', 'text/css; charset=utf-8')
        .header('cache-control', 'public, max-age=3600')
        .send(appStylesheet),
    );
    app.get('/assets/app.js', (_request, reply) =>
      reply
        .header('content-type', 'text/javascript; charset=utf-8')
        .header('cache-control', 'public, max-age=3600')
        .send(appScript),
    );
    app.get('/', (request, reply) => reply.redirect(request.member ? '/documents' : '/login', 303));

    await app.register(authPages(web));
    await app.register(documentsPages(web));
    await app.register(integrationsPages(web));
    await app.register(endpointsPages(web));
    await app.register(billingPages(web));
    await app.register(membersPages(web));
    await app.register(referencePages(web));
  };
}

/**
 * A form field as text; '' when it is absent or repeated (the forms this site renders send
 * each field once, and a repeated one arrives as an array).
 */
export function formText(form: unknown, name: string): string {
  const value = (form as Record<string, unknown> | null | undefined)?.[name];
  return typeof value === 'string' ? value : '';
}

const uuid = new RegExp(uuidPattern);

/**
 * The record a URL's id names, loaded by a service that scopes it to the session's
 * workspace; null for an id that is not a UUID, a missing record and another workspace's
 * alike, so every page answers them with the same 404.
 */
export async function findById<T>(id: string, load: (id: string) => Promise<T>): Promise<T | null> {
  if (!uuid.test(id)) return null;
  try {
    return await load(id.toLowerCase());
  } catch (error) {
    if (error instanceof ApiError && error.code === 'not-found') return null;
    throw error;
  }
}

const maxNextLength = 2048;

/** preHandler for member pages: a visitor goes to /login and comes back after. */
export async function requireMember(request: FastifyRequest, reply: FastifyReply) {
  if (!request.member) {
    // Back to the page after log-in, unless its address is too long to carry (a redirect's
    // Location must stay well under the 16 KB clients accept).
    const back = request.method === 'GET' && request.url.length <= maxNextLength;
    const next = back ? `?next=${encodeURIComponent(request.url)}` : '';
    return reply.redirect(`/login${next}`, 303);
  }
}

/** preHandler for owner-only pages. */
export function requireOwner(web: Web) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.member) return requireMember(request, reply);
    if (request.member.role !== 'owner') {
      return web.render(request, reply, 403, {
        title: 'Owners only',
        body: () =>
          html`<div class="card"><h1>Only owners can do this</h1><p>Ask an owner of ${request.member?.workspaceName ?? 'this workspace'} to do it, or to make you an owner.</p></div>`,
      });
    }
  };
}
