// The web application, mounted at `/` beside /v1 and /sign: one encapsulated Fastify
// scope holding everything pages need and the API must not have.
// - Forms: ui/forms.ts (urlencoded only, the same parser as the signing pages).
// - Sessions: the `signet_session` cookie (@fastify/cookie) holds a random token; the
//   database holds its hash (accounts.service.ts). `request.member` is the signed-in
//   member or null; handlers get it narrowed through kit.ts's `forMembers`/`forOwners`.
// - CSRF: @fastify/csrf-protection, a secret in its own cookie and tokens bound to the
//   session (userInfo) and signed with a key every process shares (ctx.csrfKey), so a
//   token from another session or a tossed cookie is refused. Checked on every POST.
// - A form with a file (uploadGate): a visitor is sent to /login before a byte of the body
//   is read, and the token, the form's first field, is checked before its other parts.
// - Headers and errors: ui/security.ts and ui/error-page.ts, as for the signing pages.
// This module registers the page modules; none of them imports it (they use kit.ts).
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import helmet from '@fastify/helmet';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { resolveSession } from '../accounts/accounts.service.ts';
import type { Context } from '../context.ts';
import type { Translator } from '../i18n/messages.ts';
import { assetRoutes } from '../ui/assets.ts';
import { pageErrorHandler } from '../ui/error-page.ts';
import { useFormBodies } from '../ui/forms.ts';
import { html, type SafeHtml } from '../ui/html.ts';
import { securityHeaders } from '../ui/security.ts';
import type { UploadGate } from '../ui/uploads.ts';
import { listPausedEndpoints } from '../webhooks/endpoints.service.ts';
import { authPages } from './auth.pages.ts';
import { billingPages } from './billing.pages.ts';
import { brandPages } from './brand.pages.ts';
import { bulkPages } from './bulk.pages.ts';
import { documentFormPages } from './document-form.pages.ts';
import { documentsPages } from './documents.pages.ts';
import { endpointsPages } from './endpoints.pages.ts';
import { pauseBanner } from './endpoints.views.ts';
import { fieldPages } from './fields.pages.ts';
import { integrationsPages } from './integrations.pages.ts';
import { sendToLogin, sessionCookie, type Web, type WebDeps } from './kit.ts';
import { languagePages } from './language.pages.ts';
import { appPage } from './layout.ts';
import { memberTranslator } from './member-language.ts';
import { membersPages } from './members.pages.ts';
import { publicLinkPages } from './public-link.pages.ts';
import { referencePages } from './reference.pages.ts';
import { sendPages } from './send.pages.ts';
import { templateEditPages } from './template-edit.pages.ts';
import { templatesPages } from './templates.pages.ts';
import { timeZonePages } from './time-zone.pages.ts';

export type { WebDeps };

function isSecure(request: FastifyRequest): boolean {
  return request.protocol === 'https';
}

/**
 * A form that carries a file is read only for a member, and only once its token is good: a
 * visitor goes to /login before the body is read (every other post of a visitor with a
 * token ends there too; without one it would be 403, but telling the two apart means
 * reading the body), and the token is checked by the same check as every post's, given the
 * first field, before the file. The post's own check runs again once the form is read.
 */
function uploadGate(app: FastifyInstance): UploadGate {
  return {
    admit: (request, reply) => (request.member ? null : sendToLogin(request, reply)),
    firstField: {
      name: '_csrf',
      check(request, token) {
        let refusal: unknown = null;
        const body = request.body;
        request.body = { _csrf: token ?? '' };
        // The plugin sends its refusal through the reply (the cookie secret needs nothing of
        // it): caught here and thrown, so the reading stops and the error page answers.
        const catcher = { send: (error: unknown) => (refusal = error) } as unknown as FastifyReply;
        app.csrfProtection(request, catcher, () => {});
        request.body = body;
        if (refusal) throw refusal;
      },
    },
  };
}

