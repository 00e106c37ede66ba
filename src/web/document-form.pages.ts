// Creating, reading and sending one document in the web application, and /mails (your own
// mail). Input goes to the sender's side (src/sending/) exactly as the CLI's does
// (createDocument validates; its refusals are shown as sentences), and the value shown is
// computed by the same function as the API's `value`.
//   GET  /documents/new                 the form (no JavaScript needed)
//   POST /documents                     more=…/preview=1: the form again; otherwise create the draft
//   GET|POST /documents/{id}/edit       a draft's form, filled in; saved as a whole (editDraft)
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
import { DocumentActionError, refusalKeys } from '../documents/lifecycle.ts';
import { pricingView } from '../documents/pricing.ts';
import type { PricingBlock } from '../documents/value.ts';
import type { MessageKey, Translator } from '../i18n/messages.ts';
import { problemsOf } from '../i18n/refusals.ts';
import { type FieldErrors, InputError } from '../input-error.ts';
import { listOwnMails } from '../mail/mail.service.ts';
import { maxRecipients } from '../sending/draft-input.ts';
import { createDocument, deleteDraft, editDraft, findDraftInput } from '../sending/drafts.ts';
import { withdrawDocument } from '../sending/ending.ts';
import type { KeptUpload } from '../sending/kept-uploads.ts';
import { remindRecipient } from '../sending/reminders.ts';
import { sendDocument } from '../sending/send.ts';
import { findSharableSigningLinks } from '../sending/signing-links.ts';
import { errorSummary, notice } from '../ui/forms.ts';
import type { SafeHtml } from '../ui/html.ts';
import { useUploadBodies } from '../ui/uploads.ts';
import {
  expiryChoices,
  expiryOf,
  field,
  formErrors,
  maxPriceRows,
  previewValue,
  pricingOf,
  recipientsOf,
  rowCount,
} from './document-form.ts';
import {
  confirmDocumentAction,
  editDocumentView,
  newDocumentView,
  ownMailsView,
  sectionAnchors,
} from './document-form.views.ts';
import { documentView } from './document-page.views.ts';
import { type FormPdf, formPdfOf, keepNewFile } from './form-pdf.ts';
import { type Form, findById, forMembers, formText, forRecord, sendPageImage, type Web } from './kit.ts';
import { memberTranslator } from './member-language.ts';

type DocumentRequest = FastifyRequest<{ Params: { id: string } }>;

/** What a form page shows besides the form's own fields. */
interface FormPage {
  status: number;
  form: Form;
  message?: SafeHtml | null;
  preview?: SafeHtml | null;
  errors?: FieldErrors;
  /** Editing: the draft, its title and its PDF's page count. */
  draft?: EditedDraft | undefined;
  /** The PDF kept from the form's last submit (kept-uploads.ts). */
  kept?: KeptUpload | null;
}

type EditedDraft = { id: string; title: string; pages: number | null };

/** The new-document form, or a draft's edit form (`draft`), with every refusal beside its field. */
function formPage(web: Web, request: FastifyRequest, reply: FastifyReply, page: FormPage, tr: Translator) {
  const { status, form, message = null, preview = null, errors = {}, draft, kept = null } = page;
  const maxBytes = web.ctx.config.maxUploadBytes;
  if (!draft)
    return web.render(request, reply, status, {
      title: tr.t('docForm.newTitle'),
      current: 'documents',
      tr,
      body: (csrf) =>
        newDocumentView(
          csrf,
          form,
          message,
          preview,
          {
            action: '/documents',
            submit: tr.t('docForm.create'),
            cancel: '/documents',
            maxBytes,
            errors,
            kept,
          },
          tr,
        ),
    });
  return web.render(request, reply, status, {
    title: tr.t('docForm.editTitle', { title: draft.title }),
    current: 'documents',
    tr,
    body: (csrf) =>
      editDocumentView(
        csrf,
        draft.title,
        form,
        message,
        preview,
        {
          action: `/documents/${draft.id}/edit`,
          submit: tr.t('docForm.save'),
          cancel: `/documents/${draft.id}`,
          maxBytes,
          current: draft.pages === null ? null : { pages: draft.pages },
          errors,
          kept,
        },
        tr,
      ),
  });
}

