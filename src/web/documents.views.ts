// The documents list's markup: the status filter, the table and the pager.
import type { DocumentStatus } from '../db/schema.ts';
import type { Document } from '../documents/documents.service.ts';
import { documentStatuses } from '../documents/lifecycle.ts';
import { formatMoney } from '../documents/pricing.ts';
import { statusBadges } from '../ui/document-views.ts';
import { notice } from '../ui/forms.ts';
import { html, raw, type SafeHtml } from '../ui/html.ts';
import { formatTime } from './layout.ts';

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

export interface DocumentsList {
  documents: Document[];
  status: DocumentStatus | null;
  cursor: string | null;
  /** The next page's address, or null on the last page. */
  next: string | null;
  /** The cursor given was refused (expired, altered, another list's): this is page 1 again. */
  stale: boolean;
}

export function documentsListView(list: DocumentsList): SafeHtml {
  const { status, cursor, next } = list;
  return html`<div class="section-title"><h1>Documents</h1><span class="actions"><a href="/mails">Your mail</a><a class="button button-primary button-small" href="/documents/new">New document</a></span></div>
${list.stale ? notice('info', 'That page link had expired, so this is the first page again.') : ''}
${statusFilter(status)}
<div class="card">
${
  list.documents.length
    ? documentsTable(list.documents)
    : html`<div class="empty"><p><strong>No ${status ?? ''} documents${cursor ? ' on this page' : ' yet'}.</strong></p></div>`
}
<nav class="pager" aria-label="Pages">${cursor ? html`<a href="/documents${status ? `?status=${status}` : ''}">Newest</a>` : ''}${next ? html`<a href="${next}">Next page</a>` : ''}</nav>
</div>`;
}
