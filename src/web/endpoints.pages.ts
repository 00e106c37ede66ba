// Webhook endpoints in Settings › Integrations (spec: the Test button, the pause banner,
// the re-enable switch, the delivery list):
//   POST /settings/integrations/endpoints                      create: the secret is shown once
//   GET  /settings/integrations/endpoints/{id}                 settings, banner, Test, chart, log (?cursor=)
//   POST /settings/integrations/endpoints/{id}                 edit URL, events, description
//   POST /settings/integrations/endpoints/{id}/enabled         the switch (on clears the failure count)
//   POST /settings/integrations/endpoints/{id}/test            sends a ping, shows its outcome
//   GET  /settings/integrations/endpoints/{id}/delete          confirmation step
//   POST /settings/integrations/endpoints/{id}/delete
//   GET  /settings/integrations/endpoints/{id}/deliveries/{deliveryId}   exact body and headers
// Input is checked against the API's own request schemas, then by the same service
// functions as /v1/webhook-endpoints; their error codes become sentences.
import { Value } from '@sinclair/typebox/value';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SessionUser } from '../accounts/accounts.service.ts';
import { ApiError } from '../http/errors.ts';
import {
  getDeliveryDetail,
  hourlyAttempts,
  type PingResult,
  pageEndpointDeliveries,
  sendPing,
} from '../webhooks/deliveries.service.ts';
import { CreateEndpointBody, UpdateEndpointBody } from '../webhooks/endpoints.schemas.ts';
import {
  changeEndpoint,
  createEndpoint,
  getEndpoint,
  maxEndpointsPerWorkspace,
  removeEndpoint,
  type WebhookEndpoint,
} from '../webhooks/endpoints.service.ts';
import {
  chart,
  deliveryLog,
  deliveryState,
  type EndpointErrors,
  endpointFields,
  outcomeText,
  pauseBanner,
  stateBadge,
} from './endpoints.views.ts';
import { html } from './html.ts';
import { renderIntegrationsPage } from './integrations.pages.ts';
import { csrfField, formatTime, notice } from './layout.ts';
import { findById, formText, requireMember, type Web } from './web.plugin.ts';

type Form = Record<string, string | string[] | undefined>;
const logPageSize = 20;

/** What each refusal of the API means, in words. */
const refusals: Record<string, EndpointErrors> = {
  'invalid-url': { url: 'Enter a full URL, such as https://example.com/webhooks/signet.' },
  'unsafe-url': {
    url: 'Signet only calls public HTTPS addresses on port 443: local, private and internal addresses, cloud metadata, other ports and plain http are refused.',
  },
  'limit-reached': {
    form: `This workspace already has ${maxEndpointsPerWorkspace} webhook endpoints, the most it can have. Delete one you no longer use first.`,
  },
};

