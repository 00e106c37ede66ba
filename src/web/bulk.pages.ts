// Bulk sends in the web application (issue 38): every id looked up in the member's workspace
// (another workspace's is the 404 page), CSRF on every post (the form's first field).
//   GET  /templates/{id}/bulk       the columns, the file to fill, the upload form
//   GET  /templates/{id}/bulk.csv   the file to fill (bulkCsvTemplate)
//   POST /templates/{id}/bulk       the preview: counts, problems, the first rows; nothing sent
//   POST /templates/{id}/bulk/send  the confirmation: stored for the worker, then its progress
//   GET  /bulk/{id}                 progress, refreshing itself while unfinished
//   GET  /bulk/{id}/results.csv     the results file
// The preview page carries the uploaded file back in a hidden field (base64, with its
// SHA-256): the kept uploads of the document form are PDFs checked and drawn as such, and
// asking the sender to choose the file again could send another file than the one checked.
// The confirmation reads the bytes again (a preview is never trusted) and refuses bytes that
// are not the ones previewed.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Translator } from '../i18n/messages.ts';
import { sentencesIn } from '../i18n/refusals.ts';
import { InputError } from '../input-error.ts';
import { formatBytes } from '../pdf/inspect.ts';
import { bulkCsvTemplate } from '../templates/bulk-csv.ts';
import { bulkSendProgress, bulkSendResultsCsv, failedBulkRows } from '../templates/bulk-progress.ts';
import { columnsOf, previewBulkSend, startBulkSend } from '../templates/bulk-send.ts';
import type { TemplateDetail } from '../templates/templates.service.ts';
import { formFile, useUploadBodies } from '../ui/uploads.ts';
import { bulkPreviewView, bulkProgressView, bulkUploadView } from './bulk.views.ts';
import { type Form, findById, forMembers, formText, forRecord, type Web } from './kit.ts';
import { memberTranslator } from './member-language.ts';
import { loadTemplate } from './templates.pages.ts';

/** The largest spreadsheet taken (5,000 rows of a few roles and values fit many times over). */
const maxCsvBytes = 10 * 1024 * 1024;
/** The preview's hidden field: the file in base64, and a little room. */
const maxDataFieldBytes = Math.ceil(maxCsvBytes / 3) * 4 + 1024;

const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

/** A file name as a download's header may carry it: letters, digits and a few marks. */
const downloadName = (name: string) => name.replace(/[^A-Za-z0-9 ._-]+/g, '').trim() || 'template';

function uploadPage(
  web: Web,
  request: FastifyRequest,
  reply: FastifyReply,
  template: TemplateDetail,
  status: number,
  error?: (tr: Translator) => string,
) {
  const tr = memberTranslator(request, reply);
  return web.render(request, reply, status, {
    title: tr.t('bulk.upload.title', { template: template.name }),
    current: 'templates',
    tr,
    body: (csrf) =>
      bulkUploadView(
        {
          template,
          columns: columnsOf(template),
          maxRows: web.ctx.config.bulkMaxRows,
          ...(error ? { error: error(tr) } : {}),
        },
        csrf,
        tr,
      ),
  });
}

function uploadRoutes(web: Web, app: FastifyInstance) {
  app.get<{ Params: { id: string } }>(
    '/templates/:id/bulk',
    forRecord(web, loadTemplate(web), (request, reply, _member, template) =>
      uploadPage(web, request, reply, template, 200),
    ),
  );
  app.get<{ Params: { id: string } }>(
    '/templates/:id/bulk.csv',
    forRecord(web, loadTemplate(web), (_request, reply, _member, template) =>
      reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header(
          'content-disposition',
          `attachment; filename="${downloadName(template.name)} - bulk send.csv"`,
        )
        .header('cache-control', 'no-store')
        .send(bulkCsvTemplate(columnsOf(template))),
    ),
  );
}

