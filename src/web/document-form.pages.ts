// Creating, reading and sending documents in the web application, and /mails (your own mail).
// The form works without JavaScript: "More rows" and "Show the value" re-render it on the
// server; blank rows are ignored. Input goes to the signing service exactly as the CLI's
// does (createDocument validates; its refusals are shown as sentences), and the value
// shown is computed by the same function as the API's `value`.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SessionUser } from '../accounts/accounts.service.ts';
import type { RecipientRole, SigningMethod } from '../db/schema.ts';
import { uuidPattern } from '../documents/documents.schemas.ts';
import { getDocumentForOwner } from '../documents/documents.service.ts';
import { DocumentActionError } from '../documents/lifecycle.ts';
import { formatMoney, parsePricingBlock } from '../documents/pricing.ts';
import { computeValueAmount } from '../documents/value.ts';
import { ApiError } from '../http/errors.ts';
import { emailKey } from '../mail/address.ts';
import { listMails } from '../mail/mail.service.ts';
import { signingLinkIn } from '../mail/templates.ts';
import {
  createDocument,
  DocumentInputError,
  maxRecipients,
  type RecipientInput,
  sendDocument,
} from '../signing/signing.service.ts';
import { pricingTable, statusBadges } from '../signing/signing-page.ts';
import { pricingView } from '../signing/signing-view.ts';
import { html, type SafeHtml } from './html.ts';
import { csrfField, formatTime, notice } from './layout.ts';
import { findById, formText, requireMember, type Web } from './web.plugin.ts';

type Form = Record<string, string | undefined>;
const uuid = new RegExp(uuidPattern);
const billingChoices = ['one-off', 'week', 'month', 'quarter', 'year'] as const;
const maxPriceRows = 20;

function field(form: Form, name: string): string {
  return formText(form, name).trim();
}

function rowCount(form: Form, name: string, fallback: number, max: number): number {
  const value = Number(form[name]);
  return Number.isInteger(value) && value >= 1 ? Math.min(value, max) : fallback;
}

/** The recipients typed in, blank rows left out. */
function recipientsOf(form: Form, rows: number): RecipientInput[] {
  const recipients: RecipientInput[] = [];
  for (let i = 0; i < rows; i++) {
    const email = field(form, `r${i}_email`);
    const fullName = field(form, `r${i}_name`);
    if (!email && !fullName) continue;
    recipients.push({
      email,
      fullName,
      role: (field(form, `r${i}_role`) || 'signer') as RecipientRole,
      signingMethod: (field(form, `r${i}_method`) || 'standard') as SigningMethod,
      signingOrder: Number(field(form, `r${i}_order`) || '1'),
    });
  }
  return recipients;
}

/** The pricing block typed in, as the API would receive it; null without priced lines. */
function pricingOf(form: Form, rows: number): unknown {
  const items = [];
  for (let i = 0; i < rows; i++) {
    const name = field(form, `p${i}_name`);
    if (!name && !field(form, `p${i}_price`)) continue;
    const billing = field(form, `p${i}_billing`) || 'one-off';
    items.push({
      name,
      quantity: field(form, `p${i}_qty`) || '1',
      unitPrice: field(form, `p${i}_price`),
      vatRate: field(form, `p${i}_vat`) || '0',
      billing:
        billing === 'one-off'
          ? { type: 'one-off' }
          : { type: 'recurring', interval: billing, periods: Number(field(form, `p${i}_periods`) || '0') },
    });
  }
  if (items.length === 0) return null;
  return {
    currency: (field(form, 'currency') || 'EUR').toUpperCase(),
    pricesIncludeVat: form.vatMode === 'included',
    items,
  };
}

/** What the API's `value` will be, or why the pricing is refused. */
function previewValue(pricing: unknown): { text: string; ok: boolean } {
  if (pricing === null) return { text: 'No pricing: the value is null.', ok: true };
  try {
    const block = parsePricingBlock(pricing);
    return {
      text: `Value (excluding VAT, whole contract): ${formatMoney(computeValueAmount(block), block.currency)}`,
      ok: true,
    };
  } catch (error) {
    return { text: `Pricing: ${(error as Error).message}`, ok: false };
  }
}

function select(
  name: string,
  id: string,
  label: string,
  options: readonly string[],
  value: string,
): SafeHtml {
  return html`<label class="visually-hidden" for="${id}">${label}</label><select id="${id}" name="${name}">${options.map((o) => html`<option value="${o}"${o === value ? html` selected` : ''}>${o}</option>`)}</select>`;
}

