// Documents: the workspace's list, newest first, filtered by status and paged with the
// same signed keyset cursors as GET /v1/documents (listDocuments); creating and sending
// through the same signing service as the CLI; a detail page; the mail outbox.
//   GET  /documents?status=…&cursor=…
//   GET  /documents/new                 the form (no JavaScript needed)
//   POST /documents                     preview=1: show the value; otherwise create the draft
//   GET  /documents/{id}                status, recipients' progress, timeline, signing links
//   POST /documents/{id}/send
//   GET  /mails                         the mails addressed to the signed-in person (development, no SMTP)
import type { FastifyInstance } from 'fastify';
import type { SessionUser } from '../accounts/accounts.service.ts';
import type { DocumentStatus } from '../db/schema.ts';
import { type Document, listDocuments } from '../documents/documents.service.ts';
import { documentStatuses } from '../documents/lifecycle.ts';
import { formatMoney } from '../documents/pricing.ts';
import { ApiError } from '../http/errors.ts';
import { statusBadges } from '../signing/signing-page.ts';
import { documentFormPages } from './document-form.pages.ts';
import { html, raw } from './html.ts';
import { formatTime, notice } from './layout.ts';
import { requireMember, type Web } from './web.plugin.ts';

const pageSize = 25;

function statusFilter(current: DocumentStatus | null) {
  const link = (status: DocumentStatus | null, label: string) =>
    html`<li><a href="/documents${status ? `?status=${status}` : ''}"${status === current ? raw(' aria-current="page"') : ''}>${label}</a></li>`;
  return html`<ul class="filters" aria-label="Filter by status">
${link(null, 'All')}
${documentStatuses.map((status) => link(status, status[0]?.toUpperCase() + status.slice(1)))}
</ul>`;
}

function documentsTable(documents: Document[]) {
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label="Documents">
<table>
<thead><tr><th scope="col">Title</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col" class="num">Value</th></tr></thead>
<tbody>
${documents.map((d) => {
  const badge = statusBadges[d.status];
  return html`<tr>
<td><a href="/documents/${d.id}">${d.title}</a></td>
<td><span class="badge ${badge.tone}">${d.status}</span></td>
<td>${formatTime(d.createdAt)}</td>
<td class="num">${d.value ? formatMoney(String(d.value.amount), d.value.currency) : '—'}</td>
</tr>`;
})}
</tbody>
</table>
</div>`;
}

export function documentsPages(web: Web) {
  const { ctx } = web;
  return async function register(app: FastifyInstance) {
    await app.register(documentFormPages(web));

    app.get<{ Querystring: Record<string, string | undefined> }>(
      '/documents',
      { preHandler: requireMember },
      async (request, reply) => {
        const member = request.member as SessionUser;
        const status = documentStatuses.find((s) => s === request.query.status) ?? null;
        const cursor =
          request.query.cursor && request.query.cursor.length <= 200 ? request.query.cursor : null;
        let page: Awaited<ReturnType<typeof listDocuments>>;
        let stale = false;
        try {
          page = await listDocuments(ctx, {
            workspaceId: member.workspaceId,
            limit: pageSize,
            cursor,
            status,
          });
        } catch (error) {
          if (!(error instanceof ApiError && error.code === 'invalid-cursor')) throw error;
          // An old or altered "next page" link: start again from the newest.
          stale = true;
          page = await listDocuments(ctx, {
            workspaceId: member.workspaceId,
            limit: pageSize,
            cursor: null,
            status,
          });
        }
        const next = page.nextCursor
          ? `/documents?${new URLSearchParams({ ...(status ? { status } : {}), cursor: page.nextCursor })}`
          : null;
        return web.render(request, reply, 200, {
          title: 'Documents',
          current: 'documents',
          body: () => html`<div class="section-title"><h1>Documents</h1><span class="actions"><a href="/mails">Your mail</a><a class="button button-primary button-small" href="/documents/new">New document</a></span></div>
${stale ? notice('info', 'That page link had expired, so this is the first page again.') : ''}
${statusFilter(status)}
<div class="card">
${
  page.documents.length
    ? documentsTable(page.documents)
    : html`<div class="empty"><p><strong>No ${status ?? ''} documents${cursor ? ' on this page' : ' yet'}.</strong></p></div>`
}
<nav class="pager" aria-label="Pages">${cursor ? html`<a href="/documents${status ? `?status=${status}` : ''}">Newest</a>` : ''}${next ? html`<a href="${next}">Next page</a>` : ''}</nav>
</div>`,
        });
      },
    );
  };
}
