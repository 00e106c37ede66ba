// The markup of a bulk send's pages (issue 38): the upload page (the columns the file needs,
// the file to fill, a file input), the preview (counts, every problem by row and column, the
// first good rows as they will be sent, the rows to look at (a person on two rows: sent all the
// same), "Send the N good rows" or "Fix the file"), the
// progress page, and the list of a template's bulk sends on its page.
import { endonym, languages, parseLanguage } from '../i18n/languages.ts';
import type { BulkColumn, BulkProblem } from '../templates/bulk-csv.ts';
import type { BulkFailedRow, BulkSendSummary } from '../templates/bulk-progress.ts';
import type { BulkPreview } from '../templates/bulk-send.ts';
import type { TemplateDetail } from '../templates/templates.service.ts';
import { csrfField, fieldError, invalidAttrs, notice } from '../ui/forms.ts';
import { html, type SafeHtml } from '../ui/html.ts';
import { formatTime } from './layout.ts';

const count = (n: number) => n.toLocaleString('en');
const rows = (n: number) => `${count(n)} row${n === 1 ? '' : 's'}`;

/** The most problems the preview lists; the rest are counted. */
export const shownProblems = 100;

const kindHint: Record<BulkColumn['kind'], string> = {
  email: 'an email address',
  name: 'the person’s full name',
  language: `their language: ${languages.join(', ')}, or its own name (Deutsch); empty: the role’s language, else the workspace’s`,
  text: 'text',
  date: 'a date: 2026-03-14, 14/03/2026 or 14.03.2026',
  checkbox: 'yes or no (x, 1, true; empty is no)',
};

function columnsList(columns: BulkColumn[]): SafeHtml {
  return html`<ul>${columns.map(
    (c) =>
      html`<li><strong>${c.header}</strong>: ${kindHint[c.kind]}${c.required ? '' : html` <span class="muted">(may be empty)</span>`}</li>`,
  )}</ul>`;
}

function back(template: TemplateDetail): SafeHtml {
  return html`<p><a href="/templates/${template.id}">← ${template.name}</a></p>`;
}

export interface BulkUploadPage {
  template: TemplateDetail;
  columns: BulkColumn[];
  maxRows: number;
  /** The sentence beside the file input. */
  error?: string;
}

export function bulkUploadView(page: BulkUploadPage, csrf: string): SafeHtml {
  const { template } = page;
  return html`${back(template)}
<div class="section-title"><h1>Send ${template.name} in bulk</h1></div>
<section class="card" aria-labelledby="columns-title">
<h2 id="columns-title">The spreadsheet</h2>
<p>One row per document. The first row names the columns; their order does not matter, and other columns are left unread.</p>
${columnsList(page.columns)}
<p><a class="button button-secondary" href="/templates/${template.id}/bulk.csv" download>Download the CSV to fill</a></p>
<p class="small muted">Save it from Excel as “CSV UTF-8” or from LibreOffice as CSV with the character set “Unicode (UTF-8)”; commas or semicolons both work. At most ${count(page.maxRows)} rows a file.</p>
</section>
<section class="card" aria-labelledby="upload-title">
<h2 id="upload-title">Upload it</h2>
<form method="post" action="/templates/${template.id}/bulk" enctype="multipart/form-data" novalidate>${csrfField(csrf)}
<div class="field"><label for="file">The filled CSV file</label><input id="file" name="file" type="file" accept=".csv,text/csv" required ${invalidAttrs('file', page.error)}>${fieldError('file', page.error)}</div>
<p class="small muted">Nothing is sent yet: the next page shows what would be sent, and every problem, first.</p>
<div class="actions"><button class="button button-primary" type="submit">Check the file</button></div>
</form>
</section>`;
}

function problemsList(problems: BulkProblem[]): SafeHtml {
  const more = problems.length - shownProblems;
  return html`<section class="card" aria-labelledby="problems-title">
<h2 id="problems-title">${problems.length === 1 ? 'One problem' : `${count(problems.length)} problems`}</h2>
<p class="small muted">Rows with a problem are not sent. Row numbers are the spreadsheet’s (the column names are row 1).</p>
<ul class="error-list">${problems.slice(0, shownProblems).map((p) => html`<li>${p.message}</li>`)}</ul>
${more > 0 ? html`<p>… and ${count(more)} more.</p>` : ''}
</section>`;
}

