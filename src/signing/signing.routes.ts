// The recipients' signing pages under the document's public url:
//   GET  /sign/{documentId}                 asks for the personal link
//   GET  /sign/{documentId}/{token}         the document (a fetch: link.fetched, not opened; opening.ts)
//   GET  /sign/{documentId}/{token}/pages/{n}  a page of its PDF as an image (its first GET: opened)
//   POST /sign/{documentId}/{token}/sign    name, typed or drawn signature, consent (+ code) -> 303 back
//   POST /sign/{documentId}/{token}/decline confirmation, optional reason    -> 303 back
//   POST /sign/{documentId}/{token}/code    mails a one-time code           -> 303 back, or the
//                                           page again with what the sign form held (it carries it)
// Plain HTML forms (they work without JavaScript; the signature pad needs it), answered in
// HTML; refusals re-render the page with a message and everything the signer entered (field
// values, typed name, consent, a drawn signature; a refused code is cleared). Links carry
// their secret in the path, so pages are never cached or referred.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../context.ts';
import type { ClientInfo } from '../documents/events.ts';
import { DocumentActionError, type Refusal, refusalKeys } from '../documents/lifecycle.ts';
import { isPageImageSize } from '../files/page-images.ts';
import { negotiateLanguage } from '../i18n/languages.ts';
import {
  type MessageKey,
  type MessageValues,
  pageTranslator,
  type Translator,
  translator,
} from '../i18n/messages.ts';
import { uuidRegExp as uuid } from '../ids.ts';
import { InputError } from '../input-error.ts';
import { type Form, formText, useFormBodies } from '../ui/forms.ts';
import { usePlainPageScope } from '../ui/page-scope.ts';
import { sendHtml } from '../ui/shell.ts';
import { codeValidityMs, requestSigningCode } from './codes.ts';
import { fetchLink, openDocument } from './opening.ts';
import {
  chooseRecipientLanguage,
  findSigningSession,
  loadSigningView,
  type SigningSession,
  signingPageImage,
} from './session.ts';
import { type AdoptedSignature, declineDocument, signDocument } from './signing.service.ts';
import {
  renderSigningMessagePage,
  renderSigningPage,
  type SignFormEntries,
  type SigningPageView,
} from './signing-page.ts';
import { buildSigningView, describeFieldIn } from './signing-view.ts';

/** What the page says after an action succeeded (`?done=`), in the recipient's language. */
const doneNotices: Record<string, (tr: Translator) => SigningPageView['notice']> = {
  signed: (tr) => ({ kind: 'success', text: tr.t('sign.notice.signed') }),
  declined: (tr) => ({ kind: 'info', text: tr.t('sign.notice.declined') }),
  'code-sent': (tr) => ({
    kind: 'info',
    text: tr.t('sign.notice.codeSent', { minutes: codeValidityMs / 60_000 }),
  }),
  language: (tr) => ({ kind: 'success', text: tr.t('sign.notice.language') }),
};
const doneNotice = (done: string | undefined, tr: Translator) => doneNotices[done ?? '']?.(tr) ?? null;

/** One field's refusal, its sentence a key of the catalogues (English as the error's text). */
function refusedInput(field: string, key: MessageKey): InputError {
  return new InputError({ [field]: translator('en').t(key) }, { messages: { [field]: { key } } });
}

/** An InputError's sentences in the page's language, where they carry a key; else as they are. */
function inputSentences(error: InputError, tr: Translator): Record<string, string> {
  const messages = error.details.messages ?? {};
  return Object.fromEntries(
    Object.entries(error.fields).map(([field, sentence]) => {
      const message = messages[field];
      if (!message) return [field, sentence];
      const values: MessageValues = { ...message.values };
      if (message.field)
        values.field = describeFieldIn(tr, message.field as Parameters<typeof describeFieldIn>[1]);
      return [field, tr.t(message.key, values)];
    }),
  );
}

