// The documents list's markup, in the member's language: the search form, the status filter,
// the table and the pager.
import type { DocumentStatus } from '../db/schema.ts';
import type { Document } from '../documents/documents.service.ts';
import { documentStatuses } from '../documents/lifecycle.ts';
import { formatMoney } from '../documents/pricing.ts';
import type { Translator } from '../i18n/messages.ts';
import { ownerStatus, statusBadge } from '../ui/document-views.ts';
import { notice } from '../ui/forms.ts';
import { html, raw, type SafeHtml } from '../ui/html.ts';
import { formatTime } from '../ui/time.ts';

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

function searchForm(search: string, status: DocumentStatus | null, tr: Translator) {
  return html`<form class="search" method="get" action="/documents" role="search">
<div><label for="q">${tr.t('docs.search.label')}</label>
<input type="search" id="q" name="q" value="${search}" maxlength="${maxSearchLength}" autocomplete="off"></div>
${status ? html`<input type="hidden" name="status" value="${status}">` : ''}
<button class="button button-secondary" type="submit">${tr.t('docs.search.submit')}</button>
${search ? html`<a href="${listAddress({ search: '', status })}">${tr.t('docs.search.clear')}</a>` : ''}
</form>`;
}

/** A status's name as the filter shows it: the badge's word, capitalised as the language does. */
function statusName(status: DocumentStatus, tr: Translator): string {
  const word = tr.t(ownerStatus[status]);
  return word.charAt(0).toLocaleUpperCase(tr.locale) + word.slice(1);
}

function statusFilter(current: DocumentStatus | null, search: string, tr: Translator) {
  const link = (status: DocumentStatus | null, label: string) =>
    html`<li><a href="${listAddress({ search, status })}"${status === current ? raw(' aria-current="page"') : ''}>${label}</a></li>`;
  return html`<ul class="filters" aria-label="${tr.t('docs.filter.label')}">
${link(null, tr.t('docs.filter.all'))}
${documentStatuses.map((status) => link(status, statusName(status, tr)))}
</ul>`;
}

function documentsTable(documents: Document[], timeZone: string, publicLink: Set<string>, tr: Translator) {
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label="${tr.t('docs.title')}">
<table>
<thead><tr><th scope="col">${tr.t('docs.column.title')}</th><th scope="col">${tr.t('docs.column.status')}</th><th scope="col">${tr.t('docs.column.created')}</th><th scope="col" class="num">${tr.t('docs.column.value')}</th></tr></thead>
<tbody>
${documents.map((d) => {
  return html`<tr>
<td><a href="/documents/${d.id}">${d.title}</a>${publicLink.has(d.id) ? html` <span class="badge badge-neutral">${tr.t('docs.publicLink')}</span>` : ''}</td>
<td>${statusBadge(d, tr)}</td>
<td><time datetime="${d.createdAt}">${formatTime(d.createdAt, timeZone)}</time></td>
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

function emptyList(list: DocumentsList, tr: Translator): SafeHtml {
  const { status, search, cursor } = list;
  if (search) {
    const sentence = tr.t(cursor ? 'docs.empty.searchPage' : 'docs.empty.search', { search });
    return html`<div class="empty"><p><strong>${sentence}</strong></p><p>${tr.t('docs.empty.searchHint')}</p></div>`;
  }
  const sentence = cursor
    ? tr.t('docs.empty.page')
    : status
      ? tr.t('docs.empty.status', { status: tr.t(ownerStatus[status]) })
      : tr.t('docs.empty.none');
  return html`<div class="empty"><p><strong>${sentence}</strong></p></div>`;
}

/** The documents list, in the member's language (`tr`: web/member-language.ts). */
export function documentsListView(list: DocumentsList, tr: Translator): SafeHtml {
  const { status, search, cursor, next } = list;
  return html`<div class="section-title"><h1>${tr.t('docs.title')}</h1><span class="actions"><a href="/mails">${tr.t('docs.yourMail')}</a><a class="button button-primary button-small" href="/documents/new">${tr.t('docs.new')}</a></span></div>
${list.stale ? notice('info', tr.t('docs.staleCursor')) : ''}
${searchForm(search, status, tr)}
${statusFilter(status, search, tr)}
<div class="card">
${list.documents.length ? documentsTable(list.documents, list.timeZone, list.publicLink ?? new Set(), tr) : emptyList(list, tr)}
<nav class="pager" aria-label="${tr.t('docs.pager.label')}">${cursor ? html`<a href="${listAddress({ search, status })}">${tr.t('docs.pager.newest')}</a>` : ''}${next ? html`<a href="${next}">${tr.t('docs.pager.next')}</a>` : ''}</nav>
</div>`;
}