function createWeb(ctx: Context, deps: WebDeps, app: FastifyInstance): Web {
  const web: Web = {
    ctx,
    deps,
    uploadGate: uploadGate(app),
    render(request, reply, status, page) {
      const csrfToken = reply.generateCsrf({ userInfo: request.member?.sessionId ?? 'visitor' });
      return reply
        .code(status)
        .header('content-type', 'text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(
          appPage({
            ...page,
            body: html`${pausedBanners(request, csrfToken, page.tr)}${page.body(csrfToken)}`,
            session: request.member,
            csrfToken,
            languageSwitchPath:
              page.tr && !request.member && page.languageSwitch !== false ? request.url.split('?')[0] : null,
          }),
        );
    },
    notFound(request, reply) {
      // In the member's language (else the visitor's): a 404 page says the same on every page.
      const tr = memberTranslator(request, reply);
      return web.render(request, reply, 404, {
        title: tr.t('app.notFound.title'),
        tr,
        languageSwitch: false,
        body: () =>
          html`<div class="card"><h1>${tr.t('app.notFound.title')}</h1><p>${tr.t('app.notFound.body')}</p><p><a href="/">${tr.t('app.notFound.start')}</a></p></div>`,
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
  return web;
}

/**
 * The banner of each paused endpoint, on every page but Integrations (whose pages show it
 * themselves, beside the endpoint), until it is back on or deleted.
 */
function pausedBanners(request: FastifyRequest, csrf: string, tr: Translator | undefined): SafeHtml | null {
  const paused = request.pausedEndpoints;
  if (!paused?.length || request.url.startsWith('/settings/integrations')) return null;
  const zone = request.member?.timeZone ?? 'UTC';
  return html`${paused.map((endpoint) => pauseBanner(endpoint, csrf, true, zone, tr))}`;
}

// Every area's pages, registered in this order (none of them imports this plugin).
const pageModules = [
  authPages,
  documentsPages,
  documentFormPages,
  sendPages,
  templatesPages,
  templateEditPages,
  publicLinkPages,
  bulkPages,
  fieldPages,
  integrationsPages,
  endpointsPages,
  billingPages,
  membersPages,
  timeZonePages,
  languagePages,
  brandPages,
  referencePages,
];

/** The session of every request, and the CSRF token every state-changing one must carry. */
async function guardRequests(ctx: Context, app: FastifyInstance): Promise<void> {
  await app.register(csrf, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: 'signet_csrf',
    cookieOpts: { path: '/', sameSite: 'lax', httpOnly: true },
    getUserInfo: (request: FastifyRequest) => request.member?.sessionId ?? 'visitor',
    csrfOpts: { hmacKey: ctx.csrfKey },
  });
  app.decorateRequest('member', null);
  app.decorateRequest('pausedEndpoints', null);
  app.addHook('onRequest', async (request) => {
    if (request.url.startsWith('/assets/')) return; // the same for everyone: no session needed
    const token = request.cookies[sessionCookie];
    request.member = token ? await resolveSession(ctx, token) : null;
    // A paused endpoint is hard to miss: its banner tops every page of the workspace.
    if (request.member && request.method === 'GET')
      request.pausedEndpoints = await listPausedEndpoints(ctx, request.member.workspaceId);
  });
  // Every state-changing request must carry the token of a form this site rendered.
  app.addHook('preHandler', (request, reply, done) => {
    if (request.method === 'GET' || request.method === 'HEAD') return done();
    app.csrfProtection(request, reply, done);
  });
}

export function webPlugin(ctx: Context, deps: WebDeps) {
  return async function register(app: FastifyInstance) {
    await app.register(cookie);
    useFormBodies(app, 64 * 1024);
    await app.register(helmet, securityHeaders('app'));
    await guardRequests(ctx, app);

    const web = createWeb(ctx, deps, app);
    app.setErrorHandler(
      pageErrorHandler(ctx, (request, reply, status, messageOf) => {
        const tr = memberTranslator(request, reply);
        const message = messageOf(tr);
        return web.render(request, reply, status, {
          title: message.title,
          tr,
          languageSwitch: false,
          body: () =>
            html`<div class="card narrow"><h1>${message.heading}</h1><p>${message.message}</p>${message.back ? html`<p><a href="${message.back}">${tr.t('page.backToForm')}</a></p>` : null}</div>`,
        });
      }),
    );

    await app.register(assetRoutes);
    app.get('/', (request, reply) => reply.redirect(request.member ? '/documents' : '/login', 303));
    for (const pages of pageModules) await app.register(pages(web));
  };
}
