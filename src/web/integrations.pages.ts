// Settings › Integrations › API and Webhook (spec: keys are created and revoked here).
//   GET  /settings/integrations                      keys (and how to call the API)
//   POST /settings/integrations/keys                 create, then back to the page, which shows the secret once (reveal.ts)
//   GET  /settings/integrations/keys/{id}/revoke     the confirmation step
//   POST /settings/integrations/keys/{id}/revoke     revoke → back to the list
// The same service functions as the CLI, with the session's workspace: another
// workspace's key id is a 404 exactly like a random one.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SessionUser } from '../accounts/accounts.service.ts';
import { ApiError } from '../http/errors.ts';
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
  return web.render(request, reply, status, {
    title: 'Integrations',
    current: 'integrations',
    body: (csrf) =>
      integrationsView({ ...options, member, publicUrl: ctx.config.publicUrl, keys, endpoints }, csrf),
  });
}

const tooManyKeys = `This workspace already has ${maxActiveKeysPerWorkspace} active keys, the most it can have. Revoke one you no longer use, then create the new one.`;

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
            throw new InputError({ scope: 'Only an owner can create a key that writes.' });
          const created = await createApiKey(ctx, {
            workspaceId: member.workspaceId,
            name: formText(form, 'name'),
            scope: scope as ApiKeyScope,
          });
          revealOnce(web, request, reply, member, { kind: 'key', id: created.id, secret: created.secret });
          return reply.redirect('/settings/integrations?done=key-created', 303);
        } catch (error) {
          if (error instanceof InputError)
            return renderIntegrationsPage(web, request, reply, member, 400, { form, errors: error.fields });
          if (!(error instanceof ApiError && error.code === 'limit-reached')) throw error;
          return renderIntegrationsPage(web, request, reply, member, 409, {
            form,
            errors: { form: tooManyKeys },
          });
        }
      }),
    );

    app.get<{ Params: { id: string } }>(
      '/settings/integrations/keys/:id/revoke',
      forRecord(web, loadKey, (request, reply, member, key) =>
        web.render(request, reply, 200, {
          title: 'Revoke API key',
          current: 'integrations',
          body: (csrf) => revokeKeyView(key, csrf, member.timeZone),
        }),
      ),
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
