// /v1/webhook-endpoints: HTTP in, service call, envelope out.

import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Context } from '../context.ts';
import { workspaceOf } from '../http/api-guard.ts';
import type { ControlCharacterConfig } from '../http/control-characters.ts';
import { ok } from '../http/envelope.ts';
import { idempotencyKeyOf } from '../http/idempotency.ts';
import { pageEndpointDeliveries, resendDelivery } from './deliveries.service.ts';
import {
  createEndpointOperation,
  deleteEndpointOperation,
  getEndpointOperation,
  listDeliveriesOperation,
  listEndpointsOperation,
  resendDeliveryOperation,
  rotateSecretOperation,
  updateEndpointOperation,
} from './endpoints.contract.ts';
import {
  type CreateEndpointBody,
  createEndpointSchema,
  type DeliveryParams,
  deleteEndpointSchema,
  type EndpointIdParams,
  getEndpointSchema,
  listDeliveriesSchema,
  listEndpointsSchema,
  type RotateSecretBody,
  resendDeliverySchema,
  rotateSecretSchema,
  type UpdateEndpointBody,
  updateEndpointSchema,
} from './endpoints.schemas.ts';
import {
  changeEndpoint,
  createEndpoint,
  getEndpoint,
  listEndpoints,
  removeEndpoint,
  rotateEndpointSecret,
} from './endpoints.service.ts';

// "A url that is not a valid URL returns 400 invalid-url": one holding a control character too.
const urlControlCharacters: ControlCharacterConfig = { controlCharacterCodes: { '/url': 'invalid-url' } };

type Id = { Params: Static<typeof EndpointIdParams> };

export function endpointsRoutes(ctx: Context) {
  return async function register(app: FastifyInstance) {
    app.post<{ Body: Static<typeof CreateEndpointBody> }>(
      '/webhook-endpoints',
      {
        schema: createEndpointSchema,
        config: { ...urlControlCharacters, operation: createEndpointOperation },
      },
      async (request, reply) => {
        const { replayed, ...created } = await createEndpoint(
          ctx,
          workspaceOf(request),
          request.body,
          idempotencyKeyOf(request),
        );
        if (replayed) reply.header('idempotent-replayed', 'true');
        return reply.code(201).send(ok(created));
      },
    );

    app.get(
      '/webhook-endpoints',
      { schema: listEndpointsSchema, config: { operation: listEndpointsOperation } },
      async (request) => ({
        ok: true,
        data: await listEndpoints(ctx, workspaceOf(request)),
        nextCursor: null,
      }),
    );

    app.get<Id>(
      '/webhook-endpoints/:id',
      { schema: getEndpointSchema, config: { operation: getEndpointOperation } },
      async (request) => ok(await getEndpoint(ctx, workspaceOf(request), request.params.id.toLowerCase())),
    );

    // The delivery log (newest first, 50 a page unless `limit` says otherwise) and a resend.
    app.get<Id & { Querystring: { limit?: string; cursor?: string } }>(
      '/webhook-endpoints/:id/deliveries',
      { schema: listDeliveriesSchema, config: { operation: listDeliveriesOperation } },
      async (request) => {
        const workspaceId = workspaceOf(request);
        const endpointId = request.params.id.toLowerCase();
        await getEndpoint(ctx, workspaceId, endpointId); // 404 for another workspace's
        const { deliveries, nextCursor } = await pageEndpointDeliveries(ctx, workspaceId, endpointId, {
          limit: Number(request.query.limit ?? 50),
          cursor: request.query.cursor ?? null,
        });
        return {
          ok: true,
          data: deliveries.map(({ attemptLog, ...delivery }) => ({
            ...delivery,
            // The receiver's answer stays in the web application's log: it may hold anything.
            attemptLog: attemptLog.map(({ responseBody: _, address: __, ...attempt }) => attempt),
          })),
          nextCursor,
        };
      },
    );

    app.post<{ Params: Static<typeof DeliveryParams> }>(
      '/webhook-endpoints/:id/deliveries/:deliveryId/resend',
      { schema: resendDeliverySchema, config: { operation: resendDeliveryOperation } },
      async (request) =>
        ok(
          await resendDelivery(
            ctx,
            workspaceOf(request),
            request.params.id.toLowerCase(),
            request.params.deliveryId.toLowerCase(),
          ),
        ),
    );

    // A new signing secret, the previous one signing too for the overlap (24 hours unless the
    // body says otherwise; a POST without a body is the default).
    app.post<Id & { Body: Static<typeof RotateSecretBody> }>(
      '/webhook-endpoints/:id/rotate-secret',
      {
        schema: rotateSecretSchema,
        config: { operation: rotateSecretOperation },
        preValidation: async (request) => {
          request.body ??= {};
        },
      },
      async (request) =>
        ok(
          await rotateEndpointSecret(
            ctx,
            workspaceOf(request),
            request.params.id.toLowerCase(),
            request.body.overlapHours,
          ),
        ),
    );

    app.patch<Id & { Body: Static<typeof UpdateEndpointBody> }>(
      '/webhook-endpoints/:id',
      {
        schema: updateEndpointSchema,
        config: { ...urlControlCharacters, operation: updateEndpointOperation },
      },
      async (request) =>
        ok(await changeEndpoint(ctx, workspaceOf(request), request.params.id.toLowerCase(), request.body)),
    );

    app.delete<Id>(
      '/webhook-endpoints/:id',
      { schema: deleteEndpointSchema, config: { operation: deleteEndpointOperation } },
      async (request) => ok(await removeEndpoint(ctx, workspaceOf(request), request.params.id.toLowerCase())),
    );
  };
}
