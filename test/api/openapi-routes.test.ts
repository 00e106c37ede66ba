// The routes of /v1 and the contract cannot drift apart: every route an area registers names
// its operation (`config: { operation }`), with the route's own method and path, and every
// operation the document lists has its route, or the api plugin does not start, with a
// sentence naming what disagrees (src/api/route-contract.ts). Checked here on the areas' real
// route modules (registering them touches no database) and on routes made up to break it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { contractOperations } from '../../src/api/openapi.ts';
import { routeContractCheck } from '../../src/api/route-contract.ts';
import { loadConfig } from '../../src/config.ts';
import type { Context } from '../../src/context.ts';
import { getDocumentOperation, listDocumentsOperation } from '../../src/documents/documents.contract.ts';
import { documentsRoutes } from '../../src/documents/documents.routes.ts';
import type { Operation } from '../../src/http/openapi-parts.ts';
import { sendingRoutes } from '../../src/sending/sending.routes.ts';
import { templatesRoutes } from '../../src/templates/templates.routes.ts';
import { endpointsRoutes } from '../../src/webhooks/endpoints.routes.ts';
import { eventStreamRoutes } from '../../src/webhooks/event-stream.routes.ts';

// What registering the routes reads of a context: the configuration (upload limits).
const ctx = { config: loadConfig({ LOG_LEVEL: 'silent' }) } as unknown as Context;

/** Starts a /v1 with the areas' routes, and `extra` routes, checked against `operations` as api.ts checks them. */
async function startApi(
  operations: readonly Operation[],
  extra: (api: FastifyInstance) => void = () => {},
): Promise<void> {
  const app = Fastify();
  await app.register(
    async (api) => {
      const check = routeContractCheck(operations);
      api.addHook('onRoute', check.onRoute);
      await api.register(documentsRoutes(ctx));
      await api.register(sendingRoutes(ctx));
      await api.register(templatesRoutes(ctx));
      await api.register(endpointsRoutes(ctx));
      await api.register(eventStreamRoutes(ctx, undefined));
      extra(api);
      check.verify();
      // Registered after the check, as api.ts registers the contract itself and the 405 answers.
      api.get('/openapi.json', async () => ({}));
    },
    { prefix: '/v1' },
  );
  try {
    await app.ready();
  } finally {
    await app.close();
  }
}

const archiveOperation: Operation = {
  method: 'POST',
  path: '/documents/{id}/archive',
  operationId: 'archiveDocument',
  tag: 'Documents',
  summary: 'Archives a document',
  description: 'An operation no route serves.',
  answers: {},
  errors: [],
};

test('every route of the areas names its operation, and every operation of the contract has its route', async () => {
  await startApi(contractOperations);
  assert.equal(new Set(contractOperations.map((operation) => operation.operationId)).size, 24);
});

test('an operation of the contract without a route fails the start, naming the operation', async () => {
  await assert.rejects(startApi([...contractOperations, archiveOperation]), {
    message:
      'The /v1 routes and their contract disagree. The operation archiveDocument (POST /documents/{id}/archive) of the contract has no route: register the route, or take the operation out of contractOperations in src/api/openapi.ts.',
  });
});

test('a route without an operation fails the start, naming the route', async () => {
  await assert.rejects(
    startApi(contractOperations, (api) => {
      api.post('/documents/:id/archive', async () => ({}));
    }),
    {
      message:
        "The /v1 routes and their contract disagree. The route POST /v1/documents/:id/archive has no operation: declare its contract beside it (an Operation in the area's *.contract.ts) and name it in the route's options as config: { operation }.",
    },
  );
});

test('a route whose operation the contract does not list fails the start', async () => {
  const withoutList = contractOperations.filter((operation) => operation !== listDocumentsOperation);
  await assert.rejects(startApi(withoutList), {
    message:
      'The /v1 routes and their contract disagree. The route GET /v1/documents names the operation listDocuments (GET /documents), which the contract does not list: add it to contractOperations in src/api/openapi.ts.',
  });
});

test('a route naming the operation of another method or path fails the start', async () => {
  await assert.rejects(
    startApi([...contractOperations, archiveOperation], (api) => {
      api.post('/documents/:id/archive', { config: { operation: getDocumentOperation } }, async () => ({}));
    }),
    (error: Error) => {
      assert.match(
        error.message,
        /The route POST \/v1\/documents\/:id\/archive names the operation getDocument \(GET \/documents\/\{id\}\), which describes another route: give the operation this route's method and path \(POST \/documents\/\{id\}\/archive\), or the route the operation's\./,
      );
      // Its own operation is still without a route: every mismatch is told at once.
      assert.match(
        error.message,
        /The operation archiveDocument \(POST \/documents\/\{id\}\/archive\) of the contract has no route/,
      );
      return true;
    },
  );
});

test('two routes naming one operation fail the start', async () => {
  await assert.rejects(
    startApi(contractOperations, (api) => {
      api.get(
        '/documents/:id',
        { config: { operation: getDocumentOperation }, constraints: { version: '2.0.0' } },
        async () => ({}),
      );
    }),
    /The operation getDocument \(GET \/documents\/\{id\}\) is named by two routes: each route has its own\./,
  );
});
