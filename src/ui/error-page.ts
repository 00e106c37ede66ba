// **The** error path of every HTML scope (`/` and `/sign`): what an expired form, an
// unreachable database, a request that cannot be accepted and an unexpected failure each
// answer. Each scope says it in its own page (the application's shell, or a plain page).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../context.ts';
import { formLimitOf } from './forms.ts';
import { type Message, sendUnavailablePage } from './shell.ts';

export type RenderMessage = (
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  message: Message,
) => FastifyReply;

const formExpired: Message = {
  title: 'Form expired',
  heading: 'This form has expired',
  message: 'Nothing was changed. Go back, reload the page and try again.',
};
const notAccepted: Message = {
  title: 'Request not accepted',
  heading: 'We could not accept this request',
  message: 'Nothing was changed. Go back and try again.',
};
const failed: Message = {
  title: 'Something went wrong',
  heading: 'Something went wrong on our side',
  message: 'Nothing you did caused this, and nothing was changed. Please try again in a moment.',
};

/** A body over its scope's limit: what the limit is, and the way back to what was typed. */
function tooLarge(request: FastifyRequest): Message {
  const limit = formLimitOf(request);
  const size = limit === undefined ? 'its limit' : `${Math.round(limit / 1024)} KB of text`;
  return {
    title: 'Form too large',
    heading: 'This form is too large to send',
    message: `A form here can send at most ${size}. Nothing was saved. Go back to the form: your browser keeps what you typed there. Shorten the longest text, then send it again.`,
    status: 413,
    back: sameSiteReferrer(request),
  };
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
    if (ctx.outage.report(error)) return sendUnavailablePage(reply);
    if (error.statusCode === 413) return render(request, reply, 413, tooLarge(request));
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return render(request, reply, error.statusCode, { ...notAccepted, status: error.statusCode });
    }
    request.log.error({ err: error }, 'page failed');
    return render(request, reply, 500, { ...failed, status: 500 });
  };
}
