// The markup of a bulk send's pages (issue 38): the upload page (the columns the file needs,
// the file to fill, a file input), the preview (counts, every problem by row and column, the
// first good rows as they will be sent, the rows to look at (a person on two rows: sent all the
// same), "Send the N good rows" or "Fix the file"), the progress page, and the list of a
// template's bulk sends on its page; in the member's language (issue 51), the spreadsheet's
// own words (its column names, yes and no) as the file must hold them.
import { endonym, languages, parseLanguage } from '../i18n/languages.ts';
import type { MessageKey, Translator } from '../i18n/messages.ts';
import { say } from '../i18n/refusals.ts';
import type { BulkColumn, BulkProblem } from '../templates/bulk-csv.ts';
import type { BulkFailedRow, BulkSendSummary } from '../templates/bulk-progress.ts';
import type { BulkPreview } from '../templates/bulk-send.ts';
import type { TemplateDetail } from '../templates/templates.service.ts';
import { csrfField, fieldError, invalidAttrs, notice } from '../ui/forms.ts';
import { html, type SafeHtml } from '../ui/html.ts';
import { richText } from '../ui/rich-text.ts';
import { formatTime } from './layout.ts';

const numberFormats = new Map<string, Intl.NumberFormat>();

/** A count as the page's language writes numbers (1,234; 1.234; 1 234). */
function count(n: number, tr: Translator): string {
  let format = numberFormats.get(tr.locale);
  if (!format) {
    format = new Intl.NumberFormat(tr.locale);
    numberFormats.set(tr.locale, format);
  }
  return format.format(n);
}

/** The most problems the preview lists; the rest are counted. */
export const shownProblems = 100;

function kindHint(kind: BulkColumn['kind'], tr: Translator): string {
  if (kind === 'language')
    return tr.t('bulk.kind.language', { languages: languages.join(', '), example: endonym('de') });
  return tr.t(`bulk.kind.${kind}` as MessageKey);
}

