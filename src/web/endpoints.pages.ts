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
import { deleteEndpointView, deliveryView, type EndpointErrors, endpointView } from './endpoints.views.ts';
import { renderIntegrationsPage } from './integrations.pages.ts';
import { type Form, findById, forMembers, formList, formText, forRecord, type Web } from './kit.ts';

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

/** The form as the API's request body, checked against the API's schema. */
function parseEndpointForm(form: Form, schema: typeof CreateEndpointBody | typeof UpdateEndpointBody) {
  const description = formText(form, 'description').trim();
  const body = {
    url: formText(form, 'url').trim(),
    events: formList(form, 'events'),
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

type EndpointRequest = FastifyRequest<{ Params: { id: string }; Querystring: Form }>;

export function endpointsPages(web: Web) {
  const { ctx } = web;
  const loadEndpoint = (workspaceId: string, id: string) => getEndpoint(ctx, workspaceId, id);

  async function endpointPage(
    request: EndpointRequest,
    reply: FastifyReply,
    member: SessionUser,
    status: number,
    endpoint: WebhookEndpoint,
    options: { ping?: PingResult; form?: Form; errors?: EndpointErrors; done?: string } = {},
  ) {
    const cursor = formText(request.query, 'cursor') || null;
    const [log, hours] = await Promise.all([
      pageEndpointDeliveries(ctx, member.workspaceId, endpoint.id, { limit: logPageSize, cursor }),
      hourlyAttempts(ctx, member.workspaceId, endpoint.id),
    ]);
    const values = options.form
      ? {
          url: formText(options.form, 'url'),
          events: formList(options.form, 'events'),
          description: formText(options.form, 'description'),
        }
      : { url: endpoint.url, events: endpoint.events, description: endpoint.description ?? '' };
    return web.render(request, reply, status, {
      title: endpoint.url,
      current: 'integrations',
      body: (csrf) =>
        endpointView(
          {
            endpoint,
            log,
            cursor,
            hours,
            values,
            errors: options.errors ?? {},
            ping: options.ping,
            done: options.done,
          },
          csrf,
        ),
    });
  }

  /** POST /settings/integrations/endpoints: the secret is shown once, on the integrations page. */
  async function createFromForm(
    request: FastifyRequest<{ Body: Form }>,
    reply: FastifyReply,
    member: SessionUser,
  ) {
    const form = request.body ?? {};
    const { body, errors } = parseEndpointForm(form, CreateEndpointBody);
    const again = (status: number, problems: EndpointErrors) =>
      renderIntegrationsPage(web, request, reply, member, status, {
        endpointForm: { form, errors: problems },
      });
    if (Object.keys(errors).length) return again(400, errors);
    try {
      const created = await createEndpoint(ctx, member.workspaceId, body);
      return renderIntegrationsPage(web, request, reply, member, 201, { createdEndpoint: created });
    } catch (error) {
      const refusal = error instanceof ApiError ? refusals[error.code] : undefined;
      if (!refusal) throw error;
      return again((error as ApiError).code === 'limit-reached' ? 409 : 400, refusal);
    }
  }

  async function saveFromForm(
    request: EndpointRequest & FastifyRequest<{ Body: Form }>,
    reply: FastifyReply,
    member: SessionUser,
    endpoint: WebhookEndpoint,
  ) {
    const form = request.body ?? {};
    const { body, errors } = parseEndpointForm(form, UpdateEndpointBody);
    if (Object.keys(errors).length)
      return endpointPage(request, reply, member, 400, endpoint, { form, errors });
    try {
      await changeEndpoint(ctx, member.workspaceId, endpoint.id, body);
    } catch (error) {
      const refusal = error instanceof ApiError ? refusals[error.code] : undefined;
      if (!refusal) throw error;
      return endpointPage(request, reply, member, 400, endpoint, { form, errors: refusal });
    }
    return reply.redirect(`/settings/integrations/endpoints/${endpoint.id}?done=saved`, 303);
  }

  return async function register(app: FastifyInstance) {
    const path = '/settings/integrations/endpoints/:id';
    app.post<{ Body: Form }>('/settings/integrations/endpoints', forMembers(createFromForm));

    app.get<{ Params: { id: string }; Querystring: Form }>(
      path,
      forRecord(web, loadEndpoint, (request, reply, member, endpoint) =>
        endpointPage(request, reply, member, 200, endpoint, { done: formText(request.query, 'done') }),
      ),
    );
    app.post<{ Params: { id: string }; Querystring: Form; Body: Form }>(
      path,
      forRecord(web, loadEndpoint, saveFromForm),
    );

    app.post<{ Params: { id: string }; Body: Form }>(
      `${path}/enabled`,
      forRecord(web, loadEndpoint, async (request, reply, member, endpoint) => {
        const enabled = formText(request.body, 'enabled') === 'true';
        await changeEndpoint(ctx, member.workspaceId, endpoint.id, { enabled });
        return reply.redirect(
          `/settings/integrations/endpoints/${endpoint.id}?done=${enabled ? 'enabled' : 'disabled'}`,
          303,
        );
      }),
    );

    app.post<{ Params: { id: string }; Querystring: Form }>(
      `${path}/test`,
      forRecord(web, loadEndpoint, async (request, reply, member, endpoint) => {
        const ping = await sendPing(ctx, member.workspaceId, endpoint.id);
        return endpointPage(request, reply, member, 200, endpoint, { ping });
      }),
    );

    app.get<{ Params: { id: string } }>(
      `${path}/delete`,
      forRecord(web, loadEndpoint, (request, reply, _member, endpoint) =>
        web.render(request, reply, 200, {
          title: 'Delete endpoint',
          current: 'integrations',
          body: (csrf) => deleteEndpointView(endpoint, csrf),
        }),
      ),
    );
    app.post<{ Params: { id: string } }>(
      `${path}/delete`,
      forRecord(web, loadEndpoint, async (_request, reply, member, endpoint) => {
        await removeEndpoint(ctx, member.workspaceId, endpoint.id);
        return reply.redirect('/settings/integrations?done=endpoint-deleted', 303);
      }),
    );

    app.get<{ Params: { id: string; deliveryId: string } }>(
      `${path}/deliveries/:deliveryId`,
      forRecord(web, loadEndpoint, async (request, reply, member, endpoint) => {
        const detail = await findById(request.params.deliveryId, (id) =>
          getDeliveryDetail(ctx, member.workspaceId, endpoint.id, id),
        );
        if (!detail) return web.notFound(request, reply);
        return web.render(request, reply, 200, {
          title: `Delivery ${detail.id}`,
          current: 'integrations',
          body: () => deliveryView(detail, endpoint),
        });
      }),
    );
  };
}
