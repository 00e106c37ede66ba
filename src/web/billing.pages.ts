// Settings › Billing (owners only): the workspace's plan (spec: the API requires Max).
// There is no payment provider: `setWorkspacePlan` is the single place where one would be
// called before the plan changes. The change reaches every process's API at once, like a
// key revocation.
//   GET  /settings/billing
//   POST /settings/billing/plan   plan=max|free
import type { FastifyInstance } from 'fastify';
import { isPlan, setWorkspacePlan } from '../workspaces/workspaces.service.ts';
import { billingView } from './billing.views.ts';
import { type Form, formText, forOwners, type Web } from './kit.ts';

export function billingPages(web: Web) {
  const { ctx } = web;
  return async function register(app: FastifyInstance) {
    app.get<{ Querystring: Form }>(
      '/settings/billing',
      forOwners(web, (request, reply, member) =>
        web.render(request, reply, 200, {
          title: 'Billing',
          current: 'billing',
          body: (csrf) => billingView(member, csrf, request.query.done === 'plan'),
        }),
      ),
    );

    app.post<{ Body: Form }>(
      '/settings/billing/plan',
      forOwners(web, async (request, reply, member) => {
        const plan = formText(request.body, 'plan');
        if (!isPlan(plan)) return reply.redirect('/settings/billing', 303);
        await setWorkspacePlan(ctx, member.workspaceId, plan);
        return reply.redirect('/settings/billing?done=plan', 303);
      }),
    );
  };
}
