// The field editor, of a draft and of a template (fields/field-rules.ts has the rules; a
// draft's changes are sending/draft-fields.ts', under the document's lock, a template's are
// templates/template-edits.ts', under the template's):
//   GET  /documents/{id}/fields                      pages with their fields, the add form, a form per field
//   POST /documents/{id}/fields                      add one (the JSON shape of `--fields`, as a form)
//   POST /documents/{id}/fields/{fieldId}            move, resize, retype, reassign one
//   POST /documents/{id}/fields/{fieldId}/delete     delete one
//   … and the same under /templates/{id}, where a field goes to a role and may be asked when used.
// Each post redirects back to the editor (post, redirect, get); a refusal shows the editor
// again with its sentence beside the form that caused it and what was typed kept. The
// redirect after an added field carries its signer, type and page (`?recipient=&type=&page=`),
// so the add form keeps them for the next field. A post that asks for JSON (`Accept:
// application/json`: the editor's script) gets the new field list and the pages' field
// shapes instead of the redirect, or `{ error, form }` with the refusal's status, and the
// editor is changed in place. Once a document is sent, its editor only shows the fields,
// and every post is refused. Everything is said in the member's language: the pages, the
// notices, and the rules' refusals (by their keys, `sentencesIn`), the JSON's `error` too.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SessionUser } from '../accounts/accounts.service.ts';
import { getDocument } from '../documents/documents.service.ts';
import { canTransition, DocumentActionError, refusalKeys } from '../documents/lifecycle.ts';
import { fieldInputOf, listFields, pageSizesOf } from '../fields/fields.service.ts';
import type { Translator } from '../i18n/messages.ts';
import { sentencesIn } from '../i18n/refusals.ts';
import { InputError } from '../input-error.ts';
import { addField, deleteField, updateField } from '../sending/draft-fields.ts';
import { addTemplateField, deleteTemplateField, updateTemplateField } from '../templates/template-edits.ts';
import { getTemplate } from '../templates/templates.service.ts';
import { notice } from '../ui/forms.ts';
import { renderToString, type SafeHtml } from '../ui/html.ts';
import {
  type FieldEditorView,
  fieldEditorView,
  fieldListSection,
  fieldShapes,
  yesNoWords,
} from './fields.views.ts';
import { type Form, findById, forMembers, formText, type Web } from './kit.ts';
import { memberTranslator } from './member-language.ts';

type EditorRequest = FastifyRequest<{ Params: { id: string; fieldId?: string }; Body: Form | undefined }>;
type EditorBase = Omit<FieldEditorView, 'add' | 'errors'>;

/** What the editor edits: a draft's fields or a template's, read and changed through their own services. */
interface EditorKind {
  /** The first segment of the editor's paths, and the navigation's current section. */
  path: 'documents' | 'templates';
  /** The record as the editor shows it (a not-found ApiError for another workspace's). */
  load(web: Web, workspaceId: string, id: string): Promise<EditorBase>;
  /** The add or change form as the service's untrusted field (`tr`: the words it was filled in with). */
  fieldOf(form: Form, tr: Translator): unknown;
  add(web: Web, workspaceId: string, id: string, field: unknown): Promise<unknown>;
  update(web: Web, workspaceId: string, id: string, fieldId: string, field: unknown): Promise<unknown>;
  remove(web: Web, workspaceId: string, id: string, fieldId: string): Promise<unknown>;
}

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

/** Where the form places a field, and its type and rules (numbers as typed; the rules read them). */
function placementOf(form: Form) {
  const text = (name: string) => formText(form, name).trim();
  return {
    type: text('type'),
    page: text('page'),
    x: text('x'),
    y: text('y'),
    width: text('width'),
    height: text('height'),
    required: text('required') || 'yes',
    label: text('label') || null,
    maxLength: text('maxLength') || null,
  };
}

/** A draft's form as the JSON of `--fields`. */
function documentFieldOf(form: Form, tr: Translator) {
  return {
    recipient: formText(form, 'recipient').trim(),
    ...placementOf(form),
    value: senderValueOf(formText(form, 'type').trim(), formText(form, 'value'), tr),
  };
}

/** A template's form as a field of its input: a role by name, and whether its user fills it in. */
function templateFieldOf(form: Form) {
  return {
    role: formText(form, 'recipient').trim(),
    ...placementOf(form),
    senderFills: formText(form, 'senderFills').trim() === 'yes',
  };
}

/**
 * The "Filled in by you" input as a field's `value`: a checkbox's yes or no (in English or
 * the member's language, as the form shows them), a text as typed, empty for none.
 */
