// The OpenAPI 3.1 contract of /v1, assembled: the API's description, servers, security, tags,
// the headers every answer carries, the paths gathered from the operations each area declares
// beside its routes (documents/documents.contract.ts, sending/sending.contract.ts,
// templates/templates.contract.ts, webhooks/endpoints.contract.ts and event-stream.contract.ts),
// the webhooks Signet delivers (webhooks/webhooks.contract.ts), and the named components every
// inline copy becomes a `$ref` to (`useComponents`). Nothing of an operation is written here:
// its schemas are the very ones that validate its requests and serialise its answers, and its
// prose and examples sit beside its route. Served at GET /v1/openapi.json and committed as
// docs/openapi.json (`npm run openapi`); a test fails when the two differ, `npm run check`
// lints it, and the api plugin refuses to start when a route and its operation disagree
// (route-contract.ts, over `contractOperations`).
import {
  documentComponents,
  getDocumentOperation,
  listDocumentsOperation,
} from '../documents/documents.contract.ts';
import { errorStatus } from '../http/errors.ts';
import { json, type Operation, operationObject } from '../http/openapi-parts.ts';
import {
  createDocumentOperation,
  deleteDocumentOperation,
  remindOperation,
  replaceDocumentOperation,
  sendDocumentOperation,
  sendingComponents,
  signingUrlOperation,
  withdrawOperation,
} from '../sending/sending.contract.ts';
import {
  createTemplateOperation,
  deleteTemplateOperation,
  getTemplateOperation,
  listTemplatesOperation,
  replaceTemplateOperation,
  templateComponents,
  useTemplateOperation,
} from '../templates/templates.contract.ts';
import {
  createEndpointOperation,
  deleteEndpointOperation,
  endpointComponents,
  getEndpointOperation,
  listDeliveriesOperation,
  listEndpointsOperation,
  resendDeliveryOperation,
  rotateSecretOperation,
  updateEndpointOperation,
} from '../webhooks/endpoints.contract.ts';
import { streamEventsOperation } from '../webhooks/event-stream.contract.ts';
import { outgoingWebhooks } from '../webhooks/webhooks.contract.ts';

/**
 * Every operation of /v1, in the order the document (and /docs) lists them: a path appears
 * where its first operation stands, its methods in this order. Each is a route's declared
 * `config.operation`; route-contract.ts holds the routes to this list.
 */
export const contractOperations: readonly Operation[] = [
  listDocumentsOperation,
  createDocumentOperation,
  remindOperation,
  withdrawOperation,
  signingUrlOperation,
  sendDocumentOperation,
  getDocumentOperation,
  replaceDocumentOperation,
  deleteDocumentOperation,
  listTemplatesOperation,
  createTemplateOperation,
  getTemplateOperation,
  replaceTemplateOperation,
  deleteTemplateOperation,
  useTemplateOperation,
  listEndpointsOperation,
  createEndpointOperation,
  getEndpointOperation,
  updateEndpointOperation,
  deleteEndpointOperation,
  rotateSecretOperation,
  listDeliveriesOperation,
  resendDeliveryOperation,
  streamEventsOperation,
];

/** The named objects of the contract; wherever one appears inline it becomes a `$ref` (`useComponents`). */
const componentSchemas = {
  ...documentComponents,
  ...sendingComponents,
  ...endpointComponents,
  ...templateComponents,
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * Replaces every inline copy of a component schema (TypeBox composes by copying) with a
 * `$ref` to it, outermost first, so each object is described once and named wherever it
 * appears. Examples are values, not schemas: left alone.
 */
function useComponents<T>(node: T, components: Map<string, string>, self?: string): T {
  if (Array.isArray(node)) return node.map((item) => useComponents(item, components)) as T;
  if (node === null || typeof node !== 'object') return node;
  const name = components.get(JSON.stringify(node));
  if (name && name !== self) return ref(name) as T;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === 'examples' || key === 'example' ? value : useComponents(value, components),
    ]),
  ) as T;
}

/** The paths of the operations: each path once, where its first operation stands, with its methods. */
function pathsOf(operations: readonly Operation[]): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of operations) {
    paths[operation.path] = {
      ...paths[operation.path],
      [operation.method.toLowerCase()]: operationObject(operation),
    };
  }
  return paths;
}

