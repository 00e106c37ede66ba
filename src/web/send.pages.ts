// The send confirmation (issue 36): GET /documents/{id}/send shows what would go out (the
// recipients in signing order, the PDF's pages, each signer's fields) with its warnings, and
// a form whose POST (document-form.pages.ts, CSRF) sends. A document already sent goes back
// to its page; one that cannot be sent says why, and offers no button. In the member's
// language (member-language.ts).
import type { FastifyInstance } from 'fastify';
import { sendPreview } from '../sending/send.ts';
import { forRecord, type Web } from './kit.ts';
import { memberTranslator } from './member-language.ts';
import { sendConfirmView } from './send.views.ts';

export function sendPages(web: Web) {
  return async function register(app: FastifyInstance) {
    app.get<{ Params: { id: string } }>(
      '/documents/:id/send',
      forRecord(
        web,
        (workspaceId, id) => sendPreview(web.ctx, workspaceId, id),
        (request, reply, _member, preview) => {
          if (preview.status !== 'draft') return reply.redirect(`/documents/${preview.id}`, 303);
          const tr = memberTranslator(request, reply);
          return web.render(request, reply, 200, {
            title: tr.t('send.title', { title: preview.title }),
            current: 'documents',
            tr,
            body: (csrf) => sendConfirmView(preview, csrf, tr),
          });
        },
      ),
    );
  };
}