function columnsList(columns: BulkColumn[], tr: Translator): SafeHtml {
  return html`<ul>${columns.map(
    (c) =>
      html`<li>${richText(tr, 'bulk.column', { header: c.header, hint: kindHint(c.kind, tr) })}${c.required ? '' : html` <span class="muted">${tr.t('bulk.mayBeEmpty')}</span>`}</li>`,
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

export function bulkUploadView(page: BulkUploadPage, csrf: string, tr: Translator): SafeHtml {
  const { template } = page;
  return html`${back(template)}
<div class="section-title"><h1>${tr.t('bulk.upload.title', { template: template.name })}</h1></div>
<section class="card" aria-labelledby="columns-title">
<h2 id="columns-title">${tr.t('bulk.upload.sheet')}</h2>
<p>${tr.t('bulk.upload.intro')}</p>
${columnsList(page.columns, tr)}
<p><a class="button button-secondary" href="/templates/${template.id}/bulk.csv" download>${tr.t('bulk.upload.download')}</a></p>
<p class="small muted">${tr.t('bulk.upload.saveAs', { max: page.maxRows })}</p>
</section>
<section class="card" aria-labelledby="upload-title">
<h2 id="upload-title">${tr.t('bulk.upload.heading')}</h2>
<form method="post" action="/templates/${template.id}/bulk" enctype="multipart/form-data" novalidate>${csrfField(csrf)}
<div class="field"><label for="file">${tr.t('bulk.upload.file')}</label><input id="file" name="file" type="file" accept=".csv,text/csv" required ${invalidAttrs('file', page.error)}>${fieldError('file', page.error)}</div>
<p class="small muted">${tr.t('bulk.upload.nothingYet')}</p>
<div class="actions"><button class="button button-primary" type="submit">${tr.t('bulk.upload.check')}</button></div>
</form>
</section>`;
}

function problemsList(problems: BulkProblem[], tr: Translator): SafeHtml {
  const more = problems.length - shownProblems;
  return html`<section class="card" aria-labelledby="problems-title">
<h2 id="problems-title">${tr.t('bulk.problems.heading', { count: problems.length })}</h2>
<p class="small muted">${tr.t('bulk.problems.explain')}</p>
<ul class="error-list">${problems.slice(0, shownProblems).map((p) => html`<li>${say(p.sentence, tr)}</li>`)}</ul>
${more > 0 ? html`<p>${tr.t('bulk.more', { count: more })}</p>` : ''}
</section>`;
}

function warningsList(warnings: BulkProblem[], tr: Translator): SafeHtml {
  const more = warnings.length - shownProblems;
  return html`<section class="card" aria-labelledby="warnings-title">
<h2 id="warnings-title">${tr.t('bulk.warnings.heading', { count: warnings.length })}</h2>
<p class="small muted">${tr.t('bulk.warnings.explain')}</p>
<ul>${warnings.slice(0, shownProblems).map((w) => html`<li>${say(w.sentence, tr)}</li>`)}</ul>
${more > 0 ? html`<p>${tr.t('bulk.more', { count: more })}</p>` : ''}
</section>`;
}

/** A person's language, named in itself, when their row gives one. */
function personLanguage(tag: string | null): SafeHtml | null {
  const language = tag ? parseLanguage(tag) : null;
  return language ? html`<div class="small muted" lang="${language}">${endonym(language)}</div>` : null;
}

function firstRowsTable(preview: BulkPreview, tr: Translator): SafeHtml {
  const { template, firstRows } = preview;
  const labels = firstRows[0]?.values.map((v) => v.label) ?? [];
  const heading =
    firstRows.length < preview.goodRows
      ? tr.t('bulk.rows.headingFirst', { count: firstRows.length })
      : tr.t('bulk.rows.heading');
  const shown = (value: string | boolean) =>
    typeof value === 'boolean' ? tr.t(value ? 'bulk.value.yes' : 'bulk.value.no') : value;
  return html`<section class="card" aria-labelledby="rows-title">
<h2 id="rows-title">${heading}</h2>
<div class="table-scroll" tabindex="0" role="region" aria-labelledby="rows-title">
<table class="bulk-rows">
<thead><tr><th scope="col" class="num">${tr.t('bulk.rows.row')}</th>${template.roles.map((r) => html`<th scope="col">${r.name}</th>`)}${labels.map((l) => html`<th scope="col">${l}</th>`)}</tr></thead>
<tbody>
${firstRows.map(
  (row) =>
    html`<tr><td class="num">${count(row.row, tr)}</td>${row.people.map(
      (p) =>
        html`<td>${p.fullName}<div class="small muted">${p.email}</div>${personLanguage(p.language)}</td>`,
    )}${row.values.map((v) => html`<td>${shown(v.value)}</td>`)}</tr>`,
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

function confirmForm(page: BulkPreviewPage, csrf: string, tr: Translator): SafeHtml {
  const { preview } = page;
  const id = preview.template.id;
  if (preview.refusal !== null)
    return html`<div class="actions"><a class="button button-primary" href="/templates/${id}/bulk">${tr.t('bulk.preview.fix')}</a></div>`;
  return html`<form method="post" action="/templates/${id}/bulk/send" enctype="multipart/form-data">${csrfField(csrf)}
<input type="hidden" name="fileName" value="${page.fileName}">
<input type="hidden" name="sha256" value="${page.sha256}">
<input type="hidden" name="data" value="${page.data}">
<div class="actions"><button class="button button-primary" type="submit">${tr.t('bulk.preview.send', { count: preview.goodRows })}</button><a class="button button-secondary" href="/templates/${id}/bulk">${tr.t('bulk.preview.fix')}</a></div>
</form>`;
}

function previewSummary(preview: BulkPreview, tr: Translator): SafeHtml {
  const bad = preview.totalRows - preview.goodRows;
  if (preview.refusal !== null)
    return notice('error', tr.t('bulk.preview.refused', { refusal: say(preview.refusal, tr) }));
  const counts = { good: preview.goodRows, total: preview.totalRows, bad };
  return notice(
    bad > 0 || preview.problems.length > 0 ? 'info' : 'success',
    tr.t(bad > 0 ? 'bulk.preview.summaryBad' : 'bulk.preview.summary', counts),
  );
}

export function bulkPreviewView(page: BulkPreviewPage, csrf: string, tr: Translator): SafeHtml {
  const { preview } = page;
  const bad = preview.totalRows - preview.goodRows;
  return html`${back(preview.template)}
<div class="section-title"><h1>${tr.t('bulk.preview.title', { file: page.fileName })}</h1></div>
${previewSummary(preview, tr)}
<div class="card">
<dl class="meta">
<div><dt>${tr.t('bulk.preview.rowsInFile')}</dt><dd>${count(preview.totalRows, tr)}</dd></div>
<div><dt>${tr.t('bulk.preview.ready')}</dt><dd>${count(preview.goodRows, tr)}</dd></div>
<div><dt>${tr.t('bulk.preview.withProblems')}</dt><dd>${count(bad, tr)}</dd></div>
</dl>
${preview.ignoredColumns.length > 0 ? html`<p class="small muted">${tr.t('bulk.preview.ignored', { columns: tr.list(preview.ignoredColumns) })}</p>` : ''}
${confirmForm(page, csrf, tr)}
</div>
${preview.problems.length > 0 ? problemsList(preview.problems, tr) : ''}
${preview.refusal === null && preview.warnings.length > 0 ? warningsList(preview.warnings, tr) : ''}
${preview.firstRows.length > 0 ? firstRowsTable(preview, tr) : ''}`;
}

export interface BulkProgressPage {
  progress: BulkSendSummary;
  failed: BulkFailedRow[];
  timeZone: string;
}

function progressState(p: BulkSendSummary, tr: Translator): SafeHtml {
  if (!p.finished) return notice('info', tr.t('bulk.progress.sending'));
  const sentences = [
    p.failed > 0
      ? tr.t('bulk.progress.finishedFailed', { sent: p.sent, failed: p.failed })
      : tr.t('bulk.progress.finished', { sent: p.sent }),
    ...(p.refused > 0 ? [tr.t('bulk.progress.refused', { refused: p.refused })] : []),
    ...(p.mailed < p.sent ? [tr.t('bulk.progress.mailing')] : []),
  ];
  return notice(p.failed > 0 ? 'info' : 'success', sentences.join(' '));
}

export function bulkProgressView(page: BulkProgressPage, tr: Translator): SafeHtml {
  const { progress: p } = page;
  const done = p.sent + p.failed;
  const of = (n: number) => tr.t('bulk.progress.of', { done: n, total: p.total });
  const template = p.templateId
    ? html`<a href="/templates/${p.templateId}">${p.templateName}</a>`
    : html`${p.templateName}`;
  return html`<p>${p.templateId ? html`<a href="/templates/${p.templateId}">← ${p.templateName}</a>` : html`<a href="/templates">← ${tr.t('app.nav.templates')}</a>`}</p>
<div class="section-title"><h1>${tr.t('bulk.progress.title', { file: p.fileName })}</h1></div>
${progressState(p, tr)}
<div class="card">
<p class="bulk-progress"><label for="bulk-progress">${tr.t('bulk.progress.done', { done, total: p.total })}</label><progress id="bulk-progress" max="${p.total}" value="${done}">${of(done)}</progress></p>
<dl class="meta">
<div><dt>${tr.t('bulk.progress.created')}</dt><dd>${of(p.created)}</dd></div>
<div><dt>${tr.t('bulk.progress.sent')}</dt><dd>${count(p.sent, tr)}</dd></div>
<div><dt>${tr.t('bulk.progress.mailed')}</dt><dd>${count(p.mailed, tr)}</dd></div>
<div><dt>${tr.t('bulk.progress.failed')}</dt><dd>${count(p.failed, tr)}</dd></div>
${p.refused > 0 ? html`<div><dt>${tr.t('bulk.progress.notSent')}</dt><dd>${count(p.refused, tr)}</dd></div>` : ''}
<div><dt>${tr.t('bulk.progress.template')}</dt><dd>${template}</dd></div>
<div><dt>${tr.t('bulk.progress.started')}</dt><dd>${formatTime(p.createdAt.toISOString(), page.timeZone)}</dd></div>
</dl>
<div class="actions"><a class="button button-secondary" href="/bulk/${p.id}/results.csv" download>${tr.t('bulk.progress.results')}</a></div>
</div>
${page.failed.length > 0 ? failedList(page.failed, p.failed, tr) : ''}`;
}

/**
 * The rows that failed, each with its reason in the page's language; a sentence whose rule has
 * no key (and a row failed before reasons were kept) is English, marked so for readers.
 */
function failedList(failed: BulkFailedRow[], total: number, tr: Translator): SafeHtml {
  const said = (reason: BulkFailedRow['reason']) =>
    html`${reason.map(
      (sentence, i) =>
        html`${i > 0 ? ' ' : ''}${typeof sentence === 'string' ? html`<span lang="en">${sentence}</span>` : say(sentence, tr)}`,
    )}`;
  return html`<section class="card" aria-labelledby="failed-title">
<h2 id="failed-title">${tr.t('bulk.failed.heading')}</h2>
<ul class="error-list">${failed.map((f) => html`<li>${richText(tr, 'bulk.failed.row', { row: f.row, error: said(f.reason) })}</li>`)}</ul>
${total > failed.length ? html`<p>${tr.t('bulk.failed.more', { count: total - failed.length })}</p>` : ''}
</section>`;
}

/** The template page's list of its bulk sends, newest first. */
export function bulkSendsSection(sends: BulkSendSummary[], timeZone: string, tr: Translator): SafeHtml {
  if (sends.length === 0) return html``;
  return html`<section class="card" aria-labelledby="bulk-title">
<h2 id="bulk-title">${tr.t('bulk.sends.heading')}</h2>
<div class="table-scroll" tabindex="0" role="region" aria-labelledby="bulk-title">
<table>
<thead><tr><th scope="col">${tr.t('bulk.sends.file')}</th><th scope="col" class="num">${tr.t('bulk.sends.rows')}</th><th scope="col" class="num">${tr.t('bulk.progress.sent')}</th><th scope="col" class="num">${tr.t('bulk.progress.failed')}</th><th scope="col">${tr.t('bulk.sends.state')}</th></tr></thead>
<tbody>
${sends.map(
  (s) =>
    html`<tr><td class="item"><a href="/bulk/${s.id}">${s.fileName}</a><div class="small muted">${formatTime(s.createdAt.toISOString(), timeZone)}</div></td><td class="num">${count(s.total, tr)}</td><td class="num">${count(s.sent, tr)}</td><td class="num">${count(s.failed, tr)}</td><td>${s.finished ? html`<span class="badge badge-success">${tr.t('bulk.sends.finished')}</span>` : html`<span class="badge badge-pending">${tr.t('bulk.sends.sending')}</span>`}</td></tr>`,
)}
</tbody>
</table>
</div>
</section>`;
}