const apiDescription = `Read a workspace's documents, create and send them, and manage the webhook endpoints Signet sends their events to.

- **Authentication**: every request carries \`Authorization: Bearer <API key>\`. Keys (\`sgn_…\`) are created and revoked in the web application (Settings → Integrations); the workspace must be on the Max plan.
- **Scopes**: a key reads (the default: documents, and webhook endpoints to manage); a key created with write access (\`signet key create --scope write\`, or *Read and write* in the web application, owners only) also creates, sends and deletes documents. A read key asking for those is 403 \`insufficient-scope\`, before its body is read.
- **Envelope**: every answer is JSON with a boolean \`ok\`: \`{"ok": true, "data": …}\` (lists add \`nextCursor\`), or \`{"ok": false, "error": "<code>"}\` with a stable code and no message; a refused request body adds \`pointer\`, a JSON Pointer to the member at fault (\`/recipients/1/email\`).
- **Rate limit**: a token bucket per key, 120 requests of burst refilled at 1 per second. Every answer carries \`X-RateLimit-Limit\` and \`X-RateLimit-Remaining\`; an empty bucket is 429 \`rate-limited\` with \`Retry-After\`.
- **Errors outside operations**: a method a path does not have is 405 \`method-not-allowed\` (with \`Allow\`); HTTP refused before any route is 400 \`malformed-request\`, 408 \`request-timeout\` or 431 \`header-too-large\`. \`x-error-codes\` lists every code with its status.
- **Pagination**: pass the \`nextCursor\` of a page as \`cursor\` for the next; null marks the last page. Cursors are opaque.
- **Conventions**: ids are UUIDs, timestamps ISO 8601 in UTC with milliseconds (\`2026-03-01T12:00:00.000Z\`), and a field without a value is \`null\`, never omitted.`;

const tags = () => [
  {
    name: 'Documents',
    description:
      "The workspace's documents: a paged list, one in detail; with a write key, new documents (drafts, or sent at once), a draft sent or deleted.",
  },
  {
    name: 'Events',
    description:
      'The workspace’s events as a stream (server-sent events), for `signet listen` and tools like it: the same bodies webhooks carry, without registering an endpoint.',
  },
  {
    name: 'Templates',
    description:
      'A PDF with its fields placed once for roles ("Client", "Company"), and documents made from it: any key reads them; a write key makes, replaces and deletes them, and makes up to 100 documents from one in a request.',
  },
  {
    name: 'Webhook endpoints',
    description: 'Where Signet sends events (at most 10 per workspace), and their delivery log.',
  },
  {
    name: 'Webhooks',
    description:
      'What Signet POSTs to your endpoints: signed with the endpoint secret (`X-Service-Signature`), retried 3 times, at least once per delivery id.',
  },
];

const securitySchemes = () => ({
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description:
      'An API key (`sgn_…`) created in the web application; 401 `invalid-api-key` when missing, malformed or revoked.',
  },
});

/** The headers answers carry, named so every response refers to them (openapi-parts.ts's answerHeaders). */
const answerHeaderComponents = () => ({
  'X-RateLimit-Limit': {
    description: 'The bucket size (120).',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  },
  'X-RateLimit-Remaining': {
    description: 'Whole requests left in the bucket.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'X-Request-Id': {
    description:
      'This answer’s id (a UUID), also in the server’s log lines of the request (`reqId`): quote it in a support request. One you send is not taken.',
    required: true,
    schema: { type: 'string', format: 'uuid' },
  },
  'Retry-After': {
    description:
      'Seconds until a request is accepted again (429), or after which to retry while the database is unreachable (503).',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
});

export function buildOpenApiDocument(options: {
  serverUrl: string;
  version: string;
}): Record<string, unknown> {
  const schemas = Object.fromEntries(
    Object.entries(componentSchemas).map(([name, schema]) => [name, json(schema)]),
  );
  const byJson = new Map(Object.entries(schemas).map(([name, schema]) => [JSON.stringify(schema), name]));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Signet API',
      version: options.version,
      description: apiDescription,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: options.serverUrl, description: 'This installation' }],
    security: [{ bearer: [] }],
    tags: tags(),
    // Every error code and its status, the spec's and the HTTP-level ones (a method a path
    // does not have is 405 method-not-allowed, with Allow, on every path).
    'x-error-codes': { ...errorStatus },
    paths: useComponents(pathsOf(contractOperations), byJson),
    webhooks: useComponents(outgoingWebhooks(), byJson),
    components: {
      securitySchemes: securitySchemes(),
      headers: answerHeaderComponents(),
      schemas: Object.fromEntries(
        Object.entries(schemas).map(([name, schema]) => [name, useComponents(schema, byJson, name)]),
      ),
    },
  };
}
