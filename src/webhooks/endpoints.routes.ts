// /v1/webhook-endpoints: HTTP in, service call, envelope out.
import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Context } from '../context.ts';
import { workspaceOf } from '../http/api-guard.ts';
import { ok } from '../http/envelope.ts';
import { idempotencyKeyOf } from '../http/idempotency.ts';
import {
  type CreateEndpointBody,
  createEndpointSchema,
  deleteEndpointSchema,
  type EndpointIdParams,
  getEndpointSchema,
  listEndpointsSchema,
  type UpdateEndpointBody,
  updateEndpointSchema,
} from './endpoints.schemas.ts';
import {
  changeEndpoint,
  createEndpoint,
  getEndpoint,
  listEndpoints,
  removeEndpoint,
} from './endpoints.service.ts';

type Id = { Params: Static<typeof EndpointIdParams> };

export function endpointsRoutes(ctx: Context) {
  return async function register(app: FastifyInstance) {
    app.post<{ Body: Static<typeof CreateEndpointBody> }>(
      '/webhook-endpoints',
      { schema: createEndpointSchema },
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

    app.get('/webhook-endpoints', { schema: listEndpointsSchema }, async (request) => ({
      ok: true,
      data: await listEndpoints(ctx, workspaceOf(request)),
      nextCursor: null,
    }));

    app.get<Id>('/webhook-endpoints/:id', { schema: getEndpointSchema }, async (request) =>
      ok(await getEndpoint(ctx, workspaceOf(request), request.params.id.toLowerCase())),
    );

    app.patch<Id & { Body: Static<typeof UpdateEndpointBody> }>(
      '/webhook-endpoints/:id',
      { schema: updateEndpointSchema },
      async (request) =>
        ok(await changeEndpoint(ctx, workspaceOf(request), request.params.id.toLowerCase(), request.body)),
    );

    app.delete<Id>('/webhook-endpoints/:id', { schema: deleteEndpointSchema }, async (request) =>
      ok(await removeEndpoint(ctx, workspaceOf(request), request.params.id.toLowerCase())),
    );
  };
}
