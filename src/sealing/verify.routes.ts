// The public verify page, for anyone holding a PDF (no account, no session, no script):
//   GET  /verify   the form
//   POST /verify   multipart, one file: the answer as a sentence and a table (200), or the
//                  sentence beside the field for no file, not a PDF, too large (400)
// No CSRF token: the check is stateless and changes nothing, so a post from another site
// can make a visitor's browser do nothing but have a file checked (and the answer goes back
// to that browser only, never readable by the other site). Framing is refused like on every
// page (security.ts), so the form cannot be dressed up inside someone else's page.
// The check runs in the request, unlike sealing or rendering: it only reads the file, with
// work bounded by its size (pdf/verify.ts). Abuse is bounded before a body is read: a token
// bucket per client address, and a few checks in flight per process (each holds its file in
// memory while it is hashed).
import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../context.ts';
import type { RateLimiter } from '../http/rate-limiter.ts';
import type { Form } from '../ui/forms.ts';
import { visitorTranslator } from '../ui/page-language.ts';
import { usePlainPageScope } from '../ui/page-scope.ts';
import { messagePage, sendHtml } from '../ui/shell.ts';
import { formFile, useUploadBodies } from '../ui/uploads.ts';
import {
  maxVerifyBytes,
  notPdfSentence,
  takeVerifyAttempt,
  tooLargeToVerify,
  verifyPdf,
} from './verification.service.ts';
import { renderVerifyPage, type VerifyPageView } from './verify-page.ts';

/** Checks running at once in this process; more wait for a moment (429) rather than queue in memory. */
const maxInFlight = 4;
const busyRetryAfterSeconds = 5;

/** An address under /verify that is nothing, in the visitor's language. */
function notFoundPage(request: FastifyRequest, reply: FastifyReply): string {
  const tr = visitorTranslator(request, reply);
  return messagePage(
    {
      title: `${tr.t('page.notFound.title')} · Signet`,
      heading: tr.t('page.notFound.title'),
      message: tr.t('page.notFound.message'),
      status: 404,
    },
    tr,
  );
}

function send(
  ctx: Context,
  reply: FastifyReply,
  status: number,
  view: Partial<VerifyPageView> & Pick<VerifyPageView, 'tr'>,
) {
  return sendHtml(
    reply,
    status,
    renderVerifyPage({
      maxBytes: maxVerifyBytes(ctx.config),
      result: null,
      fileName: null,
      fileError: null,
      notice: null,
      ...view,
    }),
  );
}

/** The limits, checked when a post arrives (before its file is read); null lets it through. */
function createGate(ctx: Context, limiter: RateLimiter) {
  let inFlight = 0;
  return {
    async admit(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | null> {
      const decision = await takeVerifyAttempt(ctx, limiter, request.ip);
      if (!decision.allowed) {
        ctx.metrics.rateLimitRejections.inc({ limiter: 'verify' });
        reply.header('retry-after', String(decision.retryAfterSeconds));
        const tr = visitorTranslator(request, reply);
        const notice = tr.t('verify.tooMany', { seconds: decision.retryAfterSeconds });
        return send(ctx, reply, 429, { notice, tr });
      }
      if (inFlight >= maxInFlight) {
        reply.header('retry-after', String(busyRetryAfterSeconds));
        const tr = visitorTranslator(request, reply);
        const notice = tr.t('verify.busy', { seconds: busyRetryAfterSeconds });
        return send(ctx, reply, 429, { notice, tr });
      }
      inFlight += 1;
      reply.raw.once('close', () => {
        inFlight -= 1;
      });
      return null;
    },
  };
}

async function verifyUpload(ctx: Context, request: FastifyRequest<{ Body: Form }>, reply: FastifyReply) {
  const tr = visitorTranslator(request, reply);
  const upload = formFile(request.body, 'file');
  if (!upload) return send(ctx, reply, 400, { fileError: tr.t('verify.refusal.noFile'), tr });
  const result = upload.tooLarge ? tooLargeToVerify(ctx, 0) : await verifyPdf(ctx, upload.data);
  const fileName = upload.filename || null;
  if (result.verdict === 'not-a-pdf')
    return send(ctx, reply, 400, { fileError: notPdfSentence(result, tr), fileName, tr });
  return send(ctx, reply, 200, { result, fileName, tr });
}

export function verifyRoutes(ctx: Context, deps: { limiter: RateLimiter }) {
  return async function register(app: FastifyInstance) {
    // The visitor's language: the switch's choice in its cookie (ui/page-language.ts).
    await app.register(cookie);
    await usePlainPageScope(app, ctx, {
      headers: 'plain',
      notFound: (reply) => sendHtml(reply, 404, notFoundPage(reply.request, reply)),
    });

    app.get('/', (request, reply) => send(ctx, reply, 200, { tr: visitorTranslator(request, reply) }));
    // The form carries a file: multipart in this route's scope alone, after the limits.
    const gate = createGate(ctx, deps.limiter);
    await app.register(async (uploads) => {
      uploads.addHook('onRequest', async (request, reply) => {
        const refused = await gate.admit(request, reply);
        if (refused) return refused;
      });
      await useUploadBodies(uploads, { maxFileBytes: maxVerifyBytes(ctx.config) });
      uploads.post<{ Body: Form }>('/', (request, reply) => verifyUpload(ctx, request, reply));
    });
  };
}
