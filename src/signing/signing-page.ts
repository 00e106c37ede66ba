// The recipient signing page, rendered to HTML from a view model: pure functions, no HTTP and
// no database. The domain decides what the recipient may do (`actions`); this page only shows
// it. Every user-provided text goes through the escaping `html` template. The forms work
// without JavaScript and post to `${basePath}/sign`, `/decline`, `/code`; the one script
// (ui/assets/sign.js) previews the typed signature and offers a pad to draw one.
import type { DocumentStatus } from '../documents/lifecycle.ts';
import type { PricingView } from '../documents/pricing.ts';
import type { FieldControl, FieldType } from '../fields/field-types.ts';
import { signScript, signStyles } from '../ui/assets.ts';
import { pricingTable, statusBadges } from '../ui/document-views.ts';
import { fieldError, invalidAttrs } from '../ui/forms.ts';
import { html, type SafeHtml } from '../ui/html.ts';
import { type Message, messagePage, page } from '../ui/shell.ts';

export type RecipientRole = 'signer' | 'viewer';

/**
 * The sign form as the signer left it, shown again after a refusal (a wrong code, a name
 * that does not match) or after asking for a code from it: nothing they entered is lost.
 * `drawn` is the drawn signature as it was posted (a PNG data URL), drawn on the pad again.
 */
export interface SignFormEntries {
  fullName: string;
  consent: boolean;
  code: string;
  drawn: string | null;
}
export type RecipientState = 'signed' | 'declined' | 'waiting' | 'viewer';

export interface SigningPageView {
  document: {
    title: string;
    /** The sending workspace, named on the page as in every mail. */
    sender: string;
    body: string;
    status: DocumentStatus;
    sentAt: string | null;
    expiresAt: string | null;
    signedAt: string | null;
    /** When the sender withdrew it (its status is then `expired`). */
    withdrawnAt: string | null;
  };
  pricing: PricingView | null;
  recipient: {
    fullName: string;
    email: string;
    role: RecipientRole;
    signingMethod: 'standard' | 'email-code';
    signedAt: string | null;
    declined: boolean;
  };
  recipients: Array<{
    fullName: string;
    role: RecipientRole;
    signingOrder: number;
    state: RecipientState;
    signedAt: string | null;
    isYou: boolean;
  }>;
  /** What this recipient may do now; decided by the domain, the page only shows it. */
  actions: {
    canSign: boolean;
    canDecline: boolean;
    /** Names of earlier signers, non-empty when it is not yet this recipient's turn. */
    waitingFor: string[];
  };
  emailCode: null | { /** Masked email. */ sentTo: string; codeSent: boolean };
  /** The sign form as the signer left it, after a refusal or a code asked for; null on a fresh page. */
  entered: SignFormEntries | null;
  /** Where forms post: `${basePath}/sign`, `${basePath}/decline`, `${basePath}/code`. */
  basePath: string;
  /** A one-line message after an action, e.g. { kind: 'success', text: 'You signed this document.' }. */
  notice: null | { kind: 'success' | 'error' | 'info'; text: string };
  /**
   * The PDF's pages as images (`src` answers a PNG), in order; none before there is a PDF.
   * `fields`: the rectangles of the fields on the page, in its displayed size (points, y
   * from the top), drawn over the image; null when it has none.
   */
  pages: Array<{
    number: number;
    src: string;
    /** The page's displayed size in points: the image's proportions before it arrives. */
    size: { width: number; height: number } | null;
    fields: null | {
      width: number;
      height: number;
      boxes: Array<{
        id: string;
        x: number;
        y: number;
        width: number;
        height: number;
        mine: boolean;
        filled: boolean;
        title: string;
        /** A value the sender gave it, shown in the box as it will be drawn (null for none). */
        value: string | null;
      }>;
    };
  }>;
  /** This signer's fields, when they may sign now: inputs for theirs, the rest named. */
  myFields: Array<{
    id: string;
    type: FieldType;
    /** The page it sits on (its input is shown right after that page). */
    page: number;
    /** "Text “Company” on page 2". */
    name: string;
    required: boolean;
    input: null | { kind: FieldControl; value: string; maxLength: number | null };
    /** What the service fills in, for a field without input. */
    filledBy: string | null;
    error: string | null;
  }>;
  /** The pages were made from the text (so the text is the document), else it is a message. */
  textIsPages: boolean;
  /** Download links (valid 15 minutes); `sealPending` while the sealed PDF is being made. */
  downloads: { original: string | null; sealed: string | null; sealPending: boolean };
}