function documentForm(
  csrf: string,
  form: Form,
  message: SafeHtml | null,
  preview: SafeHtml | null,
): SafeHtml {
  const recipientRows = rowCount(form, 'recipientRows', 3, maxRecipients);
  const priceRows = rowCount(form, 'priceRows', 2, maxPriceRows);
  const recipients = Array.from({ length: recipientRows }, (_, i) => i);
  const prices = Array.from({ length: priceRows }, (_, i) => i);
  return html`<form method="post" action="/documents" novalidate data-live-value="/documents/value">
${csrfField(csrf)}
<input type="hidden" name="recipientRows" value="${recipientRows}">
<input type="hidden" name="priceRows" value="${priceRows}">
${message}
<section class="card">
<div class="field"><label for="title">Title</label><input id="title" name="title" type="text" maxlength="200" value="${field(form, 'title')}" required></div>
<div class="field"><label for="body">Text</label><span class="hint">Blank lines separate paragraphs.</span><textarea id="body" name="body" rows="8">${formText(form, 'body')}</textarea></div>
</section>
<section class="card" aria-labelledby="recipients-title">
<h2 id="recipients-title">Recipients (1 to ${maxRecipients})</h2>
<p class="small muted">Signers sign in order of their number; equal numbers sign in any order. Viewers get a copy and never sign. Blank rows are ignored.</p>
<div class="table-scroll" tabindex="0" role="region" aria-labelledby="recipients-title">
<table class="form-rows"><thead><tr><th scope="col">Email</th><th scope="col">Full name</th><th scope="col">Role</th><th scope="col">Signing</th><th scope="col">Order</th></tr></thead>
<tbody>${recipients.map(
    (i) => html`<tr>
<td data-label="Email"><label class="visually-hidden" for="r${i}_email">Recipient ${i + 1} email</label><input id="r${i}_email" name="r${i}_email" type="email" value="${field(form, `r${i}_email`)}"></td>
<td data-label="Full name"><label class="visually-hidden" for="r${i}_name">Recipient ${i + 1} full name</label><input id="r${i}_name" name="r${i}_name" type="text" value="${field(form, `r${i}_name`)}"></td>
<td data-label="Role">${select(`r${i}_role`, `r${i}_role`, `Recipient ${i + 1} role`, ['signer', 'viewer'], field(form, `r${i}_role`) || 'signer')}</td>
<td data-label="Signing">${select(`r${i}_method`, `r${i}_method`, `Recipient ${i + 1} signing method`, ['standard', 'email-code'], field(form, `r${i}_method`) || 'standard')}</td>
<td data-label="Order"><label class="visually-hidden" for="r${i}_order">Recipient ${i + 1} signing order</label><input id="r${i}_order" name="r${i}_order" type="number" min="1" max="100" value="${field(form, `r${i}_order`) || '1'}"></td>
</tr>`,
  )}</tbody></table></div>
${recipientRows < maxRecipients ? html`<div class="actions"><button class="button button-secondary button-small" type="submit" name="more" value="recipients">More recipient rows</button></div>` : ''}
</section>
<section class="card" aria-labelledby="pricing-title">
<h2 id="pricing-title">Pricing <span class="muted">(optional)</span></h2>
<div class="field"><label for="currency">Currency</label><input id="currency" name="currency" type="text" maxlength="3" value="${field(form, 'currency') || 'EUR'}"></div>
<fieldset class="field"><legend class="label">Prices are</legend>
<label class="checkbox"><input type="radio" name="vatMode" value="excluded"${form.vatMode !== 'included' ? html` checked` : ''}> excluding VAT</label>
<label class="checkbox"><input type="radio" name="vatMode" value="included"${form.vatMode === 'included' ? html` checked` : ''}> including VAT</label></fieldset>
<div class="table-scroll" tabindex="0" role="region" aria-labelledby="pricing-title">
<table class="form-rows"><thead><tr><th scope="col">Item</th><th scope="col">Qty</th><th scope="col">Unit price</th><th scope="col">VAT %</th><th scope="col">Billing</th><th scope="col">Periods</th></tr></thead>
<tbody>${prices.map(
    (i) => html`<tr>
<td data-label="Item"><label class="visually-hidden" for="p${i}_name">Line ${i + 1} item</label><input id="p${i}_name" name="p${i}_name" type="text" value="${field(form, `p${i}_name`)}"></td>
<td data-label="Qty"><label class="visually-hidden" for="p${i}_qty">Line ${i + 1} quantity</label><input id="p${i}_qty" name="p${i}_qty" type="text" inputmode="decimal" value="${field(form, `p${i}_qty`)}"></td>
<td data-label="Unit price"><label class="visually-hidden" for="p${i}_price">Line ${i + 1} unit price</label><input id="p${i}_price" name="p${i}_price" type="text" inputmode="decimal" value="${field(form, `p${i}_price`)}"></td>
<td data-label="VAT %"><label class="visually-hidden" for="p${i}_vat">Line ${i + 1} VAT rate</label><input id="p${i}_vat" name="p${i}_vat" type="text" inputmode="decimal" value="${field(form, `p${i}_vat`)}"></td>
<td data-label="Billing">${select(`p${i}_billing`, `p${i}_billing`, `Line ${i + 1} billing`, billingChoices, field(form, `p${i}_billing`) || 'one-off')}</td>
<td data-label="Periods"><label class="visually-hidden" for="p${i}_periods">Line ${i + 1} periods</label><input id="p${i}_periods" name="p${i}_periods" type="number" min="1" value="${field(form, `p${i}_periods`)}"></td>
</tr>`,
  )}</tbody></table></div>
<p class="small muted">A recurring line counts for its whole contract: unit price × quantity × periods.</p>
<p id="live-value" class="small" aria-live="polite"></p>
<div class="actions">${priceRows < maxPriceRows ? html`<button class="button button-secondary button-small" type="submit" name="more" value="prices">More pricing rows</button>` : ''}<button class="button button-secondary button-small" type="submit" name="preview" value="1">Show the value</button></div>
${preview}
</section>
<div class="actions"><button class="button button-primary" type="submit">Create draft</button><a href="/documents">Cancel</a></div>
</form>`;
}

