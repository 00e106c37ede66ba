// Creating, reading and sending one document in the web application, and /mails (your own
// mail). Input goes to the signing service exactly as the CLI's does (createDocument
// validates; its refusals are shown as sentences), and the value shown is computed by the
// same function as the API's `value`.
//   GET  /documents/new                 the form (no JavaScript needed)
//   POST /documents                     more=…/preview=1: the form again; otherwise create the draft
//   POST /documents/value               the live value as the form is typed (JSON for app.js)
//   GET  /documents/{id}                status, recipients' progress, timeline, signing links
//   POST /documents/{id}/send
//   GET|POST /documents/{id}/withdraw      confirm, then withdraw (signing ends: expired)
//   GET|POST /documents/{id}/delete        confirm, then delete a draft
//   POST /documents/{id}/recipients/{rid}/remind   the signer's link mailed again (once an hour)
//   GET  /mails                         the mails addressed to the signed-in person (development, no SMTP)
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SessionUser } from '../accounts/accounts.service.ts';
import { getDocument, getDocumentForOwner, recipientProgress } from '../documents/documents.service.ts';
import { DocumentActionError } from '../documents/lifecycle.ts';
import { isPageImageSize, pageImage } from '../files/page-images.ts';
import { type FieldErrors, InputError } from '../input-error.ts';
import { listOwnMails } from '../mail/mail.service.ts';
import { refuseTooLarge } from '../pdf/inspect.ts';
import {
  createDocument,
  deleteDraft,
  maxRecipients,
  remindRecipient,
  sendDocument,
  withdrawDocument,
} from '../signing/signing.service.ts';
import { findSharableSigningLinks } from '../signing/signing-links.ts';
import { pricingView } from '../ui/document-views.ts';
import { notice } from '../ui/forms.ts';
import type { SafeHtml } from '../ui/html.ts';
import { formFile, useUploadBodies } from '../ui/uploads.ts';
import { field, maxPriceRows, previewValue, pricingOf, recipientsOf, rowCount } from './document-form.ts';
import {
  confirmDocumentAction,
  documentView,
  expiryChoices,
  newDocumentView,
  ownMailsView,
} from './document-form.views.ts';
import { type Form, findById, forMembers, formText, forRecord, type Web } from './kit.ts';

type DocumentRequest = FastifyRequest<{ Params: { id: string } }>;

function newPage(
  web: Web,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  form: Form,
  message: SafeHtml | null,
  preview: SafeHtml | null,
  errors: FieldErrors = {},
) {
  const upload = { errors, maxBytes: web.ctx.config.maxUploadBytes };
  return web.render(request, reply, status, {
    title: 'New document',
    current: 'documents',
    body: (csrf) => newDocumentView(csrf, form, message, preview, upload),
  });
}

async function documentPage(
  web: Web,
  request: DocumentRequest,
  reply: FastifyReply,
  member: SessionUser,
  status: number,
  message: SafeHtml | null,
) {
  const { ctx } = web;
  const document = await findById(request.params.id, (id) =>
    getDocumentForOwner(ctx, member.workspaceId, id),
  );
  if (!document) return web.notFound(request, reply);
  const links = await findSharableSigningLinks(ctx, member.workspaceId, document);
  const progress = new Map(document.recipients.map((r) => [r.id, recipientProgress(document, r)]));
  return web.render(request, reply, status, {
    title: document.title,
    current: 'documents',
    body: (csrf) =>
      documentView({ document, pricing: pricingView(document.pricing), progress, links }, csrf, message),
  });
}

/** The chosen expiry (one of the form's choices; anything else is the default 30 days). */
function expiryOf(form: Form): number {
  const days = Number(formText(form, 'expiresInDays'));
  return (expiryChoices.includes(days as (typeof expiryChoices)[number]) ? days : 30) * 86_400;
}

/** The sentence a document page shows after a sender's action (post, redirect, get). */
const doneNotices: Record<string, [kind: 'success' | 'info', text: string]> = {
  reminded: ['success', 'Reminder sent: the signer gets their link again by mail.'],
  withdrawn: ['info', 'Document withdrawn: signing has ended, and the recipients who had it are told.'],
};

/** POST /documents: more rows or a preview re-render the form; otherwise the draft is created. */
async function submitNew(
  web: Web,
  request: FastifyRequest<{ Body: Form }>,
  reply: FastifyReply,
  member: SessionUser,
) {
  const form: Form = { ...(request.body ?? {}) };
  const upload = formFile(form, 'file');
  // The form may come back (more rows, a preview, a refusal): it says to choose the file again.
  if (upload) form.fileChosen = '1';
  const more = formText(form, 'more');
  if (more === 'recipients')
    form.recipientRows = String(rowCount(form, 'recipientRows', 3, maxRecipients) + 3);
  if (more === 'prices') form.priceRows = String(rowCount(form, 'priceRows', 2, maxPriceRows) + 3);
  const pricing = pricingOf(form, rowCount(form, 'priceRows', 2, maxPriceRows));
  if (more || formText(form, 'preview')) {
    const value = previewValue(pricing);
    return newPage(web, request, reply, 200, form, null, notice(value.ok ? 'info' : 'error', value.text));
  }
  try {
    if (upload?.tooLarge) refuseTooLarge(web.ctx.config.maxUploadBytes);
    const { id } = await createDocument(web.ctx, {
      workspaceId: member.workspaceId,
      title: field(form, 'title'),
      body: formText(form, 'body'),
      recipients: recipientsOf(form, rowCount(form, 'recipientRows', 3, maxRecipients)),
      pricing,
      file: upload?.data ?? null,
      expiresInSeconds: expiryOf(form),
    });
    return reply.redirect(`/documents/${id}`, 303);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    return newPage(web, request, reply, 400, form, notice('error', error.message), null, error.fields);
  }
}

