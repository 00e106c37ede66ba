// Templates in the web application (issue 38): the same services as the API's (src/templates/),
// every id looked up in the member's workspace (another workspace's is the 404 page).
//   GET  /templates?cursor=…                    the list, newest first, 50 a page
//   POST /documents/{id}/save-as-template       "Save as template" (a refused name: its form again)
//   GET  /templates/{id}                        roles and their fields, rename, use, delete
//   POST /templates/{id}/rename
//   (making a template from an upload, its roles, defaults and page images: template-edit.pages.ts;
//   its fields: fields.pages.ts, the editor a draft's fields have)
//   GET|POST /templates/{id}/delete             confirm, then delete (documents made from it stay)
//   GET|POST /templates/{id}/use                each role's person and the asked values; a draft
//                                               is made and its send confirmation shown
// A template's page lists its bulk sends; their own pages are bulk.pages.ts'.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SessionUser } from '../accounts/accounts.service.ts';
import { getDocument } from '../documents/documents.service.ts';
import type { MessageKey, Translator } from '../i18n/messages.ts';
import { type Problems, problemsOf, sentenceIn, sentencesIn } from '../i18n/refusals.ts';
import { type FieldErrors, InputError } from '../input-error.ts';
import { createDocument } from '../sending/drafts.ts';
import { listBulkSends } from '../templates/bulk-progress.ts';
import {
  deleteTemplate,
  getTemplate,
  listTemplates,
  renameTemplate,
  type TemplateDetail,
  templateFromDocument,
} from '../templates/templates.service.ts';
import {
  askedValues,
  asTemplateUseError,
  documentInputOf,
  type UseTemplateInput,
} from '../templates/use-template.ts';
import { notice } from '../ui/forms.ts';
import { bulkSendsSection } from './bulk.views.ts';
import { type Form, findById, forMembers, formText, forRecord, pageOrFirst, type Web } from './kit.ts';
import { memberTranslator } from './member-language.ts';
import { defaultsFormOf, rolesFormOf } from './template-form.ts';
import {
  deleteTemplateView,
  saveAsTemplateView,
  templatesListView,
  templateView,
  useFormIds,
  useTemplateView,
} from './templates.views.ts';

const pageSize = 50;

/** The sentence a template page shows after an action (post, redirect, get). */
const doneNotices: Record<string, [kind: 'success' | 'info', text: MessageKey]> = {
  saved: ['success', 'tpl.done.saved'],
  renamed: ['success', 'tpl.done.renamed'],
  roles: ['success', 'tpl.done.roles'],
  defaults: ['success', 'tpl.done.defaults'],
  deleted: ['info', 'tpl.done.deleted'],
};

const doneNotice = (query: unknown, tr: Translator) => {
  const done = doneNotices[formText(query, 'done')];
  return done ? notice(done[0], tr.t(done[1])) : null;
};

/** A template of the member's workspace, for forRecord (another's: not-found, the 404 page). */
export const loadTemplate = (web: Web) => (workspaceId: string, id: string) =>
  getTemplate(web.ctx, workspaceId, id);

function listRoute(web: Web, app: FastifyInstance) {
  app.get<{ Querystring: Form }>(
    '/templates',
    forMembers(async (request, reply, member) => {
      const cursor = formText(request.query, 'cursor') || null;
      const list = (from: string | null) =>
        listTemplates(web.ctx, { workspaceId: member.workspaceId, limit: pageSize, cursor: from });
      const { page, stale } = await pageOrFirst(list, cursor);
      const next = page.nextCursor ? `/templates?cursor=${encodeURIComponent(page.nextCursor)}` : null;
      const tr = memberTranslator(request, reply);
      return web.render(request, reply, 200, {
        title: tr.t('app.nav.templates'),
        current: 'templates',
        tr,
        body: () =>
          templatesListView(
            {
              templates: page.data,
              cursor: stale ? null : cursor,
              next,
              stale,
              notice: doneNotice(request.query, tr),
              timeZone: member.timeZone,
            },
            tr,
          ),
      });
    }),
  );
}

