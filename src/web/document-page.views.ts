// The markup of a document's page for its sender, in the member's language (`tr`: their own,
// else their browser's; web/member-language.ts): its summary and actions, its PDF, its
// recipients and what became of each, its pricing, its timeline and "Save as template".
import type {
  DocumentDetail,
  OwnerDocument,
  RecipientAudit,
  RecipientProgress,
} from '../documents/documents.service.ts';
import { historyLabel } from '../documents/event-types.ts';
import type { PricingView } from '../documents/pricing.ts';
import { formatMoney } from '../documents/pricing.ts';
import { endonym, parseLanguage } from '../i18n/languages.ts';
import type { Translator } from '../i18n/messages.ts';
import { formatBytes } from '../pdf/inspect.ts';
import { pricingTable, statusBadge } from '../ui/document-views.ts';
import { csrfField } from '../ui/forms.ts';
import { html, type SafeHtml } from '../ui/html.ts';
import { formatTime } from '../ui/time.ts';
import { saveAsTemplateForm } from './templates.views.ts';

/** A document as its sender sees it, with what the services worked out for each recipient. */
export interface SenderDocument {
  document: OwnerDocument;
  pricing: PricingView | null;
  progress: Map<string, RecipientProgress>;
  /** Signing links the sender may copy, by recipient id (signing-links.ts). */
  links: Map<string, string>;
  /** The workspace's time zone: every time on the page is shown in it. */
  timeZone: string;
}

type Recipient = DocumentDetail['recipients'][number];

/** What the page needs besides the document: the member's language and the form token. */
interface Page {
  view: SenderDocument;
  tr: Translator;
  csrf: string;
}

/** A time as every page of the web app writes it: ISO date, 24-hour clock, the zone named (ui/time.ts). */
const at = (page: Page, time: string) => formatTime(time, page.view.timeZone);

const progressBadges = {
  opened: { key: 'doc.progress.opened', tone: 'badge-pending' },
  waiting: { key: 'doc.progress.waiting', tone: 'badge-neutral' },
  queued: { key: 'doc.progress.queued', tone: 'badge-neutral' },
  'not-sent': { key: 'doc.progress.notSent', tone: 'badge-neutral' },
} as const satisfies Record<Exclude<RecipientProgress, 'signed'>, unknown>;

/** The Remind button of a signer whose turn it is and who has not signed a document still being signed. */
function remindButton(page: Page, r: Recipient): SafeHtml | null {
  const { view, tr } = page;
  const active = view.document.status === 'sent' || view.document.status === 'viewed';
  const progress = view.progress.get(r.id);
  if (!active || r.role !== 'signer' || progress === 'signed' || progress === 'queued') return null;
  return html`<form method="post" action="/documents/${view.document.id}/recipients/${r.id}/remind" class="inline">${csrfField(page.csrf)}<button class="button button-secondary button-small" type="submit" aria-label="${tr.t('doc.recipient.remindName', { name: r.fullName })}">${tr.t('doc.recipient.remind')}</button></form>`;
}

/**
 * When a recipient was mailed: their first mail (their link), or, for a viewer of a later
 * order than every signer, only the completion mail (with the signed PDF).
 */
function sentLine(page: Page, r: Recipient, audit?: RecipientAudit): string | null {
  const { view, tr } = page;
  if (audit?.invitedAt) return tr.t('doc.recipient.sentAt', { time: at(page, audit.invitedAt) });
  if (view.document.status === 'signed' && r.role === 'viewer') {
    // The completion mail is queued with the seal, when document.completed is recorded.
    const completed = view.document.history.find((e) => e.type === 'document.completed');
    return completed
      ? tr.t('doc.recipient.completionSent', { time: at(page, completed.createdAt) })
      : tr.t('doc.recipient.completionLater');
  }
  return null;
}

/** Opened, or only fetched (a scanner or preview), as the open rule says (signing/opening.ts). */
function openedLine(page: Page, audit?: RecipientAudit): string | null {
  if (audit?.openedAt) return page.tr.t('doc.recipient.openedAt', { time: at(page, audit.openedAt) });
  if (audit?.linkFetchedAt)
    return page.tr.t('doc.recipient.fetchedAt', { time: at(page, audit.linkFetchedAt) });
  return null;
}

function recipientState(page: Page, r: Recipient): SafeHtml {
  const { view, tr } = page;
  const audit = view.document.audit.get(r.id);
  const progress = view.progress.get(r.id) ?? 'waiting';
  if (audit?.declinedAt)
    return html`<span class="badge badge-danger">${tr.t('doc.progress.declinedAt', { time: at(page, audit.declinedAt) })}</span>`;
  if (progress === 'signed' && r.signedAt)
    return html`<span class="badge badge-success">${tr.t('doc.progress.signedAt', { time: at(page, r.signedAt) })}</span>`;
  const badge = progressBadges[progress as Exclude<RecipientProgress, 'signed'>];
  return html`<span class="badge ${badge.tone}">${tr.t(badge.key)}</span>${remindButton(page, r)}`;
}