/** Runs a sender's action on the document, then back to it; a refusal shows it with the sentence. */
async function act(
  web: Web,
  request: SenderRequest,
  reply: FastifyReply,
  member: SessionUser,
  action: SenderAction,
) {
  try {
    const done = await findById(request.params.id, (id) =>
      action.run(web, member, id, request.params).then(() => id),
    );
    if (done === null) return web.notFound(request, reply);
    return reply.redirect(action.back(done), 303);
  } catch (error) {
    if (!(error instanceof DocumentActionError)) throw error;
    return documentPage(web, request, reply, member, 409, notice('error', error.message));
  }
}

type SenderRequest = FastifyRequest<{ Params: { id: string; recipientId?: string } }>;

interface SenderAction {
  run(web: Web, member: SessionUser, id: string, params: { recipientId?: string }): Promise<unknown>;
  /** Where the browser goes after it (post, redirect, get). */
  back(id: string): string;
}

/** The sender's posts on a document: each an action, then a redirect; refusals as sentences. */
const senderPosts: Record<string, SenderAction> = {
  '/documents/:id/send': {
    run: (web, member, id) => sendDocument(web.ctx, member.workspaceId, id),
    back: (id) => `/documents/${id}`,
  },
  '/documents/:id/withdraw': {
    run: (web, member, id) => withdrawDocument(web.ctx, member.workspaceId, id),
    back: (id) => `/documents/${id}?done=withdrawn`,
  },
  '/documents/:id/delete': {
    run: (web, member, id) => deleteDraft(web.ctx, member.workspaceId, id),
    back: () => '/documents',
  },
  '/documents/:id/recipients/:recipientId/remind': {
    run: (web, member, id, params) =>
      remindRecipient(web.ctx, member.workspaceId, id, params.recipientId ?? ''),
    back: (id) => `/documents/${id}?done=reminded`,
  },
};

/** Send, withdraw and delete (the last two confirmed on a page of their own first), and remind. */
function senderActions(web: Web, app: FastifyInstance) {
  for (const action of ['withdraw', 'delete'] as const) {
    app.get<{ Params: { id: string } }>(
      `/documents/:id/${action}`,
      forRecord(
        web,
        (workspaceId, id) => getDocument(web.ctx, workspaceId, id),
        (request, reply, _member, document) =>
          web.render(request, reply, 200, {
            title: action === 'withdraw' ? 'Withdraw document' : 'Delete draft',
            current: 'documents',
            body: (csrf) => confirmDocumentAction(document, action, csrf),
          }),
      ),
    );
  }
  for (const [path, action] of Object.entries(senderPosts)) {
    app.post<{ Params: { id: string; recipientId?: string } }>(
      path,
      forMembers((request, reply, member) => act(web, request, reply, member, action)),
    );
  }
}

/** GET /documents/{id}/pages/{n}[?size=thumbnail]: a page of the document's PDF as an image. */
function pageImageRoute(web: Web, app: FastifyInstance) {
  app.get<{ Params: { id: string; page: string }; Querystring: { size?: string } }>(
    '/documents/:id/pages/:page',
    forRecord(
      web,
      (workspaceId, id) => getDocument(web.ctx, workspaceId, id),
      async (request, reply, _member, document) => {
        const page = /^[1-9]\d{0,3}$/.test(request.params.page) ? Number(request.params.page) : 0;
        const original = document.files.find((f) => f.kind === 'original');
        const size = isPageImageSize(request.query.size) ? request.query.size : 'page';
        const png = original && page > 0 ? await pageImage(web.ctx, original.sha256, page, size) : null;
        if (!png) return web.notFound(request, reply);
        return reply
          .header('content-type', 'image/png')
          .header('cache-control', 'private, max-age=86400')
          .send(png);
      },
    ),
  );
}

export function documentFormPages(web: Web) {
  return async function register(app: FastifyInstance) {
    app.get(
      '/documents/new',
      forMembers((request, reply) => newPage(web, request, reply, 200, {}, null, null)),
    );
    // The new-document form carries a PDF: multipart in this route's scope alone.
    await app.register(async (uploads) => {
      await useUploadBodies(uploads, { maxFileBytes: web.ctx.config.maxUploadBytes });
      uploads.post<{ Body: Form }>(
        '/documents',
        forMembers((request, reply, member) => submitNew(web, request, reply, member)),
      );
    });
    // The live value under the pricing table (app.js posts the form here as it is typed):
    // the same computation as "Show the value", as text for the page to show.
    app.post<{ Body: Form }>(
      '/documents/value',
      forMembers((request, reply) => {
        const form = request.body ?? {};
        const value = previewValue(pricingOf(form, rowCount(form, 'priceRows', 2, maxPriceRows)));
        return reply.header('cache-control', 'no-store').send(value);
      }),
    );
    app.get<{ Params: { id: string }; Querystring: { done?: string } }>(
      '/documents/:id',
      forMembers((request, reply, member) => {
        const done = doneNotices[request.query.done ?? ''];
        return documentPage(web, request, reply, member, 200, done ? notice(...done) : null);
      }),
    );
    senderActions(web, app);
    pageImageRoute(web, app);
    app.get(
      '/mails',
      forMembers(async (request, reply, member) => {
        const mails = await listOwnMails(web.ctx, member.email);
        return web.render(request, reply, 200, {
          title: 'Your mail',
          current: 'documents',
          body: () => ownMailsView(member, mails),
        });
      }),
    );
  };
}