async function documentPage(
  web: Web,
  request: DocumentRequest,
  reply: FastifyReply,
  member: SessionUser,
  status: number,
  /** A notice above the document, in the page's language. */
  message: ((tr: Translator) => SafeHtml) | null,
) {
  const { ctx } = web;
  const document = await findById(request.params.id, (id) =>
    getDocumentForOwner(ctx, member.workspaceId, id),
  );
  if (!document) return web.notFound(request, reply);
  const links = await findSharableSigningLinks(ctx, member.workspaceId, document);
  const progress = new Map(document.recipients.map((r) => [r.id, recipientProgress(document, r)]));
  const tr = memberTranslator(request, reply);
  return web.render(request, reply, status, {
    title: document.title,
    current: 'documents',
    tr,
    body: (csrf) =>
      documentView(
        { document, pricing: pricingView(document.pricing), progress, links, timeZone: member.timeZone },
        csrf,
        message?.(tr) ?? null,
        tr,
      ),
  });
}

/** A draft as its edit form shows it: the same fields the new-document form sends. */
function draftForm(draft: NonNullable<Awaited<ReturnType<typeof findDraftInput>>>): Form {
  const form: Form = {
    title: draft.title,
    body: draft.body ?? '',
    remindEveryDays: draft.remindEveryDays ? String(draft.remindEveryDays) : '',
    language: draft.language ?? '',
  };
  const days = (draft.expiresInSeconds ?? 0) / 86_400;
  if (expiryChoices.includes(days as (typeof expiryChoices)[number])) form.expiresInDays = String(days);
  else {
    form.expiresInDays = 'keep';
    form.expiresAsSet = String(draft.expiresInSeconds ?? 0);
  }
  draft.recipients.forEach((r, i) => {
    Object.assign(form, {
      [`r${i}_email`]: r.email,
      [`r${i}_name`]: r.fullName,
      [`r${i}_role`]: r.role,
      [`r${i}_method`]: r.signingMethod,
      [`r${i}_order`]: String(r.signingOrder),
      [`r${i}_language`]: r.language ?? '',
    });
  });
  form.recipientRows = String(Math.min(maxRecipients, draft.recipients.length + 1));
  const pricing = draft.pricing as PricingBlock | null;
  if (pricing) {
    form.currency = pricing.currency;
    form.vatMode = pricing.pricesIncludeVat ? 'included' : 'excluded';
    pricing.items.forEach((item, i) => {
      Object.assign(form, {
        [`p${i}_name`]: item.name,
        [`p${i}_qty`]: item.quantity,
        [`p${i}_price`]: item.unitPrice,
        [`p${i}_vat`]: item.vatRate,
        [`p${i}_billing`]: item.billing.type === 'one-off' ? 'one-off' : item.billing.interval,
        [`p${i}_periods`]: item.billing.type === 'one-off' ? '' : String(item.billing.periods),
      });
    });
  }
  form.priceRows = String(Math.min(maxPriceRows, (pricing?.items.length ?? 0) + 1));
  return form;
}

/** The sentence a document page shows after a sender's action (post, redirect, get). */
const doneNotices: Record<string, [kind: 'success' | 'info', text: MessageKey]> = {
  reminded: ['success', 'doc.done.reminded'],
  saved: ['success', 'doc.done.saved'],
  'saved-fields-removed': ['info', 'doc.done.savedFieldsRemoved'],
  withdrawn: ['info', 'doc.done.withdrawn'],
};

/** What the form sends, as the service's input. */
function documentInput(form: Form, pdf: FormPdf, keptExpiry?: number) {
  const { upload } = pdf;
  return {
    title: field(form, 'title'),
    body: formText(form, 'body'),
    recipients: recipientsOf(form, rowCount(form, 'recipientRows', 3, maxRecipients)),
    pricing: pricingOf(form, rowCount(form, 'priceRows', 2, maxPriceRows)),
    file: upload && !upload.tooLarge ? upload.data : null,
    fileTooLarge: upload?.tooLarge ?? false,
    kept: pdf.kept,
    keptMissing: pdf.keptMissing,
    expiresInSeconds: expiryOf(form, keptExpiry),
    remindEveryDays:
      formText(form, 'remindEveryDays') === '' ? null : Number(formText(form, 'remindEveryDays')),
    language: formText(form, 'language') || null,
  };
}

