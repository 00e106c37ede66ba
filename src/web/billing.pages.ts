// Settings › Billing (owners only), in the member's language: the workspace's plan (spec: the
// API requires Max).
// There is no payment provider: `setWorkspacePlan` is the single place where one would be
// called before the plan changes. The change reaches every process's API at once, like a
// key revocation.
//   GET  /settings/billing
//   GET  /settings/billing/free   Max to Free asks first: what the switch stops
//   POST /settings/billing/plan   plan=max, or plan=free with confirm=yes (else to the question)
import type { FastifyInstance } from 'fastify';
import { isPlan, setWorkspacePlan } from '../workspaces/workspaces.service.ts';
import { billingView, confirmFreeView } from './billing.views.ts';
import { type Form, formText, forOwners, type Web } from './kit.ts';
import { memberTranslator } from './member-language.ts';

export function billingPages(web: Web) {
  const { ctx } = web;
  return async function register(app: FastifyInstance) {
    app.get<{ Querystring: Form }>(
      '/settings/billing',
      forOwners(web, (request, reply, member) => {
        const tr = memberTranslator(request, reply);
        const changed = formText(request.query, 'done') === 'plan';
        return web.render(request, reply, 200, {
          title: tr.t('app.nav.billing'),
          current: 'billing',
          tr,
          body: (csrf) => billingView(member, csrf, changed, tr),
        });
      }),
    );

    app.get(
      '/settings/billing/free',
      forOwners(web, (request, reply, member) => {
        if (member.plan === 'free') return reply.redirect('/settings/billing', 303);
        const tr = memberTranslator(request, reply);
        return web.render(request, reply, 200, {
          title: tr.t('billing.free.title'),
          current: 'billing',
          tr,
          body: (csrf) => confirmFreeView(member, csrf, tr),
        });
      }),
    );

    app.post<{ Body: Form }>(
      '/settings/billing/plan',
      forOwners(web, async (request, reply, member) => {
        const plan = formText(request.body, 'plan');
        if (!isPlan(plan)) return reply.redirect('/settings/billing', 303);
        // Giving up the API is asked first; a post without the answer goes to the question.
        if (plan === 'free' && member.plan !== 'free' && formText(request.body, 'confirm') !== 'yes')
          return reply.redirect('/settings/billing/free', 303);
        await setWorkspacePlan(ctx, member.workspaceId, plan);
        return reply.redirect('/settings/billing?done=plan', 303);
      }),
    );
  };
}
