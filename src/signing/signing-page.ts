// The recipient signing page, rendered to HTML from a view model: pure functions, no HTTP and
// no database. The domain decides what the recipient may do (`actions`); this page only shows
// it. Every user-provided text goes through the escaping `html` template. The forms work
// without JavaScript (the page has none) and post to `${basePath}/sign`, `/decline`, `/code`.
import type { DocumentStatus } from '../documents/lifecycle.ts';
import { type PricingView, pricingTable, statusBadges } from '../ui/document-views.ts';
import { html, type SafeHtml } from '../ui/html.ts';
import { type Message, messagePage, page } from '../ui/shell.ts';

export type RecipientRole = 'signer' | 'viewer';
export type RecipientState = 'signed' | 'declined' | 'waiting' | 'viewer';

export interface SigningPageView {
  document: {
    title: string;
    body: string;
    status: DocumentStatus;
    sentAt: string | null;
    expiresAt: string | null;
    signedAt: string | null;
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
  /** Where forms post: `${basePath}/sign`, `${basePath}/decline`, `${basePath}/code`. */
  basePath: string;
  /** A one-line message after an action, e.g. { kind: 'success', text: 'You signed this document.' }. */
  notice: null | { kind: 'success' | 'error' | 'info'; text: string };
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

/** Sentences that say the document or this recipient is done, if either is. */
function finalState(view: SigningPageView): SafeHtml | null {
  const { document, recipient } = view;
  const on = (iso: string | null) => (iso ? html` on ${timestamp(iso)}` : null);
  const youSigned = recipient.signedAt && html`<p>You signed this document${on(recipient.signedAt)}.</p>`;
  switch (document.status) {
    case 'signed':
      return html`<div class="box box-success" role="status"><p><strong>This document was signed by everyone${on(document.signedAt)}.</strong></p></div>`;
    case 'declined':
      return html`<div class="box box-danger" role="status"><p><strong>${
        recipient.declined ? 'You declined to sign this document.' : 'This document was declined.'
      }</strong></p>${!recipient.declined && youSigned}</div>`;
    case 'expired':
      return html`<div class="box box-neutral" role="status"><p><strong>This document expired${on(document.expiresAt)}.</strong></p>${youSigned}</div>`;
    default:
      if (recipient.declined)
        return html`<div class="box box-danger" role="status"><p><strong>You declined to sign this document.</strong></p></div>`;
      if (recipient.signedAt) {
        const othersPending = view.recipients.some((r) => !r.isYou && r.state === 'waiting');
        return html`<div class="box box-success" role="status"><p><strong>You signed this document${on(recipient.signedAt)}.</strong></p>${
          othersPending && html`<p>Other signers have not signed yet.</p>`
        }</div>`;
      }
      return null;
  }
}

function signForm(view: SigningPageView): SafeHtml {
  const { emailCode, recipient } = view;
  const codeRequest =
    emailCode &&
    html`<form class="code-request" method="post" action="${formAction(view.basePath, 'code')}">
<p class="small">${
      emailCode.codeSent
        ? html`We sent a 6-digit code to <strong>${emailCode.sentTo}</strong>. It can take a minute to arrive.`
        : html`To sign, you need a 6-digit code that we send to <strong>${emailCode.sentTo}</strong>.`
    }</p>
<button type="submit" class="button button-secondary">${emailCode.codeSent ? 'Send a new code' : 'Send code'}</button>
</form>
`;
  return html`${codeRequest}<form method="post" action="${formAction(view.basePath, 'sign')}">
<p class="signing-as small muted">Signing as <strong>${recipient.fullName}</strong> (${recipient.email})</p>
<div class="field">
<label for="sign-full-name">Type your full name to sign</label>
<input type="text" id="sign-full-name" name="fullName" autocomplete="name" autocapitalize="words" spellcheck="false" required>
</div>
${
  emailCode &&
  html`<div class="field">
<label for="sign-code">6-digit code sent to ${emailCode.sentTo}</label>
<input type="text" class="code" id="sign-code" name="code" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code" required>
</div>
`
}<div class="field">
<label class="checkbox" for="sign-consent"><input type="checkbox" id="sign-consent" name="consent" value="yes" required><span>I agree to sign this document electronically and that my typed name is my signature.</span></label>
</div>
<button type="submit" class="button button-primary">Sign document</button>
</form>
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

export function renderSigningPage(view: SigningPageView): string {
  return page({
    title: view.document.title,
    body: html`${header(view)}
<main>
${notice(view)}
<section class="card" aria-labelledby="document-heading">
<h2 id="document-heading">Document</h2>
<div class="document-body">
${documentBody(view.document.body)}</div>
</section>
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
