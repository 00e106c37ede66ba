// **The** error path of every HTML scope (`/` and `/sign`): what an expired form, an
// unreachable database, a request that cannot be accepted and an unexpected failure each
// answer. Each scope says it in its own page (the application's shell, or a plain page).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../context.ts';
import type { Translator } from '../i18n/messages.ts';
import { formLimitOf } from './forms.ts';
import { type Message, sendUnavailablePage } from './shell.ts';

export type RenderMessage = (
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  message: MessageOf,
) => FastifyReply;

/** A message page's sentences in the language the scope renders it in. */
export type MessageOf = (tr: Translator) => Message;

const formExpired: MessageOf = (tr) => ({
  title: tr.t('page.formExpired.title'),
  heading: tr.t('page.formExpired.heading'),
  message: tr.t('page.formExpired.message'),
});
const notAccepted: MessageOf = (tr) => ({
  title: tr.t('page.notAccepted.title'),
  heading: tr.t('page.notAccepted.heading'),
  message: tr.t('page.notAccepted.message'),
});
const failed: MessageOf = (tr) => ({
  title: tr.t('page.failed.title'),
  heading: tr.t('page.failed.heading'),
  message: tr.t('page.failed.message'),
});

/** A body over its scope's limit: what the limit is, and the way back to what was typed. */
function tooLarge(request: FastifyRequest): MessageOf {
  const limit = formLimitOf(request);
  const back = sameSiteReferrer(request);
  return (tr) => ({
    title: tr.t('page.tooLarge.title'),
    heading: tr.t('page.tooLarge.heading'),
    message:
      limit === undefined
        ? tr.t('page.tooLarge.messageAnySize')
        : tr.t('page.tooLarge.message', { kilobytes: Math.round(limit / 1024) }),
    status: 413,
    back,
  });
}

/** The page the request came from, as a path, when it is one of this site's. */
function sameSiteReferrer(request: FastifyRequest): string | null {
  const referrer = request.headers.referer;
  if (!referrer) return null;
  try {
    const url = new URL(referrer);
    return url.host === request.host ? `${url.pathname}${url.search}` : null;
  } catch {
    return null;
  }
}

const csrfCodes = new Set(['FST_CSRF_INVALID_TOKEN', 'FST_CSRF_MISSING_SECRET']);

/** The scope's Fastify error handler: every failure becomes a page, never a stack trace. */
export function pageErrorHandler(ctx: Context, render: RenderMessage) {
  return (
    error: Error & { code?: string; statusCode?: number },
    request: FastifyRequest,
    reply: FastifyReply,
  ) => {
    if (error.code && csrfCodes.has(error.code)) return render(request, reply, 403, formExpired);
    if (ctx.outage.report(error)) return sendUnavailablePage(request, reply);
    if (error.statusCode === 413) return render(request, reply, 413, tooLarge(request));
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      const status = error.statusCode;
      return render(request, reply, status, (tr) => ({ ...notAccepted(tr), status }));
    }
    request.log.error({ err: error }, 'page failed');
    return render(request, reply, 500, (tr) => ({ ...failed(tr), status: 500 }));
  };
}