function recipientItem(page: Page, r: Recipient): SafeHtml {
  const { view, tr } = page;
  const link = view.links.get(r.id);
  const audit = view.document.audit.get(r.id);
  const facts = [sentLine(page, r, audit), openedLine(page, audit)].filter((f) => f !== null);
  const kind = tr.t('doc.recipient.facts', { role: r.role, order: r.signingOrder, method: r.signingMethod });
  const reason = audit?.declineReason
    ? tr.t('doc.recipient.reason', { reason: audit.declineReason })
    : tr.t('doc.recipient.noReason');
  return html`<li><div><span class="recipient-name">${r.fullName}</span> <span class="muted">${r.email}</span><div class="small muted">${kind}</div>
${facts.length ? html`<div class="small muted">${facts.join('; ')}</div>` : ''}
${audit?.declinedAt ? html`<p class="small decline-reason">${reason}</p>` : ''}
${link ? html`<div class="secret small"><code id="link-${r.id}">${link}</code><button class="button button-secondary button-small" type="button" data-copy="link-${r.id}">${tr.t('doc.recipient.copyLink')}</button></div>` : ''}</div>
<div class="state">${recipientState(page, r)}</div></li>`;
}

/** The way to the field editor (a draft with a PDF), or to its fields once sent. */
function fieldsLink(document: DocumentDetail, tr: Translator): SafeHtml | null {
  const count = document.recipients.reduce((sum, r) => sum + r.fields.length, 0);
  const uploaded = document.files.some((f) => f.kind === 'original');
  if (document.status === 'draft' && uploaded)
    return html`<a class="button button-secondary" href="/documents/${document.id}/fields">${count === 0 ? tr.t('doc.fields.place') : tr.t('doc.fields.count', { count })}</a>`;
  return count > 0
    ? html`<p class="small"><a href="/documents/${document.id}/fields">${tr.t('doc.fields.onPages', { count })}</a></p>`
    : null;
}

function summaryFacts(page: Page): SafeHtml {
  const { tr } = page;
  const { document } = page.view;
  const fact = (term: string, value: SafeHtml | string) => html`<div><dt>${term}</dt><dd>${value}</dd></div>`;
  const end = document.withdrawnAt
    ? fact(tr.t('doc.withdrawn'), at(page, document.withdrawnAt))
    : document.expiresAt
      ? fact(
          tr.t(document.status === 'expired' ? 'doc.expired' : 'doc.expires'),
          at(page, document.expiresAt),
        )
      : '';
  const reminders =
    document.remindEveryDays === null
      ? tr.t('doc.remindersNone')
      : tr.t('doc.remindersEvery', { days: document.remindEveryDays });
  return html`<dl class="meta">
${fact(tr.t('doc.created'), at(page, document.createdAt))}
${document.sentAt ? fact(tr.t('doc.sent'), at(page, document.sentAt)) : ''}
${document.signedAt ? fact(tr.t('doc.completed'), at(page, document.signedAt)) : ''}
${end}
${fact(tr.t('doc.value'), document.value ? formatMoney(String(document.value.amount), document.value.currency) : '—')}
${fact(tr.t('doc.reminders'), reminders)}
${fact(tr.t('doc.certificateLanguage'), certificateLanguageName(document.language, tr))}
</dl>`;
}

function documentSummary(page: Page): SafeHtml {
  const { tr } = page;
  const { document } = page.view;
  const draftActions = html`<div class="actions"><a class="button button-primary" href="/documents/${document.id}/send">${tr.t('doc.action.send')}</a><a class="button button-secondary" href="/documents/${document.id}/edit">${tr.t('doc.action.edit')}</a>${fieldsLink(document, tr)}<a class="button button-danger" href="/documents/${document.id}/delete">${tr.t('doc.action.delete')}</a></div>`;
  return html`<div class="card">
${summaryFacts(page)}
${document.status === 'draft' ? draftActions : fieldsLink(document, tr)}
${document.status === 'sent' || document.status === 'viewed' ? html`<div class="actions"><a class="button button-danger" href="/documents/${document.id}/withdraw">${tr.t('doc.action.withdraw')}</a></div>` : null}
</div>`;
}

/** "Deutsch" (named in itself), or the workspace's default. */
function certificateLanguageName(tag: string | null, tr: Translator): SafeHtml | string {
  const language = tag ? parseLanguage(tag) : null;
  return language ? html`<span lang="${language}">${endonym(language)}</span>` : tr.t('doc.workspaceDefault');
}

/** How many page thumbnails the sender's page shows before "and N more". */
const thumbnailCount = 12;

/**
 * The document's PDFs: the original's pages as thumbnails (each opens the page large), its
 * page count, size and SHA-256, and the downloads; the sealed one once it is made.
 */