/** Refusals that are the visitor's input to correct (400) rather than the document's state (409). */
const inputRefusals = new Set<Refusal>([
  'consent-required',
  'name-mismatch',
  'code-required',
  'code-invalid',
]);

type Params = { documentId: string; token: string };

/**
 * A page reached without a working link knows no recipient: it follows the browser's
 * `Accept-Language`.
 */
const visitorTranslator = (request: FastifyRequest) =>
  pageTranslator(negotiateLanguage(request.headers['accept-language']));

function notFoundPage(request: FastifyRequest, reply: FastifyReply) {
  const tr = visitorTranslator(request);
  return sendHtml(
    reply,
    404,
    renderSigningMessagePage(
      {
        title: tr.t('sign.notFound.title'),
        heading: tr.t('sign.notFound.heading'),
        message: tr.t('sign.notFound.message'),
        status: 404,
      },
      tr,
    ),
  );
}

async function sessionOf(ctx: Context, params: Params): Promise<SigningSession | null> {
  if (!uuid.test(params.documentId)) return null;
  return findSigningSession(ctx, params.documentId.toLowerCase(), params.token);
}

async function renderPage(
  ctx: Context,
  reply: FastifyReply,
  session: SigningSession,
  params: Params,
  status: number,
  notice: Notice,
  form?: KeptForm,
  /** The refused fields' sentences in the page's language (they replace `form.errors`). */
  errors?: (tr: Translator) => Record<string, string>,
) {
  const loaded = await loadSigningView(ctx, session);
  const tr = pageTranslator(loaded.language);
  const basePath = `/sign/${params.documentId}/${params.token}`;
  const shown = form && errors ? { ...form, errors: errors(tr) } : form;
  return sendHtml(
    reply,
    status,
    renderSigningPage(
      buildSigningView(ctx, tr, loaded, { basePath, notice: notice?.(tr) ?? null, form: shown }),
      tr,
    ),
  );
}

/** What a refused action's page says: a notice made in the recipient's language. */
type Notice = ((tr: Translator) => SigningPageView['notice']) | null;

type ActionRequest = FastifyRequest<{ Params: Params; Body: Form | undefined }>;

type KeptForm = { entered: Record<string, string>; errors: Record<string, string>; signing: SignFormEntries };

/**
 * The sign form as it was posted, to show again: its fields, the typed name, the consent, a
 * drawn signature; the code too, unless the code is what was refused.
 */
function keptForm(form: Form, errors: Record<string, string>, codeRefused: boolean): KeptForm {
  return {
    entered: fieldInputs(form),
    errors,
    signing: {
      fullName: formText(form, 'fullName'),
      consent: formText(form, 'consent') === 'yes',
      code: codeRefused ? '' : formText(form, 'code'),
      drawn: formText(form, 'signatureKind') === 'drawn' ? drawnImage(form) : null,
    },
  };
}

