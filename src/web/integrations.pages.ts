// Settings › Integrations › API and Webhook (spec: keys are created and revoked here).
//   GET  /settings/integrations                      keys (and how to call the API)
//   POST /settings/integrations/keys                 create: the secret is shown once, on this answer
//   GET  /settings/integrations/keys/{id}/revoke     the confirmation step
//   POST /settings/integrations/keys/{id}/revoke     revoke → back to the list
// The same service functions as the CLI, with the session's workspace: another
// workspace's key id is a 404 exactly like a random one.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SessionUser } from '../accounts/accounts.service.ts';
import { ApiError } from '../http/errors.ts';
import {
  type ApiKey,
  type CreatedApiKey,
  createApiKey,
  getApiKey,
  listApiKeys,
  maxActiveKeysPerWorkspace,
  revokeApiKey,
} from '../keys/keys.service.ts';
import { listEndpoints, type WebhookEndpoint } from '../webhooks/endpoints.service.ts';
import { type EndpointErrors, endpointsSection } from './endpoints.views.ts';
import { html, type SafeHtml } from './html.ts';
import { csrfField, fieldError, formatTime, invalidAttrs, notice } from './layout.ts';
import { findById, formText, requireMember, type Web } from './web.plugin.ts';

type Form = Record<string, string | undefined>;

function planNotice(member: SessionUser): SafeHtml {
  if (member.plan === 'max') return html``;
  return notice(
    'info',
    html`This workspace is on the Free plan: you can create keys now, but the API answers <code>403 plan-required</code> until the workspace is on Max. ${member.role === 'owner' ? html`<a href="/settings/billing">Switch to Max</a>` : 'An owner can switch it in Billing.'}`,
  );
}

