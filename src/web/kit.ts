// What every page module of the web application uses, and nothing else: the `Web` a page
// module is given, the guards that hand a handler the signed-in member (narrowed, so no
// handler casts `request.member`), look-up-in-the-workspace-or-404, and a page of a stored PDF
// as an image (a document's and a template's field editor show them). Pages import this
// kit and `ui/`; the plugin that registers them (web.plugin.ts) is imported by no page.
import type { FastifyReply, FastifyRequest, RouteGenericInterface } from 'fastify';
import type { SessionUser } from '../accounts/accounts.service.ts';
import type { Context } from '../context.ts';
import { isPageImageSize, pageImage } from '../files/page-images.ts';
import { ApiError } from '../http/errors.ts';
import type { RateLimiter } from '../http/rate-limiter.ts';
import type { Translator } from '../i18n/messages.ts';
import { uuidRegExp as uuid } from '../ids.ts';
import { html, type SafeHtml } from '../ui/html.ts';
import type { UploadGate } from '../ui/uploads.ts';
import type { WebhookEndpoint } from '../webhooks/endpoints.service.ts';
import type { NavArea } from './layout.ts';
import { memberTranslator } from './member-language.ts';

export { type Form, formList, formText } from '../ui/forms.ts';

declare module 'fastify' {
  interface FastifyRequest {
    member: SessionUser | null;
    /** The member's workspace's endpoints paused by failures (GET pages; web.plugin.ts). */
    pausedEndpoints: WebhookEndpoint[] | null;
  }
}

export const sessionCookie = 'signet_session';

export interface WebDeps {
  /** The buckets of account actions (log-in, sign-up): accounts/account-limits.ts. */
  accountLimiter: RateLimiter;
}

/** A page's title, its place in the navigation, and its body given the form token. */
export interface WebPage {
  title: string;
  current?: NavArea;
  body: (csrfToken: string) => SafeHtml;
  /** Update the page this many seconds after it is shown (a progress page; layout.ts says how). */
  refreshSeconds?: number;
  /**
   * The page's language, a visitor's (ui/page-language.ts): `<html lang dir>` and, for a
   * visitor (no session), the language switch at its foot. English when none is given.
   */
  tr?: Translator;
  /** A recipient's page (a public link): the sender's brand stylesheet, after the app's. */
  stylesheet?: string | null;
  /**
   * False on an error page: no language switch at its foot, which would be a form to the
   * address that failed (a path that may be no page, and may hold another workspace's id).
   */
  languageSwitch?: false;
}

/** What a page module is given: the context, and the ways to answer. */
export interface Web {
  ctx: Context;
  deps: WebDeps;
  /** Renders a page with the shell, the member's navigation and a fresh CSRF token. */
  render(request: FastifyRequest, reply: FastifyReply, status: number, page: WebPage): FastifyReply;
  notFound(request: FastifyRequest, reply: FastifyReply): FastifyReply;
  setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string): void;
  clearSessionCookie(reply: FastifyReply): void;
  /** The checks of a form that carries a file, made before its file is read (ui/uploads.ts). */
  uploadGate: UploadGate;
}

type MemberHandler<R extends RouteGenericInterface> = (
  request: FastifyRequest<R>,
  reply: FastifyReply,
  member: SessionUser,
) => unknown;

const maxNextLength = 2048;

/** A visitor goes to /login, and comes back after to the page they asked for. */
export function sendToLogin(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  // Not back to an address too long to carry: a redirect's Location must stay well under
  // the 16 KB clients accept.
  const back = request.method === 'GET' && request.url.length <= maxNextLength;
  return reply.redirect(`/login${back ? `?next=${encodeURIComponent(request.url)}` : ''}`, 303);
}

/** A handler for members: visitors are sent to log in; the handler gets the member. */
export function forMembers<R extends RouteGenericInterface = RouteGenericInterface>(
  handler: MemberHandler<R>,
) {
  return async (request: FastifyRequest<R>, reply: FastifyReply) => {
    const member = request.member;
    if (!member) return sendToLogin(request, reply);
    return handler(request, reply, member);
  };
}

/** A handler for owners: members get a 403 page that says whom to ask. */
export function forOwners<R extends RouteGenericInterface = RouteGenericInterface>(
  web: Web,
  handler: MemberHandler<R>,
) {
  return forMembers<R>((request, reply, member) => {
    if (member.role === 'owner') return handler(request, reply, member);
    const tr = memberTranslator(request, reply);
    return web.render(request, reply, 403, {
      title: tr.t('app.ownersOnly.title'),
      tr,
      body: () =>
        html`<div class="card"><h1>${tr.t('app.ownersOnly.heading')}</h1><p>${tr.t('app.ownersOnly.body', { workspace: member.workspaceName })}</p></div>`,
    });
  });
}

export { uuid };

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

type RecordHandler<R extends RouteGenericInterface, T> = (
  request: FastifyRequest<R>,
  reply: FastifyReply,
  member: SessionUser,
  record: T,
) => unknown;

/**
 * A handler for the record that the URL's `:id` names in the member's workspace (`load`
 * scopes it); anything else, another workspace's record included, is the 404 page.
 */
export function forRecord<T, R extends RouteGenericInterface = { Params: { id: string } }>(
  web: Web,
  load: (workspaceId: string, id: string) => Promise<T>,
  handler: RecordHandler<R, T>,
) {
  return forMembers<R>(async (request, reply, member) => {
    const { id: named } = request.params as { id: string }; // every such route is …/:id
    const record = await findById(named, (id) => load(member.workspaceId, id));
    if (record === null) return web.notFound(request, reply);
    return handler(request, reply, member, record);
  });
}

/**
 * A list's page at `cursor`; an old or altered "next page" link (a cursor the service
 * refuses) starts again from the newest, and says so (`stale`), instead of an error page.
 */
export async function pageOrFirst<T>(
  list: (cursor: string | null) => Promise<T>,
  cursor: string | null,
): Promise<{ page: T; stale: boolean }> {
  try {
    return { page: await list(cursor), stale: false };
  } catch (error) {
    if (!(error instanceof ApiError && error.code === 'invalid-cursor')) throw error;
    return { page: await list(null), stale: true };
  }
}

/**
 * The page `request.params.page` of the stored PDF `sha256` as a PNG (`?size=thumbnail` for
 * the small one), drawn for the member's workspace; the 404 page for no such page or no PDF.
 */
export async function sendPageImage(
  web: Web,
  request: FastifyRequest<{ Params: { page: string }; Querystring: { size?: string } }>,
  reply: FastifyReply,
  member: SessionUser,
  sha256: string | null,
) {
  const page = /^[1-9]\d{0,3}$/.test(request.params.page) ? Number(request.params.page) : 0;
  const size = isPageImageSize(request.query.size) ? request.query.size : 'page';
  const image = sha256 && page > 0 ? await pageImage(web.ctx, member.workspaceId, sha256, page, size) : null;
  if (!image) return web.notFound(request, reply);
  return reply
    .header('content-type', 'image/png')
    .header('cache-control', image.cacheControl)
    .send(image.png);
}