function warningsList(warnings: BulkProblem[]): SafeHtml {
  const more = warnings.length - shownProblems;
  return html`<section class="card" aria-labelledby="warnings-title">
<h2 id="warnings-title">${warnings.length === 1 ? 'One row to look at' : `${count(warnings.length)} rows to look at`}</h2>
<p class="small muted">These rows are sent as they are: check that each is meant.</p>
<ul>${warnings.slice(0, shownProblems).map((w) => html`<li>${w.message}</li>`)}</ul>
${more > 0 ? html`<p>… and ${count(more)} more.</p>` : ''}
</section>`;
}

/** A person's language, named in itself, when their row gives one. */
function personLanguage(tag: string | null): SafeHtml | null {
  const language = tag ? parseLanguage(tag) : null;
  return language ? html`<div class="small muted" lang="${language}">${endonym(language)}</div>` : null;
}

function firstRowsTable(preview: BulkPreview): SafeHtml {
  const { template, firstRows } = preview;
  const labels = firstRows[0]?.values.map((v) => v.label) ?? [];
  return html`<section class="card" aria-labelledby="rows-title">
<h2 id="rows-title">${firstRows.length < preview.goodRows ? `The first ${firstRows.length} documents` : 'The documents'}, as they will be sent</h2>
<div class="table-scroll" tabindex="0" role="region" aria-labelledby="rows-title">
<table class="bulk-rows">
<thead><tr><th scope="col" class="num">Row</th>${template.roles.map((r) => html`<th scope="col">${r.name}</th>`)}${labels.map((l) => html`<th scope="col">${l}</th>`)}</tr></thead>
<tbody>
${firstRows.map(
  (row) =>
    html`<tr><td class="num">${row.row}</td>${row.people.map(
      (p) =>
        html`<td>${p.fullName}<div class="small muted">${p.email}</div>${personLanguage(p.language)}</td>`,
    )}${row.values.map((v) => html`<td>${typeof v.value === 'boolean' ? (v.value ? 'yes' : 'no') : v.value}</td>`)}</tr>`,
)}
</tbody>
</table>
</div>
</section>`;
}

export interface BulkPreviewPage {
  preview: BulkPreview;
  fileName: string;
  /** The file's bytes in base64 and their SHA-256, posted back by "Send the N good rows". */
  data: string;
  sha256: string;
}

function confirmForm(page: BulkPreviewPage, csrf: string): SafeHtml {
  const { preview } = page;
  const id = preview.template.id;
  if (preview.refusal !== null)
    return html`<div class="actions"><a class="button button-primary" href="/templates/${id}/bulk">Fix the file</a></div>`;
  return html`<form method="post" action="/templates/${id}/bulk/send" enctype="multipart/form-data">${csrfField(csrf)}
<input type="hidden" name="fileName" value="${page.fileName}">
<input type="hidden" name="sha256" value="${page.sha256}">
<input type="hidden" name="data" value="${page.data}">
<div class="actions"><button class="button button-primary" type="submit">Send the ${count(preview.goodRows)} good row${preview.goodRows === 1 ? '' : 's'}</button><a class="button button-secondary" href="/templates/${id}/bulk">Fix the file</a></div>
</form>`;
}

export function bulkPreviewView(page: BulkPreviewPage, csrf: string): SafeHtml {
  const { preview } = page;
  const bad = preview.totalRows - preview.goodRows;
  const summary =
    preview.refusal !== null
      ? notice('error', `Nothing in this file can be sent: ${preview.refusal} Fix it and upload it again.`)
      : notice(
          bad > 0 || preview.problems.length > 0 ? 'info' : 'success',
          `${rows(preview.goodRows)} of ${count(preview.totalRows)} can be sent${bad > 0 ? `; ${rows(bad)} have problems and will not be` : ''}. Nothing has been sent yet.`,
        );
  return html`${back(preview.template)}
<div class="section-title"><h1>Check ${page.fileName}</h1></div>
${summary}
<div class="card">
<dl class="meta">
<div><dt>Rows in the file</dt><dd>${count(preview.totalRows)}</dd></div>
<div><dt>Ready to send</dt><dd>${count(preview.goodRows)}</dd></div>
<div><dt>With problems</dt><dd>${count(bad)}</dd></div>
</dl>
${preview.ignoredColumns.length > 0 ? html`<p class="small muted">Columns not read: ${preview.ignoredColumns.join(', ')}.</p>` : ''}
${confirmForm(page, csrf)}
</div>
${preview.problems.length > 0 ? problemsList(preview.problems) : ''}
${preview.refusal === null && preview.warnings.length > 0 ? warningsList(preview.warnings) : ''}
${preview.firstRows.length > 0 ? firstRowsTable(preview) : ''}`;
}