export type SigningMessagePageView = Message;

const dateFormat = new Intl.DateTimeFormat('en-GB', {
  dateStyle: 'medium',
  timeStyle: 'short',
  timeZone: 'UTC',
});

/** "23 Nov 2026, 14:05 UTC" as text for an ISO timestamp. */
export function formatTimestamp(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${dateFormat.format(date)} UTC`;
}

/** An ISO timestamp as a <time> element; a string that is not a date is shown as it is. */
function timestamp(iso: string): SafeHtml {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return html`${iso}`;
  return html`<time datetime="${date.toISOString()}">${formatTimestamp(iso)}</time>`;
}

/**
 * The form action for `${basePath}/${action}`. basePath comes from the route, not the user, but
 * it lands in a URL attribute where escaping does not stop a `javascript:` URL, so anything but
 * a same-origin absolute path is refused.
 */
function formAction(basePath: string, action: 'sign' | 'decline' | 'code'): string {
  if (!/^\/(?![/\\])/.test(basePath))
    throw new Error(`basePath must be a path starting with one "/": ${basePath}`);
  return `${basePath.replace(/\/+$/, '')}/${action}`;
}

/** Paragraphs split on blank lines; single newlines inside a paragraph become <br>. */
function documentBody(body: string): SafeHtml {
  const paragraphs = body
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n/)
    .map((p) => p.replace(/^\n+|\n+$/g, ''))
    .filter((p) => p.trim() !== '');
  if (paragraphs.length === 0) return html`<p class="muted">This document has no text.</p>`;
  return html`${paragraphs.map(
    (p) =>
      html`<p>${p.split('\n').map((line, i) =>
        i === 0
          ? html`${line}`
          : html`<br>
${line}`,
      )}</p>
`,
  )}`;
}

function header(view: SigningPageView): SafeHtml {
  const { document } = view;
  const badge = statusBadges[document.status];
  const item = (term: string, iso: string | null) =>
    iso && html`<div><dt>${term}</dt><dd>${timestamp(iso)}</dd></div>`;
  // The expiry only matters while the document is open (or to say when it expired).
  const expiry =
    document.status === 'expired'
      ? item('Expired', document.expiresAt)
      : document.status === 'signed' || document.status === 'declined'
        ? null
        : item('Expires', document.expiresAt);
  const signed = document.status === 'signed' ? item('Signed', document.signedAt) : null;
  const sent = item('Sent', document.sentAt);
  return html`<header class="page-header">
<span class="badge ${badge.tone}">${badge.label}</span>
<h1>${document.title}</h1>
<p class="sender">From <strong>${document.sender}</strong></p>
${(sent || expiry || signed) && html`<dl class="meta">${sent}${signed}${expiry}</dl>`}
</header>`;
}

function notice(view: SigningPageView): SafeHtml | null {
  if (!view.notice) return null;
  const role = view.notice.kind === 'error' ? 'alert' : 'status';
  return html`<div class="notice notice-${view.notice.kind}" role="${role}">${view.notice.text}</div>`;
}

const names = new Intl.ListFormat('en', { style: 'long', type: 'conjunction' });

function recipientState(r: SigningPageView['recipients'][number], isTheirTurn: boolean): SafeHtml {
  switch (r.state) {
    case 'signed':
      return html`<span class="badge badge-success">✓ Signed</span>${r.signedAt && html` <span>${timestamp(r.signedAt)}</span>`}`;
    case 'declined':
      return html`<span class="badge badge-danger">Declined</span>`;
    case 'waiting':
      return isTheirTurn
        ? html`<span class="badge badge-pending">Your turn</span>`
        : html`<span class="badge badge-pending">Waiting</span>`;
    case 'viewer':
      return html`<span class="badge">Viewer</span> <span>(receives a copy)</span>`;
  }
}

function recipientsList(view: SigningPageView): SafeHtml | null {
  if (view.recipients.length === 0) return null;
  return html`<section class="card" aria-labelledby="recipients-heading">
<h2 id="recipients-heading">Recipients</h2>
<ul class="recipients">
${view.recipients.map(
  (r) =>
    html`<li><span class="recipient-name">${r.fullName}${r.isYou && html` <span class="you">(you)</span>`}</span><span class="state">${recipientState(r, r.isYou && view.actions.canSign)}</span></li>
`,
)}</ul>
</section>`;
}

/** The links to the PDFs: the original while signing, the signed one once it is sealed. */
function downloads(view: SigningPageView): SafeHtml | null {
  const { original, sealed, sealPending } = view.downloads;
  if (!original && !sealed && !sealPending) return null;
  return html`<ul class="downloads">
${sealed && html`<li><a class="button button-primary" href="${sealed}" download>Download the signed PDF</a> <span class="small muted">with its certificate of completion; also sent to you by email</span></li>`}
${sealPending && html`<li class="small muted">The signed PDF, with its certificate of completion, is being sealed: reload this page in a moment to download it. It is also sent to you by email.</li>`}
${original && html`<li><a href="${original}" download>Download the original PDF</a></li>`}
</ul>`;
}

/** Sentences that say the document or this recipient is done, if either is. */
function finalState(view: SigningPageView): SafeHtml | null {
  const { document, recipient } = view;
  const on = (iso: string | null) => (iso ? html` on ${timestamp(iso)}` : null);
  const youSigned = recipient.signedAt && html`<p>You signed this document${on(recipient.signedAt)}.</p>`;
  switch (document.status) {
    case 'signed':
      return html`<div class="box box-success" role="status"><p><strong>This document was signed by everyone${on(document.signedAt)}.</strong></p>${downloads(view)}</div>`;
    case 'declined':
      return html`<div class="box box-danger" role="status"><p><strong>${
        recipient.declined ? 'You declined to sign this document.' : 'This document was declined.'
      }</strong></p>${!recipient.declined && youSigned}</div>`;
    case 'expired':
      return document.withdrawnAt
        ? html`<div class="box box-neutral" role="status"><p><strong>The sender withdrew this document${on(document.withdrawnAt)}.</strong> It can no longer be signed; there is nothing for you to do.</p>${youSigned}</div>`
        : html`<div class="box box-neutral" role="status"><p><strong>This document expired${on(document.expiresAt)}.</strong></p>${youSigned}</div>`;
    case 'draft':
    case 'sent':
    case 'viewed':
      if (recipient.declined)
        return html`<div class="box box-danger" role="status"><p><strong>You declined to sign this document.</strong></p></div>`;
      if (recipient.signedAt) {
        const othersPending = view.recipients.some((r) => !r.isYou && r.state === 'waiting');
        return html`<div class="box box-success" role="status"><p><strong>You signed this document${on(recipient.signedAt)}.</strong></p>${
          othersPending &&
          html`<p>Other signers have not signed yet. When everyone has signed, you get the signed PDF by email.</p>`
        }</div>`;
      }
      return null;
    default: {
      // Every status is listed above: a new one fails the type check here instead of
      // showing its signer the page of a document still being signed.
      const unknown: never = document.status;
      throw new Error(`No final state for the document status ${String(unknown)}`);
    }
  }
}

/**
 * What the signer has entered so far, as hidden inputs of the code request's form: asking
 * for a code after a refusal keeps it all (sign.js copies the live form in the same way).
 */
function carriedEntries(view: SigningPageView): SafeHtml | null {
  const { entered } = view;
  if (!entered) return null;
  const hidden = (name: string, value: string) => html`<input type="hidden" name="${name}" value="${value}">`;
  return html`<div data-carried>${view.myFields.map((f) =>
    f.input && f.input.value !== '' ? hidden(`field.${f.id}`, f.input.value) : null,
  )}${entered.fullName && hidden('fullName', entered.fullName)}${entered.consent && hidden('consent', 'yes')}${
    entered.drawn && html`${hidden('signatureKind', 'drawn')}${hidden('signatureImage', entered.drawn)}`
  }</div>`;
}

function signForm(view: SigningPageView): SafeHtml {
  const { emailCode, recipient } = view;
  const entered = view.entered;
  const codeRequest =
    emailCode &&
    html`<form class="code-request" data-code-request method="post" action="${formAction(view.basePath, 'code')}">
<p class="small">${
      emailCode.codeSent
        ? html`We sent a 6-digit code to <strong>${emailCode.sentTo}</strong>. It can take a minute to arrive.`
        : html`To sign, you need a 6-digit code that we send to <strong>${emailCode.sentTo}</strong>.`
    }</p>
${carriedEntries(view)}<button type="submit" class="button button-secondary">${emailCode.codeSent ? 'Send a new code' : 'Send code'}</button>
</form>
`;
  return html`${codeRequest}<form id="sign-form" data-signature method="post" action="${formAction(view.basePath, 'sign')}">
<p class="signing-as small muted">Signing as <strong>${recipient.fullName}</strong> (${recipient.email})</p>
${fieldInputs(view)}
<div class="field">
<label for="sign-full-name">Type your full name to sign</label>
<input type="text" id="sign-full-name" name="fullName" value="${entered?.fullName ?? ''}" autocomplete="name" autocapitalize="words" spellcheck="false" required>
<p class="signature-preview" id="signature-preview" aria-hidden="true">${entered?.fullName.trim() || recipient.fullName}</p>
<p class="hint small muted">Your typed name becomes your signature, set in this handwriting.</p>
</div>
${signaturePad(entered?.drawn ?? null)}
${
  emailCode &&
  html`<div class="field">
<label for="sign-code">6-digit code sent to ${emailCode.sentTo}</label>
<input type="text" class="code" id="sign-code" name="code" value="${entered?.code ?? ''}" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code" required>
</div>
`
}<div class="field">
<label class="checkbox" for="sign-consent"><input type="checkbox" id="sign-consent" name="consent" value="yes"${entered?.consent ? html` checked` : null} required><span>I agree to sign this document electronically, and that the signature I adopt here (typed or drawn) is my signature.</span></label>
</div>
<button type="submit" class="button button-primary">Sign document</button>
</form>
`;
}

type MyField = SigningPageView['myFields'][number];
type FieldInput = NonNullable<MyField['input']>;

/** Each form control a field's type asks for (fields/field-types.ts), as the page renders it. */
const controls: Record<FieldControl, (f: MyField, input: FieldInput, mark: SafeHtml) => SafeHtml> = {
  checkbox: (f, input, mark) => {
    const id = `field-${f.id}`;
    return html`<div class="field" data-field-input="${f.id}"><label class="checkbox" for="${id}"><input type="checkbox" id="${id}" name="field.${f.id}" form="sign-form" value="yes"${input.value === 'yes' ? html` checked` : null}${f.required ? html` required` : null} ${invalidAttrs(id, f.error ?? undefined)}><span>${f.name}${mark}</span></label>${fieldError(id, f.error ?? undefined)}</div>
`;
  },
  text: (f, input, mark) => {
    const id = `field-${f.id}`;
    return html`<div class="field" data-field-input="${f.id}"><label for="${id}">${f.name}${mark}</label><input type="text" id="${id}" name="field.${f.id}" form="sign-form" value="${input.value}"${input.maxLength ? html` maxlength="${input.maxLength}"` : null}${f.required ? html` required` : null} ${invalidAttrs(id, f.error ?? undefined)}>${fieldError(id, f.error ?? undefined)}</div>
`;
  },
};

const optionalMark = (required: boolean) =>
  required ? html`` : html` <span class="muted">(optional)</span>`;

function control(f: MyField): SafeHtml {
  const input = f.input as FieldInput;
  return controls[input.kind](f, input, optionalMark(f.required));
}

/** A field's input is shown right after the page it sits on, when that page is shown. */
function besideItsPage(view: SigningPageView, f: MyField): boolean {
  return f.page >= 1 && f.page <= view.pages.length;
}

/**
 * The signer's inputs for the fields on one page, right after that page (so a phone shows
 * the field being filled next to its page); they belong to the sign form through `form=`.
 */
function pageFieldInputs(view: SigningPageView, page: number): SafeHtml | null {
  const here = view.myFields.filter((f) => f.input && f.page === page);
  if (here.length === 0) return null;
  return html`<fieldset class="my-fields page-fields">
<legend class="label">Your ${here.length === 1 ? 'field' : 'fields'} on page ${page}</legend>
${here.map(control)}</fieldset>`;
}

/**
 * The signer's fields in the sign form, in the order the sender placed them: those beside
 * their pages as links to their inputs (with a refusal's sentence), an input for any other,
 * and a list of those filled for them.
 */
function fieldInputs(view: SigningPageView): SafeHtml | null {
  if (view.myFields.length === 0) return null;
  const toFill = view.myFields.filter((f) => f.input);
  const beside = toFill.filter((f) => besideItsPage(view, f));
  const here = toFill.filter((f) => !besideItsPage(view, f));
  const filled = view.myFields.filter((f) => !f.input);
  return html`<fieldset class="my-fields" data-fields>
<legend class="label">Your fields (${view.myFields.length})</legend>
${
  beside.length > 0 &&
  html`<p class="small">Fill in beside their pages above:</p><ul class="small fields-beside">${beside.map(
    (f) =>
      html`<li><a href="#field-${f.id}">${f.name}</a>${f.required ? null : html` <span class="muted">(optional)</span>`}${f.error && html` <span class="field-error">${f.error}</span>`}</li>`,
  )}</ul>`
}${here.map(control)}${
  filled.length > 0 &&
  html`<p class="small muted">Filled in for you when you sign:</p><ul class="small filled-for-you">${filled.map(
    (f) => html`<li data-field-input="${f.id}">${f.name}: ${f.filledBy}</li>`,
  )}</ul>`
}
</fieldset>
`;
}

/**
 * Drawing instead of typing: hidden until the page's script runs (a pad needs it); the
 * script fills `signatureImage` with the drawing as a PNG when the form is sent. A drawing
 * kept after a refusal comes back in `signatureImage`, and the script draws it on the pad.
 */
function signaturePad(drawn: string | null): SafeHtml {
  return html`<fieldset class="choices" data-draw-choice hidden>
<legend class="label">Your signature</legend>
<label class="checkbox"><input type="radio" name="signatureKind" value="typed"${drawn ? null : html` checked`}> Typed</label>
<label class="checkbox"><input type="radio" name="signatureKind" value="drawn"${drawn ? html` checked` : null}> Drawn</label>
</fieldset>
<div class="field signature-pad" data-pad hidden>
<label for="signature-canvas">Draw your signature with a mouse, finger or pen</label>
<canvas id="signature-canvas" width="900" height="300" tabindex="0" role="img" aria-label="Signature pad"></canvas>
<p class="field-error" data-pad-problem hidden>Draw your signature first, or choose Typed.</p>
<div class="actions"><button type="button" class="button button-secondary button-small" data-clear>Clear</button></div>
<input type="hidden" name="signatureImage" value="${drawn ?? ''}">
</div>
`;
}

function declineForm(view: SigningPageView): SafeHtml {
  return html`<details class="decline">
<summary>Decline to sign…</summary>
<form method="post" action="${formAction(view.basePath, 'decline')}">
<div class="field">
<label for="decline-reason">Reason (optional)</label>
<textarea id="decline-reason" name="reason" maxlength="1000" rows="4"></textarea>
</div>
<p class="small">Declining ends the signing for everyone: the sender is told, and nobody can sign this document any more.</p>
<div class="field">
<label class="checkbox" for="decline-confirm"><input type="checkbox" id="decline-confirm" name="confirm" value="yes" required><span>Yes, I decline to sign this document.</span></label>
</div>
<button type="submit" class="button button-danger">Decline to sign</button>
</form>
</details>
`;
}

function actionArea(view: SigningPageView): SafeHtml {
  const { actions, recipient } = view;
  const final = finalState(view);
  const waiting =
    actions.waitingFor.length > 0 &&
    html`<div class="box box-info" role="status"><p>You can sign once ${names.format(actions.waitingFor)} ${actions.waitingFor.length === 1 ? 'has' : 'have'} signed.</p></div>
`;
  const viewer =
    recipient.role === 'viewer' &&
    html`<div class="box box-neutral"><p>You receive this document for your information; no signature is needed from you.</p></div>
`;
  const heading = actions.canSign ? 'Sign this document' : 'Your part';
  return html`<section class="card actions" aria-labelledby="actions-heading">
<h2 id="actions-heading">${heading}</h2>
${final}
${waiting}${viewer}${actions.canSign && signForm(view)}${actions.canDecline && declineForm(view)}${
  !final && !waiting && !viewer && !actions.canSign && !actions.canDecline
    ? html`<div class="box box-neutral"><p>There is nothing for you to do on this document right now.</p></div>`
    : null
}
</section>`;
}

/**
 * The fields over a page image: an SVG in the page's own coordinates, stretched over the
 * image (SVG attributes, not inline styles, so the page's policy needs no exception). It
 * is decoration for sighted readers: the signer's inputs, each naming its page, are in the
 * form, so the layer is hidden from assistive technology.
 */
function fieldLayer(fields: SigningPageView['pages'][number]['fields']): SafeHtml | null {
  if (!fields) return null;
  return html`<svg class="field-layer" viewBox="0 0 ${fields.width} ${fields.height}" preserveAspectRatio="none" aria-hidden="true" focusable="false">${fields.boxes.map(
    (box) =>
      html`<rect data-field="${box.id}" class="field-box ${box.mine ? 'field-mine' : 'field-other'}${box.filled ? ' field-filled' : ''}" x="${box.x}" y="${box.y}" width="${box.width}" height="${box.height}"><title>${box.title}</title></rect>${
        box.value === null
          ? null
          : html`<text class="field-value" x="${box.x + 2}" y="${box.y + box.height * 0.72}" font-size="${Math.min(box.height * 0.7, 12)}">${box.value}</text>`
      }`,
  )}</svg>`;
}

/**
 * The document: its pages as images. The text stays readable as text (a screen reader
 * cannot read an image): folded under the pages when the pages were made from it, above
 * them as the sender's message beside an uploaded PDF, and alone before there are pages.
 */
function documentSection(view: SigningPageView): SafeHtml {
  const count = view.pages.length;
  const hasText = view.document.body.trim() !== '';
  const text = html`<div class="document-body">
${documentBody(view.document.body)}</div>`;
  const pages =
    count > 0 &&
    html`<ol class="pages">${view.pages.map(
      (p) =>
        html`<li><figure><div class="page-frame"><a class="page-link" href="${p.src}" data-page-link><img src="${p.src}" alt="Page ${p.number} of ${count} of ${view.document.title}" ${p.size ? html`width="1200" height="${Math.max(1, Math.round((1200 * p.size.height) / p.size.width))}" ` : null}loading="${p.number <= 2 ? 'eager' : 'lazy'}"></a>${fieldLayer(p.fields)}</div><figcaption class="small muted">Page ${p.number} of ${count}</figcaption></figure>${pageFieldInputs(view, p.number)}</li>`,
    )}</ol>
${view.downloads.original && html`<p class="small"><a href="${view.downloads.original}" download>Download the PDF</a> to read it in your own viewer.</p>`}`;
  return html`<section class="card" aria-labelledby="document-heading">
<h2 id="document-heading">Document${count > 0 && html` <span class="muted small">(${count} ${count === 1 ? 'page' : 'pages'})</span>`}</h2>
${count === 0 && text}
${count > 0 && hasText && !view.textIsPages && html`<h3 class="small muted">Message from the sender</h3>${text}`}
${pages}
${count > 0 && hasText && view.textIsPages && html`<details class="document-text"><summary>Read the document as text</summary>${text}</details>`}
</section>`;
}

export function renderSigningPage(view: SigningPageView): string {
  return page({
    title: view.document.title,
    script: signScript,
    styles: signStyles,
    favicon: true,
    body: html`${header(view)}
<main>
${notice(view)}
${documentSection(view)}
${view.pricing && pricingTable(view.pricing)}
${recipientsList(view)}
${actionArea(view)}
</main>`,
  });
}

/** A signing link's message page (a link that does not work, an error): the plain message page. */
export function renderSigningMessagePage(view: SigningMessagePageView): string {
  return messagePage(view);
}
