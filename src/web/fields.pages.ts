// The field editor of a draft (fields/field-rules.ts has the rules, fields.service.ts does
// the work under the document's lock):
//   GET  /documents/{id}/fields                      pages with their fields, the add form, a form per field
//   POST /documents/{id}/fields                      add one (the JSON shape of `--fields`, as a form)
//   POST /documents/{id}/fields/{fieldId}            move, resize, retype, reassign one
//   POST /documents/{id}/fields/{fieldId}/delete     delete one
// Each post redirects back to the editor (post, redirect, get); a refusal shows the editor
// again with its sentence beside the form that caused it and what was typed kept. The
// redirect after an added field carries its signer, type and page (`?recipient=&type=&page=`),
// so the add form keeps them for the next field. A post that asks for JSON (`Accept:
// application/json`: the editor's script) gets the new field list and the pages' field
// shapes instead of the redirect, or `{ error, form }` with the refusal's status, and the
// editor is changed in place. Once the document is sent, the editor only shows the fields,
// and every post is refused.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SessionUser } from '../accounts/accounts.service.ts';
import { type DocumentDetail, getDocument } from '../documents/documents.service.ts';
import { canTransition, DocumentActionError } from '../documents/lifecycle.ts';
import { fieldInputOf, listFields, pageSizesOf } from '../fields/fields.service.ts';
import { InputError } from '../input-error.ts';
import { addField, deleteField, updateField } from '../sending/draft-fields.ts';
import { notice } from '../ui/forms.ts';
import { renderToString, type SafeHtml } from '../ui/html.ts';
import { type FieldEditorView, fieldEditorView, fieldListSection, fieldShapes } from './fields.views.ts';
import { type Form, findById, forMembers, formText, type Web } from './kit.ts';

type EditorRequest = FastifyRequest<{ Params: { id: string; fieldId?: string }; Body: Form | undefined }>;

/** What the add form keeps from one field to the next: carried by the redirect's query. */
const keptChoices = ['recipient', 'type', 'page'] as const;

function keptFromQuery(query: unknown): Form {
  const kept: Form = {};
  for (const name of keptChoices) {
    const value = (query as Record<string, unknown> | undefined)?.[name];
    if (typeof value === 'string' && value.length <= 320) kept[name] = value;
  }
  return kept;
}

/** Whether the editor's script sent the post and wants JSON back instead of a page. */
function wantsJson(request: FastifyRequest): boolean {
  return /\bapplication\/json\b/.test(request.headers.accept ?? '');
}

/** The form's field as the JSON of `--fields` (numbers as typed; the rules read them). */
function fieldFromForm(form: Form) {
  const text = (name: string) => formText(form, name).trim();
  return {
    recipient: text('recipient'),
    type: text('type'),
    page: text('page'),
    x: text('x'),
    y: text('y'),
    width: text('width'),
    height: text('height'),
    required: text('required') || 'yes',
    label: text('label') || null,
    maxLength: text('maxLength') || null,
    value: senderValueOf(text('type'), formText(form, 'value')),
  };
}

/** The "Filled in by you" input as a field's `value`: a checkbox's yes or no, a text as typed, empty for none. */
function senderValueOf(type: string, raw: string): string | boolean | null {
  if (!raw.trim()) return null;
  if (type !== 'checkbox') return raw;
  const answer = raw.trim().toLowerCase();
  return answer === 'yes' ? true : answer === 'no' ? false : raw;
}

async function editorView(
  web: Web,
  document: DocumentDetail & { workspaceId: string },
): Promise<Omit<FieldEditorView, 'add' | 'errors'>> {
  const original = document.files.find((f) => f.kind === 'original');
  const sizes = original ? await pageSizesOf(web.ctx.db, original.sha256) : [];
  const signers = document.recipients.filter((r) => r.role === 'signer');
  const rows = await listFields(web.ctx.db, document.workspaceId, document.id);
  return {
    document: { id: document.id, title: document.title, editable: canTransition(document.status, 'edit') },
    pages: sizes.map((size, i) => ({
      number: i + 1,
      src: `/documents/${document.id}/pages/${i + 1}`,
      width: size.width,
      height: size.height,
    })),
    signers: signers.map((s) => ({ email: s.email, fullName: s.fullName })),
    fields: rows.map((row) => ({
      id: row.id,
      tone: Math.max(
        0,
        signers.findIndex((s) => s.id === row.recipient_id),
      ),
      ...fieldInputOf(row, document.recipients),
    })),
  };
}

