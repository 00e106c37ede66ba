// Webhook endpoints in Settings › Integrations, in the member's language (spec: the Test
// button, the pause banner, the re-enable switch, the delivery list):
//   POST /settings/integrations/endpoints                      create: the secret is shown once
//   GET  /settings/integrations/endpoints/{id}                 settings, banner, Test, chart, log (?cursor=)
//   POST /settings/integrations/endpoints/{id}                 edit URL, events, description
//   POST /settings/integrations/endpoints/{id}/enabled         the switch (on clears the failure count)
//   POST /settings/integrations/endpoints/{id}/test            sends a ping, then the page shows its outcome (?ping=)
//   POST /settings/integrations/endpoints/{id}/rotate          a new secret, shown once on the endpoint's page
//   GET  /settings/integrations/endpoints/{id}/delete          confirmation step
//   POST /settings/integrations/endpoints/{id}/delete
//   GET  /settings/integrations/endpoints/{id}/deliveries/{deliveryId}   exact body and headers
//   POST /settings/integrations/endpoints/{id}/deliveries/{deliveryId}/resend   a dropped delivery sent again
// Input is checked by the service (checkEndpointInput: the limits the API's request schema
// states, as keyed sentences), then by the same service functions as /v1/webhook-endpoints;
// their error codes become sentences of the catalogues.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SessionUser } from '../accounts/accounts.service.ts';
import { ApiError } from '../http/errors.ts';
import type { MessageKey, MessageValues, Translator } from '../i18n/messages.ts';
import { sentencesIn } from '../i18n/refusals.ts';
import { InputError } from '../input-error.ts';
import {
  getDeliveryDetail,
  hourlyAttempts,
  type PingResult,
  pageEndpointDeliveries,
  resendDelivery,
  sendPing,
} from '../webhooks/deliveries.service.ts';
import {
  changeEndpoint,
  checkEndpointInput,
  createEndpoint,
  getEndpoint,
  maxEndpointsPerWorkspace,
  removeEndpoint,
  rotateEndpointSecret,
  type WebhookEndpoint,
} from '../webhooks/endpoints.service.ts';
import {
  deleteEndpointView,
  deliveryView,
  type EndpointErrors,
  endpointView,
  overlapChoices,
} from './endpoints.views.ts';
import { renderIntegrationsPage } from './integrations.pages.ts';
import { type Form, findById, forMembers, formList, formText, forRecord, type Web } from './kit.ts';
import { memberTranslator } from './member-language.ts';
import { revealOnce, takeRevealed } from './reveal.ts';

const logPageSize = 20;

/** What each refusal of the API means: the field it concerns and its sentence. */
const refusals: Record<string, [field: keyof EndpointErrors, key: MessageKey, values?: MessageValues]> = {
  'invalid-url': ['url', 'endpoints.refusal.invalidUrl'],
  'unsafe-url': ['url', 'endpoints.refusal.unsafeUrl'],
  'limit-reached': ['form', 'endpoints.refusal.limit', { max: maxEndpointsPerWorkspace }],
};

/** The form as the API's request body, and the service's sentences for what it refuses. */
function parseEndpointForm(form: Form, tr: Translator) {
  const description = formText(form, 'description').trim();
  const body = {
    url: formText(form, 'url').trim(),
    events: formList(form, 'events'),
    description: description || null,
  };
  try {
    checkEndpointInput(body);
    return { body, errors: {} };
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    return { body, errors: sentencesIn(error, tr) as EndpointErrors };
  }
}

type EndpointRequest = FastifyRequest<{ Params: { id: string }; Querystring: Form }>;

async function endpointPage(
  web: Web,
  request: EndpointRequest,
  reply: FastifyReply,
  member: SessionUser,
  status: number,
  endpoint: WebhookEndpoint,
  options: { ping?: PingResult; form?: Form; errors?: EndpointErrors; done?: string; rotated?: string } = {},
) {
  const cursor = formText(request.query, 'cursor') || null;
  const [log, hours] = await Promise.all([
    pageEndpointDeliveries(web.ctx, member.workspaceId, endpoint.id, { limit: logPageSize, cursor }),
    hourlyAttempts(web.ctx, member.workspaceId, endpoint.id),
  ]);
  const { form, errors = {}, ping, done, rotated } = options;
  const tr = memberTranslator(request, reply);
  const values = form
    ? {
        url: formText(form, 'url'),
        events: formList(form, 'events'),
        description: formText(form, 'description'),
      }
    : { url: endpoint.url, events: endpoint.events, description: endpoint.description ?? '' };
  return web.render(request, reply, status, {
    title: endpoint.url,
    current: 'integrations',
    tr,
    body: (csrf) =>
      endpointView(
        {
          endpoint,
          log,
          cursor,
          hours,
          values,
          errors,
          ping,
          done,
          rotated,
          now: web.ctx.clock.now(),
          timeZone: member.timeZone,
        },
        csrf,
        tr,
      ),
  });
}

/** The sentence of an API refusal of the form, beside its field, or undefined for any other error. */
function refusalOf(error: unknown, tr: Translator): EndpointErrors | undefined {
  const refusal = error instanceof ApiError ? refusals[error.code] : undefined;
  if (!refusal) return undefined;
  const [field, key, values] = refusal;
  return { [field]: tr.t(key, values) };
}