/** POST /documents/{id}/save-as-template: then the template's page; a refusal shows the form again. */
function saveAsTemplateRoute(web: Web, app: FastifyInstance) {
  app.post<{ Params: { id: string }; Body: Form }>(
    '/documents/:id/save-as-template',
    forMembers(async (request, reply, member) => {
      const name = formText(request.body, 'name');
      try {
        const saved = await findById(request.params.id, (id) =>
          templateFromDocument(web.ctx, member.workspaceId, id, name),
        );
        if (!saved) return web.notFound(request, reply);
        return reply.redirect(`/templates/${saved.id}?done=saved`, 303);
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        const document = await getDocument(web.ctx, member.workspaceId, request.params.id.toLowerCase());
        const tr = memberTranslator(request, reply);
        return web.render(request, reply, 400, {
          title: tr.t('doc.template.save'),
          current: 'templates',
          tr,
          body: (csrf) => saveAsTemplateView(document, name, sentencesIn(error, tr), csrf, tr),
        });
      }
    }),
  );
}

/** A template's page; after a refusal, what was typed in the refused form and its sentences. */
export async function templatePage(
  web: Web,
  request: FastifyRequest,
  reply: FastifyReply,
  member: SessionUser,
  page: {
    template: TemplateDetail;
    status: number;
    name?: string;
    roles?: Form;
    defaults?: Form;
    errors?: FieldErrors;
  },
) {
  const { template } = page;
  const bulkSends = await listBulkSends(web.ctx, member.workspaceId, template.id);
  const tr = memberTranslator(request, reply);
  return web.render(request, reply, page.status, {
    title: template.name,
    current: 'templates',
    tr,
    body: (csrf) =>
      templateView(
        {
          template,
          name: page.name ?? template.name,
          roles: page.roles ?? rolesFormOf(template),
          defaults: page.defaults ?? defaultsFormOf(template),
          errors: page.errors ?? {},
          notice: doneNotice(request.query, tr),
          timeZone: member.timeZone,
          bulkSends: bulkSendsSection(bulkSends, member.timeZone, tr),
        },
        csrf,
        tr,
      ),
  });
}

/** GET /templates/{id}, POST …/rename, and deleting it (confirmed on a page of its own first). */
function templateRoutes(web: Web, app: FastifyInstance) {
  app.get<{ Params: { id: string }; Querystring: Form }>(
    '/templates/:id',
    forRecord<TemplateDetail, { Params: { id: string }; Querystring: Form }>(
      web,
      loadTemplate(web),
      (request, reply, member, template) =>
        templatePage(web, request, reply, member, { template, status: 200 }),
    ),
  );
  app.post<{ Params: { id: string }; Body: Form }>(
    '/templates/:id/rename',
    forRecord<TemplateDetail, { Params: { id: string }; Body: Form }>(
      web,
      loadTemplate(web),
      async (request, reply, member, template) => {
        const name = formText(request.body, 'name');
        try {
          await renameTemplate(web.ctx, member.workspaceId, template.id, name);
          return reply.redirect(`/templates/${template.id}?done=renamed`, 303);
        } catch (error) {
          if (!(error instanceof InputError)) throw error;
          return templatePage(web, request, reply, member, {
            template,
            status: 400,
            name,
            errors: sentencesIn(error, memberTranslator(request, reply)),
          });
        }
      },
    ),
  );
  app.get<{ Params: { id: string } }>(
    '/templates/:id/delete',
    forRecord(web, loadTemplate(web), (request, reply, _member, template) => {
      const tr = memberTranslator(request, reply);
      return web.render(request, reply, 200, {
        title: tr.t('tpl.delete.title', { name: template.name }),
        current: 'templates',
        tr,
        body: (csrf) => deleteTemplateView(template, csrf, tr),
      });
    }),
  );
  app.post<{ Params: { id: string } }>(
    '/templates/:id/delete',
    forMembers(async (request, reply, member) => {
      const deleted = await findById(request.params.id, (id) =>
        deleteTemplate(web.ctx, member.workspaceId, id).then(() => true),
      );
      if (!deleted) return web.notFound(request, reply);
      return reply.redirect('/templates?done=deleted', 303);
    }),
  );
}

/** The use form as the service's input: a role left blank is left out (the service names it). */
function useInputOf(template: TemplateDetail, form: Form): UseTemplateInput {
  const recipients: UseTemplateInput['recipients'] = {};
  template.roles.forEach((role, i) => {
    const email = formText(form, useFormIds.email(i)).trim();
    const fullName = formText(form, useFormIds.name(i)).trim();
    const language = formText(form, useFormIds.language(i)) || null;
    if (email || fullName) recipients[role.name] = { email, fullName, language };
  });
  const values: Record<string, string | boolean> = {};
  askedValues(template).forEach((asked, j) => {
    const given = formText(form, useFormIds.value(j));
    // Left out when empty or unticked: the service asks for a required one, leaves an optional one empty.
    if (asked.type === 'checkbox' ? given === 'true' : given.trim() !== '')
      values[asked.label] = asked.type === 'checkbox' ? true : given.trim();
  });
  return { recipients, values, title: formText(form, 'title'), body: formText(form, 'body') };
}

