// The recipient signing page, rendered to HTML from a view model in the recipient's language
// (a Translator: every sentence is a key of i18n/catalogues): pure functions, no HTTP and
// no database. The domain decides what the recipient may do (`actions`); this page only shows
// it. Every user-provided text goes through the escaping `html` template. The forms work
// without JavaScript and post to `${basePath}/sign`, `/decline`, `/code`; the one script
// (ui/assets/sign.js) previews the typed signature and offers a pad to draw one.
import type { DocumentStatus } from '../documents/lifecycle.ts';
import type { PricingView } from '../documents/pricing.ts';
import type { FieldControl, FieldType } from '../fields/field-types.ts';
import { endonym, type Language, languages } from '../i18n/languages.ts';
import type { Translator } from '../i18n/messages.ts';
import { brandStylesheetPath, signScript, signStyles } from '../ui/assets.ts';
import { pricingTable, statusBadges } from '../ui/document-views.ts';
import { fieldError, invalidAttrs } from '../ui/forms.ts';
import { html, type SafeHtml } from '../ui/html.ts';
import { richText } from '../ui/rich-text.ts';
import { type Message, messagePage, page, sentWithSignetFooter } from '../ui/shell.ts';

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
  /** The sending workspace's look: its accent colour, and whether the page ends with "Sent with Signet". */
  brand: { accent: string | null; sentWithSignet: boolean };
  document: {
    title: string;
    /** The sending workspace by its brand's name (else its own), as in every mail. */
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

/** An ISO timestamp as a <time> element, in the page's language (UTC, named); a string that is not a date is shown as it is. */
function timestamp(tr: Translator, iso: string): SafeHtml {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return html`${iso}`;
  return html`<time datetime="${date.toISOString()}">${tr.dateTime(date, 'UTC')}</time>`;
}

/**
 * The form action for `${basePath}/${action}`. basePath comes from the route, not the user, but
 * it lands in a URL attribute where escaping does not stop a `javascript:` URL, so anything but
 * a same-origin absolute path is refused.
 */
function formAction(basePath: string, action: 'sign' | 'decline' | 'code' | 'language'): string {
  if (!/^\/(?![/\\])/.test(basePath))
    throw new Error(`basePath must be a path starting with one "/": ${basePath}`);
  return `${basePath.replace(/\/+$/, '')}/${action}`;
}

/** Paragraphs split on blank lines; single newlines inside a paragraph become <br>. */
function documentBody(tr: Translator, body: string): SafeHtml {
  const paragraphs = body
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n/)
    .map((p) => p.replace(/^\n+|\n+$/g, ''))
    .filter((p) => p.trim() !== '');
  if (paragraphs.length === 0) return html`<p class="muted">${tr.t('sign.noText')}</p>`;
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

function header(view: SigningPageView, tr: Translator): SafeHtml {
  const { document } = view;
  const badge = statusBadges[document.status];
  const item = (term: string, iso: string | null) =>
    iso && html`<div><dt>${term}</dt><dd>${timestamp(tr, iso)}</dd></div>`;
  // The expiry only matters while the document is open (or to say when it expired).
  const expiry =
    document.status === 'expired'
      ? item(tr.t('sign.meta.expired'), document.expiresAt)
      : document.status === 'signed' || document.status === 'declined'
        ? null
        : item(tr.t('sign.meta.expires'), document.expiresAt);
  const signed = document.status === 'signed' ? item(tr.t('sign.meta.signed'), document.signedAt) : null;
  const sent = item(tr.t('sign.meta.sent'), document.sentAt);
  return html`<header class="page-header">
<span class="badge ${badge.tone}">${tr.t(badge.label)}</span>
<h1>${document.title}</h1>
<p class="sender">${richText(tr, 'sign.from', { sender: document.sender })}</p>
${(sent || expiry || signed) && html`<dl class="meta">${sent}${signed}${expiry}</dl>`}
${languageSwitch(view, tr)}
</header>`;
}

/**
 * The page's language, to change (a plain form: it works without JavaScript); the choice is
 * the recipient's from then on, for this page and their next mails.
 */
function languageSwitch(view: SigningPageView, tr: Translator): SafeHtml {
  return html`<form class="language-switch small" method="post" action="${formAction(view.basePath, 'language')}">
<label for="page-language">${tr.t('sign.language')}</label>
<select id="page-language" name="language">${languages.map(
    (language: Language) =>
      html`<option value="${language}" lang="${language}"${language === tr.language ? html` selected` : null}>${endonym(language)}</option>`,
  )}</select>
<button type="submit" class="button button-secondary button-small">${tr.t('sign.languageChange')}</button>
</form>`;
}

function notice(view: SigningPageView): SafeHtml | null {
  if (!view.notice) return null;
  const role = view.notice.kind === 'error' ? 'alert' : 'status';
  return html`<div class="notice notice-${view.notice.kind}" role="${role}">${view.notice.text}</div>`;
}

function recipientState(
  tr: Translator,
  r: SigningPageView['recipients'][number],
  isTheirTurn: boolean,
): SafeHtml {
  switch (r.state) {
    case 'signed':
      return html`<span class="badge badge-success">✓ ${tr.t('sign.state.signed')}</span>${r.signedAt && html` <span>${timestamp(tr, r.signedAt)}</span>`}`;
    case 'declined':
      return html`<span class="badge badge-danger">${tr.t('sign.state.declined')}</span>`;
    case 'waiting':
      return isTheirTurn
        ? html`<span class="badge badge-pending">${tr.t('sign.state.yourTurn')}</span>`
        : html`<span class="badge badge-pending">${tr.t('sign.state.waiting')}</span>`;
    case 'viewer':
      return html`<span class="badge">${tr.t('sign.state.viewer')}</span> <span>${tr.t('sign.state.viewerCopy')}</span>`;
  }
}

function recipientsList(view: SigningPageView, tr: Translator): SafeHtml | null {
  if (view.recipients.length === 0) return null;
  return html`<section class="card" aria-labelledby="recipients-heading">
<h2 id="recipients-heading">${tr.t('sign.recipients')}</h2>
<ul class="recipients">
${view.recipients.map(
  (r) =>
    html`<li><span class="recipient-name">${r.fullName}${r.isYou && html` <span class="you">${tr.t('sign.you')}</span>`}</span><span class="state">${recipientState(tr, r, r.isYou && view.actions.canSign)}</span></li>
`,
)}</ul>
</section>`;
}

/** The links to the PDFs: the original while signing, the signed one once it is sealed. */
function downloads(view: SigningPageView, tr: Translator): SafeHtml | null {
  const { original, sealed, sealPending } = view.downloads;
  if (!original && !sealed && !sealPending) return null;
  return html`<ul class="downloads">
${sealed && html`<li><a class="button button-primary" href="${sealed}" download>${tr.t('sign.downloadSigned')}</a> <span class="small muted">${tr.t('sign.downloadSignedNote')}</span></li>`}
${sealPending && html`<li class="small muted">${tr.t('sign.sealPending')}</li>`}
${original && html`<li><a href="${original}" download>${tr.t('sign.downloadOriginal')}</a></li>`}
</ul>`;
}

/** Sentences that say the document or this recipient is done, if either is. */
function finalState(view: SigningPageView, tr: Translator): SafeHtml | null {
  const { document, recipient } = view;
  // A sentence with its moment ("… on 2 Dec 2026, 14:05 UTC.") or without one.
  const at = (
    withTime: Parameters<typeof richText>[1],
    without: Parameters<typeof richText>[1],
    iso: string | null,
  ) => (iso ? richText(tr, withTime, { time: timestamp(tr, iso) }) : richText(tr, without));
  const youSigned =
    recipient.signedAt &&
    html`<p>${at('sign.final.youSignedAt', 'sign.final.youSigned', recipient.signedAt)}</p>`;
  switch (document.status) {
    case 'signed':
      return html`<div class="box box-success" role="status"><p><strong>${at('sign.final.everyoneSignedAt', 'sign.final.everyoneSigned', document.signedAt)}</strong></p>${downloads(view, tr)}</div>`;
    case 'declined':
      return html`<div class="box box-danger" role="status"><p><strong>${
        recipient.declined ? tr.t('sign.final.youDeclined') : tr.t('sign.final.declined')
      }</strong></p>${!recipient.declined && youSigned}</div>`;
    case 'expired':
      return document.withdrawnAt
        ? html`<div class="box box-neutral" role="status"><p><strong>${at('sign.final.withdrawnAt', 'sign.final.withdrawn', document.withdrawnAt)}</strong> ${tr.t('sign.final.withdrawnNote')}</p>${youSigned}</div>`
        : html`<div class="box box-neutral" role="status"><p><strong>${at('sign.final.expiredAt', 'sign.final.expired', document.expiresAt)}</strong></p>${youSigned}</div>`;
    case 'draft':
    case 'sent':
    case 'viewed':
      if (recipient.declined)
        return html`<div class="box box-danger" role="status"><p><strong>${tr.t('sign.final.youDeclined')}</strong></p></div>`;
      if (recipient.signedAt) {
        const othersPending = view.recipients.some((r) => !r.isYou && r.state === 'waiting');
        return html`<div class="box box-success" role="status"><p><strong>${at('sign.final.youSignedAt', 'sign.final.youSigned', recipient.signedAt)}</strong></p>${
          othersPending && html`<p>${tr.t('sign.final.othersPending')}</p>`
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

function signForm(view: SigningPageView, tr: Translator): SafeHtml {
  const { emailCode, recipient } = view;
  const entered = view.entered;
  const codeRequest =
    emailCode &&
    html`<form class="code-request" data-code-request method="post" action="${formAction(view.basePath, 'code')}">
<p class="small">${richText(tr, emailCode.codeSent ? 'sign.code.sent' : 'sign.code.needed', { email: emailCode.sentTo })}</p>
${carriedEntries(view)}<button type="submit" class="button button-secondary">${tr.t(emailCode.codeSent ? 'sign.code.sendNew' : 'sign.code.send')}</button>
</form>
`;
  return html`${codeRequest}<form id="sign-form" data-signature method="post" action="${formAction(view.basePath, 'sign')}">
<p class="signing-as small muted">${richText(tr, 'sign.signingAs', { name: recipient.fullName, email: recipient.email })}</p>
${fieldInputs(view, tr)}
<div class="field">
<label for="sign-full-name">${tr.t('sign.typeName')}</label>
<input type="text" id="sign-full-name" name="fullName" value="${entered?.fullName ?? ''}" autocomplete="name" autocapitalize="words" spellcheck="false" required>
<p class="signature-preview" id="signature-preview" aria-hidden="true">${entered?.fullName.trim() || recipient.fullName}</p>
<p class="hint small muted">${tr.t('sign.typedHint')}</p>
</div>
${signaturePad(tr, entered?.drawn ?? null)}
${
  emailCode &&
  html`<div class="field">
<label for="sign-code">${tr.t('sign.code.label', { email: emailCode.sentTo })}</label>
<input type="text" class="code" id="sign-code" name="code" value="${entered?.code ?? ''}" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code" required>
</div>
`
}<div class="field">
<label class="checkbox" for="sign-consent"><input type="checkbox" id="sign-consent" name="consent" value="yes"${entered?.consent ? html` checked` : null} required><span>${tr.t('sign.consent')}</span></label>
</div>
<button type="submit" class="button button-primary">${tr.t('sign.submit')}</button>
</form>
`;
}

/**
 * The sentences sign.js writes (the field guide's bar, the larger view of a page), in the
 * page's language, as attributes of <main>: "N of M fields left" for every N, so the
 * script needs no plural rules.
 */
function scriptTexts(view: SigningPageView, tr: Translator): SafeHtml {
  const total = view.myFields.filter((f) => f.input).length;
  const left = Array.from({ length: total }, (_, i) => tr.t('sign.guide.left', { left: i + 1, total }));
  return html` data-t-done="${tr.t('sign.guide.done')}" data-t-go="${tr.t('sign.guide.go')}" data-t-next="${tr.t('sign.guide.next')}" data-t-close="${tr.t('sign.close')}" data-t-page="${tr.t('sign.page')}" data-t-left="${JSON.stringify(left)}"`;
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

const optionalMark = (tr: Translator, required: boolean) =>
  required ? html`` : html` <span class="muted">${tr.t('sign.optional')}</span>`;

function control(tr: Translator, f: MyField): SafeHtml {
  const input = f.input as FieldInput;
  return controls[input.kind](f, input, optionalMark(tr, f.required));
}

/** A field's input is shown right after the page it sits on, when that page is shown. */
function besideItsPage(view: SigningPageView, f: MyField): boolean {
  return f.page >= 1 && f.page <= view.pages.length;
}

/**
 * The signer's inputs for the fields on one page, right after that page (so a phone shows
 * the field being filled next to its page); they belong to the sign form through `form=`.
 */
function pageFieldInputs(view: SigningPageView, tr: Translator, page: number): SafeHtml | null {
  const here = view.myFields.filter((f) => f.input && f.page === page);
  if (here.length === 0) return null;
  return html`<fieldset class="my-fields page-fields">
<legend class="label">${tr.t('sign.fieldsOnPage', { count: here.length, page })}</legend>
${here.map((f) => control(tr, f))}</fieldset>`;
}

/**
 * The signer's fields in the sign form, in the order the sender placed them: those beside
 * their pages as links to their inputs (with a refusal's sentence), an input for any other,
 * and a list of those filled for them.
 */
function fieldInputs(view: SigningPageView, tr: Translator): SafeHtml | null {
  if (view.myFields.length === 0) return null;
  const toFill = view.myFields.filter((f) => f.input);
  const beside = toFill.filter((f) => besideItsPage(view, f));
  const here = toFill.filter((f) => !besideItsPage(view, f));
  const filled = view.myFields.filter((f) => !f.input);
  return html`<fieldset class="my-fields" data-fields>
<legend class="label">${tr.t('sign.yourFields', { count: view.myFields.length })}</legend>
${
  beside.length > 0 &&
  html`<p class="small">${tr.t('sign.fillBeside')}</p><ul class="small fields-beside">${beside.map(
    (f) =>
      html`<li><a href="#field-${f.id}">${f.name}</a>${f.required ? null : html` <span class="muted">${tr.t('sign.optional')}</span>`}${f.error && html` <span class="field-error">${f.error}</span>`}</li>`,
  )}</ul>`
}${here.map((f) => control(tr, f))}${
  filled.length > 0 &&
  html`<p class="small muted">${tr.t('sign.filledForYou')}</p><ul class="small filled-for-you">${filled.map(
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
function signaturePad(tr: Translator, drawn: string | null): SafeHtml {
  return html`<fieldset class="choices" data-draw-choice hidden>
<legend class="label">${tr.t('sign.pad.yours')}</legend>
<label class="checkbox"><input type="radio" name="signatureKind" value="typed"${drawn ? null : html` checked`}> ${tr.t('sign.pad.typed')}</label>
<label class="checkbox"><input type="radio" name="signatureKind" value="drawn"${drawn ? html` checked` : null}> ${tr.t('sign.pad.drawn')}</label>
</fieldset>
<div class="field signature-pad" data-pad hidden>
<label for="signature-canvas">${tr.t('sign.pad.draw')}</label>
<canvas id="signature-canvas" width="900" height="300" tabindex="0" role="img" aria-label="${tr.t('sign.pad.label')}"></canvas>
<p class="field-error" data-pad-problem hidden>${tr.t('sign.pad.drawFirst')}</p>
<div class="actions"><button type="button" class="button button-secondary button-small" data-clear>${tr.t('sign.pad.clear')}</button></div>
<input type="hidden" name="signatureImage" value="${drawn ?? ''}">
</div>
`;
}

function declineForm(view: SigningPageView, tr: Translator): SafeHtml {
  return html`<details class="decline">
<summary>${tr.t('sign.decline.summary')}</summary>
<form method="post" action="${formAction(view.basePath, 'decline')}">
<div class="field">
<label for="decline-reason">${tr.t('sign.decline.reason')}</label>
<textarea id="decline-reason" name="reason" maxlength="1000" rows="4"></textarea>
</div>
<p class="small">${tr.t('sign.decline.ends')}</p>
<div class="field">
<label class="checkbox" for="decline-confirm"><input type="checkbox" id="decline-confirm" name="confirm" value="yes" required><span>${tr.t('sign.decline.confirm')}</span></label>
</div>
<button type="submit" class="button button-danger">${tr.t('sign.decline.submit')}</button>
</form>
</details>
`;
}

function actionArea(view: SigningPageView, tr: Translator): SafeHtml {
  const { actions, recipient } = view;
  const final = finalState(view, tr);
  const waiting =
    actions.waitingFor.length > 0 &&
    html`<div class="box box-info" role="status"><p>${tr.t('sign.waitingFor', { count: actions.waitingFor.length, names: tr.list(actions.waitingFor) })}</p></div>
`;
  const viewer =
    recipient.role === 'viewer' &&
    html`<div class="box box-neutral"><p>${tr.t('sign.viewerNote')}</p></div>
`;
  const heading = actions.canSign ? tr.t('sign.heading') : tr.t('sign.yourPart');
  return html`<section class="card actions" aria-labelledby="actions-heading">
<h2 id="actions-heading">${heading}</h2>
${final}
${waiting}${viewer}${actions.canSign && signForm(view, tr)}${actions.canDecline && declineForm(view, tr)}${
  !final && !waiting && !viewer && !actions.canSign && !actions.canDecline
    ? html`<div class="box box-neutral"><p>${tr.t('sign.nothingToDo')}</p></div>`
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
function documentSection(view: SigningPageView, tr: Translator): SafeHtml {
  const count = view.pages.length;
  const hasText = view.document.body.trim() !== '';
  const text = html`<div class="document-body" dir="auto">
${documentBody(tr, view.document.body)}</div>`;
  const original = view.downloads.original;
  const pages =
    count > 0 &&
    html`<ol class="pages">${view.pages.map(
      (p) =>
        html`<li><figure><div class="page-frame"><a class="page-link" href="${p.src}" data-page-link><img src="${p.src}" alt="${tr.t('sign.pageAlt', { page: p.number, count, title: view.document.title })}" ${p.size ? html`width="1200" height="${Math.max(1, Math.round((1200 * p.size.height) / p.size.width))}" ` : null}loading="${p.number <= 2 ? 'eager' : 'lazy'}"></a>${fieldLayer(p.fields)}</div><figcaption class="small muted">${tr.t('sign.pageCaption', { page: p.number, count })}</figcaption></figure>${pageFieldInputs(view, tr, p.number)}</li>`,
    )}</ol>
${original && html`<p class="small">${richText(tr, 'sign.downloadToRead', {}, { link: (content) => html`<a href="${original}" download>${content}</a>` })}</p>`}`;
  return html`<section class="card" aria-labelledby="document-heading">
<h2 id="document-heading">${tr.t('sign.document')}${count > 0 && html` <span class="muted small">(${tr.t('sign.pageCount', { count })})</span>`}</h2>
${count === 0 && text}
${count > 0 && hasText && !view.textIsPages && html`<h3 class="small muted">${tr.t('sign.senderMessage')}</h3>${text}`}
${pages}
${count > 0 && hasText && view.textIsPages && html`<details class="document-text"><summary>${tr.t('sign.readAsText')}</summary>${text}</details>`}
</section>`;
}

export function renderSigningPage(view: SigningPageView, tr: Translator): string {
  return page({
    title: view.document.title,
    language: tr,
    script: signScript,
    styles: signStyles,
    stylesheet: view.brand.accent ? brandStylesheetPath(view.brand.accent) : null,
    favicon: true,
    body: html`${header(view, tr)}
<main${scriptTexts(view, tr)}>
${notice(view)}
${documentSection(view, tr)}
${view.pricing && pricingTable(view.pricing, tr)}
${recipientsList(view, tr)}
${actionArea(view, tr)}
</main>
${sentWithSignetFooter(view.brand, tr)}`,
  });
}

/** A signing link's message page (a link that does not work, an error), in the page's language. */
export function renderSigningMessagePage(view: SigningMessagePageView, tr: Translator): string {
  return messagePage(view, tr);
}