export interface BulkProgressPage {
  progress: BulkSendSummary;
  failed: BulkFailedRow[];
  timeZone: string;
}

export function bulkProgressView(page: BulkProgressPage): SafeHtml {
  const { progress: p } = page;
  const done = p.sent + p.failed;
  const state = p.finished
    ? notice(
        p.failed > 0 ? 'info' : 'success',
        `Finished: ${rows(p.sent)} sent${p.failed > 0 ? `, ${rows(p.failed)} failed` : ''}.${p.refused > 0 ? ` ${rows(p.refused)} of the file had problems and ${p.refused === 1 ? 'was' : 'were'} not sent: the results file lists ${p.refused === 1 ? 'it' : 'them'}.` : ''}${p.mailed < p.sent ? ' The invitations go out through the mail outbox: the mailed count grows as they are delivered.' : ''}`,
      )
    : notice(
        'info',
        'Sending… this page updates itself every few seconds. You can leave it: sending goes on.',
      );
  const template = p.templateId
    ? html`<a href="/templates/${p.templateId}">${p.templateName}</a>`
    : html`${p.templateName}`;
  return html`<p>${p.templateId ? html`<a href="/templates/${p.templateId}">← ${p.templateName}</a>` : html`<a href="/templates">← Templates</a>`}</p>
<div class="section-title"><h1>Bulk send of ${p.fileName}</h1></div>
${state}
<div class="card">
<p class="bulk-progress"><label for="bulk-progress">${count(done)} of ${count(p.total)} done</label><progress id="bulk-progress" max="${p.total}" value="${done}">${count(done)} of ${count(p.total)}</progress></p>
<dl class="meta">
<div><dt>Documents created</dt><dd>${count(p.created)} of ${count(p.total)}</dd></div>
<div><dt>Sent</dt><dd>${count(p.sent)}</dd></div>
<div><dt>Invitations mailed</dt><dd>${count(p.mailed)}</dd></div>
<div><dt>Failed</dt><dd>${count(p.failed)}</dd></div>
${p.refused > 0 ? html`<div><dt>Not sent (problems in the file)</dt><dd>${count(p.refused)}</dd></div>` : ''}
<div><dt>Template</dt><dd>${template}</dd></div>
<div><dt>Started</dt><dd>${formatTime(p.createdAt.toISOString(), page.timeZone)}</dd></div>
</dl>
<div class="actions"><a class="button button-secondary" href="/bulk/${p.id}/results.csv" download>Download the results (CSV)</a></div>
</div>
${page.failed.length > 0 ? failedList(page.failed, p.failed) : ''}`;
}

function failedList(failed: BulkFailedRow[], total: number): SafeHtml {
  return html`<section class="card" aria-labelledby="failed-title">
<h2 id="failed-title">Rows that failed</h2>
<ul class="error-list">${failed.map((f) => html`<li>Row ${f.row}: ${f.error}</li>`)}</ul>
${total > failed.length ? html`<p>… and ${count(total - failed.length)} more, in the results file.</p>` : ''}
</section>`;
}

/** The template page's list of its bulk sends, newest first. */
export function bulkSendsSection(sends: BulkSendSummary[], timeZone: string): SafeHtml {
  if (sends.length === 0) return html``;
  return html`<section class="card" aria-labelledby="bulk-title">
<h2 id="bulk-title">Bulk sends</h2>
<div class="table-scroll" tabindex="0" role="region" aria-labelledby="bulk-title">
<table>
<thead><tr><th scope="col">File</th><th scope="col" class="num">Rows</th><th scope="col" class="num">Sent</th><th scope="col" class="num">Failed</th><th scope="col">State</th></tr></thead>
<tbody>
${sends.map(
  (s) =>
    html`<tr><td class="item"><a href="/bulk/${s.id}">${s.fileName}</a><div class="small muted">${formatTime(s.createdAt.toISOString(), timeZone)}</div></td><td class="num">${count(s.total)}</td><td class="num">${count(s.sent)}</td><td class="num">${count(s.failed)}</td><td>${s.finished ? html`<span class="badge badge-success">finished</span>` : html`<span class="badge badge-pending">sending</span>`}</td></tr>`,
)}
</tbody>
</table>
</div>
</section>`;
}
