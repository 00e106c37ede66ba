// Settings › Billing (owners only): the workspace's plan (spec: the API requires Max). There is no payment provider: `setWorkspacePlan` below is the single
// place where one would be called before the plan changes. The change reaches every
// process's API at once, like a key revocation.
//   GET  /settings/billing
//   POST /settings/billing/plan   plan=max|free (owners)
import type { FastifyInstance } from 'fastify';
import type { SessionUser } from '../accounts/accounts.service.ts';
import { isPlan, setWorkspacePlan } from '../workspaces/workspaces.service.ts';
import { html } from './html.ts';
import { csrfField, notice } from './layout.ts';
import { formText, requireOwner, type Web } from './web.plugin.ts';

const planText = {
  free: {
    name: 'Free',
    summary: 'Documents, signing and the web application. The API answers 403 plan-required.',
  },
  max: { name: 'Max', summary: 'Everything in Free, plus the REST API and webhooks.' },
} as const;

export function billingPages(web: Web) {
  const { ctx } = web;
  return async function register(app: FastifyInstance) {
    app.get<{ Querystring: Record<string, string | undefined> }>(
      '/settings/billing',
      { preHandler: requireOwner(web) },
      (request, reply) => {
        const member = request.member as SessionUser;
        const current = planText[member.plan];
        const other = member.plan === 'max' ? 'free' : 'max';
        return web.render(request, reply, 200, {
          title: 'Billing',
          current: 'billing',
          body: (csrf) => html`<h1>Billing</h1>
${request.query.done === 'plan' ? notice('success', `${member.workspaceName} is now on the ${current.name} plan.`) : ''}
<div class="card">
<h2>Plan: ${current.name}</h2>
<p>${current.summary}</p>
${
  member.role === 'owner'
    ? html`<form method="post" action="/settings/billing/plan">
${csrfField(csrf)}
<input type="hidden" name="plan" value="${other}">
<p>${planText[other].name}: ${planText[other].summary}</p>
<div class="actions"><button class="button ${other === 'max' ? 'button-primary' : 'button-secondary'}" type="submit">Switch to ${planText[other].name}</button></div>
</form>`
    : html`<p class="muted">Only an owner of ${member.workspaceName} can change the plan.</p>`
}
</div>`,
        });
      },
    );

    app.post<{ Body: Record<string, string | undefined> }>(
      '/settings/billing/plan',
      { preHandler: requireOwner(web) },
      async (request, reply) => {
        const member = request.member as SessionUser;
        const plan = formText(request.body, 'plan');
        if (!isPlan(plan)) return reply.redirect('/settings/billing', 303);
        await setWorkspacePlan(ctx, member.workspaceId, plan);
        return reply.redirect('/settings/billing?done=plan', 303);
      },
    );
  };
}
