// The contract against the live API: a real request for every operation of
// docs/openapi.json and every status it documents for it (each error code, too), and each
// answer validated against the document's schema for that status, with the rate-limit
// headers it promises (and Retry-After on 429). A delivery body, ping and event alike, is
// validated against the document's `webhooks`. The cases, one test each, are tables by
// operation group beside it (contract-cases-documents.ts, -templates.ts, -webhooks.ts), run
// in one order after the setup test; contract-answers.ts judges each answer.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import type { Kysely } from 'kysely';
import { Agent } from 'undici';
import { eventStreamDefaults } from '../../src/config.ts';
import { createOutageMonitor } from '../../src/db/availability.ts';
import type { Database } from '../../src/db/schema.ts';
import { createApiKey } from '../../src/keys/keys.service.ts';
import { insertPingDelivery } from '../../src/webhooks/deliveries.repository.ts';
import { sendPing } from '../../src/webhooks/deliveries.service.ts';
import { insertEndpoint } from '../../src/webhooks/endpoints.repository.ts';
import { createEndpoint } from '../../src/webhooks/endpoints.service.ts';
import { insertWebhookEvent } from '../../src/webhooks/outbox.repository.ts';
import { senderFeeField, signatureField, templateRole, textPdf } from '../support/factories.ts';
import {
  type ApiMethod,
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
import {
  checkAnswer,
  compile,
  contract,
  exercised,
  operation,
  promised,
  type Schema,
} from './contract-answers.ts';
import { type Case, type CaseKit, signer } from './contract-cases.ts';
import { createDocumentCases, documentCases } from './contract-cases-documents.ts';
import { templateCases } from './contract-cases-templates.ts';
import { webhookCases } from './contract-cases-webhooks.ts';

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
  const live = {
    get documentId() {
      return documentId;
    },
    get endpointId() {
      return endpointId;
    },
    get templateBody() {
      return templateBody;
    },
  };
  const kit: CaseKit = {
    call,
    write,
    keyCases,
    bodyCases,
    writeBodyCases,
    randomId,
    newDocument,
    drafts,
    templates,
    sent,
    own,
    deadEndpoint,
    live,
  };
  // In the order they always ran: a later case may use what an earlier one did (the endpoint is deleted last).
  const cases: Case[] = [
    ...createDocumentCases(kit),
    ...templateCases(kit),
    ...documentCases(kit),
    ...webhookCases(kit),
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
