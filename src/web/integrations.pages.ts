// Settings › Integrations › API and Webhook (spec: keys are created and revoked here), in the
// member's language, its refusals too.
//   GET  /settings/integrations                      keys (and how to call the API)
//   POST /settings/integrations/keys                 create, then back to the page, which shows the secret once (reveal.ts)
//   GET  /settings/integrations/keys/{id}/revoke     the confirmation step
//   POST /settings/integrations/keys/{id}/revoke     revoke → back to the list
// The same service functions as the CLI, with the session's workspace: another
// workspace's key id is a 404 exactly like a random one.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SessionUser } from '../accounts/accounts.service.ts';
import { ApiError } from '../http/errors.ts';
import { keyedRefusal, sentencesIn } from '../i18n/refusals.ts';
import { InputError } from '../input-error.ts';
import type { ApiKeyScope } from '../keys/api-key-scope.ts';
import {
  createApiKey,
  getApiKey,
  listApiKeys,
  maxActiveKeysPerWorkspace,
  revokeApiKey,
} from '../keys/keys.service.ts';
import { getEndpoint, listEndpoints } from '../webhooks/endpoints.service.ts';
import { type IntegrationsPageOptions, integrationsView, revokeKeyView } from './integrations.views.ts';
import { type Form, forMembers, formText, forRecord, type Web } from './kit.ts';
import { memberTranslator } from './member-language.ts';
import { revealOnce, takeRevealed } from './reveal.ts';

/** The integrations page: keys and endpoints, with whatever a form just did. */
export async function renderIntegrationsPage(
  web: Web,
  request: FastifyRequest,
  reply: FastifyReply,
  member: SessionUser,
  status: number,
  options: IntegrationsPageOptions = {},
) {
  const { ctx } = web;
  const [keys, endpoints] = await Promise.all([
    listApiKeys(ctx, member.workspaceId),
    listEndpoints(ctx, member.workspaceId),
  ]);
  // A secret is on this page: never store it anywhere.
  if (options.created || options.createdEndpoint) reply.header('cache-control', 'no-store');
  const tr = memberTranslator(request, reply);
  return web.render(request, reply, status, {
    title: tr.t('app.nav.integrations'),
    current: 'integrations',
    tr,
    body: (csrf) =>
      integrationsView({ ...options, member, publicUrl: ctx.config.publicUrl, keys, endpoints }, csrf, tr),
  });
}

export function integrationsPages(web: Web) {
  const { ctx } = web;
  const loadKey = (workspaceId: string, id: string) => getApiKey(ctx, workspaceId, id);

  return async function register(app: FastifyInstance) {
    app.get<{ Querystring: Form }>(
      '/settings/integrations',
      forMembers(async (request, reply, member) => {
        const options: IntegrationsPageOptions = { done: formText(request.query, 'done') };
        // The secret a form just made, shown this once (a record deleted since shows none).
        const revealed = takeRevealed(web, request, reply, member);
        if (revealed?.kind === 'key') {
          const key = await getApiKey(ctx, member.workspaceId, revealed.id).catch(() => null);
          if (key) options.created = { ...key, secret: revealed.secret };
        } else if (revealed?.kind === 'endpoint') {
          const endpoint = await getEndpoint(ctx, member.workspaceId, revealed.id).catch(() => null);
          if (endpoint) options.createdEndpoint = { ...endpoint, secret: revealed.secret };
        }
        return renderIntegrationsPage(web, request, reply, member, 200, options);
      }),
    );

    app.post<{ Body: Form }>(
      '/settings/integrations/keys',
      forMembers(async (request, reply, member) => {
        const form = request.body ?? {};
        try {
          const scope = formText(form, 'scope') || 'read';
          if (scope !== 'read' && member.role !== 'owner')
            throw keyedRefusal([['scope', 'integrations.refusal.ownerWrites']]);
          const created = await createApiKey(ctx, {
            workspaceId: member.workspaceId,
            name: formText(form, 'name'),
            scope: scope as ApiKeyScope,
          });
          revealOnce(web, request, reply, member, { kind: 'key', id: created.id, secret: created.secret });
          return reply.redirect('/settings/integrations?done=key-created', 303);
        } catch (error) {
          const tr = memberTranslator(request, reply);
          if (error instanceof InputError)
            return renderIntegrationsPage(web, request, reply, member, 400, {
              form,
              errors: sentencesIn(error, tr),
            });
          if (!(error instanceof ApiError && error.code === 'limit-reached')) throw error;
          return renderIntegrationsPage(web, request, reply, member, 409, {
            form,
            errors: { form: tr.t('integrations.refusal.tooMany', { max: maxActiveKeysPerWorkspace }) },
          });
        }
      }),
    );

    app.get<{ Params: { id: string } }>(
      '/settings/integrations/keys/:id/revoke',
      forRecord(web, loadKey, (request, reply, member, key) => {
        const tr = memberTranslator(request, reply);
        return web.render(request, reply, 200, {
          title: tr.t('integrations.revoke.title'),
          current: 'integrations',
          tr,
          body: (csrf) => revokeKeyView(key, csrf, member.timeZone, tr),
        });
      }),
    );

    app.post<{ Params: { id: string } }>(
      '/settings/integrations/keys/:id/revoke',
      forRecord(web, loadKey, async (_request, reply, member, key) => {
        await revokeApiKey(ctx, key.id, member.workspaceId);
        return reply.redirect('/settings/integrations?done=revoked', 303);
      }),
    );
  };
}
