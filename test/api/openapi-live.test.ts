// The contract against the live API: a real request for every operation of
// docs/openapi.json and every status it documents for it (each error code, too), and each
// answer validated against the document's schema for that status, with the rate-limit
// headers it promises (and Retry-After on 429). A delivery body, ping and event alike, is
// validated against the document's `webhooks`.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Kysely } from 'kysely';
import { Agent } from 'undici';
import { buildOpenApiDocument } from '../../src/api/openapi.ts';
import { eventStreamDefaults } from '../../src/config.ts';
import { createOutageMonitor } from '../../src/db/availability.ts';
import type { Database } from '../../src/db/schema.ts';
import { createApiKey } from '../../src/keys/keys.service.ts';
import { signetVersion } from '../../src/version.ts';
import { insertPingDelivery } from '../../src/webhooks/deliveries.repository.ts';
import { sendPing } from '../../src/webhooks/deliveries.service.ts';
import { insertEndpoint } from '../../src/webhooks/endpoints.repository.ts';
import { createEndpoint } from '../../src/webhooks/endpoints.service.ts';
import { insertWebhookEvent } from '../../src/webhooks/outbox.repository.ts';
import { senderFeeField, signatureField, templateRole, textPdf } from '../support/factories.ts';
import {
  type ApiMethod,
  type ApiResponse,
  callApi,
  createSentDocument,
  createTestDatabase,
  createTestWorkspace,
  describeEachDatabase,
  type TestWorkspace,
  unreachableDatabase,
  useHarness,
  withApp,
} from '../support/harness.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';

type Schema = Record<string, unknown>;

const signer = { email: 'ann@northwind.example', fullName: 'Ann Lee' };

type Responses = Record<
  string,
  {
    headers?: Record<string, { $ref?: string; required?: boolean }>;
    content?: { 'application/json': { schema: Schema } };
  }
>;
interface Contract {
  paths: Record<string, Record<string, { operationId: string; responses: Responses }>>;
  webhooks: Record<
    string,
    { post: { requestBody: { content: { 'application/json': { schema: Schema } } } } }
  >;
  components: { schemas: Record<string, Schema>; headers: Record<string, { required?: boolean }> };
}

const contract = buildOpenApiDocument({
  serverUrl: 'http://127.0.0.1/v1',
  version: signetVersion,
}) as unknown as Contract;
// Formats are checked by the independent validator every callApi answer goes through (contract.ts).
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema({ $id: 'contract', components: contract.components }, 'contract');

/** A schema of the document, its `#/components/...` references pointing into it. */
function compile(schema: Schema) {
  const rebased = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"contract#/components/'));
  return ajv.compile(rebased);
}

function operation(operationId: string): { method: string; path: string; responses: Responses } {
  for (const [path, item] of Object.entries(contract.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (op.operationId === operationId) return { method, path, responses: op.responses };
    }
  }
  throw new Error(`no operation ${operationId}`);
}

/** Every (operation, status) pair the document promises; each must be exercised below. */
const promised = new Set(
  Object.values(contract.paths).flatMap((item) =>
    Object.values(item).flatMap((op) =>
      Object.keys(op.responses).map((status) => `${op.operationId} ${status}`),
    ),
  ),
);
const exercised = new Set<string>();

function checkAnswer(
  operationId: string,
  res: { status: number; headers: Headers; body: unknown },
  code?: string,
): void {
  const { responses } = operation(operationId);
  const documented = responses[String(res.status)];
  assert.ok(documented, `${operationId} answered ${res.status}, which the contract does not document`);
  const schema = documented.content?.['application/json'].schema;
  assert.ok(schema, `${operationId} ${res.status} has a schema`);
  const validate = compile(schema);
  assert.ok(
    validate(res.body),
    `${operationId} ${res.status}: ${JSON.stringify(validate.errors)} for ${JSON.stringify(res.body).slice(0, 300)}`,
  );
  if (code) assert.equal((res.body as { error?: string }).error, code);
  for (const [header, object] of Object.entries(documented.headers ?? {})) {
    const resolved = object.$ref
      ? contract.components.headers[object.$ref.split('/').at(-1) as string]
      : (object as { required?: boolean });
    if (resolved?.required)
      assert.ok(res.headers.get(header) !== null, `${operationId} ${res.status} carries ${header}`);
  }
  exercised.add(`${operationId} ${res.status}`);
}

