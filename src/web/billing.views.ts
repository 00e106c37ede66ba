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
<form method="post" action="/settings/billing/plan">
${csrfField(csrf)}
<input type="hidden" name="plan" value="${other}">
<p>${planText[other].name}: ${planText[other].summary}</p>
<div class="actions"><button class="button ${other === 'max' ? 'button-primary' : 'button-secondary'}" type="submit">Switch to ${planText[other].name}</button></div>
</form>
</div>`;
}