async function editorPage(
  web: Web,
  request: EditorRequest,
  reply: FastifyReply,
  member: SessionUser,
  status: number,
  refused: { message: SafeHtml; add?: Form; errors?: Record<string, string> } | null,
) {
  const document = await findById(request.params.id, (id) =>
    getDocument(web.ctx, member.workspaceId, id).then((d) => ({ ...d, workspaceId: member.workspaceId })),
  );
  if (!document) return web.notFound(request, reply);
  const base = await editorView(web, document);
  const view: FieldEditorView = {
    ...base,
    add: refused?.add ?? keptFromQuery(request.query),
    errors: refused?.errors ?? {},
  };
  if (view.pages.length === 0) {
    const message = notice(
      'info',
      'Fields go on the pages of an uploaded PDF. This document has none: its signatures go on the certificate of completion.',
    );
    return web.render(request, reply, status, {
      title: `Fields of ${document.title}`,
      current: 'documents',
      body: (csrf) => fieldEditorView({ ...view, fields: [] }, csrf, message),
    });
  }
  return web.render(request, reply, status, {
    title: `Fields of ${document.title}`,
    current: 'documents',
    body: (csrf) => fieldEditorView(view, csrf, refused?.message ?? null),
  });
}

/** The editor's changed parts for its script: the field list and each page's shapes. */
async function changedParts(web: Web, member: SessionUser, documentId: string, csrf: string) {
  const document = await getDocument(web.ctx, member.workspaceId, documentId);
  const view: FieldEditorView = {
    ...(await editorView(web, { ...document, workspaceId: member.workspaceId })),
    add: {},
    errors: {},
  };
  return {
    count: view.fields.length,
    list: renderToString(fieldListSection(view, csrf)),
    layers: Object.fromEntries(
      view.pages.map((p) => [String(p.number), renderToString(fieldShapes(view, p))]),
    ),
  };
}

/** Runs one change, then back to the editor; a refusal re-renders it with its sentence. */
async function change(
  web: Web,
  request: EditorRequest,
  reply: FastifyReply,
  member: SessionUser,
  action: (documentId: string) => Promise<unknown>,
) {
  const form = request.body ?? {};
  const fieldId = request.params.fieldId;
  const json = wantsJson(request);
  try {
    const done = await findById(request.params.id, (id) => action(id).then(() => id));
    if (done === null) return web.notFound(request, reply);
    // The token this post was accepted with serves the forms of the new list as well.
    if (json) return reply.send(await changedParts(web, member, done, formText(form, '_csrf')));
    // Back where the change was made: the page a field was drawn or dragged on (the
    // script says which), else the field's form; an added field's signer, type and page
    // stay chosen for the next one.
    const back = formText(form, 'back');
    const anchor = /^page-\d{1,3}$/.test(back) ? `#${back}` : fieldId ? `#field-${fieldId}` : '';
    const kept = fieldId
      ? ''
      : `?${new URLSearchParams(keptChoices.map((name): [string, string] => [name, formText(form, name).trim()])).toString()}`;
    return reply.redirect(`/documents/${done}/fields${kept}${anchor}`, 303);
  } catch (error) {
    if (error instanceof DocumentActionError) {
      if (json) return reply.code(409).send({ error: error.message, form: fieldId ?? 'add' });
      return editorPage(web, request, reply, member, 409, { message: notice('error', error.message) });
    }
    if (!(error instanceof InputError)) throw error;
    const sentence = Object.values(error.fields).join(' ');
    if (json) return reply.code(400).send({ error: sentence, form: fieldId ?? 'add' });
    const refused = fieldId
      ? { message: notice('error', sentence), errors: { [fieldId]: sentence } }
      : { message: notice('error', sentence), add: form, errors: { add: sentence } };
    return editorPage(web, request, reply, member, 400, refused);
  }
}

export function fieldPages(web: Web) {
  return async function register(app: FastifyInstance) {
    app.get<{ Params: { id: string } }>(
      '/documents/:id/fields',
      forMembers((request, reply, member) =>
        editorPage(web, request as EditorRequest, reply, member, 200, null),
      ),
    );
    app.post<{ Params: { id: string }; Body: Form | undefined }>(
      '/documents/:id/fields',
      forMembers((request, reply, member) =>
        change(web, request, reply, member, (id) =>
          addField(web.ctx, member.workspaceId, id, fieldFromForm(request.body ?? {})),
        ),
      ),
    );
    app.post<{ Params: { id: string; fieldId: string }; Body: Form | undefined }>(
      '/documents/:id/fields/:fieldId',
      forMembers((request, reply, member) =>
        change(web, request, reply, member, (id) =>
          updateField(
            web.ctx,
            member.workspaceId,
            id,
            request.params.fieldId,
            fieldFromForm(request.body ?? {}),
          ),
        ),
      ),
    );
    app.post<{ Params: { id: string; fieldId: string }; Body: Form | undefined }>(
      '/documents/:id/fields/:fieldId/delete',
      forMembers((request, reply, member) =>
        change(web, request, reply, member, (id) =>
          deleteField(web.ctx, member.workspaceId, id, request.params.fieldId),
        ),
      ),
    );
  };
}