/** Runs a form action: success redirects back to the page (post/redirect/get), a refusal re-renders it. */
async function act(
  ctx: Context,
  request: ActionRequest,
  reply: FastifyReply,
  done: string,
  action: (session: SigningSession, form: Form) => Promise<unknown>,
  /** On success, the page again with the posted sign form (instead of the redirect). */
  keepOnSuccess = false,
) {
  const session = await sessionOf(ctx, request.params);
  if (!session) return notFoundPage(request, reply);
  const body = request.body ?? {};
  // The page again, with everything the signer entered in the sign form.
  const again = (
    status: number,
    notice: Notice,
    form: KeptForm,
    errors?: (tr: Translator) => Record<string, string>,
  ) => renderPage(ctx, reply, session, request.params, status, notice, form, errors);
  try {
    await action(session, body);
  } catch (error) {
    // Posting through the link is having the document open (opening.ts), refused or not:
    // an action that succeeds recorded it itself, a refused one rolled back.
    if (error instanceof InputError || error instanceof DocumentActionError)
      await openDocument(ctx, session, clientOf(request));
    if (error instanceof InputError) {
      // Each field's sentence beside its input.
      const refused = error;
      return again(
        400,
        (tr) => ({ kind: 'error', text: Object.values(inputSentences(refused, tr)).join(' ') }),
        keptForm(body, error.fields, false),
        (tr) => inputSentences(refused, tr),
      );
    }
    if (!(error instanceof DocumentActionError)) throw error;
    const status = inputRefusals.has(error.refusal) ? 400 : 409;
    // A refused code is cleared; the rest is kept.
    const form = keptForm(body, {}, error.refusal.startsWith('code-'));
    const refusal = error.refusal;
    return again(status, (tr) => ({ kind: 'error', text: tr.t(refusalKeys[refusal]) }), form);
  }
  if (keepOnSuccess) return again(200, (tr) => doneNotice(done, tr), keptForm(body, {}, true));
  const page = `/sign/${request.params.documentId}/${request.params.token}?done=${done}`;
  return reply.header('cache-control', 'no-store').redirect(page, 303);
}

function askForLinkPage(request: FastifyRequest): string {
  const tr = visitorTranslator(request);
  return renderSigningMessagePage(
    {
      title: tr.t('sign.askLink.title'),
      heading: tr.t('sign.askLink.heading'),
      message: tr.t('sign.askLink.message'),
    },
    tr,
  );
}

/**
 * Who is acting, for the certificate of completion: the client's address (the proxy's
 * X-Forwarded-For only when SIGNET_TRUST_PROXY says so: Fastify's trustProxy) and its
 * user agent.
 */
function clientOf(request: FastifyRequest): ClientInfo {
  return { ip: request.ip || null, userAgent: request.headers['user-agent'] ?? null };
}

/**
 * The signature the form adopts: typed, or drawn (the pad's PNG as a data URL); the
 * service checks the image (pdf/signature-image.ts).
 */
export function adoptedSignature(form: Form): AdoptedSignature {
  if (formText(form, 'signatureKind') !== 'drawn') return { kind: 'typed' };
  const image = drawnImage(form);
  if (!image) throw refusedInput('signature', 'sign.pad.drawFirst');
  return { kind: 'drawn', png: Buffer.from(image.slice(pngDataUrl.length), 'base64') };
}

const pngDataUrl = 'data:image/png;base64,';

/** The drawn signature as posted, a PNG data URL (base64 only), or null. */
function drawnImage(form: Form): string | null {
  const image = formText(form, 'signatureImage');
  return /^data:image\/png;base64,[A-Za-z0-9+/]+={0,2}$/.test(image) ? image : null;
}

/** The signer's field inputs: `field.<id>` → what they entered. */
export function fieldInputs(form: Form): Record<string, string> {
  const inputs: Record<string, string> = Object.create(null);
  for (const name of Object.keys(form)) {
    if (name.startsWith('field.')) inputs[name.slice('field.'.length)] = formText(form, name);
  }
  return inputs;
}

/** A drawn signature is a PNG of some tens of kilobytes: the sign form may be that large. */
export const signFormBytes = 768 * 1024;

