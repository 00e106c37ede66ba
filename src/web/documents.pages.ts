// Documents: the workspace's list, newest first, searched (title, recipient name or address),
// filtered by status and paged with the same signed keyset cursors as GET /v1/documents
// (listDocuments; a cursor is bound to its search and filter).
//   GET  /documents?q=…&status=…&cursor=…
// Creating, reading and sending one document: document-form.pages.ts.
import type { FastifyInstance } from 'fastify';
import { findMadeThroughPublicLink } from '../documents/documents.repository.ts';
import { listDocuments } from '../documents/documents.service.ts';
import { documentStatuses } from '../documents/lifecycle.ts';
import { html } from '../ui/html.ts';
import { documentsListView, listAddress, maxSearchLength } from './documents.views.ts';
import { firstStepsPanel } from './first-steps.ts';
import { type Form, forMembers, formText, pageOrFirst, type Web } from './kit.ts';
import { memberTranslator } from './member-language.ts';

const pageSize = 25;

/** The search as typed, on one line, trimmed and cut to a sane length ('' for none). */
export function searchOf(query: Form): string {
  return formText(query, 'q').replace(/\s+/g, ' ').trim().slice(0, maxSearchLength);
}

export function documentsPages(web: Web) {
  const { ctx } = web;
  return async function register(app: FastifyInstance) {
    app.get<{ Querystring: Form }>(
      '/documents',
      forMembers(async (request, reply, member) => {
        const status = documentStatuses.find((s) => s === formText(request.query, 'status')) ?? null;
        const search = searchOf(request.query);
        const cursor = formText(request.query, 'cursor') || null;
        const list = (from: string | null) =>
          listDocuments(ctx, {
            workspaceId: member.workspaceId,
            limit: pageSize,
            cursor: from,
            status,
            search,
          });
        const { page, stale } = await pageOrFirst(list, cursor);
        const next = page.nextCursor ? listAddress({ search, status, cursor: page.nextCursor }) : null;
        const firstSteps = await firstStepsPanel(ctx, member.workspaceId);
        const publicLink = await findMadeThroughPublicLink(
          ctx.db,
          member.workspaceId,
          page.documents.map((d) => d.id),
        );
        const tr = memberTranslator(request, reply);
        return web.render(request, reply, 200, {
          title: search ? tr.t('docs.titleSearch', { search }) : tr.t('docs.title'),
          current: 'documents',
          tr,
          body: () =>
            html`${documentsListView(
              {
                documents: page.documents,
                status,
                search,
                cursor,
                next,
                stale,
                timeZone: member.timeZone,
                publicLink,
              },
              tr,
            )}${firstSteps?.(tr) ?? ''}`,
        });
      }),
    );
  };
}