function senderValueOf(type: string, raw: string, tr: Translator): string | boolean | null {
  if (!raw.trim()) return null;
  if (type !== 'checkbox') return raw;
  const answer = raw.trim().toLocaleLowerCase(tr.locale);
  const words = yesNoWords(tr);
  const is = (english: string, word: string) =>
    answer === english || answer === word.toLocaleLowerCase(tr.locale);
  return is('yes', words.yes) ? true : is('no', words.no) ? false : raw;
}

/** A draft's editor: its original's pages, its signers (by email), its fields. */
async function documentEditor(web: Web, workspaceId: string, id: string): Promise<EditorBase> {
  const document = await getDocument(web.ctx, workspaceId, id);
  const original = document.files.find((f) => f.kind === 'original');
  const sizes = original ? await pageSizesOf(web.ctx.db, original.sha256) : [];
  const signers = document.recipients.filter((r) => r.role === 'signer');
  const rows = await listFields(web.ctx.db, workspaceId, document.id);
  const base = `/documents/${document.id}`;
  return {
    subject: {
      kind: 'document',
      base,
      title: document.title,
      editable: canTransition(document.status, 'edit'),
    },
    pages: pagesOf(base, sizes),
    signers: signers.map((s) => ({ value: s.email, label: `${s.fullName} <${s.email}>` })),
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

/** A template's editor: its PDF's pages, its signing roles (by name), its fields. */
async function templateEditor(web: Web, workspaceId: string, id: string): Promise<EditorBase> {
  const template = await getTemplate(web.ctx, workspaceId, id);
  const sizes = await pageSizesOf(web.ctx.db, template.file.sha256);
  const signing = template.roles.filter((r) => r.role === 'signer');
  const base = `/templates/${template.id}`;
  return {
    subject: { kind: 'template', base, title: template.name, editable: true },
    pages: pagesOf(base, sizes),
    signers: signing.map((r) => ({ value: r.name, label: r.name })),
    fields: template.roles.flatMap((role) =>
      role.fields.map(({ senderFills, ...f }) => ({
        ...f,
        recipient: role.name,
        value: null,
        senderFills,
        tone: Math.max(0, signing.indexOf(role)),
      })),
    ),
  };
}

function pagesOf(base: string, sizes: Array<{ width: number; height: number }>): EditorBase['pages'] {
  return sizes.map((size, i) => ({
    number: i + 1,
    src: `${base}/pages/${i + 1}`,
    width: size.width,
    height: size.height,
  }));
}

const documentKind: EditorKind = {
  path: 'documents',
  load: documentEditor,
  fieldOf: documentFieldOf,
  add: (web, workspaceId, id, field) => addField(web.ctx, workspaceId, id, field),
  update: (web, workspaceId, id, fieldId, field) => updateField(web.ctx, workspaceId, id, fieldId, field),
  remove: (web, workspaceId, id, fieldId) => deleteField(web.ctx, workspaceId, id, fieldId),
};

const templateKind: EditorKind = {
  path: 'templates',
  load: templateEditor,
  fieldOf: templateFieldOf,
  add: (web, workspaceId, id, field) => addTemplateField(web.ctx, workspaceId, id, field),
  update: (web, workspaceId, id, fieldId, field) =>
    updateTemplateField(web.ctx, workspaceId, id, fieldId, field),
  remove: (web, workspaceId, id, fieldId) => deleteTemplateField(web.ctx, workspaceId, id, fieldId),
};

async function editorPage(
  web: Web,
  kind: EditorKind,
  request: EditorRequest,
  reply: FastifyReply,
  member: SessionUser,
  status: number,
  refused: { message: SafeHtml; add?: Form; errors?: Record<string, string> } | null,
) {
  const base = await findById(request.params.id, (id) => kind.load(web, member.workspaceId, id));
  if (!base) return web.notFound(request, reply);
  const tr = memberTranslator(request, reply);
  const view: FieldEditorView = {
    ...base,
    add: refused?.add ?? keptFromQuery(request.query),
    errors: refused?.errors ?? {},
  };
  const page = { title: tr.t('editor.title', { title: base.subject.title }), current: kind.path, tr };
  if (view.pages.length === 0) {
    const message = notice('info', tr.t('editor.noPages'));
    return web.render(request, reply, status, {
      ...page,
      body: (csrf) => fieldEditorView({ ...view, fields: [] }, csrf, message, tr),
    });
  }
  return web.render(request, reply, status, {
    ...page,
    body: (csrf) => fieldEditorView(view, csrf, refused?.message ?? null, tr),
  });
}

/** The editor's changed parts for its script: the field list and each page's shapes. */
async function changedParts(
  web: Web,
  kind: EditorKind,
  member: SessionUser,
  id: string,
  csrf: string,
  tr: Translator,
) {
  const view: FieldEditorView = { ...(await kind.load(web, member.workspaceId, id)), add: {}, errors: {} };
  return {
    count: view.fields.length,
    list: renderToString(fieldListSection(view, csrf, tr)),
    layers: Object.fromEntries(
      view.pages.map((p) => [String(p.number), renderToString(fieldShapes(view, p, tr))]),
    ),
  };
}

/** Runs one change, then back to the editor; a refusal re-renders it with its sentence. */
async function change(
  web: Web,
  kind: EditorKind,
  request: EditorRequest,
  reply: FastifyReply,
  member: SessionUser,
  action: (id: string) => Promise<unknown>,
) {
  const form = request.body ?? {};
  const fieldId = request.params.fieldId;
  const json = wantsJson(request);
  const tr = memberTranslator(request, reply);
  try {
    const done = await findById(request.params.id, (id) => action(id).then(() => id));
    if (done === null) return web.notFound(request, reply);
    // The token this post was accepted with serves the forms of the new list as well.
    if (json) return reply.send(await changedParts(web, kind, member, done, formText(form, '_csrf'), tr));
    // Back where the change was made: the page a field was drawn or dragged on (the
    // script says which), else the field's form; an added field's signer, type and page
    // stay chosen for the next one.
    const back = formText(form, 'back');
    const anchor = /^page-\d{1,3}$/.test(back) ? `#${back}` : fieldId ? `#field-${fieldId}` : '';
    const kept = fieldId
      ? ''
      : `?${new URLSearchParams(keptChoices.map((name): [string, string] => [name, formText(form, name).trim()])).toString()}`;
    return reply.redirect(`/${kind.path}/${done}/fields${kept}${anchor}`, 303);
  } catch (error) {
    if (error instanceof DocumentActionError) {
      const refusal = tr.t(refusalKeys[error.refusal]);
      if (json) return reply.code(409).send({ error: refusal, form: fieldId ?? 'add' });
      return editorPage(web, kind, request, reply, member, 409, { message: notice('error', refusal) });
    }
    if (!(error instanceof InputError)) throw error;
    const sentence = Object.values(sentencesIn(error, tr)).join(' ');
    if (json) return reply.code(400).send({ error: sentence, form: fieldId ?? 'add' });
    const refused = fieldId
      ? { message: notice('error', sentence), errors: { [fieldId]: sentence } }
      : { message: notice('error', sentence), add: form, errors: { add: sentence } };
    return editorPage(web, kind, request, reply, member, 400, refused);
  }
}

/** The editor's four routes for one kind of record. */
function editorRoutes(web: Web, app: FastifyInstance, kind: EditorKind) {
  const base = `/${kind.path}/:id/fields`;
  app.get<{ Params: { id: string } }>(
    base,
    forMembers((request, reply, member) =>
      editorPage(web, kind, request as EditorRequest, reply, member, 200, null),
    ),
  );
  app.post<{ Params: { id: string }; Body: Form | undefined }>(
    base,
    forMembers((request, reply, member) =>
      change(web, kind, request, reply, member, (id) =>
        kind.add(
          web,
          member.workspaceId,
          id,
          kind.fieldOf(request.body ?? {}, memberTranslator(request, reply)),
        ),
      ),
    ),
  );
  app.post<{ Params: { id: string; fieldId: string }; Body: Form | undefined }>(
    `${base}/:fieldId`,
    forMembers((request, reply, member) =>
      change(web, kind, request, reply, member, (id) =>
        kind.update(
          web,
          member.workspaceId,
          id,
          request.params.fieldId,
          kind.fieldOf(request.body ?? {}, memberTranslator(request, reply)),
        ),
      ),
    ),
  );
  app.post<{ Params: { id: string; fieldId: string }; Body: Form | undefined }>(
    `${base}/:fieldId/delete`,
    forMembers((request, reply, member) =>
      change(web, kind, request, reply, member, (id) =>
        kind.remove(web, member.workspaceId, id, request.params.fieldId),
      ),
    ),
  );
}

export function fieldPages(web: Web) {
  return async function register(app: FastifyInstance) {
    editorRoutes(web, app, documentKind);
    editorRoutes(web, app, templateKind);
  };
}