describeEachDatabase('the contract against the live API', (kind) => {
  const h = useHarness(kind);
  let ws: TestWorkspace;
  let free: TestWorkspace;
  let documentId: string;
  let endpointId: string;
  /** A write key of `ws`, and drafts it made: one to send, one to delete, one with nothing to send. */
  let writeKey: string;
  const drafts = { toSend: '', toDelete: '', empty: '', toReplace: '' };
  /** Templates of `ws` (made in setup): one to use, read and replace, one to delete. */
  const templates = { used: '', toDelete: '' };
  let templateBody: Record<string, unknown>;
  /** Sent documents of two signers in order: one mailed, one its integrator delivers. */
  const sent = { id: '', first: '', second: '' };
  const own = { id: '', first: '', second: '' };
  /** An endpoint whose name does not resolve, with a dropped and a delivered delivery. */
  const deadEndpoint = { id: randomUUID(), dropped: randomUUID(), delivered: randomUUID() };

  const call = (method: ApiMethod, path: string, options: Parameters<typeof callApi>[3] = {}) =>
    callApi(h, method, path, { key: ws.apiKey, ...options });

  test('setup: a workspace with a sent document and an endpoint, and a Free one', async () => {
    ws = await createTestWorkspace(h.ctx);
    free = await createTestWorkspace(h.ctx, 'free');
    documentId = (await createSentDocument(h.ctx, ws.id)).id;
    writeKey = (await createApiKey(h.ctx, { workspaceId: ws.id, name: 'writer', scope: 'write' })).secret;
    for (const [name, body] of [
      ['toSend', { title: 'To send', text: 'Terms.', recipients: [signer] }],
      ['toDelete', { title: 'To delete', recipients: [signer] }],
      ['empty', { title: 'Nothing to sign', recipients: [signer] }],
      ['toReplace', { title: 'To replace', recipients: [signer] }],
    ] as const) {
      const made = await callApi(h, 'POST', '/v1/documents', { key: writeKey, body });
      drafts[name] = (made.body.data as { id: string }).id;
    }
    const second = { email: 'bob@northwind.example', fullName: 'Bob Ray', signingOrder: 2 };
    for (const [target, delivery] of [
      [sent, 'email'],
      [own, 'none'],
    ] as const) {
      const made = await callApi(h, 'POST', '/v1/documents', {
        key: writeKey,
        body: {
          title: 'Out for signature',
          text: 'Terms.',
          recipients: [signer, second],
          send: true,
          delivery,
        },
      });
      const data = made.body.data as { id: string; recipients: Array<{ id: string }> };
      Object.assign(target, { id: data.id, first: data.recipients[0]?.id, second: data.recipients[1]?.id });
    }
    templateBody = {
      name: 'Agreement',
      title: 'Agreement',
      roles: [templateRole('Client')],
      fields: [signatureField({ role: 'Client' }), senderFeeField()],
      file: (await textPdf()).toString('base64'),
    };
    for (const name of ['used', 'toDelete'] as const) {
      const made = await callApi(h, 'POST', '/v1/templates', { key: writeKey, body: templateBody });
      templates[name] = (made.body.data as { id: string }).id;
    }
    endpointId = (
      await createEndpoint(h.ctx, ws.id, {
        url: 'https://hooks.example.com/signet',
        events: ['document.sent'],
      })
    ).id;
    // Written as a receiver that has gone would leave them (no registration resolves it now).
    const now = h.clock.now();
    await insertEndpoint(h.ctx.db, {
      id: deadEndpoint.id,
      workspace_id: ws.id,
      url: 'https://gone.example.net/hook',
      events: ['document.sent'],
      description: null,
      enabled: true,
      failure_count: 4,
      disabled_reason: null,
      paused_at: null,
      secret: 'whsec_contract-test-secret',
      created_at: now,
      updated_at: now,
    });
    for (const [id, status] of [
      [deadEndpoint.dropped, 'dropped'],
      [deadEndpoint.delivered, 'delivered'],
    ] as const) {
      const eventId = randomUUID();
      const payload = JSON.stringify({
        id: eventId,
        type: 'document.sent',
        createdAt: now.toISOString(),
        data: {},
      });
      await insertWebhookEvent(h.ctx.db, {
        id: eventId,
        workspace_id: ws.id,
        type: 'document.sent',
        payload,
        created_at: now,
      });
      await insertPingDelivery(h.ctx.db, {
        id,
        workspace_id: ws.id,
        endpoint_id: deadEndpoint.id,
        event_id: eventId,
        event_type: 'document.sent',
        status,
        attempts: 4,
        next_attempt_at: now,
        created_at: now,
      });
    }
  });

  const randomId = () => randomUUID();
  type Case = [string, string, () => Promise<ApiResponse>, string?];
  /** Every operation refuses a request without a key, and one with a Free workspace's key. */
  const keyCases = (operationId: string, method: ApiMethod, path: () => string, body?: object): Case[] => [
    [operationId, 'invalid-api-key', () => call(method, path(), { key: null, body }), 'invalid-api-key'],
    [operationId, 'plan-required', () => call(method, path(), { key: free.apiKey, body }), 'plan-required'],
  ];
  /** An operation that takes no body still reads one sent, and refuses it as any body is refused. */
  const bodyCases = (operationId: string, method: ApiMethod, path: () => string): Case[] => [
    [operationId, 'invalid-json', () => call(method, path(), { body: '{' }), 'invalid-json'],
    [
      operationId,
      'unsupported-media-type',
      () => call(method, path(), { body: 'x', headers: { 'content-type': 'text/plain' } }),
      'unsupported-media-type',
    ],
    [
      operationId,
      'payload-too-large',
      () => call(method, path(), { body: { description: 'x'.repeat(1_100_000) } }),
      'payload-too-large',
    ],
  ];
  const write = (method: ApiMethod, path: string, options: Parameters<typeof callApi>[3] = {}) =>
    callApi(h, method, path, { key: writeKey, ...options });
  const newDocument = { title: 'Contract', text: 'Terms.', recipients: [signer] };
  /** bodyCases with the write key. */
  const writeBodyCases = (operationId: string, method: ApiMethod, path: () => string): Case[] =>
    bodyCases(operationId, method, path).map(([id, what, , code]) => [
      id,
      what,
      () =>
        callApi(h, method, path(), {
          key: writeKey,
          ...(what === 'invalid-json'
            ? { body: '{' }
            : what === 'unsupported-media-type'
              ? { body: 'x', headers: { 'content-type': 'text/plain' } }
              : { body: { description: 'x'.repeat(1_100_000) } }),
        }),
      code,
    ]);
  const cases: Case[] = [
    ['createDocument', '201', () => write('POST', '/v1/documents', { body: newDocument })],
    [
      'createDocument',
      'invalid-query',
      () => write('POST', '/v1/documents?x=1', { body: newDocument }),
      'invalid-query',
    ],
    ['createDocument', 'invalid-json', () => write('POST', '/v1/documents', { body: '{' }), 'invalid-json'],
    ['createDocument', 'invalid-body', () => write('POST', '/v1/documents', { body: {} }), 'invalid-body'],
    [
      'createDocument',
      'invalid-file',
      () =>
        write('POST', '/v1/documents', {
          body: { ...newDocument, file: Buffer.from('not a PDF').toString('base64') },
        }),
      'invalid-file',
    ],
    [
      'createDocument',
      'invalid-idempotency-key',
      () =>
        write('POST', '/v1/documents', { body: newDocument, headers: { 'idempotency-key': 'two words' } }),
      'invalid-idempotency-key',
    ],
    [
      'createDocument',
      'document-not-sendable',
      () => write('POST', '/v1/documents', { body: { title: 'Empty', recipients: [signer], send: true } }),
      'document-not-sendable',
    ],
    [
      'createDocument',
      'unsupported-media-type',
      () => write('POST', '/v1/documents', { body: 'x', headers: { 'content-type': 'text/plain' } }),
      'unsupported-media-type',
    ],
    [
      'createDocument',
      'insufficient-scope',
      () => call('POST', '/v1/documents', { body: newDocument }),
      'insufficient-scope',
    ],
    ...keyCases('createDocument', 'POST', () => '/v1/documents', newDocument),
    ['listTemplates', '200', () => call('GET', '/v1/templates?limit=1')],
    ['listTemplates', 'invalid-query', () => call('GET', '/v1/templates?x=1'), 'invalid-query'],
    ['listTemplates', 'invalid-cursor', () => call('GET', '/v1/templates?cursor=abc'), 'invalid-cursor'],
    ...keyCases('listTemplates', 'GET', () => '/v1/templates'),
    ['getTemplate', '200', () => call('GET', `/v1/templates/${templates.used}`)],
    ['getTemplate', 'invalid-id', () => call('GET', '/v1/templates/nope'), 'invalid-id'],
    ['getTemplate', 'not-found', () => call('GET', `/v1/templates/${randomId()}`), 'not-found'],
    ...keyCases('getTemplate', 'GET', () => `/v1/templates/${templates.used}`),
    ['createTemplate', '201', () => write('POST', '/v1/templates', { body: templateBody })],
    ['createTemplate', 'invalid-body', () => write('POST', '/v1/templates', { body: {} }), 'invalid-body'],
    [
      'createTemplate',
      'invalid-file',
      () =>
        write('POST', '/v1/templates', {
          body: { ...templateBody, file: Buffer.from('not a PDF').toString('base64') },
        }),
      'invalid-file',
    ],
    [
      'createTemplate',
      'insufficient-scope',
      () => call('POST', '/v1/templates', { body: templateBody }),
      'insufficient-scope',
    ],
    ['createTemplate', 'invalid-json', () => write('POST', '/v1/templates', { body: '{' }), 'invalid-json'],
    [
      'createTemplate',
      'unsupported-media-type',
      () => write('POST', '/v1/templates', { body: 'x', headers: { 'content-type': 'text/plain' } }),
      'unsupported-media-type',
    ],
    ...keyCases('createTemplate', 'POST', () => '/v1/templates', {}),
    [
      'replaceTemplate',
      '200',
      () => write('PUT', `/v1/templates/${templates.used}`, { body: { ...templateBody, file: undefined } }),
    ],
    [
      'replaceTemplate',
      'invalid-id',
      () => write('PUT', '/v1/templates/nope', { body: templateBody }),
      'invalid-id',
    ],
    [
      'replaceTemplate',
      'not-found',
      () => write('PUT', `/v1/templates/${randomId()}`, { body: templateBody }),
      'not-found',
    ],
    [
      'replaceTemplate',
      'insufficient-scope',
      () => call('PUT', `/v1/templates/${templates.used}`, { body: templateBody }),
      'insufficient-scope',
    ],
    ...keyCases('replaceTemplate', 'PUT', () => `/v1/templates/${templates.used}`, {}),
    ...writeBodyCases('replaceTemplate', 'PUT', () => `/v1/templates/${templates.used}`).filter(
      ([, what]) => what !== 'payload-too-large',
    ),
    [
      'useTemplate',
      '200',
      () =>
        write('POST', `/v1/templates/${templates.used}/documents`, {
          body: {
            items: [
              { recipients: { Client: signer }, values: { Fee: '100 EUR' }, send: true },
              { recipients: { Client: { ...signer, email: 'ann@' } }, values: { Fee: '100 EUR' } },
            ],
          },
        }),
    ],
    [
      'useTemplate',
      'idempotency-key-reused',
      async () => {
        const headers = { 'idempotency-key': 'contract-batch' };
        const path = `/v1/templates/${templates.used}/documents`;
        const item = { recipients: { Client: signer }, values: { Fee: '100 EUR' } };
        await write('POST', path, { body: { items: [item] }, headers });
        return write('POST', path, { body: { items: [item, item] }, headers });
      },
      'idempotency-key-reused',
    ],
    [
      'useTemplate',
      'invalid-id',
      () => write('POST', '/v1/templates/nope/documents', { body: { items: [] } }),
      'invalid-id',
    ],
    [
      'useTemplate',
      'not-found',
      () =>
        write('POST', `/v1/templates/${randomId()}/documents`, {
          body: { items: [{ recipients: { Client: signer } }] },
        }),
      'not-found',
    ],
    [
      'useTemplate',
      'insufficient-scope',
      () =>
        call('POST', `/v1/templates/${templates.used}/documents`, {
          body: { items: [{ recipients: { Client: signer } }] },
        }),
      'insufficient-scope',
    ],
    ...keyCases('useTemplate', 'POST', () => `/v1/templates/${templates.used}/documents`, {
      items: [{ recipients: { Client: signer } }],
    }),
    ...writeBodyCases('useTemplate', 'POST', () => `/v1/templates/${templates.used}/documents`),
    ['deleteTemplate', 'invalid-id', () => write('DELETE', '/v1/templates/nope'), 'invalid-id'],
    ['deleteTemplate', 'not-found', () => write('DELETE', `/v1/templates/${randomId()}`), 'not-found'],
    [
      'deleteTemplate',
      'insufficient-scope',
      () => call('DELETE', `/v1/templates/${templates.toDelete}`),
      'insufficient-scope',
    ],
    ...keyCases('deleteTemplate', 'DELETE', () => `/v1/templates/${templates.toDelete}`),
    ...writeBodyCases('deleteTemplate', 'DELETE', () => `/v1/templates/${templates.toDelete}`),
    ['deleteTemplate', '200', () => write('DELETE', `/v1/templates/${templates.toDelete}`)],
    ['sendDocument', '200', () => write('POST', `/v1/documents/${drafts.toSend}/send`)],
    ['sendDocument', 'invalid-id', () => write('POST', '/v1/documents/nope/send'), 'invalid-id'],
    [
      'sendDocument',
      'invalid-query',
      () => write('POST', `/v1/documents/${drafts.empty}/send?x=1`),
      'invalid-query',
    ],
    ['sendDocument', 'not-found', () => write('POST', `/v1/documents/${randomId()}/send`), 'not-found'],
    [
      'sendDocument',
      'document-not-draft',
      () => write('POST', `/v1/documents/${documentId}/send`),
      'document-not-draft',
    ],
    [
      'sendDocument',
      'document-not-sendable',
      () => write('POST', `/v1/documents/${drafts.empty}/send`),
      'document-not-sendable',
    ],
    [
      'sendDocument',
      'insufficient-scope',
      () => call('POST', `/v1/documents/${drafts.empty}/send`),
      'insufficient-scope',
    ],
    ...keyCases('sendDocument', 'POST', () => `/v1/documents/${drafts.empty}/send`),
    ...writeBodyCases('sendDocument', 'POST', () => `/v1/documents/${drafts.empty}/send`),
    ['deleteDocument', 'invalid-id', () => write('DELETE', '/v1/documents/nope'), 'invalid-id'],
    [
      'deleteDocument',
      'invalid-query',
      () => write('DELETE', `/v1/documents/${drafts.toDelete}?x=1`),
      'invalid-query',
    ],
    ['deleteDocument', 'not-found', () => write('DELETE', `/v1/documents/${randomId()}`), 'not-found'],
    [
      'deleteDocument',
      'document-not-draft',
      () => write('DELETE', `/v1/documents/${documentId}`),
      'document-not-draft',
    ],
    [
      'deleteDocument',
      'insufficient-scope',
      () => call('DELETE', `/v1/documents/${drafts.toDelete}`),
      'insufficient-scope',
    ],
    ...keyCases('deleteDocument', 'DELETE', () => `/v1/documents/${drafts.toDelete}`),
    ...writeBodyCases('deleteDocument', 'DELETE', () => `/v1/documents/${drafts.toDelete}`),
    ['deleteDocument', '200', () => write('DELETE', `/v1/documents/${drafts.toDelete}`)],
    [
      'replaceDocument',
      '200',
      () => write('PUT', `/v1/documents/${drafts.toReplace}`, { body: newDocument }),
    ],
    [
      'replaceDocument',
      'invalid-id',
      () => write('PUT', '/v1/documents/nope', { body: newDocument }),
      'invalid-id',
    ],
    [
      'replaceDocument',
      'invalid-query',
      () => write('PUT', `/v1/documents/${drafts.toReplace}?x=1`, { body: newDocument }),
      'invalid-query',
    ],
    [
      'replaceDocument',
      'invalid-json',
      () => write('PUT', `/v1/documents/${drafts.toReplace}`, { body: '{' }),
      'invalid-json',
    ],
    [
      'replaceDocument',
      'invalid-body',
      () => write('PUT', `/v1/documents/${drafts.toReplace}`, { body: {} }),
      'invalid-body',
    ],
    [
      'replaceDocument',
      'invalid-file',
      () =>
        write('PUT', `/v1/documents/${drafts.toReplace}`, {
          body: { ...newDocument, file: Buffer.from('not a PDF').toString('base64') },
        }),
      'invalid-file',
    ],
    [
      'replaceDocument',
      'not-found',
      () => write('PUT', `/v1/documents/${randomId()}`, { body: newDocument }),
      'not-found',
    ],
    [
      'replaceDocument',
      'document-not-draft',
      () => write('PUT', `/v1/documents/${documentId}`, { body: newDocument }),
      'document-not-draft',
    ],
    [
      'replaceDocument',
      'unsupported-media-type',
      () =>
        write('PUT', `/v1/documents/${drafts.toReplace}`, {
          body: 'x',
          headers: { 'content-type': 'text/plain' },
        }),
      'unsupported-media-type',
    ],
    [
      'replaceDocument',
      'insufficient-scope',
      () => call('PUT', `/v1/documents/${drafts.toReplace}`, { body: newDocument }),
      'insufficient-scope',
    ],
    ...keyCases('replaceDocument', 'PUT', () => `/v1/documents/${drafts.toReplace}`, newDocument),
    [
      'remindRecipient',
      '200',
      () => write('POST', `/v1/documents/${sent.id}/recipients/${sent.first}/remind`),
    ],
    [
      'remindRecipient',
      'reminded-recently',
      () => write('POST', `/v1/documents/${sent.id}/recipients/${sent.first}/remind`),
      'reminded-recently',
    ],
    [
      'remindRecipient',
      'recipient-not-remindable',
      () => write('POST', `/v1/documents/${sent.id}/recipients/${sent.second}/remind`),
      'recipient-not-remindable',
    ],
    [
      'remindRecipient',
      'invalid-id',
      () => write('POST', `/v1/documents/${sent.id}/recipients/nope/remind`),
      'invalid-id',
    ],
    [
      'remindRecipient',
      'invalid-query',
      () => write('POST', `/v1/documents/${sent.id}/recipients/${sent.first}/remind?x=1`),
      'invalid-query',
    ],
    [
      'remindRecipient',
      'not-found',
      () => write('POST', `/v1/documents/${sent.id}/recipients/${randomId()}/remind`),
      'not-found',
    ],
    [
      'remindRecipient',
      'insufficient-scope',
      () => call('POST', `/v1/documents/${sent.id}/recipients/${sent.first}/remind`),
      'insufficient-scope',
    ],
    ...keyCases('remindRecipient', 'POST', () => `/v1/documents/${sent.id}/recipients/${sent.first}/remind`),
    ...writeBodyCases(
      'remindRecipient',
      'POST',
      () => `/v1/documents/${sent.id}/recipients/${sent.first}/remind`,
    ),
    [
      'renewSigningUrl',
      '200',
      () => write('POST', `/v1/documents/${own.id}/recipients/${own.first}/signing-url`),
    ],
    [
      'renewSigningUrl',
      'recipient-not-invited',
      () => write('POST', `/v1/documents/${own.id}/recipients/${own.second}/signing-url`),
      'recipient-not-invited',
    ],
    [
      'renewSigningUrl',
      'document-delivered-by-mail',
      () => write('POST', `/v1/documents/${sent.id}/recipients/${sent.first}/signing-url`),
      'document-delivered-by-mail',
    ],
    [
      'renewSigningUrl',
      'invalid-id',
      () => write('POST', `/v1/documents/nope/recipients/${own.first}/signing-url`),
      'invalid-id',
    ],
    [
      'renewSigningUrl',
      'invalid-query',
      () => write('POST', `/v1/documents/${own.id}/recipients/${own.first}/signing-url?x=1`),
      'invalid-query',
    ],
    [
      'renewSigningUrl',
      'not-found',
      () => write('POST', `/v1/documents/${own.id}/recipients/${randomId()}/signing-url`),
      'not-found',
    ],
    [
      'renewSigningUrl',
      'insufficient-scope',
      () => call('POST', `/v1/documents/${own.id}/recipients/${own.first}/signing-url`),
      'insufficient-scope',
    ],
    ...keyCases(
      'renewSigningUrl',
      'POST',
      () => `/v1/documents/${own.id}/recipients/${own.first}/signing-url`,
    ),
    ...writeBodyCases(
      'renewSigningUrl',
      'POST',
      () => `/v1/documents/${own.id}/recipients/${own.first}/signing-url`,
    ),
    [
      'withdrawDocument',
      'document-not-active',
      () => write('POST', `/v1/documents/${drafts.empty}/withdraw`),
      'document-not-active',
    ],
    ['withdrawDocument', 'invalid-id', () => write('POST', '/v1/documents/nope/withdraw'), 'invalid-id'],
    [
      'withdrawDocument',
      'invalid-query',
      () => write('POST', `/v1/documents/${sent.id}/withdraw?x=1`),
      'invalid-query',
    ],
    [
      'withdrawDocument',
      'invalid-body',
      () => write('POST', `/v1/documents/${sent.id}/withdraw`, { body: { why: 'x' } }),
      'invalid-body',
    ],
    [
      'withdrawDocument',
      'not-found',
      () => write('POST', `/v1/documents/${randomId()}/withdraw`),
      'not-found',
    ],
    [
      'withdrawDocument',
      'insufficient-scope',
      () => call('POST', `/v1/documents/${sent.id}/withdraw`),
      'insufficient-scope',
    ],
    ...keyCases('withdrawDocument', 'POST', () => `/v1/documents/${sent.id}/withdraw`),
    ...writeBodyCases('withdrawDocument', 'POST', () => `/v1/documents/${sent.id}/withdraw`),
    [
      'withdrawDocument',
      '200',
      () => write('POST', `/v1/documents/${sent.id}/withdraw`, { body: { reason: 'Done.' } }),
    ],
    [
      'renewSigningUrl',
      'document-not-active',
      () => write('POST', `/v1/documents/${sent.id}/recipients/${sent.first}/signing-url`),
      'document-not-active',
    ],
    ['listDocuments', '200', () => call('GET', '/v1/documents?limit=2')],
    ['listDocuments', 'invalid-query', () => call('GET', '/v1/documents?limit=0'), 'invalid-query'],
    ['listDocuments', 'invalid-cursor', () => call('GET', '/v1/documents?cursor=abc'), 'invalid-cursor'],
    ...keyCases('listDocuments', 'GET', () => '/v1/documents'),
    ['getDocument', '200', () => call('GET', `/v1/documents/${documentId}`)],
    ['getDocument', 'invalid-id', () => call('GET', '/v1/documents/nope'), 'invalid-id'],
    [
      'getDocument',
      'invalid-query',
      () => call('GET', `/v1/documents/${documentId}?expand=events`),
      'invalid-query',
    ],
    ['getDocument', 'not-found', () => call('GET', `/v1/documents/${randomId()}`), 'not-found'],
    ...keyCases('getDocument', 'GET', () => `/v1/documents/${documentId}`),
    ['listWebhookEndpoints', '200', () => call('GET', '/v1/webhook-endpoints')],
    [
      'listWebhookEndpoints',
      'invalid-query',
      () => call('GET', '/v1/webhook-endpoints?x=1'),
      'invalid-query',
    ],
    ...keyCases('listWebhookEndpoints', 'GET', () => '/v1/webhook-endpoints'),
    [
      'createWebhookEndpoint',
      '201',
      () =>
        call('POST', '/v1/webhook-endpoints', {
          body: { url: 'https://api.example.org/hooks', events: ['document.signed'] },
        }),
    ],
    [
      'createWebhookEndpoint',
      'invalid-json',
      () => call('POST', '/v1/webhook-endpoints', { body: '{' }),
      'invalid-json',
    ],
    [
      'createWebhookEndpoint',
      'invalid-body',
      () =>
        call('POST', '/v1/webhook-endpoints', { body: { url: 'https://hooks.example.com/x', events: [] } }),
      'invalid-body',
    ],
    [
      'createWebhookEndpoint',
      'invalid-url',
      () => call('POST', '/v1/webhook-endpoints', { body: { url: 'not a url', events: ['document.sent'] } }),
      'invalid-url',
    ],
    [
      'createWebhookEndpoint',
      'unsafe-url',
      () =>
        call('POST', '/v1/webhook-endpoints', {
          body: { url: 'https://127.0.0.1/x', events: ['document.sent'] },
        }),
      'unsafe-url',
    ],
    [
      'createWebhookEndpoint',
      'invalid-query',
      () =>
        call('POST', '/v1/webhook-endpoints?x=1', {
          body: { url: 'https://hooks.example.com/x', events: ['document.sent'] },
        }),
      'invalid-query',
    ],
    [
      'createWebhookEndpoint',
      'payload-too-large',
      () =>
        call('POST', '/v1/webhook-endpoints', {
          body: {
            url: 'https://hooks.example.com/x',
            events: ['document.sent'],
            description: 'x'.repeat(1_100_000),
          },
        }),
      'payload-too-large',
    ],
    [
      'createWebhookEndpoint',
      'unsupported-media-type',
      () =>
        call('POST', '/v1/webhook-endpoints', { body: 'url=x', headers: { 'content-type': 'text/plain' } }),
      'unsupported-media-type',
    ],
    ...keyCases('createWebhookEndpoint', 'POST', () => '/v1/webhook-endpoints', {}),
    ['getWebhookEndpoint', '200', () => call('GET', `/v1/webhook-endpoints/${endpointId}`)],
    ['getWebhookEndpoint', 'invalid-id', () => call('GET', '/v1/webhook-endpoints/nope'), 'invalid-id'],
    [
      'getWebhookEndpoint',
      'not-found',
      () => call('GET', `/v1/webhook-endpoints/${randomId()}`),
      'not-found',
    ],
    ...keyCases('getWebhookEndpoint', 'GET', () => `/v1/webhook-endpoints/${endpointId}`),
    [
      'updateWebhookEndpoint',
      '200',
      () => call('PATCH', `/v1/webhook-endpoints/${endpointId}`, { body: { description: 'CRM' } }),
    ],
    [
      'updateWebhookEndpoint',
      'invalid-json',
      () => call('PATCH', `/v1/webhook-endpoints/${endpointId}`, { body: '[' }),
      'invalid-json',
    ],
    [
      'updateWebhookEndpoint',
      'invalid-body',
      () => call('PATCH', `/v1/webhook-endpoints/${endpointId}`, { body: { enabled: 'yes' } }),
      'invalid-body',
    ],
    [
      'updateWebhookEndpoint',
      'invalid-url',
      () => call('PATCH', `/v1/webhook-endpoints/${endpointId}`, { body: { url: 'nope' } }),
      'invalid-url',
    ],
    [
      'updateWebhookEndpoint',
      'unsafe-url',
      () => call('PATCH', `/v1/webhook-endpoints/${endpointId}`, { body: { url: 'https://10.0.0.1/x' } }),
      'unsafe-url',
    ],
    [
      'updateWebhookEndpoint',
      'not-found',
      () => call('PATCH', `/v1/webhook-endpoints/${randomId()}`, { body: { description: 'x' } }),
      'not-found',
    ],
    [
      'updateWebhookEndpoint',
      'payload-too-large',
      () =>
        call('PATCH', `/v1/webhook-endpoints/${endpointId}`, {
          body: { description: 'x'.repeat(1_100_000) },
        }),
      'payload-too-large',
    ],
    [
      'updateWebhookEndpoint',
      'unsupported-media-type',
      () =>
        call('PATCH', `/v1/webhook-endpoints/${endpointId}`, {
          body: 'x',
          headers: { 'content-type': 'text/plain' },
        }),
      'unsupported-media-type',
    ],
    ...keyCases('updateWebhookEndpoint', 'PATCH', () => `/v1/webhook-endpoints/${endpointId}`, {}),
    [
      'rotateWebhookEndpointSecret',
      '200',
      () => call('POST', `/v1/webhook-endpoints/${endpointId}/rotate-secret`, { body: { overlapHours: 1 } }),
    ],
    [
      'rotateWebhookEndpointSecret',
      'invalid-json',
      () => call('POST', `/v1/webhook-endpoints/${endpointId}/rotate-secret`, { body: '{' }),
      'invalid-json',
    ],
    [
      'rotateWebhookEndpointSecret',
      'invalid-body',
      () =>
        call('POST', `/v1/webhook-endpoints/${endpointId}/rotate-secret`, { body: { overlapHours: 169 } }),
      'invalid-body',
    ],
    [
      'rotateWebhookEndpointSecret',
      'invalid-id',
      () => call('POST', '/v1/webhook-endpoints/nope/rotate-secret'),
      'invalid-id',
    ],
    [
      'rotateWebhookEndpointSecret',
      'invalid-query',
      () => call('POST', `/v1/webhook-endpoints/${endpointId}/rotate-secret?x=1`),
      'invalid-query',
    ],
    [
      'rotateWebhookEndpointSecret',
      'not-found',
      () => call('POST', `/v1/webhook-endpoints/${randomId()}/rotate-secret`),
      'not-found',
    ],
    [
      'rotateWebhookEndpointSecret',
      'payload-too-large',
      () =>
        call('POST', `/v1/webhook-endpoints/${endpointId}/rotate-secret`, {
          body: { overlapHours: 1, pad: 'x'.repeat(1_100_000) },
        }),
      'payload-too-large',
    ],
    [
      'rotateWebhookEndpointSecret',
      'unsupported-media-type',
      () =>
        call('POST', `/v1/webhook-endpoints/${endpointId}/rotate-secret`, {
          body: 'x',
          headers: { 'content-type': 'text/plain' },
        }),
      'unsupported-media-type',
    ],
    ...keyCases(
      'rotateWebhookEndpointSecret',
      'POST',
      () => `/v1/webhook-endpoints/${endpointId}/rotate-secret`,
    ),
    [
      'listWebhookDeliveries',
      '200',
      () => call('GET', `/v1/webhook-endpoints/${deadEndpoint.id}/deliveries?limit=1`),
    ],
    [
      'listWebhookDeliveries',
      'invalid-query',
      () => call('GET', `/v1/webhook-endpoints/${deadEndpoint.id}/deliveries?limit=0`),
      'invalid-query',
    ],
    [
      'listWebhookDeliveries',
      'invalid-cursor',
      () => call('GET', `/v1/webhook-endpoints/${deadEndpoint.id}/deliveries?cursor=abc`),
      'invalid-cursor',
    ],
    [
      'listWebhookDeliveries',
      'invalid-id',
      () => call('GET', '/v1/webhook-endpoints/nope/deliveries'),
      'invalid-id',
    ],
    [
      'listWebhookDeliveries',
      'not-found',
      () => call('GET', `/v1/webhook-endpoints/${randomId()}/deliveries`),
      'not-found',
    ],
    ...keyCases('listWebhookDeliveries', 'GET', () => `/v1/webhook-endpoints/${deadEndpoint.id}/deliveries`),
    [
      'resendWebhookDelivery',
      '200',
      () =>
        call('POST', `/v1/webhook-endpoints/${deadEndpoint.id}/deliveries/${deadEndpoint.dropped}/resend`),
    ],
    [
      'resendWebhookDelivery',
      'delivery-not-resendable',
      () =>
        call('POST', `/v1/webhook-endpoints/${deadEndpoint.id}/deliveries/${deadEndpoint.delivered}/resend`),
      'delivery-not-resendable',
    ],
    [
      'resendWebhookDelivery',
      'invalid-id',
      () => call('POST', `/v1/webhook-endpoints/${deadEndpoint.id}/deliveries/nope/resend`),
      'invalid-id',
    ],
    [
      'resendWebhookDelivery',
      'invalid-query',
      () =>
        call(
          'POST',
          `/v1/webhook-endpoints/${deadEndpoint.id}/deliveries/${deadEndpoint.dropped}/resend?x=1`,
        ),
      'invalid-query',
    ],
    [
      'resendWebhookDelivery',
      'not-found',
      () => call('POST', `/v1/webhook-endpoints/${deadEndpoint.id}/deliveries/${randomId()}/resend`),
      'not-found',
    ],
    ...keyCases(
      'resendWebhookDelivery',
      'POST',
      () => `/v1/webhook-endpoints/${deadEndpoint.id}/deliveries/${deadEndpoint.dropped}/resend`,
    ),
    ...bodyCases(
      'resendWebhookDelivery',
      'POST',
      () => `/v1/webhook-endpoints/${deadEndpoint.id}/deliveries/${deadEndpoint.dropped}/resend`,
    ),
    ...bodyCases('deleteWebhookEndpoint', 'DELETE', () => `/v1/webhook-endpoints/${endpointId}`),
    ['deleteWebhookEndpoint', 'invalid-id', () => call('DELETE', '/v1/webhook-endpoints/nope'), 'invalid-id'],
    [
      'deleteWebhookEndpoint',
      'invalid-query',
      () => call('DELETE', `/v1/webhook-endpoints/${endpointId}?x=1`),
      'invalid-query',
    ],
    [
      'deleteWebhookEndpoint',
      'not-found',
      () => call('DELETE', `/v1/webhook-endpoints/${randomId()}`),
      'not-found',
    ],
    ...keyCases('deleteWebhookEndpoint', 'DELETE', () => `/v1/webhook-endpoints/${endpointId}`),
    [
      'streamEvents',
      'invalid-query',
      () => call('GET', '/v1/events/stream?types=document.archived'),
      'invalid-query',
    ],
    ...keyCases('streamEvents', 'GET', () => '/v1/events/stream'),
    ['deleteWebhookEndpoint', '200', () => call('DELETE', `/v1/webhook-endpoints/${endpointId}`)],
  ];

  for (const [operationId, what, send, code] of cases) {
    test(`${operationId}: ${what} matches the contract`, async () => {
      checkAnswer(operationId, await send(), code);
    });
  }

  /** A stream of GET /v1/events/stream on a connection of its own, and how to close both. */
  async function openStream(key: string) {
    const controller = new AbortController();
    const agent = new Agent();
    const response = await fetch(`${h.baseUrl}/v1/events/stream`, {
      headers: { authorization: `Bearer ${key}` },
      signal: controller.signal,
      dispatcher: agent,
    } as RequestInit);
    return {
      response,
      close: async () => {
        controller.abort();
        await agent.destroy();
      },
    };
  }

  test('streamEvents: 200 is a text/event-stream with the headers the contract promises', async () => {
    const other = await createTestWorkspace(h.ctx);
    const stream = await openStream(other.apiKey);
    try {
      const { response } = stream;
      const documented = operation('streamEvents').responses[String(response.status)];
      assert.ok(documented, `streamEvents answered ${response.status}`);
      assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
      assert.ok(Object.keys((documented as { content: object }).content).includes('text/event-stream'));
      for (const header of Object.keys(documented.headers ?? {}))
        assert.ok(response.headers.get(header) !== null, header);
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      assert.match(first, /event: ready\ndata: \{"workspaceId"/);
      exercised.add(`streamEvents ${response.status}`);
    } finally {
      await stream.close();
    }
  });

  test('streamEvents: too-many-streams (429, Retry-After) matches the contract', async () => {
    const other = await createTestWorkspace(h.ctx);
    const streams = [];
    try {
      for (let i = 0; i < eventStreamDefaults.perWorkspace; i++) {
        streams.push(await openStream(other.apiKey));
        assert.equal(streams.at(-1)?.response.status, 200);
      }
      checkAnswer(
        'streamEvents',
        await callApi(h, 'GET', '/v1/events/stream', { key: other.apiKey }),
        'too-many-streams',
      );
    } finally {
      for (const stream of streams) await stream.close();
    }
  });

  test('the 11th endpoint: limit-reached matches the contract', async () => {
    const other = await createTestWorkspace(h.ctx);
    for (let i = 0; i < 10; i++) {
      await createEndpoint(h.ctx, other.id, {
        url: `https://hooks.example.com/${i}`,
        events: ['document.sent'],
      });
    }
    const res = await callApi(h, 'POST', '/v1/webhook-endpoints', {
      key: other.apiKey,
      body: { url: 'https://hooks.example.com/11', events: ['document.sent'] },
    });
    checkAnswer('createWebhookEndpoint', res, 'limit-reached');
  });

  test('an Idempotency-Key repeated after its endpoint was deleted: not-found matches the contract', async () => {
    const other = await createTestWorkspace(h.ctx);
    const create = () =>
      callApi(h, 'POST', '/v1/webhook-endpoints', {
        key: other.apiKey,
        headers: { 'idempotency-key': 'replay-after-delete' },
        body: { url: 'https://hooks.example.com/replayed', events: ['document.sent'] },
      });
    const first = await create();
    assert.equal(first.status, 201);
    const id = (first.body as { data: { id: string } }).data.id;
    assert.equal(
      (await callApi(h, 'DELETE', `/v1/webhook-endpoints/${id}`, { key: other.apiKey })).status,
      200,
    );
    checkAnswer('createWebhookEndpoint', await create(), 'not-found');
  });

  test('createDocument: a PDF over the upload limit (413), the day’s uploads used up (429), a key reused (409), a replay after deletion (404)', async () => {
    const other = await createTestWorkspace(h.ctx);
    const key = (await createApiKey(h.ctx, { workspaceId: other.id, name: 'w', scope: 'write' })).secret;
    const pdf = await textPdf({ title: 'T', body: 'B', workspaceName: 'W', createdAt: h.clock.now() });
    const small = { ...h.ctx, config: { ...h.ctx.config, maxUploadBytes: 1024 } };
    await withApp(small, { burst: 100, refillPerSecond: 1 }, async (baseUrl) => {
      const res = await callApi({ baseUrl }, 'POST', '/v1/documents', {
        key,
        body: { title: 'Big', file: pdf.toString('base64'), recipients: [signer] },
      });
      checkAnswer('createDocument', res, 'payload-too-large');
      const draft = await callApi({ baseUrl }, 'POST', '/v1/documents', {
        key,
        body: { title: 'D', recipients: [signer] },
      });
      const replaced = await callApi(
        { baseUrl },
        'PUT',
        `/v1/documents/${(draft.body.data as { id: string }).id}`,
        {
          key,
          body: { title: 'Big', file: pdf.toString('base64'), recipients: [signer] },
        },
      );
      checkAnswer('replaceDocument', replaced, 'payload-too-large');
      const bigTemplate = {
        name: 'Big',
        title: 'Big',
        roles: [templateRole('Client')],
        file: Buffer.alloc(4096).toString('base64'),
      };
      const tooBig = await callApi({ baseUrl }, 'POST', '/v1/templates', { key, body: bigTemplate });
      checkAnswer('createTemplate', tooBig, 'payload-too-large');
      const replacedTemplate = await callApi({ baseUrl }, 'PUT', `/v1/templates/${randomUUID()}`, {
        key,
        body: bigTemplate,
      });
      checkAnswer('replaceTemplate', replacedTemplate, 'payload-too-large');
    });
    const body = { title: 'Once', text: 'Terms.', recipients: [signer] };
    const headers = { 'idempotency-key': 'contract-replay' };
    const first = await callApi(h, 'POST', '/v1/documents', { key, body, headers });
    checkAnswer('createDocument', first);
    const reused = await callApi(h, 'POST', '/v1/documents', {
      key,
      body: { ...body, title: 'Twice' },
      headers,
    });
    checkAnswer('createDocument', reused, 'idempotency-key-reused');
    await callApi(h, 'DELETE', `/v1/documents/${(first.body.data as { id: string }).id}`, { key });
    checkAnswer(
      'createDocument',
      await callApi(h, 'POST', '/v1/documents', { key, body, headers }),
      'not-found',
    );
    await h.ctx.db
      .insertInto('upload_usage')
      .values({
        workspace_id: other.id,
        day: h.clock.now().toISOString().slice(0, 10),
        bytes: h.ctx.config.uploadBytesPerDay,
      })
      .execute();
    const over = await callApi(h, 'POST', '/v1/documents', {
      key,
      body: { title: 'Over', file: pdf.toString('base64'), recipients: [signer] },
    });
    checkAnswer('createDocument', over, 'upload-limit-reached');
  });

  /** Each operation once (unknown ids), with `key`, at `baseUrl`: every answer is `code`, per the contract. */
  async function eachOperationAnswers(baseUrl: string, key: string, code: string) {
    const everyOperation: Array<[string, ApiMethod, string]> = [
      ['listDocuments', 'GET', '/v1/documents'],
      ['getDocument', 'GET', `/v1/documents/${randomUUID()}`],
      ['createDocument', 'POST', '/v1/documents'],
      ['sendDocument', 'POST', `/v1/documents/${randomUUID()}/send`],
      ['deleteDocument', 'DELETE', `/v1/documents/${randomUUID()}`],
      ['replaceDocument', 'PUT', `/v1/documents/${randomUUID()}`],
      ['remindRecipient', 'POST', `/v1/documents/${randomUUID()}/recipients/${randomUUID()}/remind`],
      ['withdrawDocument', 'POST', `/v1/documents/${randomUUID()}/withdraw`],
      ['renewSigningUrl', 'POST', `/v1/documents/${randomUUID()}/recipients/${randomUUID()}/signing-url`],
      ['listTemplates', 'GET', '/v1/templates'],
      ['getTemplate', 'GET', `/v1/templates/${randomUUID()}`],
      ['createTemplate', 'POST', '/v1/templates'],
      ['replaceTemplate', 'PUT', `/v1/templates/${randomUUID()}`],
      ['deleteTemplate', 'DELETE', `/v1/templates/${randomUUID()}`],
      ['useTemplate', 'POST', `/v1/templates/${randomUUID()}/documents`],
      ['listWebhookEndpoints', 'GET', '/v1/webhook-endpoints'],
      ['createWebhookEndpoint', 'POST', '/v1/webhook-endpoints'],
      ['getWebhookEndpoint', 'GET', `/v1/webhook-endpoints/${randomUUID()}`],
      ['updateWebhookEndpoint', 'PATCH', `/v1/webhook-endpoints/${randomUUID()}`],
      ['deleteWebhookEndpoint', 'DELETE', `/v1/webhook-endpoints/${randomUUID()}`],
      ['rotateWebhookEndpointSecret', 'POST', `/v1/webhook-endpoints/${randomUUID()}/rotate-secret`],
      ['streamEvents', 'GET', '/v1/events/stream'],
      ['listWebhookDeliveries', 'GET', `/v1/webhook-endpoints/${randomUUID()}/deliveries`],
      [
        'resendWebhookDelivery',
        'POST',
        `/v1/webhook-endpoints/${randomUUID()}/deliveries/${randomUUID()}/resend`,
      ],
    ];
    for (const [operationId, method, path] of everyOperation) {
      const res = await callApi({ baseUrl }, method, path, {
        key,
        ...(method === 'POST' || method === 'PATCH' || method === 'PUT' ? { body: {} } : {}),
      });
      checkAnswer(operationId, res, code);
    }
  }

  test('an empty bucket: rate-limited (429, Retry-After) matches the contract on every operation', async () => {
    await withApp(h.ctx, { burst: 1, refillPerSecond: 0.001 }, async (base) => {
      const other = await createTestWorkspace(h.ctx);
      const target = { baseUrl: base };
      await callApi(target, 'GET', '/v1/documents', { key: other.apiKey });
      await eachOperationAnswers(base, other.apiKey, 'rate-limited');
    });
  });

  /** Every operation against an app on `db`, each answer checked against the contract. */
  async function everyOperationAnswers(db: Kysely<Database>, code: string, outage = h.ctx.outage) {
    await withApp({ ...h.ctx, db, outage }, { burst: 100, refillPerSecond: 1 }, (base) =>
      eachOperationAnswers(base, `sgn_${'E'.repeat(43)}`, code),
    );
  }

  test('a database that cannot be reached: unavailable (503) matches the contract on every operation', async () => {
    const broken = unreachableDatabase();
    const outage = createOutageMonitor({ db: broken, log: h.ctx.log, probeIntervalMs: 60_000 });
    try {
      await everyOperationAnswers(broken, 'unavailable', outage);
    } finally {
      outage.close();
      await broken.destroy();
    }
  });

  test('a database without Signet’s tables: internal-error (500) matches the contract on every operation', async () => {
    const empty = await createTestDatabase(kind, { migrated: false });
    try {
      await everyOperationAnswers(empty.db, 'internal-error');
    } finally {
      await empty.close();
    }
  });

  test('every status the contract promises for every operation was exercised above', () => {
    assert.deepEqual(
      [...promised].filter((pair) => !exercised.has(pair)),
      [],
    );
  });
});

describeEachDatabase('deliveries against the contract’s webhooks', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_WEBHOOK_ALLOW_UNSAFE: '1' } });
  let receiver: Receiver;

  test('a ping’s body matches webhooks.ping', async () => {
    receiver = await startReceiver();
    try {
      const ws = await createTestWorkspace(h.ctx);
      const endpoint = await createEndpoint(h.ctx, ws.id, {
        url: `${receiver.url}/hooks`,
        events: ['document.sent'],
      });
      const result = await sendPing(h.ctx, ws.id, endpoint.id);
      assert.equal(result.ok, true);
      const body = JSON.parse(receiver.requests.at(-1)?.body ?? '{}');
      const validate = compile(
        contract.webhooks.ping?.post.requestBody.content['application/json'].schema as Schema,
      );
      assert.ok(validate(body), JSON.stringify(validate.errors));
    } finally {
      await receiver.close();
    }
  });
});
