// The /v1 API as one Fastify plugin: the guard on every request (known route or not),
// the route modules (each route naming its operation of the contract, checked against the
// contract before the plugin is ready: route-contract.ts), and envelope answers for unknown
// paths (404 `not-found`) and known paths with the wrong method (405 `method-not-allowed`,
// with an Allow header).
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import type { Context } from '../context.ts';
import type { DatabaseHandle } from '../db/handle.ts';
import { documentsRoutes } from '../documents/documents.routes.ts';
import { hasUnfitValue, unstorableTextAt } from '../http/control-characters.ts';
import { ApiError } from '../http/errors.ts';
import { sendingRoutes } from '../sending/sending.routes.ts';
import { templatesRoutes } from '../templates/templates.routes.ts';
import { signetVersion } from '../version.ts';
import { endpointsRoutes } from '../webhooks/endpoints.routes.ts';
import { eventStreamRoutes } from '../webhooks/event-stream.routes.ts';
import { buildOpenApiDocument, contractOperations } from './openapi.ts';
import { routeContractCheck } from './route-contract.ts';

const allMethods: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

export function apiPlugin(
  ctx: Context,
  guard: (request: FastifyRequest, reply: FastifyReply) => Promise<void>,
  subscribe?: DatabaseHandle['subscribe'],
) {
  return async function register(api: FastifyInstance) {
    const methodsByUrl = new Map<string, Set<string>>();
    const contractCheck = routeContractCheck(contractOperations);
    api.addHook('onRoute', contractCheck.onRoute);
    api.addHook('onRoute', (route) => {
      const methods = methodsByUrl.get(route.url) ?? new Set<string>();
      for (const method of [route.method].flat()) methods.add(method);
      methodsByUrl.set(route.url, methods);
    });
    api.addHook('onRequest', guard);
    // Control characters (http/control-characters.ts), once for every route: after the
    // schemas (so a malformed id is still `invalid-id` by its format) and before any handler
    // reaches the database with them.
    api.addHook('preHandler', async (request) => {
      if (request.routeOptions.url === undefined) return; // not found: nothing is looked up
      if (hasUnfitValue(request.params)) throw new ApiError('invalid-id');
      if (hasUnfitValue(request.query)) throw new ApiError('invalid-query');
      // A route that takes no body never reads one: what it was sent reaches nothing.
      if (!request.routeOptions.schema?.body) return;
      const at = unstorableTextAt(request.body);
      if (at === null) return;
      const own = request.routeOptions.config.controlCharacterCodes?.[at];
      throw own ? new ApiError(own) : new ApiError('invalid-body', {}, at === '' ? null : at);
    });
    // The API reads JSON only; a text/plain body is an unsupported media type (415),
    // not a string to fail validation with.
    api.removeContentTypeParser('text/plain');

    await api.register(documentsRoutes(ctx));
    await api.register(sendingRoutes(ctx));
    await api.register(templatesRoutes(ctx));
    await api.register(endpointsRoutes(ctx));
    await api.register(eventStreamRoutes(ctx, subscribe));
    // Every route so far is an area's, and an operation of the contract; the routes below are not.
    contractCheck.verify();
    // The contract, without a key (see publicApiPath in api-guard.ts): built once from the route schemas.
    const contract = JSON.stringify(
      buildOpenApiDocument({ serverUrl: `${ctx.config.publicUrl}/v1`, version: signetVersion }),
    );
    api.get(
      '/openapi.json',
      { schema: { querystring: { type: 'object', additionalProperties: false } } },
      (_request, reply) => reply.header('content-type', 'application/json; charset=utf-8').send(contract),
    );

    for (const [url, methods] of [...methodsByUrl]) {
      const allow = [...methods].sort().join(', ');
      const others = allMethods.filter((method) => !methods.has(method));
      api.route({
        method: others,
        url: url.slice(api.prefix.length),
        // Refused before any body is read: after the guard, ahead of parsing and validation.
        onRequest: async () => {
          throw new ApiError('method-not-allowed', { Allow: allow });
        },
        handler: async () => {
          throw new ApiError('method-not-allowed', { Allow: allow });
        },
      });
    }

    api.setNotFoundHandler(async () => {
      throw new ApiError('not-found');
    });
  };
}
