// The public verify page (/verify), rendered from a view model: pure functions, no HTTP and
// no database. A plain page (no script, the base styles inline): a file input in a multipart
// form that works without JavaScript, and the answer above it as one sentence and a table.
// The sentence and the rows are the service's (verification.service.ts), so the page and
// `signet verify` say the same thing.
import { formatBytes } from '../pdf/inspect.ts';
import { fieldError, notice } from '../ui/forms.ts';
import { html, type SafeHtml } from '../ui/html.ts';
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

function resultCard(result: Verification, fileName: string | null): SafeHtml {
  const note = readerNote(result);
  const rows = verificationFacts(result).map(
    (fact) =>
      html`<tr><th scope="row">${fact.label}</th><td>${fact.isCode ? code(fact.value) : fact.value}</td></tr>
`,
  );
  return html`<section class="card" aria-labelledby="result-heading">
<h2 id="result-heading">${fileName ? html`Result for ${fileName}` : 'Result'}</h2>
<div class="box ${tones[result.verdict]}" role="status"><p><strong>${verificationSentence(result)}</strong></p></div>
<table class="facts" aria-labelledby="result-heading">
<tbody>
${rows}</tbody>
</table>
${note && html`<p class="small table-note" id="reader-note">${note}</p>`}
</section>
`;
}

function fileForm(view: VerifyPageView): SafeHtml {
  const error = view.fileError ?? undefined;
  const describedBy = error ? 'file-hint file-error' : 'file-hint';
  return html`<section class="card" aria-labelledby="form-heading">
<h2 id="form-heading">${view.result ? 'Verify another PDF' : 'Choose the PDF'}</h2>
<form method="post" action="/verify" enctype="multipart/form-data">
<div class="field file-drop">
<label for="file">Sealed PDF</label>
<span class="hint" id="file-hint">The PDF you received when everyone had signed, up to ${formatBytes(view.maxBytes)}. It is checked and forgotten: nothing is stored.</span>
<input id="file" name="file" type="file" accept="application/pdf,.pdf" required aria-describedby="${describedBy}"${error ? html` aria-invalid="true"` : ''}>
${fieldError('file', error)}
</div>
<button type="submit" class="button button-primary">Verify</button>
</form>
</section>
`;
}

const offline = html`<section class="card" aria-labelledby="offline-heading">
<h2 id="offline-heading">Without this page</h2>
<p class="small muted">A sealed PDF carries a standard PDF signature (PAdES), which PDF readers check offline and which permits no later change. <code>pdfsig file.pdf</code> (poppler) reports it as valid, and Adobe Acrobat Reader shows the seal certificate as the signer in its signature panel; a change to the file shows there too. With Signet’s default self-signed seal, readers show the signer’s identity as unknown (“validity unknown”, “issuer unknown”) until the operator configures a seal certificate they trust. Only this page compares the file with what this Signet issued: a replaced or removed time-stamp, or data added inside the signature, does not show there.</p>
</section>
`;

export function renderVerifyPage(view: VerifyPageView): string {
  return page({
    title: 'Verify a sealed PDF · Signet',
    body: html`<header class="page-header">
<h1>Verify a sealed PDF</h1>
<p class="muted">Check that a PDF was sealed by this Signet and has not changed since.</p>
</header>
<main>
${view.notice && notice('error', view.notice)}
${view.result && resultCard(view.result, view.fileName)}
${fileForm(view)}
${offline}
</main>`,
  });
}