/** POST /settings/integrations/endpoints: then the integrations page shows the secret once (reveal.ts). */
async function createFromForm(
  web: Web,
  request: FastifyRequest<{ Body: Form }>,
  reply: FastifyReply,
  member: SessionUser,
) {
  const form = request.body ?? {};
  const tr = memberTranslator(request, reply);
  const { body, errors } = parseEndpointForm(form, tr);
  const again = (status: number, problems: EndpointErrors) =>
    renderIntegrationsPage(web, request, reply, member, status, { endpointForm: { form, errors: problems } });
  if (Object.keys(errors).length) return again(400, errors);
  try {
    const created = await createEndpoint(web.ctx, member.workspaceId, body);
    revealOnce(web, request, reply, member, { kind: 'endpoint', id: created.id, secret: created.secret });
    return reply.redirect('/settings/integrations?done=endpoint-created', 303);
  } catch (error) {
    const refusal = refusalOf(error, tr);
    if (!refusal) throw error;
    return again((error as ApiError).code === 'limit-reached' ? 409 : 400, refusal);
  }
}

async function saveFromForm(
  web: Web,
  request: EndpointRequest & FastifyRequest<{ Body: Form }>,
  reply: FastifyReply,
  member: SessionUser,
  endpoint: WebhookEndpoint,
) {
  const form = request.body ?? {};
  const tr = memberTranslator(request, reply);
  const { body, errors } = parseEndpointForm(form, tr);
  if (Object.keys(errors).length)
    return endpointPage(web, request, reply, member, 400, endpoint, { form, errors });
  try {
    await changeEndpoint(web.ctx, member.workspaceId, endpoint.id, body);
  } catch (error) {
    const refusal = refusalOf(error, tr);
    if (!refusal) throw error;
    return endpointPage(web, request, reply, member, 400, endpoint, { form, errors: refusal });
  }
  return reply.redirect(`/settings/integrations/endpoints/${endpoint.id}?done=saved`, 303);
}

async function switchEnabled(
  web: Web,
  request: FastifyRequest<{ Body: Form }>,
  reply: FastifyReply,
  member: SessionUser,
  endpoint: WebhookEndpoint,
) {
  const enabled = formText(request.body, 'enabled') === 'true';
  await changeEndpoint(web.ctx, member.workspaceId, endpoint.id, { enabled });
  return reply.redirect(
    `/settings/integrations/endpoints/${endpoint.id}?done=${enabled ? 'enabled' : 'disabled'}`,
    303,
  );
}

/** POST …/rotate: the new secret crosses the redirect sealed (reveal.ts) and is shown once. */
async function rotateFromForm(
  web: Web,
  request: EndpointRequest & FastifyRequest<{ Body: Form }>,
  reply: FastifyReply,
  member: SessionUser,
  endpoint: WebhookEndpoint,
) {
  const overlap = Number(formText(request.body, 'overlap'));
  if (!overlapChoices.some((choice) => choice.hours === overlap))
    return endpointPage(web, request, reply, member, 400, endpoint, {
      errors: { overlap: memberTranslator(request, reply).t('endpoints.refusal.overlap') },
    });
  const rotated = await rotateEndpointSecret(web.ctx, member.workspaceId, endpoint.id, overlap);
  revealOnce(web, request, reply, member, { kind: 'rotated', id: endpoint.id, secret: rotated.secret });
  return reply.redirect(`/settings/integrations/endpoints/${endpoint.id}?done=rotated#secret`, 303);
}

async function deliveryPage(
  web: Web,
  request: FastifyRequest<{ Params: { deliveryId: string } }>,
  reply: FastifyReply,
  member: SessionUser,
  endpoint: WebhookEndpoint,
  status: number,
  resent: boolean,
  refusal?: MessageKey,
) {
  const load = (id: string) => getDeliveryDetail(web.ctx, member.workspaceId, endpoint.id, id);
  const detail = await findById(request.params.deliveryId, load);
  if (!detail) return web.notFound(request, reply);
  const tr = memberTranslator(request, reply);
  const sentence = refusal ? tr.t(refusal) : undefined;
  return web.render(request, reply, status, {
    title: tr.t('endpoints.delivery.title', { id: detail.id }),
    current: 'integrations',
    tr,
    body: (csrf) => deliveryView(detail, endpoint, csrf, { resent, refusal: sentence }, member.timeZone, tr),
  });
}

/** The outcome of the ping `deliveryId` (the Test button's redirect), read from its delivery. */
async function pingOutcome(
  web: Web,
  member: SessionUser,
  endpoint: WebhookEndpoint,
  deliveryId: string,
): Promise<PingResult | undefined> {
  if (!deliveryId) return undefined;
  const detail = await findById(deliveryId, (id) =>
    getDeliveryDetail(web.ctx, member.workspaceId, endpoint.id, id),
  );
  const attempt = detail?.eventType === 'ping' ? detail.attemptLog.at(-1) : undefined;
  if (!detail || !attempt) return undefined;
  return {
    deliveryId: detail.id,
    eventId: detail.eventId,
    ok: detail.status === 'delivered',
    statusCode: attempt.statusCode,
    errorClass: attempt.errorClass,
    durationMs: attempt.durationMs,
    ...(attempt.errorClass === 'blocked' && attempt.responseBody ? { refusal: attempt.responseBody } : {}),
  };
}