function filesSection(document: DocumentDetail, tr: Translator): SafeHtml {
  const original = document.files.find((f) => f.kind === 'original');
  const sealed = document.files.find((f) => f.kind === 'sealed');
  if (!original) {
    // A draft gets its PDF when sent; a document imported with its history (the demo's
    // samples, `signet seed`) has none.
    const why = tr.t(document.status === 'draft' ? 'doc.pdf.noneDraft' : 'doc.pdf.noneImported');
    return html`<section class="card" aria-labelledby="pdf-title"><h2 id="pdf-title">${tr.t('doc.pdf.heading')}</h2>
<p class="muted">${why}</p></section>`;
  }
  const pages = original.pages ?? 0;
  const shown = Array.from({ length: Math.min(pages, thumbnailCount) }, (_, i) => i + 1);
  const pagePath = (n: number, size: string) => `/documents/${document.id}/pages/${n}?size=${size}`;
  const more = pages - shown.length;
  return html`<section class="card" aria-labelledby="pdf-title">
<h2 id="pdf-title">${tr.t('doc.pdf.heading')} <span class="muted small">${tr.t('doc.pdf.size', { pages, size: formatBytes(original.bytes) })}</span></h2>
<ol class="thumbnails">${shown.map(
    (n) =>
      html`<li><a href="${pagePath(n, 'page')}"><img src="${pagePath(n, 'thumbnail')}" alt="${tr.t('doc.pdf.pageAlt', { page: n })}" loading="lazy" width="120"></a></li>`,
  )}</ol>
${more > 0 ? html`<p class="small muted">${tr.t('doc.pdf.more', { count: more })}</p>` : ''}
<dl class="meta">
<div><dt>${tr.t('doc.pdf.shaOriginal')}</dt><dd><code class="hash">${original.sha256}</code></dd></div>
${sealed && html`<div><dt>${tr.t('doc.pdf.shaSealed')}</dt><dd><code class="hash">${sealed.sha256}</code></dd></div>`}
</dl>
<div class="actions">
${sealed && html`<a class="button button-primary" href="${sealed.downloadUrl}" download>${tr.t('doc.pdf.downloadSealed')}</a>`}
<a class="button button-secondary" href="${original.downloadUrl}" download>${tr.t('doc.pdf.downloadOriginal')}</a>
</div>
${document.status === 'signed' && !sealed ? html`<p class="small muted">${tr.t('doc.pdf.sealing')}</p>` : ''}
</section>`;
}

/** The whole history, both kinds of event (documents/event-types.ts), oldest first. */
function timeline(page: Page): SafeHtml {
  const { tr } = page;
  const { document } = page.view;
  if (!document.history.length) return html`<p class="muted">${tr.t('doc.timeline.empty')}</p>`;
  // A withdrawn document's document.expired (the API's and the webhooks') is the end of signing.
  const label = (e: OwnerDocument['history'][number]) =>
    e.type === 'document.expired' && document.withdrawnAt
      ? tr.t('doc.timeline.withdrawnEnd')
      : historyLabel(e.type, e.detail, tr);
  // A webhook event names its type, as the API and endpoints know it; history-only ones do not.
  return html`<ol class="plain timeline">${document.history.map((e) => html`<li>${formatTime(e.createdAt, page.view.timeZone, true)}: ${label(e)}${e.recipientEmail ? ` (${e.recipientEmail})` : ''}${e.webhook ? html` <code>${e.type}</code>` : ''}</li>`)}</ol>`;
}

/** "Save as template", for a document with a PDF (a template is a PDF with its fields). */
function templateSection(page: Page): SafeHtml | null {
  const { document } = page.view;
  if (!document.files.some((f) => f.kind === 'original')) return null;
  return html`<section class="card" aria-labelledby="template-title">
<h2 id="template-title">${page.tr.t('doc.template.heading')}</h2>
${saveAsTemplateForm(document, document.title, {}, page.csrf, page.tr)}
</section>`;
}

export function documentView(
  view: SenderDocument,
  csrf: string,
  message: SafeHtml | null,
  tr: Translator,
): SafeHtml {
  const page: Page = { view, tr, csrf };
  const { document } = view;
  return html`<p><a href="/documents">${tr.t('doc.back')}</a></p>
<div class="section-title"><h1>${document.title}</h1>${statusBadge(document, tr)}</div>
${message}
${documentSummary(page)}
${filesSection(document, tr)}
<section class="card" aria-labelledby="recipients-title">
<h2 id="recipients-title">${tr.t('doc.recipients.heading')}</h2>
<ul class="recipients">${document.recipients.map((r) => recipientItem(page, r))}</ul>
<p class="small muted">${tr.t('doc.recipients.personal')}</p>
</section>
${view.pricing ? pricingTable(view.pricing, tr) : ''}
<section class="card" aria-labelledby="timeline-title">
<h2 id="timeline-title">${tr.t('doc.timeline.heading')}</h2>
${timeline(page)}
</section>
${templateSection(page)}`;
}
