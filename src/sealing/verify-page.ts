// The public verify page (/verify), rendered from a view model: pure functions, no HTTP and
// no database. A plain page (no script, the base styles inline): a file input in a multipart
// form that works without JavaScript, and the answer above it as one sentence and a table.
// The sentence and the rows are the service's (verification.service.ts), so the page and
// `signet verify` say the same thing; the page in the visitor's language (ui/page-language.ts,
// with the switch at its foot), the command in English. Times stay ISO 8601 in UTC.
import type { Translator } from '../i18n/messages.ts';
import { formatBytes } from '../pdf/inspect.ts';
import { fieldError, notice } from '../ui/forms.ts';
import { html, type SafeHtml } from '../ui/html.ts';
import { languageSwitch } from '../ui/page-language.ts';
import { richText } from '../ui/rich-text.ts';
import { page } from '../ui/shell.ts';
import {
  readerNote,
  type Verification,
  verificationFacts,
  verificationSentence,
} from './verification.service.ts';

export interface VerifyPageView {
  /** The largest file the form takes (SIGNET_MAX_UPLOAD_BYTES). */
  maxBytes: number;
  /** The answer about the file sent, when it was a PDF. */
  result: Verification | null;
  /** The name of the file sent, as the browser gave it. */
  fileName: string | null;
  /** The sentence beside the file field: no file, not a PDF, too large. */
  fileError: string | null;
  /** A sentence above everything (too many files checked from this address). */
  notice: string | null;
  /** The visitor's language. */
  tr: Translator;
}

const tones: Record<Verification['verdict'], string> = {
  'sealed-unchanged': 'box-success',
  'changed-after-sealing': 'box-danger',
  'not-sealed-here': 'box-neutral',
  'not-a-pdf': 'box-danger',
};

/** A hash or fingerprint in a fixed-width font; a fingerprint may break after each colon on a phone. */
function code(value: string): SafeHtml {
  const parts = value.split(':');
  return html`<code>${parts.map((part, i) => (i === 0 ? part : html`:<wbr>${part}`))}</code>`;
}

function resultCard(tr: Translator, result: Verification, fileName: string | null): SafeHtml {
  const note = readerNote(result, tr);
  const rows = verificationFacts(result, tr).map(
    (fact) =>
      html`<tr><th scope="row">${fact.label}</th><td>${fact.isCode ? code(fact.value) : fact.value}</td></tr>
`,
  );
  return html`<section class="card" aria-labelledby="result-heading">
<h2 id="result-heading">${fileName ? tr.t('verify.resultFor', { file: fileName }) : tr.t('verify.result')}</h2>
<div class="box ${tones[result.verdict]}" role="status"><p><strong>${verificationSentence(result, tr)}</strong></p></div>
<table class="facts" aria-labelledby="result-heading">
<tbody>
${rows}</tbody>
</table>
${note && html`<p class="small table-note" id="reader-note">${note}</p>`}
</section>
`;
}

function fileForm(view: VerifyPageView): SafeHtml {
  const { tr } = view;
  const error = view.fileError ?? undefined;
  const describedBy = error ? 'file-hint file-error' : 'file-hint';
  return html`<section class="card" aria-labelledby="form-heading">
<h2 id="form-heading">${view.result ? tr.t('verify.another') : tr.t('verify.choose')}</h2>
<form method="post" action="/verify" enctype="multipart/form-data">
<div class="field file-drop">
<label for="file">${tr.t('verify.fileLabel')}</label>
<span class="hint" id="file-hint">${tr.t('verify.fileHint', { size: formatBytes(view.maxBytes) })}</span>
<input id="file" name="file" type="file" accept="application/pdf,.pdf" required aria-describedby="${describedBy}"${error ? html` aria-invalid="true"` : ''}>
${fieldError('file', error)}
</div>
<button type="submit" class="button button-primary">${tr.t('verify.submit')}</button>
</form>
</section>
`;
}

function offline(tr: Translator): SafeHtml {
  return html`<section class="card" aria-labelledby="offline-heading">
<h2 id="offline-heading">${tr.t('verify.offline.heading')}</h2>
<p class="small muted">${richText(tr, 'verify.offline.text', {}, { code: (content) => html`<code>${content}</code>` })}</p>
</section>
`;
}

export function renderVerifyPage(view: VerifyPageView): string {
  const { tr } = view;
  return page({
    title: `${tr.t('verify.title')} · Signet`,
    language: tr,
    body: html`<header class="page-header">
<h1>${tr.t('verify.title')}</h1>
<p class="muted">${tr.t('verify.intro')}</p>
</header>
<main>
${view.notice && notice('error', view.notice)}
${view.result && resultCard(tr, view.result, view.fileName)}
${fileForm(view)}
${offline(tr)}
</main>
<footer>${languageSwitch(tr, '/verify')}</footer>`,
  });
}