/** The form's input a refusal's key names (asTemplateUseError's keys), or `form` for the page as a whole. */
function inputOfKey(key: string, template: TemplateDetail): string {
  const role = /^recipients\[("(?:[^"\\]|\\.)*")\](?:\.(\w+))?$/.exec(key);
  if (role) {
    const i = template.roles.findIndex((r) => r.name === JSON.parse(role[1] as string));
    if (i >= 0)
      return role[2] === 'fullName'
        ? useFormIds.name(i)
        : role[2] === 'language'
          ? useFormIds.language(i)
          : useFormIds.email(i);
  }
  const value = /^values\[("(?:[^"\\]|\\.)*")\]$/.exec(key);
  if (value) {
    const label = (JSON.parse(value[1] as string) as string).toLowerCase();
    const j = askedValues(template).findIndex((a) => a.label.toLowerCase() === label);
    if (j >= 0) return useFormIds.value(j);
  }
  return key === 'title' || key === 'body' ? key : 'form';
}

/** The refusal's sentences in `tr`'s language by the form's inputs, in the form's order (the summary lists them so). */
function useFormErrors(problems: Problems, template: TemplateDetail, tr: Translator): FieldErrors {
  const byInput: FieldErrors = {};
  for (const [key, problem] of Object.entries(problems)) {
    const id = inputOfKey(key, template);
    const sentence = sentenceIn(problem, tr);
    byInput[id] = byInput[id] ? `${byInput[id]} ${sentence}` : sentence;
  }
  const order = [
    'form',
    ...template.roles.flatMap((_, i) => [useFormIds.name(i), useFormIds.email(i), useFormIds.language(i)]),
    ...askedValues(template).map((_, j) => useFormIds.value(j)),
    'title',
    'body',
  ];
  return Object.fromEntries(order.filter((id) => byInput[id]).map((id) => [id, byInput[id] as string]));
}

function usePage(web: Web, request: FastifyRequest, reply: FastifyReply, page: UsePage) {
  const { template } = page;
  const tr = memberTranslator(request, reply);
  const errors = useFormErrors(page.problems, template, tr);
  return web.render(request, reply, page.status, {
    title: tr.t('tpl.use.heading', { name: template.name }),
    current: 'templates',
    tr,
    body: (csrf) =>
      useTemplateView({ template, asked: askedValues(template), form: page.form, errors }, csrf, tr),
  });
}

interface UsePage {
  template: TemplateDetail;
  status: number;
  form: Form;
  /** The refusal's problems, by the service's keys. */
  problems: Problems;
}

/** The draft a use form makes, or its refusal's problems. */
async function createFromTemplate(web: Web, member: SessionUser, template: TemplateDetail, form: Form) {
  try {
    const input = await documentInputOf(web.ctx, member.workspaceId, template, useInputOf(template, form));
    try {
      return await createDocument(web.ctx, { ...input, createdBy: member.userId });
    } catch (error) {
      throw error instanceof InputError ? asTemplateUseError(error, template) : error;
    }
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    return { problems: problemsOf(error) };
  }
}

/** GET and POST /templates/{id}/use: the form, then the new draft's send confirmation. */
function useRoutes(web: Web, app: FastifyInstance) {
  app.get<{ Params: { id: string } }>(
    '/templates/:id/use',
    forRecord(web, loadTemplate(web), (request, reply, _member, template) =>
      usePage(web, request, reply, {
        template,
        status: 200,
        form: { title: template.title, body: template.text },
        problems: {},
      }),
    ),
  );
  app.post<{ Params: { id: string }; Body: Form }>(
    '/templates/:id/use',
    forRecord<TemplateDetail, { Params: { id: string }; Body: Form }>(
      web,
      loadTemplate(web),
      async (request, reply, member, template) => {
        const form: Form = { ...(request.body ?? {}) };
        const made = await createFromTemplate(web, member, template, form);
        if ('problems' in made)
          return usePage(web, request, reply, { template, status: 400, form, problems: made.problems });
        return reply.redirect(`/documents/${made.id}/send`, 303);
      },
    ),
  );
}

export function templatesPages(web: Web) {
  return async function register(app: FastifyInstance) {
    listRoute(web, app);
    saveAsTemplateRoute(web, app);
    templateRoutes(web, app);
    useRoutes(web, app);
  };
}