/** The multipart posts: the preview of an uploaded file, and its confirmation. */
function postRoutes(web: Web, app: FastifyInstance) {
  app.post<{ Params: { id: string }; Body: Form }>(
    '/templates/:id/bulk',
    forRecord<TemplateDetail, { Params: { id: string }; Body: Form }>(
      web,
      loadTemplate(web),
      async (request, reply, member, template) => {
        const file = formFile(request.body, 'file');
        if (!file) return uploadPage(web, request, reply, template, 400, (tr) => tr.t('bulk.upload.choose'));
        if (file.tooLarge)
          return uploadPage(web, request, reply, template, 413, (tr) =>
            tr.t('bulk.upload.tooLarge', { size: formatBytes(maxCsvBytes) }),
          );
        const preview = await previewBulkSend(web.ctx, member.workspaceId, template.id, file.data);
        const fileName =
          [...file.filename.replace(/[\p{Cc}\p{Cf}]/gu, '')].slice(0, 200).join('') || 'file.csv';
        const tr = memberTranslator(request, reply);
        return web.render(request, reply, preview.refusal === null ? 200 : 400, {
          title: tr.t('bulk.preview.title', { file: fileName }),
          current: 'templates',
          tr,
          body: (csrf) =>
            bulkPreviewView(
              { preview, fileName, data: file.data.toString('base64'), sha256: sha256(file.data) },
              csrf,
              tr,
            ),
        });
      },
    ),
  );
  app.post<{ Params: { id: string }; Body: Form }>(
    '/templates/:id/bulk/send',
    forRecord<TemplateDetail, { Params: { id: string }; Body: Form }>(
      web,
      loadTemplate(web),
      async (request, reply, member, template) => {
        const data = Buffer.from(formText(request.body, 'data'), 'base64');
        if (data.byteLength === 0 || sha256(data) !== formText(request.body, 'sha256'))
          return uploadPage(web, request, reply, template, 400, (tr) => tr.t('bulk.upload.notWhole'));
        try {
          const { id } = await startBulkSend(web.ctx, {
            workspaceId: member.workspaceId,
            templateId: template.id,
            userId: member.userId,
            fileName: formText(request.body, 'fileName') || 'file.csv',
            data,
          });
          return reply.redirect(`/bulk/${id}`, 303);
        } catch (error) {
          if (!(error instanceof InputError)) throw error;
          return uploadPage(
            web,
            request,
            reply,
            template,
            400,
            (tr) => sentencesIn(error, tr).file ?? error.message,
          );
        }
      },
    ),
  );
}

function progressRoutes(web: Web, app: FastifyInstance) {
  app.get<{ Params: { id: string } }>(
    '/bulk/:id',
    forMembers<{ Params: { id: string } }>(async (request, reply, member) => {
      const progress = await findById(request.params.id, (id) =>
        bulkSendProgress(web.ctx, member.workspaceId, id),
      );
      if (!progress) return web.notFound(request, reply);
      const failed = await failedBulkRows(web.ctx, member.workspaceId, progress.id);
      const tr = memberTranslator(request, reply);
      return web.render(request, reply, 200, {
        title: tr.t('bulk.progress.title', { file: progress.fileName }),
        current: 'templates',
        tr,
        ...(progress.finished ? {} : { refreshSeconds: 3 }),
        body: () => bulkProgressView({ progress, failed, timeZone: member.timeZone }, tr),
      });
    }),
  );
  app.get<{ Params: { id: string } }>(
    '/bulk/:id/results.csv',
    forMembers<{ Params: { id: string } }>(async (request, reply, member) => {
      const tr = memberTranslator(request, reply);
      const csv = await findById(request.params.id, (id) =>
        bulkSendResultsCsv(web.ctx, member.workspaceId, id, tr),
      );
      if (csv === null) return web.notFound(request, reply);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="bulk send results.csv"')
        .header('cache-control', 'no-store')
        .send(csv);
    }),
  );
}

export function bulkPages(web: Web) {
  return async function register(app: FastifyInstance) {
    uploadRoutes(web, app);
    progressRoutes(web, app);
    // The spreadsheet, and the preview's field that carries it back: multipart in this scope alone.
    await app.register(async (uploads) => {
      await useUploadBodies(uploads, {
        maxFileBytes: maxCsvBytes,
        maxFieldBytes: maxDataFieldBytes,
        gate: web.uploadGate,
      });
      postRoutes(web, uploads);
    });
  };
}