export function documentFormPages(web: Web) {
  const { ctx } = web;

  function newPage(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    form: Form,
    message: SafeHtml | null,
    preview: SafeHtml | null,
  ) {
    return web.render(request, reply, status, {
      title: 'New document',
      current: 'documents',
      body: (csrf) =>
        html`<p><a href="/documents">← Documents</a></p><h1>New document</h1>${documentForm(csrf, form, message, preview)}`,
    });
  }

  async function documentPage(
    request: FastifyRequest<{ Params: { id: string } }>,
    reply: FastifyReply,
    status: number,
    message: SafeHtml | null,
  ) {
    const member = request.member as SessionUser;
    const document = await findById(request.params.id, (id) =>
      getDocumentForOwner(ctx, member.workspaceId, id),
    );
    if (!document) return web.notFound(request, reply);
    const mails = await listMails(ctx, {
      workspaceId: member.workspaceId,
      documentId: document.id,
      limit: 200,
    });
    // A signer who signs with an emailed code proves they read their own mailbox: the
    // sender never gets their link (docs/web-app.md, who may read which mail).
    const linkOf = (recipient: { email: string; signingMethod: string }) => {
      if (recipient.signingMethod === 'email-code') return null;
      const mail = mails.find((m) => emailKey(m.to) === emailKey(recipient.email) && signingLinkIn(m.text));
      return mail ? signingLinkIn(mail.text) : null;
    };
    const badge = statusBadges[document.status as keyof typeof statusBadges];
    const pricing = pricingView(document.pricing);
    return web.render(request, reply, status, {
      title: document.title,
      current: 'documents',
      body: (csrf) => html`<p><a href="/documents">← Documents</a></p>
<div class="section-title"><h1>${document.title}</h1><span class="badge ${badge.tone}">${document.status}</span></div>
${message}
<div class="card">
<dl class="meta">
<div><dt>Created</dt><dd>${formatTime(document.createdAt)}</dd></div>
${document.sentAt ? html`<div><dt>Sent</dt><dd>${formatTime(document.sentAt)}</dd></div>` : ''}
${document.signedAt ? html`<div><dt>Completed</dt><dd>${formatTime(document.signedAt)}</dd></div>` : ''}
${document.expiresAt ? html`<div><dt>Expires</dt><dd>${formatTime(document.expiresAt)}</dd></div>` : ''}
<div><dt>Value</dt><dd>${document.value ? formatMoney(String(document.value.amount), document.value.currency) : '—'}</dd></div>
</dl>
${document.status === 'draft' ? html`<form method="post" action="/documents/${document.id}/send" class="actions">${csrfField(csrf)}<button class="button button-primary" type="submit">Send to recipients</button></form>` : ''}
</div>
<section class="card" aria-labelledby="recipients-title">
<h2 id="recipients-title">Recipients</h2>
<ul class="recipients">${document.recipients.map((r) => {
        const link = linkOf(r);
        return html`<li><div><span class="recipient-name">${r.fullName}</span> <span class="muted">${r.email}</span><div class="small muted">${r.role}, order ${r.signingOrder}, ${r.signingMethod}</div>
${link ? html`<div class="secret small"><code id="link-${r.id}">${link}</code><button class="button button-secondary button-small" type="button" data-copy="link-${r.id}">Copy link</button></div>` : ''}</div>
<div class="state">${r.signedAt ? html`<span class="badge badge-success">signed ${formatTime(r.signedAt)}</span>` : document.events.some((e) => e.type === 'document.opened' && e.recipientEmail === r.email) ? html`<span class="badge badge-pending">opened</span>` : html`<span class="badge badge-neutral">${document.status === 'draft' ? 'not sent' : 'waiting'}</span>`}</div></li>`;
      })}</ul>
<p class="small muted">Signing links are personal: share each only with its recipient.</p>
</section>
${pricing ? pricingTable(pricing) : ''}
<section class="card" aria-labelledby="timeline-title">
<h2 id="timeline-title">Timeline</h2>
${document.events.length ? html`<ol class="plain">${document.events.map((e) => html`<li>${formatTime(e.createdAt, true)}: <code>${e.type}</code>${e.recipientEmail ? ` (${e.recipientEmail})` : ''}</li>`)}</ol>` : html`<p class="muted">Nothing has happened yet: the document is a draft.</p>`}
</section>`,
    });
  }

  return async function register(app: FastifyInstance) {
    app.addHook('preHandler', requireMember);

    app.get('/documents/new', (request, reply) => newPage(request, reply, 200, {}, null, null));

    app.post<{ Body: Form }>('/documents', async (request, reply) => {
      const member = request.member as SessionUser;
      const form = { ...(request.body ?? {}) };
      if (form.more === 'recipients')
        form.recipientRows = String(rowCount(form, 'recipientRows', 3, maxRecipients) + 3);
      if (form.more === 'prices') form.priceRows = String(rowCount(form, 'priceRows', 2, maxPriceRows) + 3);
      const recipientRows = rowCount(form, 'recipientRows', 3, maxRecipients);
      const pricing = pricingOf(form, rowCount(form, 'priceRows', 2, maxPriceRows));
      if (form.more || form.preview) {
        const value = previewValue(pricing);
        return newPage(request, reply, 200, form, null, notice(value.ok ? 'info' : 'error', value.text));
      }
      try {
        const { id } = await createDocument(ctx, {
          workspaceId: member.workspaceId,
          title: field(form, 'title'),
          body: formText(form, 'body'),
          recipients: recipientsOf(form, recipientRows),
          pricing,
        });
        return reply.redirect(`/documents/${id}`, 303);
      } catch (error) {
        if (error instanceof DocumentInputError) {
          const sentence = error.message.charAt(0).toUpperCase() + error.message.slice(1);
          return newPage(request, reply, 400, form, notice('error', `${sentence}.`), null);
        }
        throw error;
      }
    });

    // The live value under the pricing table (app.js posts the form here as it is typed):
    // the same computation as "Show the value", as text for the page to show.
    app.post<{ Body: Form }>('/documents/value', async (request, reply) => {
      const form = request.body ?? {};
      const value = previewValue(pricingOf(form, rowCount(form, 'priceRows', 2, maxPriceRows)));
      return reply.header('cache-control', 'no-store').send(value);
    });

    app.get<{ Params: { id: string } }>('/documents/:id', (request, reply) =>
      documentPage(request, reply, 200, null),
    );

    app.post<{ Params: { id: string } }>('/documents/:id/send', async (request, reply) => {
      const member = request.member as SessionUser;
      if (!uuid.test(request.params.id)) return web.notFound(request, reply);
      try {
        await sendDocument(ctx, member.workspaceId, request.params.id.toLowerCase());
      } catch (error) {
        if (error instanceof ApiError && error.code === 'not-found') return web.notFound(request, reply);
        if (error instanceof DocumentActionError) {
          return documentPage(request, reply, 409, notice('error', error.message));
        }
        throw error;
      }
      return reply.redirect(`/documents/${request.params.id.toLowerCase()}`, 303);
    });

    // The development outbox shows a person only the mails addressed to them, and nothing
    // once SMTP delivers mail: a link or code mailed to someone is theirs alone.
    app.get('/mails', async (request, reply) => {
      const member = request.member as SessionUser;
      const smtp = ctx.config.smtpUrl !== null;
      const mails = smtp ? [] : await listMails(ctx, { toKey: emailKey(member.email), limit: 100 });
      return web.render(request, reply, 200, {
        title: 'Your mail',
        current: 'documents',
        body: () => html`<h1>Your mail</h1>
${
  smtp
    ? html`<p class="muted">Signet sends mail through SMTP: every mail is in its addressee's own mailbox, and none is shown here.</p>`
    : html`<p class="muted">The last 100 mails addressed to you (${member.email}). Without <code>SMTP_URL</code> Signet sends no mail and keeps it for its addressee: you see yours here, and the operator sees all of them with <code>signet mail list</code>. Mails to anyone else never appear here.</p>
${mails.length === 0 ? html`<p class="muted">No mails yet.</p>` : ''}
${mails.map(
  (m) =>
    html`<details class="card"><summary><strong>${m.subject}</strong> to ${m.to} <span class="muted small">${formatTime(m.createdAt)} · ${m.status}</span></summary><pre class="shell">${m.text}</pre></details>`,
)}`
}`,
      });
    });
  };
}