function listOf(form: Form, name: string): string[] {
  const value = form[name];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** The form as the API's request body, checked against the API's schema. */
function parseEndpointForm(form: Form, schema: typeof CreateEndpointBody | typeof UpdateEndpointBody) {
  const description = formText(form, 'description').trim();
  const body = {
    url: formText(form, 'url').trim(),
    events: listOf(form, 'events'),
    description: description || null,
  };
  const errors: EndpointErrors = {};
  for (const error of Value.Errors(schema, body)) {
    if (error.path.startsWith('/events')) {
      errors.events = body.events.includes('ping')
        ? 'ping cannot be subscribed: the Test button sends it.'
        : 'Choose between 1 and 5 events.';
    } else if (error.path.startsWith('/description')) {
      errors.description = 'Use at most 500 characters.';
    }
  }
  if (!body.url) errors.url = 'Enter the URL that receives the webhooks.';
  return { body, errors };
}

export function endpointsPages(web: Web) {
  const { ctx } = web;

  async function endpointOf(
    request: FastifyRequest<{ Params: { id: string } }>,
  ): Promise<WebhookEndpoint | null> {
    return findById(request.params.id, (id) =>
      getEndpoint(ctx, (request.member as SessionUser).workspaceId, id),
    );
  }

  async function endpointPage(
    request: FastifyRequest<{ Params: { id: string }; Querystring: Record<string, string | undefined> }>,
    reply: FastifyReply,
    status: number,
    endpoint: WebhookEndpoint,
    options: { ping?: PingResult; form?: Form; errors?: EndpointErrors; done?: string } = {},
  ) {
    const member = request.member as SessionUser;
    const cursor = request.query.cursor ?? null;
    const [log, hours] = await Promise.all([
      pageEndpointDeliveries(ctx, member.workspaceId, endpoint.id, { limit: logPageSize, cursor }),
      hourlyAttempts(ctx, member.workspaceId, endpoint.id),
    ]);
    const errors = options.errors ?? {};
    const values = options.form
      ? {
          url: formText(options.form, 'url'),
          events: listOf(options.form, 'events'),
          description: formText(options.form, 'description'),
        }
      : { url: endpoint.url, events: endpoint.events, description: endpoint.description ?? '' };
    const doneNotices: Record<string, string> = {
      saved: 'Your changes were saved.',
      enabled: 'The endpoint is on again; its failure count is back to 0.',
      disabled: 'The endpoint is off: nothing is sent to it until you turn it back on.',
    };
    return web.render(request, reply, status, {
      title: endpoint.url,
      current: 'integrations',
      body: (csrf) => html`<p><a href="/settings/integrations">← Integrations</a></p>
<h1 class="url-title">${endpoint.url}</h1>
${options.done && doneNotices[options.done] ? notice('success', doneNotices[options.done] as string) : ''}
${options.ping ? notice(options.ping.ok ? 'success' : 'error', outcomeText(options.ping)) : ''}
${pauseBanner(endpoint, csrf, false)}
<div class="card">
<div class="section-title"><h2>Status</h2>${stateBadge(endpoint)}</div>
<p>${endpoint.failureCount} consecutive failures (the endpoint is paused at 20).</p>
<div class="actions">
<form method="post" action="/settings/integrations/endpoints/${endpoint.id}/test">${csrfField(csrf)}<button class="button button-secondary" type="submit">Test: send a ping</button></form>
<form method="post" action="/settings/integrations/endpoints/${endpoint.id}/enabled">${csrfField(csrf)}<input type="hidden" name="enabled" value="${endpoint.enabled ? 'false' : 'true'}"><button class="button ${endpoint.enabled ? 'button-secondary' : 'button-primary'}" type="submit">${endpoint.enabled ? 'Turn off' : 'Turn on'}</button></form>
</div>
</div>
<section class="card" id="log" aria-labelledby="log-title">
<h2 id="log-title">Deliveries</h2>
${chart(hours)}
${deliveryLog(endpoint.id, log.deliveries, log.nextCursor, cursor)}
</section>
<section class="card" aria-labelledby="settings-title">
<h2 id="settings-title">Settings</h2>
<form method="post" action="/settings/integrations/endpoints/${endpoint.id}" novalidate>
${csrfField(csrf)}
${endpointFields(values, errors, 'endpoint')}
<div class="actions"><button class="button button-primary" type="submit">Save changes</button><a href="/settings/integrations/endpoints/${endpoint.id}/delete">Delete this endpoint</a></div>
</form>
</section>`,
    });
  }

  return async function register(app: FastifyInstance) {
    app.addHook('preHandler', requireMember);

    app.post<{ Body: Form }>('/settings/integrations/endpoints', async (request, reply) => {
      const member = request.member as SessionUser;
      const form = request.body ?? {};
      const { body, errors } = parseEndpointForm(form, CreateEndpointBody);
      const again = (status: number, problems: EndpointErrors) =>
        renderIntegrationsPage(web, request, reply, status, { endpointForm: { form, errors: problems } });
      if (Object.keys(errors).length) return again(400, errors);
      try {
        const created = await createEndpoint(ctx, member.workspaceId, body);
        return renderIntegrationsPage(web, request, reply, 201, { createdEndpoint: created });
      } catch (error) {
        if (error instanceof ApiError && refusals[error.code]) {
          return again(error.code === 'limit-reached' ? 409 : 400, refusals[error.code] as EndpointErrors);
        }
        throw error;
      }
    });

    app.get<{ Params: { id: string }; Querystring: Record<string, string | undefined> }>(
      '/settings/integrations/endpoints/:id',
      async (request, reply) => {
        const endpoint = await endpointOf(request);
        if (!endpoint) return web.notFound(request, reply);
        return endpointPage(request, reply, 200, endpoint, { done: request.query.done });
      },
    );

    app.post<{ Params: { id: string }; Querystring: Record<string, string | undefined>; Body: Form }>(
      '/settings/integrations/endpoints/:id',
      async (request, reply) => {
        const endpoint = await endpointOf(request);
        if (!endpoint) return web.notFound(request, reply);
        const form = request.body ?? {};
        const { body, errors } = parseEndpointForm(form, UpdateEndpointBody);
        if (Object.keys(errors).length) return endpointPage(request, reply, 400, endpoint, { form, errors });
        try {
          await changeEndpoint(ctx, (request.member as SessionUser).workspaceId, endpoint.id, body);
        } catch (error) {
          if (error instanceof ApiError && refusals[error.code]) {
            return endpointPage(request, reply, 400, endpoint, {
              form,
              errors: refusals[error.code] as EndpointErrors,
            });
          }
          throw error;
        }
        return reply.redirect(`/settings/integrations/endpoints/${endpoint.id}?done=saved`, 303);
      },
    );

    app.post<{ Params: { id: string }; Body: Form }>(
      '/settings/integrations/endpoints/:id/enabled',
      async (request, reply) => {
        const endpoint = await endpointOf(request);
        if (!endpoint) return web.notFound(request, reply);
        const enabled = formText(request.body ?? {}, 'enabled') === 'true';
        await changeEndpoint(ctx, (request.member as SessionUser).workspaceId, endpoint.id, { enabled });
        return reply.redirect(
          `/settings/integrations/endpoints/${endpoint.id}?done=${enabled ? 'enabled' : 'disabled'}`,
          303,
        );
      },
    );

    app.post<{ Params: { id: string }; Querystring: Record<string, string | undefined> }>(
      '/settings/integrations/endpoints/:id/test',
      async (request, reply) => {
        const endpoint = await endpointOf(request);
        if (!endpoint) return web.notFound(request, reply);
        const ping = await sendPing(ctx, (request.member as SessionUser).workspaceId, endpoint.id);
        return endpointPage(request, reply, 200, endpoint, { ping });
      },
    );

    app.get<{ Params: { id: string } }>(
      '/settings/integrations/endpoints/:id/delete',
      async (request, reply) => {
        const endpoint = await endpointOf(request);
        if (!endpoint) return web.notFound(request, reply);
        return web.render(request, reply, 200, {
          title: 'Delete endpoint',
          current: 'integrations',
          body: (csrf) => html`<div class="card narrow">
<h1>Delete this endpoint?</h1>
<p><strong>${endpoint.url}</strong> stops receiving webhooks at once, and its delivery log is deleted with it. Its secret cannot be brought back: a new endpoint gets a new secret.</p>
<form method="post" action="/settings/integrations/endpoints/${endpoint.id}/delete">${csrfField(csrf)}
<div class="actions"><button class="button button-danger" type="submit">Delete endpoint</button><a href="/settings/integrations/endpoints/${endpoint.id}">Cancel</a></div></form>
</div>`,
        });
      },
    );

    app.post<{ Params: { id: string } }>(
      '/settings/integrations/endpoints/:id/delete',
      async (request, reply) => {
        const endpoint = await endpointOf(request);
        if (!endpoint) return web.notFound(request, reply);
        await removeEndpoint(ctx, (request.member as SessionUser).workspaceId, endpoint.id);
        return reply.redirect('/settings/integrations?done=endpoint-deleted', 303);
      },
    );

    app.get<{ Params: { id: string; deliveryId: string } }>(
      '/settings/integrations/endpoints/:id/deliveries/:deliveryId',
      async (request, reply) => {
        const endpoint = await endpointOf(request);
        const detail =
          endpoint &&
          (await findById(request.params.deliveryId, (id) =>
            getDeliveryDetail(ctx, (request.member as SessionUser).workspaceId, endpoint.id, id),
          ));
        if (!endpoint || !detail) return web.notFound(request, reply);
        return web.render(request, reply, 200, {
          title: `Delivery ${detail.id}`,
          current: 'integrations',
          body: () => html`<p><a href="/settings/integrations/endpoints/${endpoint.id}#log">← ${endpoint.url}</a></p>
<h1>Delivery of <code>${detail.eventType}</code></h1>
<div class="card">
<dl class="meta">
<div><dt>Delivery id</dt><dd><code>${detail.id}</code></dd></div>
<div><dt>Event id</dt><dd><code>${detail.eventId}</code></dd></div>
<div><dt>Created</dt><dd>${formatTime(detail.createdAt)}</dd></div>
<div><dt>State</dt><dd>${deliveryState(detail)}</dd></div>
</dl>
</div>
<section class="card" aria-labelledby="body-title">
<h2 id="body-title">Body</h2>
${detail.body === null ? html`<p class="muted">The body was pruned with the retention period.</p>` : html`<pre class="shell" id="delivery-body">${detail.body}</pre><button class="button button-secondary button-small" type="button" data-copy="delivery-body">Copy body</button>`}
</section>
${detail.requests.map((r) => {
  const attempt = detail.attemptLog.find((a) => a.attempt === r.attempt);
  return html`<section class="card" aria-labelledby="attempt-${r.attempt}">
<h2 id="attempt-${r.attempt}">Attempt ${r.attempt}: ${attempt?.statusCode ?? attempt?.errorClass} in ${attempt?.durationMs} ms</h2>
<p class="small muted">POST ${endpoint.url} at ${attempt ? formatTime(attempt.startedAt) : ''}${attempt?.address ? ` to ${attempt.address}` : ''}</p>
<pre class="shell">${Object.entries(r.headers).map(([name, value]) => `${name}: ${value}\n`)}</pre>
${attempt?.responseBody ? html`<h3>Response (first 4 KB)</h3><pre class="shell">${attempt.responseBody}</pre>` : ''}
</section>`;
})}
<p class="small muted">To check a signature by hand: HMAC-SHA256 with the endpoint's secret over <code>&lt;t&gt;.&lt;body&gt;</code>, in hex, equals <code>v1</code>. See the API guide.</p>`,
        });
      },
    );
  };
}
