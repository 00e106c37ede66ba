// GET /v1/events/stream (webhooks/event-stream.ts): checks the query and the workspace's
// room before the stream starts, so every refusal is an ordinary JSON envelope, then
// answers text/event-stream through the same reply (the guard's rate-limit headers and
// every onSend hook apply). Streams end when the app closes, before Fastify waits for
// in-flight requests, so a graceful shutdown never waits on one.
import type { FastifyInstance } from 'fastify';
import type { Context } from '../context.ts';
import type { DatabaseHandle } from '../db/handle.ts';
import { documentEventTypes } from '../documents/events.ts';
import { ApiError } from '../http/errors.ts';
import { streamEventsOperation } from './event-stream.contract.ts';
import { createEventStreams, reconnectMs } from './event-stream.ts';

export const eventStreamQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { types: { type: 'string', minLength: 1, maxLength: 500 } },
} as const;

/** `types=document.signed,document.completed`: known event types only, else invalid-query. */
export function parseTypes(value: string | undefined): string[] {
  if (value === undefined) return [];
  const types = [...new Set(value.split(',').map((type) => type.trim()))];
  if (types.some((type) => !(documentEventTypes as readonly string[]).includes(type)))
    throw new ApiError('invalid-query');
  return types;
}

export function eventStreamRoutes(ctx: Context, subscribe: DatabaseHandle['subscribe'] | undefined) {
  return async function register(app: FastifyInstance) {
    const streams = createEventStreams(ctx, subscribe);
    app.addHook('preClose', async () => {
      await streams.close();
    });

    app.get<{ Querystring: { types?: string } }>(
      '/events/stream',
      { schema: { querystring: eventStreamQuery }, config: { operation: streamEventsOperation } },
      async (request, reply) => {
        const identity = request.identity;
        if (!identity) throw new ApiError('invalid-api-key');
        const start = {
          workspaceId: identity.workspaceId,
          keyId: identity.keyId,
          types: parseTypes(request.query.types),
          lastEventId: [request.headers['last-event-id']].flat()[0],
        };
        if (!streams.hasRoom(start.workspaceId))
          throw new ApiError('too-many-streams', { 'Retry-After': String(reconnectMs / 1000) });
        const secret = await streams.secretFor(start.keyId);
        const from = await streams.startingPoint(start);
        // Checked again: another stream may have taken the room while this one waited.
        if (!streams.hasRoom(start.workspaceId))
          throw new ApiError('too-many-streams', { 'Retry-After': String(reconnectMs / 1000) });
        reply
          .header('content-type', 'text/event-stream; charset=utf-8')
          .header('cache-control', 'no-store')
          // Proxies that buffer responses (nginx) pass this one through as it is written.
          .header('x-accel-buffering', 'no')
          // Its connection ends with it: a shutdown never waits on one left idle after it.
          .header('connection', 'close');
        // HEAD: the same status and headers, and no stream to hold open.
        if (request.method === 'HEAD') return reply.send();
        return reply.send(streams.open(start, from, secret));
      },
    );
  };
}