/** How many rows of recipients and prices the form shows. */
function formRows(form: Form) {
  return {
    recipients: rowCount(form, 'recipientRows', 3, maxRecipients),
    prices: rowCount(form, 'priceRows', 2, maxPriceRows),
  };
}

/**
 * The new-document form and a draft's edit form post the same fields: more rows or a preview
 * show the form again; otherwise `save` stores it, and a refusal shows the form with every
 * problem beside its field and a summary of them at the top. A PDF that came with a form
 * shown again is kept for the next submit (kept-uploads.ts).
 */
async function submitDocumentForm(
  web: Web,
  request: FastifyRequest<{ Body: Form }>,
  reply: FastifyReply,
  member: SessionUser,
  save: (form: Form, pdf: FormPdf) => Promise<string>,
  draft?: EditedDraft,
) {
  const form: Form = { ...(request.body ?? {}) };
  const tr = memberTranslator(request, reply);
  const pdf = await formPdfOf(web, member, form);
  const more = formText(form, 'more');
  if (more === 'recipients')
    form.recipientRows = String(rowCount(form, 'recipientRows', 3, maxRecipients) + 3);
  if (more === 'prices') form.priceRows = String(rowCount(form, 'priceRows', 2, maxPriceRows) + 3);
  if (more || formText(form, 'preview')) {
    const value = previewValue(pricingOf(form, rowCount(form, 'priceRows', 2, maxPriceRows)), tr);
    const preview = notice(value.ok ? 'info' : 'error', value.text);
    const errors = formErrors(form, await keepNewFile(web, member, pdf), formRows(form), tr);
    const page = { status: 200, form, preview, errors, draft, kept: pdf.kept };
    return formPage(web, request, reply, page, tr);
  }
  try {
    return reply.redirect(await save(form, pdf), 303);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    // The file passed its checks (no sentence on it): kept, so the next submit has it.
    const fileErrors = error.fields.file ? {} : await keepNewFile(web, member, pdf);
    const errors = formErrors(form, { ...problemsOf(error), ...fileErrors }, formRows(form), tr);
    const message = errorSummary(errors, sectionAnchors, tr);
    const page = { status: 400, form, message, errors, draft, kept: pdf.kept };
    return formPage(web, request, reply, page, tr);
  }
}

/** GET and POST /documents/{id}/edit: a draft's form, filled in as it stands. */
function editRoutes(web: Web, app: FastifyInstance) {
  const draftOf = async (request: DocumentRequest, member: SessionUser) => {
    const draft = await findById(request.params.id, (id) => findDraftInput(web.ctx, member.workspaceId, id));
    return draft && { ...draft, id: request.params.id };
  };
  app.get<{ Params: { id: string } }>(
    '/documents/:id/edit',
    forMembers(async (request, reply, member) => {
      const draft = await draftOf(request, member);
      if (!draft) return web.notFound(request, reply);
      if (draft.status !== 'draft') return reply.redirect(`/documents/${draft.id}`, 303);
      const page = { status: 200, form: draftForm(draft), draft };
      return formPage(web, request, reply, page, memberTranslator(request, reply));
    }),
  );
  return (uploads: FastifyInstance) =>
    uploads.post<{ Params: { id: string }; Body: Form }>(
      '/documents/:id/edit',
      forMembers(async (request, reply, member) => {
        const draft = await draftOf(request, member);
        if (!draft) return web.notFound(request, reply);
        try {
          return await submitDocumentForm(
            web,
            request,
            reply,
            member,
            async (form, pdf) => {
              const input = documentInput(form, pdf, draft.expiresInSeconds);
              const { fieldsRemoved } = await editDraft(web.ctx, member.workspaceId, draft.id, input);
              return `/documents/${draft.id}?done=${fieldsRemoved > 0 ? 'saved-fields-removed' : 'saved'}`;
            },
            draft,
          );
        } catch (error) {
          if (!(error instanceof DocumentActionError)) throw error;
          return documentPage(web, request, reply, member, 409, refusalNotice(error));
        }
      }),
    );
}

