// Making and changing a template in the web application (issue 38), through the same services
// as the API's (templates/templates.service.ts, templates/template-edits.ts):
//   GET  /templates/new                 name, PDF, roles, the documents' defaults
//   POST /templates                     (multipart) the template, then its field editor; a refusal
//                                       shows the form again, a good PDF kept for the next submit
//   POST /templates/{id}/roles          the roles table (renamed roles keep their fields)
//   POST /templates/{id}/defaults       title, message, expiry, reminders of the documents made from it
//   GET  /templates/{id}/pages/{n}      a page of its PDF as an image (the field editor's)
// "More role rows" posts a form back with three more rows. Every id is looked up in the
// member's workspace (another workspace's is the 404 page).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SessionUser } from '../accounts/accounts.service.ts';
import type { Translator } from '../i18n/messages.ts';
import { problemSentences, problemsOf, refusalOf } from '../i18n/refusals.ts';
import { type FieldErrors, InputError } from '../input-error.ts';
import { keptMissingRefusal, maxRecipients } from '../sending/draft-input.ts';
import { changeTemplateDefaults, changeTemplateRoles } from '../templates/template-edits.ts';
import { createTemplate, type TemplateDetail } from '../templates/templates.service.ts';
import { useUploadBodies } from '../ui/uploads.ts';
import { field } from './document-form.ts';
import { type FormPdf, formPdfOf, keepNewFile } from './form-pdf.ts';
import { type Form, forMembers, formText, forRecord, sendPageImage, type Web } from './kit.ts';
import { memberTranslator } from './member-language.ts';
import { newTemplateView } from './template-edit.views.ts';
import { defaultsOf, roleRowsOf, rolesOf, templateFormErrors } from './template-form.ts';
import { loadTemplate, templatePage } from './templates.pages.ts';

type TemplateRequest = FastifyRequest<{ Params: { id: string }; Body: Form }>;

/** The form with three more role rows (its "More role rows" button). */
const withMoreRows = (form: Form): Form => ({
  ...form,
  roleRows: String(Math.min(roleRowsOf(form) + 3, maxRecipients)),
});

function newTemplatePage(
  web: Web,
  request: FastifyRequest,
  reply: FastifyReply,
  page: { status: number; form: Form; errors: FieldErrors; pdf: FormPdf | null },
  tr: Translator,
) {
  return web.render(request, reply, page.status, {
    title: tr.t('tpl.new'),
    current: 'templates',
    tr,
    body: (csrf) =>
      newTemplateView(
        {
          form: page.form,
          errors: page.errors,
          kept: page.pdf?.kept ?? null,
          maxBytes: web.ctx.config.maxUploadBytes,
        },
        csrf,
        tr,
      ),
  });
}

/** POST /templates: the template from the form, then its field editor. */
async function submitNewTemplate(
  web: Web,
  request: TemplateRequest,
  reply: FastifyReply,
  member: SessionUser,
) {
  const form: Form = { ...(request.body ?? {}) };
  const tr = memberTranslator(request, reply);
  const pdf = await formPdfOf(web, member, form);
  if (formText(form, 'more') === 'roles') {
    const errors = problemSentences(await keepNewFile(web, member, pdf), tr);
    const page = { status: 200, form: withMoreRows(form), errors, pdf };
    return newTemplatePage(web, request, reply, page, tr);
  }
  const { roles, rows } = rolesOf(form, roleRowsOf(form));
  const name = field(form, 'name');
  const defaults = defaultsOf(form);
  try {
    if (pdf.keptMissing && !pdf.upload) throw refusalOf({ file: keptMissingRefusal });
    const { id } = await createTemplate(web.ctx, {
      workspaceId: member.workspaceId,
      name,
      ...defaults,
      title: defaults.title || name,
      roles: roles.map(({ was: _was, ...role }) => role),
      fields: [],
      file: pdf.upload && !pdf.upload.tooLarge ? pdf.upload.data : null,
      fileTooLarge: pdf.upload?.tooLarge ?? false,
      kept: pdf.upload ? null : pdf.kept,
    });
    return reply.redirect(`/templates/${id}/fields`, 303);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    // The file passed its checks (no sentence on it): kept, so the next submit has it.
    const fileErrors = error.fields.file ? {} : await keepNewFile(web, member, pdf);
    const errors = templateFormErrors({ ...problemsOf(error), ...fileErrors }, rows, tr);
    return newTemplatePage(web, request, reply, { status: 400, form, errors, pdf }, tr);
  }
}

