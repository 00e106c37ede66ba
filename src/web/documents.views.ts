// The documents list's markup: the search form, the status filter, the table and the pager.
import type { DocumentStatus } from '../db/schema.ts';
import type { Document } from '../documents/documents.service.ts';
import { documentStatuses } from '../documents/lifecycle.ts';
import { formatMoney } from '../documents/pricing.ts';
import { statusBadge } from '../ui/document-views.ts';
import { notice } from '../ui/forms.ts';
import { html, raw, type SafeHtml } from '../ui/html.ts';
import { formatTime } from './layout.ts';

/** Longer searches are cut: no title or address needs more, and each character costs the index. */
export const maxSearchLength = 200;

/** The list's address with its search, filter and page (each only when set). */
export function listAddress(at: { search: string; status: DocumentStatus | null; cursor?: string }): string {
  const query = new URLSearchParams();
  if (at.search) query.set('q', at.search);
  if (at.status) query.set('status', at.status);
  if (at.cursor) query.set('cursor', at.cursor);
  const text = query.toString();
  return text ? `/documents?${text}` : '/documents';
}

function searchForm(search: string, status: DocumentStatus | null) {
  return html`<form class="search" method="get" action="/documents" role="search">
<div><label for="q">Search by title, recipient name or email</label>
<input type="search" id="q" name="q" value="${search}" maxlength="${maxSearchLength}" autocomplete="off"></div>
${status ? html`<input type="hidden" name="status" value="${status}">` : ''}
<button class="button button-secondary" type="submit">Search</button>
${search ? html`<a href="${listAddress({ search: '', status })}">Clear search</a>` : ''}
</form>`;
}

function statusFilter(current: DocumentStatus | null, search: string) {
  const link = (status: DocumentStatus | null, label: string) =>
    html`<li><a href="${listAddress({ search, status })}"${status === current ? raw(' aria-current="page"') : ''}>${label}</a></li>`;
  return html`<ul class="filters" aria-label="Filter by status">
${link(null, 'All')}
${documentStatuses.map((status) => link(status, status[0]?.toUpperCase() + status.slice(1)))}
</ul>`;
}

function documentsTable(documents: Document[], timeZone: string, publicLink: Set<string>) {
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label="Documents">
<table>
<thead><tr><th scope="col">Title</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col" class="num">Value</th></tr></thead>
<tbody>
${documents.map((d) => {
  return html`<tr>
<td><a href="/documents/${d.id}">${d.title}</a>${publicLink.has(d.id) ? html` <span class="badge badge-neutral">public link</span>` : ''}</td>
<td>${statusBadge(d)}</td>
<td>${formatTime(d.createdAt, timeZone)}</td>
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
  /** The search as typed ('' for none). */
  search: string;
  /** The workspace's time zone. */
  timeZone: string;
  cursor: string | null;
  /** The next page's address, or null on the last page. */
  next: string | null;
  /** The cursor given was refused (expired, altered, another list's): this is page 1 again. */
  stale: boolean;
  /** Which of them a visitor made through a template's public link (marked). */
  publicLink?: Set<string>;
}

function emptyList(list: DocumentsList): SafeHtml {
  const { status, search, cursor } = list;
  if (search) {
    return html`<div class="empty"><p><strong>No ${status ?? ''} documents${cursor ? ' on this page' : ''} match “${search}”.</strong></p><p>The search finds a part of a title, or of a recipient’s name or email address.</p></div>`;
  }
  return html`<div class="empty"><p><strong>No ${status ?? ''} documents${cursor ? ' on this page' : ' yet'}.</strong></p></div>`;
}

export function documentsListView(list: DocumentsList): SafeHtml {
  const { status, search, cursor, next } = list;
  return html`<div class="section-title"><h1>Documents</h1><span class="actions"><a href="/mails">Your mail</a><a class="button button-primary button-small" href="/documents/new">New document</a></span></div>
${list.stale ? notice('info', 'That page link had expired, so this is the first page again.') : ''}
${searchForm(search, status)}
${statusFilter(status, search)}
<div class="card">
${list.documents.length ? documentsTable(list.documents, list.timeZone, list.publicLink ?? new Set()) : emptyList(list)}
<nav class="pager" aria-label="Pages">${cursor ? html`<a href="${listAddress({ search, status })}">Newest</a>` : ''}${next ? html`<a href="${next}">Next page</a>` : ''}</nav>
</div>`;
}
