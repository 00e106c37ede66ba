// The billing page's markup: the plan and the switch to the other one.
import type { SessionUser } from '../accounts/accounts.service.ts';
import type { Plan } from '../db/schema.ts';
import { csrfField, notice } from '../ui/forms.ts';
import { html, type SafeHtml } from '../ui/html.ts';

const planText = {
  free: {
    name: 'Free',
    summary: 'Documents, signing and the web application. The API answers 403 plan-required.',
  },
  max: { name: 'Max', summary: 'Everything in Free, plus the REST API and webhooks.' },
} as const satisfies Record<Plan, { name: string; summary: string }>;

export function billingView(member: SessionUser, csrf: string, changed: boolean): SafeHtml {
  const current = planText[member.plan];
  const other = member.plan === 'max' ? 'free' : 'max';
  return html`<h1>Billing</h1>
${changed ? notice('success', `${member.workspaceName} is now on the ${current.name} plan.`) : ''}
<div class="card">
<h2>Plan: ${current.name}</h2>
<p>${current.summary}</p>
<p>${planText[other].name}: ${planText[other].summary}</p>
${
  other === 'max'
    ? html`<form method="post" action="/settings/billing/plan">
${csrfField(csrf)}
<input type="hidden" name="plan" value="max">
<div class="actions"><button class="button button-primary" type="submit">Switch to Max</button></div>
</form>`
    : html`<div class="actions"><a class="button button-secondary" href="/settings/billing/free">Switch to Free…</a></div>`
}
</div>`;
}

/** Max to Free, asked first: what stops at once, and what stays. */
export function confirmFreeView(member: SessionUser, csrf: string): SafeHtml {
  return html`<p><a href="/settings/billing">← Billing</a></p>
<h1>Switch ${member.workspaceName} to Free?</h1>
<div class="card">
<p>From the moment you switch, the REST API answers <code>403 plan-required</code> to every API key of this workspace: integrations that read documents through it stop working.</p>
<p>The keys are kept, and work again as soon as you switch back to Max. Documents, signing and this web application stay as they are.</p>
<form method="post" action="/settings/billing/plan" class="actions">
${csrfField(csrf)}
<input type="hidden" name="plan" value="free">
<input type="hidden" name="confirm" value="yes">
<button class="button button-danger" type="submit">Switch to Free</button>
<a href="/settings/billing">Keep Max</a>
</form>
</div>`;
}