function actionRoutes(app: FastifyInstance, ctx: Context) {
  app.register(async (large) => {
    useFormBodies(large, signFormBytes);
    large.post<{ Params: Params; Body: Form | undefined }>('/:documentId/:token/sign', (request, reply) =>
      act(ctx, request, reply, 'signed', (session, form) =>
        signDocument(ctx, session, {
          fullName: formText(form, 'fullName'),
          consent: formText(form, 'consent') === 'yes',
          code: formText(form, 'code') || undefined,
          signature: adoptedSignature(form),
          fields: fieldInputs(form),
          client: clientOf(request),
        }),
      ),
    );
    // The code request carries what the sign form holds (sign.js copies it; after a refusal
    // the page does): with it, the page comes back with all of it still filled in.
    large.post<{ Params: Params; Body: Form | undefined }>('/:documentId/:token/code', (request, reply) => {
      const carried = Object.keys(request.body ?? {}).length > 0;
      return act(
        ctx,
        request,
        reply,
        'code-sent',
        (session) => requestSigningCode(ctx, session, clientOf(request)),
        carried,
      );
    });
  });
  // The language switch: the recipient's choice sticks (their row), then the page in it.
  app.post<{ Params: Params; Body: Form | undefined }>(
    '/:documentId/:token/language',
    async (request, reply) => {
      const session = await sessionOf(ctx, request.params);
      if (!session) return notFoundPage(request, reply);
      const chosen = await chooseRecipientLanguage(ctx, session, formText(request.body ?? {}, 'language'));
      const page = `/sign/${request.params.documentId}/${request.params.token}`;
      return reply.header('cache-control', 'no-store').redirect(chosen ? `${page}?done=language` : page, 303);
    },
  );
  app.post<{ Params: Params; Body: Form | undefined }>('/:documentId/:token/decline', (request, reply) =>
    act(ctx, request, reply, 'declined', async (session, form) => {
      // Declining ends the signing for everyone: the page asks to confirm it.
      if (formText(form, 'confirm') !== 'yes') {
        throw refusedInput('confirm', 'sign.decline.confirmMissing');
      }
      return declineDocument(ctx, session, {
        reason: formText(form, 'reason') || undefined,
        client: clientOf(request),
      });
    }),
  );
}

export function signingRoutes(ctx: Context) {
  return async function register(app: FastifyInstance) {
    await usePlainPageScope(app, ctx, {
      headers: 'signing',
      notFound: (reply) => notFoundPage(reply.request, reply),
    });

    app.get<{ Params: { documentId: string } }>('/:documentId', (request, reply) =>
      sendHtml(reply, 200, askForLinkPage(request)),
    );
    app.get<{ Params: Params; Querystring: { done?: string } }>(
      '/:documentId/:token',
      async (request, reply) => {
        const session = await sessionOf(ctx, request.params);
        if (!session) return notFoundPage(request, reply);
        // Fetching the page is not viewing it (opening.ts): a scanner or a preview gets here too.
        if (request.method === 'GET') await fetchLink(ctx, session, clientOf(request));
        const done = request.query.done;
        return renderPage(ctx, reply, session, request.params, 200, (tr) => doneNotice(done, tr));
      },
    );
    actionRoutes(app, ctx);
    pageImageRoute(app, ctx);
  };
}

const pageImagePolicy =
  "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'";

/**
 * GET /sign/{doc}/{token}/pages/{n}[?size=thumbnail]: a page of the document as a PNG, for
 * the holder of a signing link (images of the one file, so they never change: cached).
 */
function pageImageRoute(app: FastifyInstance, ctx: Context) {
  app.get<{ Params: Params & { page: string }; Querystring: { size?: string } }>(
    '/:documentId/:token/pages/:page',
    async (request, reply) => {
      const session = await sessionOf(ctx, request.params);
      const page = /^[1-9]\d{0,3}$/.test(request.params.page) ? Number(request.params.page) : 0;
      if (!session || page === 0) return notFoundPage(request, reply);
      const size = isPageImageSize(request.query.size) ? request.query.size : 'page';
      const image = await signingPageImage(ctx, session, page, size);
      if (!image) return notFoundPage(request, reply);
      // Only something that renders the page loads its images: the recipient viewed it.
      if (request.method === 'GET') await openDocument(ctx, session, clientOf(request));
      return (
        reply
          .header('content-type', 'image/png')
          .header('cache-control', image.cacheControl)
          // Opened on its own (the larger view without JavaScript), the browser lays the image
          // out with inline styles of its own: a PNG runs nothing, so they may apply.
          .header('content-security-policy', pageImagePolicy)
          .send(image.png)
      );
    },
  );
}