/** A sender's action refused (lifecycle.ts), said above the document in its page's language. */
function refusalNotice(error: DocumentActionError) {
  return (tr: Translator) => notice('error', tr.t(refusalKeys[error.refusal]));
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
      action.run(web, member, id, request.params, request.body ?? {}).then(() => id),
    );
    if (done === null) return web.notFound(request, reply);
    return reply.redirect(action.back(done), 303);
  } catch (error) {
    if (!(error instanceof DocumentActionError)) throw error;
    return documentPage(web, request, reply, member, 409, refusalNotice(error));
  }
}

type SenderRequest = FastifyRequest<{ Params: { id: string; recipientId?: string }; Body?: Form }>;

interface SenderAction {
  run(
    web: Web,
    member: SessionUser,
    id: string,
    params: { recipientId?: string },
    form: Form,
  ): Promise<unknown>;
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
    run: (web, member, id, _params, form) =>
      withdrawDocument(web.ctx, member.workspaceId, id, {
        by: member.email,
        reason: formText(form, 'reason'),
      }),
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
        (request, reply, _member, document) => {
          const tr = memberTranslator(request, reply);
          return web.render(request, reply, 200, {
            title: tr.t(action === 'withdraw' ? 'doc.confirm.withdrawTitle' : 'doc.confirm.deleteTitle'),
            current: 'documents',
            tr,
            body: (csrf) => confirmDocumentAction(document, action, csrf, tr),
          });
        },
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
      (request, reply, member, document) =>
        sendPageImage(
          web,
          request,
          reply,
          member,
          document.files.find((f) => f.kind === 'original')?.sha256 ?? null,
        ),
    ),
  );
}

export function documentFormPages(web: Web) {
  return async function register(app: FastifyInstance) {
    app.get(
      '/documents/new',
      forMembers((request, reply) =>
        formPage(web, request, reply, { status: 200, form: {} }, memberTranslator(request, reply)),
      ),
    );
    const editPost = editRoutes(web, app);
    // The document forms carry a PDF: multipart in these routes' scope alone.
    await app.register(async (uploads) => {
      await useUploadBodies(uploads, { maxFileBytes: web.ctx.config.maxUploadBytes, gate: web.uploadGate });
      uploads.post<{ Body: Form }>(
        '/documents',
        forMembers((request, reply, member) =>
          submitDocumentForm(web, request, reply, member, async (form, pdf) => {
            const input = {
              workspaceId: member.workspaceId,
              createdBy: member.userId,
              ...documentInput(form, pdf),
            };
            const { id } = await createDocument(web.ctx, input);
            return `/documents/${id}`;
          }),
        ),
      );
      editPost(uploads);
    });
    // The live value under the pricing table (app.js posts the form here as it is typed):
    // the same computation as "Show the value", as text for the page to show.
    app.post<{ Body: Form }>(
      '/documents/value',
      forMembers((request, reply) => {
        const form = request.body ?? {};
        const tr = memberTranslator(request, reply);
        const value = previewValue(pricingOf(form, rowCount(form, 'priceRows', 2, maxPriceRows)), tr);
        return reply.header('cache-control', 'no-store').send(value);
      }),
    );
    app.get<{ Params: { id: string }; Querystring: { done?: string } }>(
      '/documents/:id',
      forMembers((request, reply, member) => {
        const done = doneNotices[request.query.done ?? ''];
        const message = done ? (tr: Translator) => notice(done[0], tr.t(done[1])) : null;
        return documentPage(web, request, reply, member, 200, message);
      }),
    );
    senderActions(web, app);
    pageImageRoute(web, app);
    app.get(
      '/mails',
      forMembers(async (request, reply, member) => {
        const mails = await listOwnMails(web.ctx, member.email);
        const tr = memberTranslator(request, reply);
        return web.render(request, reply, 200, {
          title: tr.t('mails.title'),
          current: 'documents',
          tr,
          body: () => ownMailsView(member, mails, tr),
        });
      }),
    );
  };
}