function keysTable(keys: ApiKey[]): SafeHtml {
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label="API keys">
<table>
<thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>
${keys.map(
  (key) => html`<tr>
<td>${key.name}</td>
<td><code>sgn_…${key.hint}</code></td>
<td>${formatTime(key.createdAt)}</td>
<td>${key.lastUsedAt ? formatTime(key.lastUsedAt) : html`<span class="muted">never</span>`}</td>
<td>${key.revokedAt ? html`<span class="badge badge-neutral">Revoked ${formatTime(key.revokedAt)}</span>` : html`<span class="badge badge-success">Active</span>`}</td>
<td>${key.revokedAt ? '' : html`<a href="/settings/integrations/keys/${key.id}/revoke">Revoke<span class="visually-hidden"> ${key.name}</span></a>`}</td>
</tr>`,
)}
</tbody>
</table>
</div>`;
}

function curlLine(baseUrl: string, secret: string): SafeHtml {
  return html`<pre class="shell" id="curl-line">curl -H "Authorization: Bearer ${secret}" "${baseUrl}/v1/documents?limit=3"</pre>`;
}

export interface IntegrationsPageOptions {
  form?: Form;
  errors?: Form;
  created?: CreatedApiKey;
  done?: string;
  /** The add-endpoint form as posted, with what was wrong with it. */
  endpointForm?: { form: Record<string, string | string[] | undefined>; errors: EndpointErrors };
  createdEndpoint?: WebhookEndpoint & { secret: string };
}

const doneNotices: Record<string, string> = {
  revoked: 'The key was revoked. Requests with it are refused from now on.',
  'endpoint-deleted': 'The endpoint was deleted with its delivery log.',
};

function formValues(form: Record<string, string | string[] | undefined> | undefined) {
  const value = (name: string) => (typeof form?.[name] === 'string' ? (form[name] as string) : '');
  const events = form?.events;
  return {
    url: value('url'),
    events: events === undefined ? [] : [events].flat(),
    description: value('description'),
  };
}

/** The integrations page: keys and endpoints, with whatever a form just did. */
export async function renderIntegrationsPage(
  web: Web,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  options: IntegrationsPageOptions = {},
) {
  const { ctx } = web;
  const member = request.member as SessionUser;
  const [keys, endpoints] = await Promise.all([
    listApiKeys(ctx, member.workspaceId),
    listEndpoints(ctx, member.workspaceId),
  ]);
  const active = keys.filter((k) => !k.revokedAt).length;
  const { created, createdEndpoint, errors = {} } = options;
  // A secret is on this page: never store it anywhere.
  if (created || createdEndpoint) reply.header('cache-control', 'no-store');
  return web.render(request, reply, status, {
    title: 'Integrations',
    current: 'integrations',
    body: (csrf) => html`<h1>Integrations</h1>
<p class="muted">API keys read every document of ${member.workspaceName} through the REST API at <code>${ctx.config.publicUrl}/v1</code>. Keep them on your servers: never in a browser app or a public repository.</p>
${planNotice(member)}
${options.done && doneNotices[options.done] ? notice('success', doneNotices[options.done] as string) : ''}
${
  createdEndpoint
    ? html`<div class="card" role="status">
<h2>Your new endpoint's signing secret</h2>
<p>Webhooks to <strong>${createdEndpoint.url}</strong> are signed with this secret. <strong>Copy it now: it cannot be shown again.</strong> If you lose it, delete the endpoint and create a new one.</p>
<div class="secret"><code id="new-secret">${createdEndpoint.secret}</code><button class="button button-secondary button-small" type="button" data-copy="new-secret">Copy</button></div>
<p><a href="/settings/integrations/endpoints/${createdEndpoint.id}">Open the endpoint</a> to send a test ping.</p>
</div>`
    : ''
}
${
  created
    ? html`<div class="card" role="status">
<h2>Your new API key “${created.name}”</h2>
<p><strong>Copy it now: it cannot be shown again.</strong> Signet keeps only a hash of it. If you lose it, revoke it and create another.</p>
<div class="secret"><code id="new-key">${created.secret}</code><button class="button button-secondary button-small" type="button" data-copy="new-key">Copy</button></div>
<p class="small muted">Try it:</p>
${curlLine(ctx.config.publicUrl, created.secret)}
</div>`
    : ''
}
<section class="card" aria-labelledby="keys-title">
<div class="section-title"><h2 id="keys-title">API keys</h2><span class="muted small">${active} of ${maxActiveKeysPerWorkspace} active</span></div>
${
  keys.length
    ? keysTable(keys)
    : html`<div class="empty"><p><strong>No API keys yet.</strong></p><p class="muted">Create one below, then list your documents with:</p>${curlLine(ctx.config.publicUrl, 'sgn_…')}</div>`
}
<form method="post" action="/settings/integrations/keys" novalidate>
${csrfField(csrf)}
<h3>Create a key</h3>
${errors.form ? notice('error', errors.form) : ''}
<div class="field">
<label for="key-name">Name</label>
<span class="hint" id="key-name-hint">What uses it, for example “CRM sync”.</span>
<input id="key-name" name="name" type="text" maxlength="100" value="${formText(options.form, 'name')}" required ${invalidAttrs('key-name', errors.name)}>
${fieldError('key-name', errors.name)}
</div>
<div class="actions"><button class="button button-primary" type="submit">Create API key</button></div>
</form>
</section>
${endpointsSection(endpoints, csrf, {
  values: formValues(options.endpointForm?.form),
  errors: options.endpointForm?.errors ?? {},
})}`,
  });
}

export function integrationsPages(web: Web) {
  const { ctx } = web;
  const listPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    options: IntegrationsPageOptions = {},
  ) => renderIntegrationsPage(web, request, reply, status, options);

  /** The workspace's key for the URL's id, or null (wrong shape, missing, another workspace's). */
  async function keyOf(request: FastifyRequest<{ Params: { id: string } }>): Promise<ApiKey | null> {
    const member = request.member as SessionUser;
    return findById(request.params.id, (id) => getApiKey(ctx, member.workspaceId, id));
  }

  return async function register(app: FastifyInstance) {
    app.addHook('preHandler', requireMember);

    app.get<{ Querystring: Form }>('/settings/integrations', (request, reply) =>
      listPage(request, reply, 200, { done: request.query.done }),
    );

    app.post<{ Body: Form }>('/settings/integrations/keys', async (request, reply) => {
      const member = request.member as SessionUser;
      const form = request.body ?? {};
      const name = formText(form, 'name').trim();
      if (!name) return listPage(request, reply, 400, { form, errors: { name: 'Give the key a name.' } });
      if (name.length > 100)
        return listPage(request, reply, 400, { form, errors: { name: 'Use at most 100 characters.' } });
      try {
        const created = await createApiKey(ctx, { workspaceId: member.workspaceId, name });
        return listPage(request, reply, 201, { created });
      } catch (error) {
        if (error instanceof ApiError && error.code === 'limit-reached') {
          return listPage(request, reply, 409, {
            form,
            errors: {
              form: `This workspace already has ${maxActiveKeysPerWorkspace} active keys, the most it can have. Revoke one you no longer use, then create the new one.`,
            },
          });
        }
        throw error;
      }
    });

    app.get<{ Params: { id: string } }>('/settings/integrations/keys/:id/revoke', async (request, reply) => {
      const key = await keyOf(request);
      if (!key) return web.notFound(request, reply);
      return web.render(request, reply, 200, {
        title: 'Revoke API key',
        current: 'integrations',
        body: (csrf) => html`<div class="card narrow">
<h1>Revoke “${key.name}”?</h1>
${
  key.revokedAt
    ? html`<p>This key was revoked on ${formatTime(key.revokedAt)}.</p><p><a href="/settings/integrations">Back to Integrations</a></p>`
    : html`<p>Requests with <code>sgn_…${key.hint}</code> are refused with <code>401 invalid-api-key</code> from the moment you confirm, in every Signet process. This cannot be undone.</p>
<form method="post" action="/settings/integrations/keys/${key.id}/revoke">
${csrfField(csrf)}
<div class="actions"><button class="button button-danger" type="submit">Revoke key</button><a href="/settings/integrations">Cancel</a></div>
</form>`
}
</div>`,
      });
    });

    app.post<{ Params: { id: string } }>('/settings/integrations/keys/:id/revoke', async (request, reply) => {
      const key = await keyOf(request);
      if (!key) return web.notFound(request, reply);
      await revokeApiKey(ctx, key.id, (request.member as SessionUser).workspaceId);
      return reply.redirect('/settings/integrations?done=revoked', 303);
    });
  };
}
