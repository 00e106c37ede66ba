// The billing page's markup, in the member's language: the plan and the switch to the other one.
import type { SessionUser } from '../accounts/accounts.service.ts';
import type { Plan } from '../db/schema.ts';
import type { Translator } from '../i18n/messages.ts';
import { csrfField, notice } from '../ui/forms.ts';
import { html, type SafeHtml } from '../ui/html.ts';
import { richText } from '../ui/rich-text.ts';

/** What the API answers a workspace on Free: its error code, the same in every language. */
const planRequired = '403 plan-required';

/** A plan's name ("Free", "Max"), as the catalogues name it. */
export function planName(plan: Plan, tr: Translator): string {
  return tr.t('billing.plan.name', { plan });
}

function planSummary(plan: Plan, tr: Translator): string {
  return tr.t('billing.plan.summary', { plan, answer: planRequired });
}

export function billingView(member: SessionUser, csrf: string, changed: boolean, tr: Translator): SafeHtml {
  const current = planName(member.plan, tr);
  const other: Plan = member.plan === 'max' ? 'free' : 'max';
  const done = tr.t('billing.done', { workspace: member.workspaceName, name: current });
  return html`<h1>${tr.t('app.nav.billing')}</h1>
${changed ? notice('success', done) : ''}
<div class="card">
<h2>${tr.t('billing.plan.heading', { name: current })}</h2>
<p>${planSummary(member.plan, tr)}</p>
<p>${tr.t('billing.plan.other', { name: planName(other, tr), summary: planSummary(other, tr) })}</p>
${
  other === 'max'
    ? html`<form method="post" action="/settings/billing/plan">
${csrfField(csrf)}
<input type="hidden" name="plan" value="max">
<div class="actions"><button class="button button-primary" type="submit">${tr.t('billing.switchToMax')}</button></div>
</form>`
    : html`<div class="actions"><a class="button button-secondary" href="/settings/billing/free">${tr.t('billing.switchToFree')}</a></div>`
}
</div>`;
}

/** Max to Free, asked first: what stops at once, and what stays. */
export function confirmFreeView(member: SessionUser, csrf: string, tr: Translator): SafeHtml {
  return html`<p><a href="/settings/billing">← ${tr.t('app.nav.billing')}</a></p>
<h1>${tr.t('billing.free.heading', { workspace: member.workspaceName })}</h1>
<div class="card">
<p>${richText(tr, 'billing.free.stops', { answer: html`<code>${planRequired}</code>` })}</p>
<p>${tr.t('billing.free.stays')}</p>
<form method="post" action="/settings/billing/plan" class="actions">
${csrfField(csrf)}
<input type="hidden" name="plan" value="free">
<input type="hidden" name="confirm" value="yes">
<button class="button button-danger" type="submit">${tr.t('billing.free.submit')}</button>
<a href="/settings/billing">${tr.t('billing.free.keep')}</a>
</form>
</div>`;
}