function newTemplateRoutes(web: Web, app: FastifyInstance) {
  app.get(
    '/templates/new',
    forMembers((request, reply) =>
      newTemplatePage(
        web,
        request,
        reply,
        { status: 200, form: {}, errors: {}, pdf: null },
        memberTranslator(request, reply),
      ),
    ),
  );
}

/** Runs a change of the template from one of its page's forms; a refusal shows the page with it. */
function changeRoute(
  web: Web,
  app: FastifyInstance,
  path: 'roles' | 'defaults',
  run: (member: SessionUser, template: TemplateDetail, form: Form) => Promise<void>,
) {
  app.post<{ Params: { id: string }; Body: Form }>(
    `/templates/:id/${path}`,
    forRecord<TemplateDetail, { Params: { id: string }; Body: Form }>(
      web,
      loadTemplate(web),
      async (request, reply, member, template) => {
        const form: Form = { ...(request.body ?? {}) };
        if (path === 'roles' && formText(form, 'more') === 'roles')
          return templatePage(web, request, reply, member, {
            template,
            status: 200,
            roles: withMoreRows(form),
          });
        try {
          await run(member, template, form);
          return reply.redirect(`/templates/${template.id}?done=${path}`, 303);
        } catch (error) {
          if (!(error instanceof InputError)) throw error;
          const rows = path === 'roles' ? rolesOf(form, roleRowsOf(form)).rows : [];
          const errors = templateFormErrors(problemsOf(error), rows, memberTranslator(request, reply));
          const shown = path === 'roles' ? { roles: form } : { defaults: form };
          return templatePage(web, request, reply, member, { template, status: 400, ...shown, errors });
        }
      },
    ),
  );
}

function changeRoutes(web: Web, app: FastifyInstance) {
  changeRoute(web, app, 'roles', (member, template, form) =>
    changeTemplateRoles(web.ctx, member.workspaceId, template.id, rolesOf(form, roleRowsOf(form)).roles),
  );
  changeRoute(web, app, 'defaults', (member, template, form) =>
    changeTemplateDefaults(
      web.ctx,
      member.workspaceId,
      template.id,
      defaultsOf(form, template.expiresInSeconds),
    ),
  );
}

/** GET /templates/{id}/pages/{n}[?size=thumbnail]: a page of the template's PDF as an image. */
function pageImageRoute(web: Web, app: FastifyInstance) {
  app.get<{ Params: { id: string; page: string }; Querystring: { size?: string } }>(
    '/templates/:id/pages/:page',
    forRecord(web, loadTemplate(web), (request, reply, member, template) =>
      sendPageImage(web, request, reply, member, template.file.sha256),
    ),
  );
}

export function templateEditPages(web: Web) {
  return async function register(app: FastifyInstance) {
    newTemplateRoutes(web, app);
    // The new-template form carries a PDF: multipart in this route's scope alone.
    await app.register(async (uploads) => {
      await useUploadBodies(uploads, { maxFileBytes: web.ctx.config.maxUploadBytes, gate: web.uploadGate });
      uploads.post<{ Body: Form }>(
        '/templates',
        forMembers((request, reply, member) =>
          submitNewTemplate(web, request as TemplateRequest, reply, member),
        ),
      );
    });
    changeRoutes(web, app);
    pageImageRoute(web, app);
  };
}