/** A delivery's page (the exact requests) and its Resend (post, redirect, get). */
function deliveryRoutes(
  web: Web,
  app: FastifyInstance,
  load: (workspaceId: string, id: string) => Promise<WebhookEndpoint>,
  path: string,
) {
  const { ctx } = web;
  app.get<{ Params: { id: string; deliveryId: string }; Querystring: Form }>(
    `${path}/deliveries/:deliveryId`,
    forRecord(web, load, (request, reply, member, endpoint) =>
      deliveryPage(web, request, reply, member, endpoint, 200, formText(request.query, 'done') === 'resent'),
    ),
  );
  app.post<{ Params: { id: string; deliveryId: string } }>(
    `${path}/deliveries/:deliveryId/resend`,
    forRecord(web, load, async (request, reply, member, endpoint) => {
      const back = `/settings/integrations/endpoints/${endpoint.id}/deliveries/${request.params.deliveryId}`;
      try {
        const done = await findById(request.params.deliveryId, (id) =>
          resendDelivery(ctx, member.workspaceId, endpoint.id, id),
        );
        if (!done) return web.notFound(request, reply);
        return reply.redirect(`${back}?done=resent`, 303);
      } catch (error) {
        if (!(error instanceof ApiError && error.code === 'delivery-not-resendable')) throw error;
        return deliveryPage(
          web,
          request,
          reply,
          member,
          endpoint,
          409,
          false,
          'endpoints.refusal.notResendable',
        );
      }
    }),
  );
}

/** Deleting an endpoint: a confirmation step, then the deletion. */
function deleteRoutes(
  web: Web,
  app: FastifyInstance,
  load: (workspaceId: string, id: string) => Promise<WebhookEndpoint>,
  path: string,
) {
  type Id = { Params: { id: string } };
  app.get<Id>(
    `${path}/delete`,
    forRecord(web, load, (request, reply, _member, endpoint) => {
      const tr = memberTranslator(request, reply);
      return web.render(request, reply, 200, {
        title: tr.t('endpoints.delete.title'),
        current: 'integrations',
        tr,
        body: (csrf) => deleteEndpointView(endpoint, csrf, tr),
      });
    }),
  );
  app.post<Id>(
    `${path}/delete`,
    forRecord(web, load, async (_request, reply, member, endpoint) => {
      await removeEndpoint(web.ctx, member.workspaceId, endpoint.id);
      return reply.redirect('/settings/integrations?done=endpoint-deleted', 303);
    }),
  );
}

export function endpointsPages(web: Web) {
  const { ctx } = web;
  const load = (workspaceId: string, id: string) => getEndpoint(ctx, workspaceId, id);
  const path = '/settings/integrations/endpoints/:id';
  type Id = { Params: { id: string } };
  return async function register(app: FastifyInstance) {
    app.post<{ Body: Form }>(
      '/settings/integrations/endpoints',
      forMembers((request, reply, member) => createFromForm(web, request, reply, member)),
    );
    app.get<Id & { Querystring: Form }>(
      path,
      forRecord(web, load, async (request, reply, member, endpoint) => {
        const revealed = takeRevealed(web, request, reply, member);
        return endpointPage(web, request, reply, member, 200, endpoint, {
          done: formText(request.query, 'done'),
          ping: await pingOutcome(web, member, endpoint, formText(request.query, 'ping')),
          ...(revealed?.kind === 'rotated' && revealed.id === endpoint.id
            ? { rotated: revealed.secret }
            : {}),
        });
      }),
    );
    app.post<Id & { Querystring: Form; Body: Form }>(
      path,
      forRecord(web, load, (request, reply, member, endpoint) =>
        saveFromForm(web, request, reply, member, endpoint),
      ),
    );
    app.post<Id & { Body: Form }>(
      `${path}/enabled`,
      forRecord(web, load, (request, reply, member, endpoint) =>
        switchEnabled(web, request, reply, member, endpoint),
      ),
    );
    // Post, redirect, get: the page reads the ping's outcome back from its delivery, so a
    // reload shows it again rather than sending another ping.
    app.post<Id & { Querystring: Form }>(
      `${path}/test`,
      forRecord(web, load, async (_request, reply, member, endpoint) => {
        const ping = await sendPing(ctx, member.workspaceId, endpoint.id);
        return reply.redirect(`/settings/integrations/endpoints/${endpoint.id}?ping=${ping.deliveryId}`, 303);
      }),
    );
    deleteRoutes(web, app, load, path);
    app.post<Id & { Querystring: Form; Body: Form }>(
      `${path}/rotate`,
      forRecord(web, load, (request, reply, member, endpoint) =>
        rotateFromForm(web, request, reply, member, endpoint),
      ),
    );
    deliveryRoutes(web, app, load, path);
  };
}
