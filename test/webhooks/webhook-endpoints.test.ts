// /v1/webhook-endpoints: create, list, get, patch and delete; the secret shown exactly once;
// body validation, destination checks, the limit of 10, workspace isolation and the
// HTTP-level answers (auth, plan, query, method, media type, size).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import {
  type ApiEndpoint,
  type ApiMethod,
  type ApiResponse,
  allEventTypes,
  type CreatedApiEndpoint,
  callApi,
  countRows,
  createTestWorkspace,
  describeEachDatabase,
  type TestWorkspace,
  useHarness,
} from '../support/harness.ts';

type Endpoint = ApiEndpoint;
type CreatedEndpoint = CreatedApiEndpoint;

type Body = string | object;

const collection = '/v1/webhook-endpoints';
const item = (id: string) => `${collection}/${id}`;

const endpointKeys = [
  'createdAt',
  'description',
  'disabledReason',
  'enabled',
  'events',
  'failureCount',
  'id',
  'url',
];
const createdKeys = [...endpointKeys, 'secret'].sort();
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const timestampPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
// `whsec_` + at least 32 random bytes in base64url without padding (32 bytes = 43 characters).
const secretPattern = /^whsec_[A-Za-z0-9_-]{43,}$/;

const validBody = { url: 'https://hooks.example.com/signet', events: ['document.sent', 'document.signed'] };
const withBody = (fields: Record<string, unknown>) => ({ ...validBody, ...fields });
const tooLarge = JSON.stringify(withBody({ description: 'x'.repeat(1024 * 1024 + 1) }));

interface InvalidCase {
  name: string;
  body: Body;
  status?: number;
  code: string;
  headers?: Record<string, string>;
}

const invalidCreateBodies: InvalidCase[] = [
  { name: 'a body that is not JSON', body: '{"url":', code: 'invalid-json' },
  { name: 'an empty body sent as JSON', body: '', code: 'invalid-json' },
  { name: 'JSON followed by garbage', body: `${JSON.stringify(validBody)} x`, code: 'invalid-json' },
  { name: 'JSON null', body: 'null', code: 'invalid-body' },
  { name: 'a JSON array', body: [validBody], code: 'invalid-body' },
  { name: 'a JSON string', body: '"https://hooks.example.com/signet"', code: 'invalid-body' },
  { name: 'a JSON number', body: '42', code: 'invalid-body' },
  { name: 'an empty object', body: {}, code: 'invalid-body' },
  { name: 'url missing', body: { events: ['document.sent'] }, code: 'invalid-body' },
  { name: 'events missing', body: { url: validBody.url }, code: 'invalid-body' },
  { name: 'url a number', body: withBody({ url: 123 }), code: 'invalid-body' },
  { name: 'url null', body: withBody({ url: null }), code: 'invalid-body' },
  { name: 'url an object', body: withBody({ url: { href: validBody.url } }), code: 'invalid-body' },
  { name: 'url an array', body: withBody({ url: [validBody.url] }), code: 'invalid-body' },
  { name: 'events a string', body: withBody({ events: 'document.sent' }), code: 'invalid-body' },
  { name: 'events null', body: withBody({ events: null }), code: 'invalid-body' },
  { name: 'events empty', body: withBody({ events: [] }), code: 'invalid-body' },
  { name: 'six events', body: withBody({ events: allEventTypes }), code: 'invalid-body' },
  {
    name: 'a duplicated event',
    body: withBody({ events: ['document.sent', 'document.signed', 'document.sent'] }),
    code: 'invalid-body',
  },
  { name: 'an unknown event type', body: withBody({ events: ['document.deleted'] }), code: 'invalid-body' },
  {
    name: 'an event type in another case',
    body: withBody({ events: ['Document.Sent'] }),
    code: 'invalid-body',
  },
  { name: 'ping', body: withBody({ events: ['ping'] }), code: 'invalid-body' },
  {
    name: 'ping beside a real type',
    body: withBody({ events: ['document.sent', 'ping'] }),
    code: 'invalid-body',
  },
  { name: 'an event that is a number', body: withBody({ events: [1] }), code: 'invalid-body' },
  { name: 'an event that is null', body: withBody({ events: [null] }), code: 'invalid-body' },
  { name: 'an unknown top-level field', body: withBody({ extra: 1 }), code: 'invalid-body' },
  {
    name: 'a description of 501 characters',
    body: withBody({ description: 'd'.repeat(501) }),
    code: 'invalid-body',
  },
  { name: 'a description that is a number', body: withBody({ description: 5 }), code: 'invalid-body' },
  { name: 'a description that is a boolean', body: withBody({ description: false }), code: 'invalid-body' },
  {
    name: 'a description containing a NUL character',
    body: withBody({ description: 'a\u0000b' }),
    code: 'invalid-body',
  },
  { name: 'enabled (not a create field)', body: withBody({ enabled: true }), code: 'invalid-body' },
  { name: 'a client-chosen secret', body: withBody({ secret: 'whsec_mine' }), code: 'invalid-body' },
  { name: 'a client-chosen id', body: withBody({ id: randomUUID() }), code: 'invalid-body' },
  { name: 'a failureCount', body: withBody({ failureCount: 0 }), code: 'invalid-body' },
  { name: 'url "not a url"', body: withBody({ url: 'not a url' }), code: 'invalid-url' },
  { name: 'an empty url', body: withBody({ url: '' }), code: 'invalid-url' },
  {
    name: 'a url without a scheme',
    body: withBody({ url: 'hooks.example.com/signet' }),
    code: 'invalid-url',
  },
  { name: 'a url with a leading space', body: withBody({ url: ` ${validBody.url}` }), code: 'invalid-url' },
  { name: 'an http url', body: withBody({ url: 'http://hooks.example.com/' }), code: 'unsafe-url' },
  { name: 'an ftp url', body: withBody({ url: 'ftp://hooks.example.com/' }), code: 'unsafe-url' },
  { name: 'localhost', body: withBody({ url: 'https://localhost/' }), code: 'unsafe-url' },
  { name: '127.0.0.1', body: withBody({ url: 'https://127.0.0.1/' }), code: 'unsafe-url' },
  {
    name: '127.0.0.1 written as a number',
    body: withBody({ url: 'https://2130706433/' }),
    code: 'unsafe-url',
  },
  { name: 'the IPv6 loopback', body: withBody({ url: 'https://[::1]/' }), code: 'unsafe-url' },
  { name: 'a 10.x address', body: withBody({ url: 'https://10.0.0.1/' }), code: 'unsafe-url' },
  { name: 'a 192.168.x address', body: withBody({ url: 'https://192.168.1.10/' }), code: 'unsafe-url' },
  {
    name: 'the cloud metadata address',
    body: withBody({ url: 'https://169.254.169.254/latest/meta-data/' }),
    code: 'unsafe-url',
  },
  {
    name: 'a metadata host name',
    body: withBody({ url: 'https://metadata.google.internal/' }),
    code: 'unsafe-url',
  },
  {
    name: 'a port other than 443',
    body: withBody({ url: 'https://hooks.example.com:8443/' }),
    code: 'unsafe-url',
  },
  {
    name: 'credentials in the url',
    body: withBody({ url: 'https://user:pass@hooks.example.com/' }),
    code: 'unsafe-url',
  },
  {
    name: 'a host that does not resolve',
    body: withBody({ url: 'https://nowhere.example.net/' }),
    code: 'unsafe-url',
  },
  {
    name: 'a text/plain body',
    body: JSON.stringify(validBody),
    headers: { 'content-type': 'text/plain' },
    status: 415,
    code: 'unsupported-media-type',
  },
  {
    name: 'a form-encoded body',
    body: 'url=https%3A%2F%2Fhooks.example.com%2F&events=document.sent',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    status: 415,
    code: 'unsupported-media-type',
  },
  { name: 'a body over 1 MiB', body: tooLarge, status: 413, code: 'payload-too-large' },
];

const patchFixture = {
  url: 'https://hooks.example.com/before',
  events: ['document.sent'],
  description: 'Before',
};

const invalidPatchBodies: InvalidCase[] = [
  { name: 'a body that is not JSON', body: '{"enabled":', code: 'invalid-json' },
  { name: 'an empty body sent as JSON', body: '', code: 'invalid-json' },
  { name: 'JSON null', body: 'null', code: 'invalid-body' },
  { name: 'a JSON array', body: [{ enabled: false }], code: 'invalid-body' },
  { name: 'a JSON string', body: '"disable"', code: 'invalid-body' },
  { name: 'enabled the string "true"', body: { enabled: 'true' }, code: 'invalid-body' },
  { name: 'enabled the string "false"', body: { enabled: 'false' }, code: 'invalid-body' },
  { name: 'enabled a number', body: { enabled: 0 }, code: 'invalid-body' },
  { name: 'enabled null', body: { enabled: null }, code: 'invalid-body' },
  { name: 'events empty', body: { events: [] }, code: 'invalid-body' },
  { name: 'events a string', body: { events: 'document.signed' }, code: 'invalid-body' },
  { name: 'events null', body: { events: null }, code: 'invalid-body' },
  { name: 'events ping', body: { events: ['ping'] }, code: 'invalid-body' },
  { name: 'six events', body: { events: allEventTypes }, code: 'invalid-body' },
  {
    name: 'a duplicated event',
    body: { events: ['document.signed', 'document.signed'] },
    code: 'invalid-body',
  },
  { name: 'an unknown event type', body: { events: ['document.archived'] }, code: 'invalid-body' },
  { name: 'url a number', body: { url: 123 }, code: 'invalid-body' },
  { name: 'url null', body: { url: null }, code: 'invalid-body' },
  { name: 'a description of 501 characters', body: { description: 'd'.repeat(501) }, code: 'invalid-body' },
  { name: 'a description that is a number', body: { description: 7 }, code: 'invalid-body' },
  { name: 'a description containing a NUL character', body: { description: '\u0000' }, code: 'invalid-body' },
  { name: 'an unknown field', body: { colour: 'blue' }, code: 'invalid-body' },
  { name: 'a secret', body: { secret: 'whsec_mine' }, code: 'invalid-body' },
  { name: 'an id', body: { id: randomUUID() }, code: 'invalid-body' },
  { name: 'a failureCount', body: { failureCount: 0 }, code: 'invalid-body' },
  { name: 'a disabledReason', body: { disabledReason: null }, code: 'invalid-body' },
  { name: 'a createdAt', body: { createdAt: '2020-01-01T00:00:00.000Z' }, code: 'invalid-body' },
  {
    name: 'a valid change beside an invalid one',
    body: { description: 'New', enabled: 'false' },
    code: 'invalid-body',
  },
  { name: 'url "not a url"', body: { url: 'not a url' }, code: 'invalid-url' },
  { name: 'an http url', body: { url: 'http://hooks.example.com/' }, code: 'unsafe-url' },
  { name: 'localhost', body: { url: 'https://localhost/' }, code: 'unsafe-url' },
  { name: 'the cloud metadata address', body: { url: 'https://169.254.169.254/' }, code: 'unsafe-url' },
  { name: 'a host that does not resolve', body: { url: 'https://nowhere.example.net/' }, code: 'unsafe-url' },
  {
    name: 'an unsafe url beside valid changes',
    body: { url: 'https://10.1.2.3/', events: ['document.signed'], description: 'New' },
    code: 'unsafe-url',
  },
  {
    name: 'a text/plain body',
    body: '{"enabled":false}',
    headers: { 'content-type': 'text/plain' },
    status: 415,
    code: 'unsupported-media-type',
  },
  { name: 'a body over 1 MiB', body: tooLarge, status: 413, code: 'payload-too-large' },
];

const invalidIds = [
  'abc',
  '0af903c7-64c0-4f07-a0e9-792e0190886', // 35 characters
  '0af903c7-64c0-4f07-a0e9-792e0190886bb', // 37 characters
  '0af903c764c04f07a0e9792e0190886b', // no dashes
  '0af903c7-64c0-4f07-a0e9-792e0190886g', // not hex
  'x'.repeat(100),
];

/** How many times `needle` occurs in `text`. */
const occurrences = (text: string, needle: string) => text.split(needle).length - 1;

/** A response as text: status, every header and the body, for leak checks. */
const fullText = (res: ApiResponse) => `${res.status}\n${[...res.headers].join('\n')}\n\n${res.text}`;

function assertError(res: ApiResponse, status: number, code: string, label = '') {
  // A refused body also names the member at fault: a JSON Pointer ("" for the body as a whole).
  const { pointer, ...envelope } = res.body as ApiResponse['body'] & { pointer?: unknown };
  assert.deepEqual([res.status, envelope], [status, { ok: false, error: code }], label);
  if (pointer !== undefined) assert.match(String(pointer), /^(\/.*)?$/s, label);
  if (code === 'invalid-body' && status === 400 && res.body.error === code)
    assert.equal(typeof pointer, 'string', `${label} names the member at fault`);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/, label);
}

describeEachDatabase('/v1/webhook-endpoints', (kind) => {
  const h = useHarness(kind);

  const create = (ws: TestWorkspace, body: Body = validBody, headers?: Record<string, string>) =>
    callApi(h, 'POST', collection, { key: ws.apiKey, body, ...(headers ? { headers } : {}) });
  const list = (ws: TestWorkspace) => callApi(h, 'GET', collection, { key: ws.apiKey });
  const get = (ws: TestWorkspace, id: string) => callApi(h, 'GET', item(id), { key: ws.apiKey });
  const patch = (ws: TestWorkspace, id: string, body: Body, headers?: Record<string, string>) =>
    callApi(h, 'PATCH', item(id), { key: ws.apiKey, body, ...(headers ? { headers } : {}) });
  const remove = (ws: TestWorkspace, id: string) => callApi(h, 'DELETE', item(id), { key: ws.apiKey });

  async function createOk(ws: TestWorkspace, body: Body = validBody): Promise<CreatedEndpoint> {
    const res = await create(ws, body);
    assert.equal(res.status, 201, res.text);
    return res.body.data as CreatedEndpoint;
  }

  async function getOk(ws: TestWorkspace, id: string): Promise<Endpoint> {
    const res = await get(ws, id);
    assert.equal(res.status, 200, res.text);
    return res.body.data as Endpoint;
  }

  async function patchOk(ws: TestWorkspace, id: string, body: Body): Promise<Endpoint> {
    const res = await patch(ws, id, body);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['data', 'ok']);
    return res.body.data as Endpoint;
  }

  async function assertNoEndpoints(ws: TestWorkspace, label = '') {
    assert.deepEqual((await list(ws)).body, { ok: true, data: [], nextCursor: null }, label);
  }

  /** What the service does when an endpoint is switched off after 20 consecutive failures. */
  async function disableByFailures(id: string) {
    await h.ctx.db
      .updateTable('webhook_endpoints')
      .set({ enabled: false, failure_count: 20, disabled_reason: 'failures' })
      .where('id', '=', id)
      .execute();
  }

  const storedRow = (id: string) =>
    h.ctx.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();

  // --- create --------------------------------------------------------------------------

  test('POST answers 201 with every field of the new endpoint, its secret, and nothing else', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const res = await create(ws, {
      url: 'https://HOOKS.Example.COM:443/In/Path?q=1',
      events: ['document.signed', 'document.sent'],
      description: 'CRM sync',
    });
    assert.equal(res.status, 201);
    assert.deepEqual(Object.keys(res.body).sort(), ['data', 'ok']);
    assert.equal(res.body.ok, true);
    const endpoint = res.body.data as CreatedEndpoint;
    assert.deepEqual(Object.keys(endpoint).sort(), createdKeys);
    assert.match(endpoint.id, uuidPattern);
    assert.match(endpoint.secret, secretPattern);
    assert.ok(Buffer.from(endpoint.secret.slice('whsec_'.length), 'base64url').length >= 32);
    assert.deepEqual(
      { ...endpoint, id: undefined, secret: undefined },
      {
        id: undefined,
        secret: undefined,
        url: 'https://hooks.example.com/In/Path?q=1',
        events: ['document.signed', 'document.sent'],
        enabled: true,
        description: 'CRM sync',
        createdAt: h.clock.now().toISOString(),
        failureCount: 0,
        disabledReason: null,
      },
    );
    assert.match(endpoint.createdAt, timestampPattern);
  });

  test('Idempotency-Key: a retry with the same key and body answers the first 201 and creates nothing; another body is 409', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const key = randomUUID();
    const send = (body: Body, idempotencyKey: string = key) =>
      callApi(h, 'POST', collection, {
        key: ws.apiKey,
        body,
        headers: { 'idempotency-key': idempotencyKey },
      });
    const first = await send(withBody({ description: 'CRM' }));
    assert.equal(first.status, 201, first.text);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    // The same JSON in another key order is the same body.
    const again = await send({ description: 'CRM', events: validBody.events, url: validBody.url });
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body, 'the first answer, secret included');
    assert.ok(again.headers.get('x-ratelimit-remaining'), 'a replay is a request like any other');
    assert.equal(await countRows(h.ctx, 'webhook_endpoints', { workspace_id: ws.id }), 1);
    // The kept answer is sealed: the row holds neither the secret nor anything readable of it.
    const created = first.body.data as CreatedEndpoint;
    const stored = await h.ctx.db
      .selectFrom('idempotency_keys')
      .select('response')
      .where('workspace_id', '=', ws.id)
      .execute();
    assert.equal(stored.length, 1);
    for (const { response } of stored) {
      assert.ok(!response.includes('whsec_'), 'no whsec_ in the stored row');
      assert.ok(!response.includes(created.secret.slice(6)), 'no secret in the stored row');
      assert.ok(!response.includes(created.id), 'nothing of the answer in clear');
      assert.match(response, /^v1\.[A-Za-z0-9_-]+$/);
    }

    const other = await send(withBody({ description: 'Billing' }));
    assert.equal(other.status, 409);
    assert.deepEqual(other.body, { ok: false, error: 'idempotency-key-reused' });
    // Keys are per workspace: another workspace's same key is its own.
    const elsewhere = await createTestWorkspace(h.ctx);
    const theirs = await callApi(h, 'POST', collection, {
      key: elsewhere.apiKey,
      body: withBody({ description: 'CRM' }),
      headers: { 'idempotency-key': key },
    });
    assert.equal(theirs.status, 201);
    assert.notEqual((theirs.body.data as CreatedEndpoint).id, (first.body.data as CreatedEndpoint).id);

    // A replay for an endpoint deleted since is 404, the not-found of any id of it, not its secret.
    const gone = await send(withBody({ description: 'Gone' }), 'deleted-since');
    assert.equal(gone.status, 201);
    const goneId = (gone.body.data as CreatedEndpoint).id;
    assert.equal((await remove(ws, goneId)).status, 200);
    const afterDelete = await send(withBody({ description: 'Gone' }), 'deleted-since');
    assert.equal(afterDelete.status, 404, afterDelete.text);
    assert.deepEqual(afterDelete.body, { ok: false, error: 'not-found' });
    assert.ok(!afterDelete.text.includes('whsec_'));
    assert.equal(await countRows(h.ctx, 'webhook_endpoints', { workspace_id: ws.id }), 1);

    // After 24 hours the key is forgotten: the same request creates a second endpoint.
    h.clock.advance(24 * 60 * 60 * 1000);
    const later = await send(withBody({ description: 'CRM' }));
    assert.equal(later.status, 201);
    assert.equal(later.headers.get('idempotent-replayed'), null);
    assert.equal(await countRows(h.ctx, 'webhook_endpoints', { workspace_id: ws.id }), 2);
    assert.equal(
      await countRows(h.ctx, 'idempotency_keys', { workspace_id: ws.id }),
      1,
      'the old one pruned',
    );
  });

  test('Idempotency-Key: a key out of shape is 400; a refused create is not remembered; concurrent repeats create once', async () => {
    const ws = await createTestWorkspace(h.ctx);
    for (const bad of ['', 'x'.repeat(256), 'with space', 'tab\there', 'é'])
      assert.deepEqual(
        (
          await callApi(h, 'POST', collection, {
            key: ws.apiKey,
            body: validBody,
            headers: { 'idempotency-key': Buffer.from(bad, 'latin1').toString('latin1') },
          })
        ).body,
        { ok: false, error: 'invalid-idempotency-key' },
        JSON.stringify(bad),
      );
    const key = 'retry-1';
    const refused = await callApi(h, 'POST', collection, {
      key: ws.apiKey,
      body: withBody({ url: 'http://127.0.0.1/hook' }),
      headers: { 'idempotency-key': key },
    });
    assert.equal(refused.status, 400);
    const fixed = await callApi(h, 'POST', collection, {
      key: ws.apiKey,
      body: validBody,
      headers: { 'idempotency-key': key },
    });
    assert.equal(fixed.status, 201, 'the refusal was not remembered');

    const racing = await Promise.all(
      Array.from({ length: 5 }, () =>
        callApi(h, 'POST', collection, {
          key: ws.apiKey,
          body: withBody({ description: 'race' }),
          headers: { 'idempotency-key': 'race' },
        }),
      ),
    );
    assert.deepEqual(
      racing.map((r) => r.status),
      [201, 201, 201, 201, 201],
    );
    assert.equal(new Set(racing.map((r) => (r.body.data as CreatedEndpoint).id)).size, 1, 'one endpoint');
    assert.equal(racing.filter((r) => r.headers.get('idempotent-replayed') === 'true').length, 4);
    assert.equal(await countRows(h.ctx, 'webhook_endpoints', { workspace_id: ws.id }), 2);
  });

  test('POST without a description answers description null, and null is accepted as well', async () => {
    const ws = await createTestWorkspace(h.ctx);
    assert.equal((await createOk(ws, validBody)).description, null);
    assert.equal((await createOk(ws, withBody({ description: null }))).description, null);
  });

  test('POST accepts a description of exactly 500 characters and an empty one', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const long = 'é'.repeat(500);
    assert.equal((await createOk(ws, withBody({ description: long }))).description, long);
    assert.equal((await createOk(ws, withBody({ description: '' }))).description, '');
  });

  test('POST accepts 5 events and a host that resolves to public IPv4 and IPv6 addresses', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const five = allEventTypes.slice(1);
    const endpoint = await createOk(ws, { url: 'https://api.example.org', events: five });
    assert.equal(endpoint.url, 'https://api.example.org/');
    assert.deepEqual(endpoint.events, five);
  });

  for (const type of allEventTypes) {
    test(`POST accepts a subscription to ${type}`, async () => {
      const ws = await createTestWorkspace(h.ctx);
      assert.deepEqual((await createOk(ws, withBody({ events: [type] }))).events, [type]);
    });
  }

  test('POST accepts application/json with a charset parameter', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const res = await create(ws, validBody, { 'content-type': 'application/json; charset=utf-8' });
    assert.equal(res.status, 201, res.text);
  });

  test('the created endpoint is stored: GET and the list answer it as created, minus the secret', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { secret, ...created } = await createOk(ws, withBody({ description: 'Stored' }));
    assert.match(secret, secretPattern);
    assert.deepEqual(await getOk(ws, created.id), created);
    assert.deepEqual((await list(ws)).body, { ok: true, data: [created], nextCursor: null });
  });

  // --- the secret ----------------------------------------------------------------------

  test('list, GET, PATCH and DELETE answers carry no secret field and never the secret value', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const created = await createOk(ws);
    await createOk(ws, withBody({ url: 'https://api.example.org/second' }));

    const listed = await list(ws);
    assert.equal(listed.status, 200);
    assert.deepEqual(Object.keys(listed.body).sort(), ['data', 'nextCursor', 'ok']);
    assert.equal(listed.body.nextCursor, null);
    const items = listed.body.data as Endpoint[];
    assert.equal(items.length, 2);
    for (const endpoint of items) assert.deepEqual(Object.keys(endpoint).sort(), endpointKeys);

    const got = await get(ws, created.id);
    assert.deepEqual(Object.keys(got.body).sort(), ['data', 'ok']);
    assert.deepEqual(Object.keys(got.body.data as object).sort(), endpointKeys);

    const patched = await patch(ws, created.id, { description: 'Changed' });
    assert.deepEqual(Object.keys(patched.body.data as object).sort(), endpointKeys);

    const deleted = await remove(ws, created.id);
    assert.deepEqual(deleted.body, { ok: true, data: { id: created.id, deleted: true } });

    for (const res of [listed, got, patched, deleted]) {
      assert.equal(occurrences(fullText(res), created.secret), 0);
      assert.doesNotMatch(res.text, /secret|whsec_/);
    }
  });

  test('the secret appears in exactly one response of the whole life of an endpoint: the create', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const seen: string[] = [];
    const record = (res: ApiResponse) => {
      seen.push(fullText(res));
      return res;
    };
    const created = record(await create(ws, withBody({ description: 'Lifetime' })));
    assert.equal(created.status, 201);
    const { id, secret } = created.body.data as CreatedEndpoint;

    record(await list(ws));
    record(await get(ws, id));
    record(await patch(ws, id, { url: 'https://api.example.org/moved' }));
    record(await patch(ws, id, { events: ['document.completed', 'document.declined'] }));
    record(await patch(ws, id, { description: 'Renamed' }));
    record(await patch(ws, id, { description: null }));
    record(await patch(ws, id, { enabled: false }));
    record(await patch(ws, id, { enabled: true }));
    record(await patch(ws, id, {}));
    record(await patch(ws, id, { enabled: 'yes' }));
    record(await patch(ws, id, { url: 'https://localhost/' }));
    await disableByFailures(id);
    record(await get(ws, id));
    record(await patch(ws, id, { enabled: true }));
    record(await list(ws));
    record(await get(ws, id));
    record(await callApi(h, 'HEAD', item(id), { key: ws.apiKey }));
    record(await callApi(h, 'PUT', item(id), { key: ws.apiKey, body: {} }));
    record(await remove(ws, id));
    record(await get(ws, id));
    record(await list(ws));

    assert.equal(seen.length, 21);
    assert.deepEqual(
      seen.map((text) => occurrences(text, secret)),
      [1, ...Array.from({ length: 20 }, () => 0)],
    );
  });

  test('the secret is stored with the endpoint, and each endpoint gets its own secret', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const first = await createOk(ws);
    const second = await createOk(ws);
    assert.equal((await storedRow(first.id))?.secret, first.secret);
    assert.equal((await storedRow(second.id))?.secret, second.secret);
    assert.notEqual(first.secret, second.secret);
    const other = await createOk(await createTestWorkspace(h.ctx));
    assert.notEqual(other.secret, first.secret);
    assert.notEqual(other.secret, second.secret);
  });

  // --- POST validation -----------------------------------------------------------------

  for (const c of invalidCreateBodies) {
    test(`POST with ${c.name} answers ${c.status ?? 400} ${c.code} and creates nothing`, async () => {
      const ws = await createTestWorkspace(h.ctx);
      const res = await create(ws, c.body, c.headers);
      assertError(res, c.status ?? 400, c.code);
      await assertNoEndpoints(ws);
    });
  }

  // --- PATCH validation ----------------------------------------------------------------

  for (const c of invalidPatchBodies) {
    test(`PATCH with ${c.name} answers ${c.status ?? 400} ${c.code} and changes nothing`, async () => {
      const ws = await createTestWorkspace(h.ctx);
      const { id } = await createOk(ws, patchFixture);
      const before = await get(ws, id);
      const res = await patch(ws, id, c.body, c.headers);
      assertError(res, c.status ?? 400, c.code);
      const after = await get(ws, id);
      assert.equal(after.status, 200);
      assert.equal(after.text, before.text);
    });
  }

  // --- PATCH semantics -----------------------------------------------------------------

  test('PATCH changes only the fields it is given and answers the whole endpoint', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { secret: _secret, ...original } = await createOk(ws, patchFixture);

    const described = await patchOk(ws, original.id, { description: 'After' });
    assert.deepEqual(described, { ...original, description: 'After' });

    const moved = await patchOk(ws, original.id, { url: 'https://API.example.org:443/moved' });
    assert.deepEqual(moved, { ...described, url: 'https://api.example.org/moved' });

    const resubscribed = await patchOk(ws, original.id, {
      events: ['document.completed', 'document.expired'],
    });
    assert.deepEqual(resubscribed, { ...moved, events: ['document.completed', 'document.expired'] });

    const together = await patchOk(ws, original.id, {
      url: 'https://hooks.example.com/together',
      events: ['document.opened'],
      description: 'Together',
      enabled: false,
    });
    assert.deepEqual(together, {
      ...original,
      url: 'https://hooks.example.com/together',
      events: ['document.opened'],
      description: 'Together',
      enabled: false,
    });
    assert.deepEqual(await getOk(ws, original.id), together);
    assert.deepEqual((await list(ws)).body.data, [together]);
  });

  test('PATCH with description null clears the description', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id } = await createOk(ws, patchFixture);
    assert.equal((await patchOk(ws, id, { description: null })).description, null);
    assert.equal((await getOk(ws, id)).description, null);
  });

  test('PATCH with an empty object is accepted and changes nothing', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { secret: _secret, ...created } = await createOk(ws, patchFixture);
    const before = await get(ws, created.id);
    assert.deepEqual(await patchOk(ws, created.id, {}), created);
    assert.equal((await get(ws, created.id)).text, before.text);
  });

  test('PATCH enabled true on an endpoint switched off by failures re-enables it and clears failureCount and disabledReason', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id } = await createOk(ws, patchFixture);
    await disableByFailures(id);
    const disabled = await getOk(ws, id);
    assert.deepEqual(
      [disabled.enabled, disabled.failureCount, disabled.disabledReason],
      [false, 20, 'failures'],
    );

    const reenabled = await patchOk(ws, id, { enabled: true });
    assert.deepEqual(reenabled, { ...disabled, enabled: true, failureCount: 0, disabledReason: null });
    assert.deepEqual(await getOk(ws, id), reenabled);
    const row = await storedRow(id);
    assert.deepEqual([row?.enabled, row?.failure_count, row?.disabled_reason], [true, 0, null]);
  });

  test('PATCH of other fields on an endpoint switched off by failures leaves it off with its failure count', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id } = await createOk(ws, patchFixture);
    await disableByFailures(id);
    const disabled = await getOk(ws, id);
    const patched = await patchOk(ws, id, { description: 'Still off' });
    assert.deepEqual(patched, { ...disabled, description: 'Still off' });
  });

  test('PATCH enabled false switches an endpoint off with disabledReason null, and enabled true switches it back on', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { secret: _secret, ...created } = await createOk(ws, patchFixture);
    const off = await patchOk(ws, created.id, { enabled: false });
    assert.deepEqual(off, { ...created, enabled: false, disabledReason: null, failureCount: 0 });
    assert.deepEqual(await getOk(ws, created.id), off);
    const on = await patchOk(ws, created.id, { enabled: true });
    assert.deepEqual(on, created);
    assert.deepEqual(await getOk(ws, created.id), created);
  });

  test('PATCH of url runs the destination checks again and stores the normalised url', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id } = await createOk(ws, patchFixture);
    for (const url of [
      'https://127.0.0.1/',
      'https://hooks.example.com:444/',
      'https://metadata.google.internal/',
    ]) {
      assertError(await patch(ws, id, { url }), 400, 'unsafe-url', url);
    }
    assert.equal((await getOk(ws, id)).url, patchFixture.url);
    assert.equal(
      (await patchOk(ws, id, { url: 'https://Hooks.Example.Com/after' })).url,
      'https://hooks.example.com/after',
    );
  });

  // --- the limit of 10 -----------------------------------------------------------------

  test('a workspace may have 10 endpoints; the 11th answers 409 limit-reached until one is deleted', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await createOk(ws, withBody({ description: `#${i}` }))).id);
    assertError(await create(ws), 409, 'limit-reached');
    assertError(await create(ws), 409, 'limit-reached');
    assert.equal(((await list(ws)).body.data as Endpoint[]).length, 10);

    assert.equal((await remove(ws, ids[3] as string)).status, 200);
    const replacement = await createOk(ws, withBody({ description: 'replacement' }));
    assert.equal(replacement.description, 'replacement');
    assertError(await create(ws), 409, 'limit-reached');
    const listed = ((await list(ws)).body.data as Endpoint[]).map((e) => e.id).sort();
    assert.deepEqual(listed, [...ids.filter((_, i) => i !== 3), replacement.id].sort());
  });

  test('the limit belongs to each workspace: a full workspace does not stop another one', async () => {
    const full = await createTestWorkspace(h.ctx);
    for (let i = 0; i < 10; i++) await createOk(full);
    assertError(await create(full), 409, 'limit-reached');
    await createOk(await createTestWorkspace(h.ctx));
  });

  test('15 concurrent POSTs on a fresh workspace create exactly 10 endpoints and refuse 5 with limit-reached', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const results = await Promise.all(
      Array.from({ length: 15 }, (_, i) => create(ws, withBody({ description: `concurrent ${i}` }))),
    );
    const statuses = results.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 201).length, 10, statuses.join(','));
    assert.equal(statuses.filter((s) => s === 409).length, 5, statuses.join(','));
    for (const res of results.filter((r) => r.status === 409)) assertError(res, 409, 'limit-reached');
    const createdIds = results.filter((r) => r.status === 201).map((r) => (r.body.data as Endpoint).id);
    assert.deepEqual(
      ((await list(ws)).body.data as Endpoint[]).map((e) => e.id).sort(),
      [...createdIds].sort(),
    );
    assert.equal(await countRows(h.ctx, 'webhook_endpoints', { workspace_id: ws.id }), 10);
  });

  // --- workspace isolation -------------------------------------------------------------

  const itemOperations: Array<{ name: string; method: ApiMethod; body?: Body }> = [
    { name: 'GET', method: 'GET' },
    { name: 'PATCH', method: 'PATCH', body: { description: 'Hijacked', enabled: false } },
    { name: 'PATCH of url', method: 'PATCH', body: { url: 'https://api.example.org/hijack' } },
    { name: 'PATCH with an unsafe url', method: 'PATCH', body: { url: 'https://localhost/' } },
    { name: 'DELETE', method: 'DELETE' },
  ];

  for (const op of itemOperations) {
    test(`${op.name} of another workspace's endpoint answers 404 not-found, byte for byte as a missing id, and changes nothing`, async () => {
      const a = await createTestWorkspace(h.ctx);
      const b = await createTestWorkspace(h.ctx);
      const { id } = await createOk(a, patchFixture);
      const before = await get(a, id);
      const send = (target: string) =>
        callApi(h, op.method, item(target), { key: b.apiKey, ...(op.body ? { body: op.body } : {}) });
      const foreign = await send(id);
      const missing = await send(randomUUID());
      assertError(foreign, 404, 'not-found');
      assert.equal(foreign.text, missing.text);
      assert.equal(foreign.headers.get('content-type'), missing.headers.get('content-type'));
      assert.equal(foreign.headers.get('content-length'), missing.headers.get('content-length'));
      const after = await get(a, id);
      assert.equal(after.status, 200);
      assert.equal(after.text, before.text);
    });
  }

  test("the list of a workspace never shows another workspace's endpoints", async () => {
    const a = await createTestWorkspace(h.ctx);
    const b = await createTestWorkspace(h.ctx);
    await createOk(a);
    await createOk(a, withBody({ url: 'https://api.example.org/a' }));
    await assertNoEndpoints(b);
    const own = await createOk(b, withBody({ description: 'B' }));
    assert.deepEqual(
      ((await list(b)).body.data as Endpoint[]).map((e) => e.id),
      [own.id],
    );
    assert.ok(!((await list(a)).body.data as Endpoint[]).some((e) => e.id === own.id));
    assert.equal(((await list(a)).body.data as Endpoint[]).length, 2);
  });

  // --- path ids ------------------------------------------------------------------------

  for (const id of invalidIds) {
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      test(`${method} with the path id ${id.length > 40 ? `${id.slice(0, 10)}… (${id.length} chars)` : id} answers 400 invalid-id`, async () => {
        const ws = await createTestWorkspace(h.ctx);
        const res = await callApi(h, method, item(id), {
          key: ws.apiKey,
          ...(method === 'PATCH' ? { body: { description: 'x' } } : {}),
        });
        assertError(res, 400, 'invalid-id');
      });
    }
  }

  test('an upper-case id works for GET, PATCH and DELETE', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { secret: _secret, ...created } = await createOk(ws, patchFixture);
    const upper = created.id.toUpperCase();
    assert.deepEqual(await getOk(ws, upper), created);
    assert.deepEqual(await patchOk(ws, upper, { description: 'Upper' }), {
      ...created,
      description: 'Upper',
    });
    const deleted = await remove(ws, upper);
    assert.deepEqual(
      [deleted.status, deleted.body],
      [200, { ok: true, data: { id: created.id, deleted: true } }],
    );
    assertError(await get(ws, created.id), 404, 'not-found');
  });

  // --- delete --------------------------------------------------------------------------

  test('DELETE answers {id, deleted: true}; afterwards GET, PATCH and a second DELETE answer 404', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id } = await createOk(ws);
    const kept = await createOk(ws, withBody({ description: 'kept' }));
    const res = await remove(ws, id);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { ok: true, data: { id, deleted: true } });
    assert.equal(await storedRow(id), undefined);
    assertError(await get(ws, id), 404, 'not-found');
    assertError(await patch(ws, id, { enabled: true }), 404, 'not-found');
    assertError(await remove(ws, id), 404, 'not-found');
    assert.deepEqual(
      ((await list(ws)).body.data as Endpoint[]).map((e) => e.id),
      [kept.id],
    );
  });

  // --- auth, plan, rate-limit headers ---------------------------------------------------

  const operations: Array<{ name: string; method: ApiMethod; path: (id: string) => string; body?: Body }> = [
    { name: 'POST', method: 'POST', path: () => collection, body: validBody },
    { name: 'list', method: 'GET', path: () => collection },
    { name: 'GET', method: 'GET', path: item },
    { name: 'PATCH', method: 'PATCH', path: item, body: { enabled: false } },
    { name: 'DELETE', method: 'DELETE', path: item },
  ];

  for (const op of operations) {
    test(`${op.name} without a key answers 401 invalid-api-key with rate-limit headers and changes nothing`, async () => {
      const ws = await createTestWorkspace(h.ctx);
      const { id } = await createOk(ws);
      const before = await list(ws);
      for (const key of [null, 'sgn_notarealkey', `sgn_${'a'.repeat(43)}`]) {
        const res = await callApi(h, op.method, op.path(id), { key, ...(op.body ? { body: op.body } : {}) });
        assertError(res, 401, 'invalid-api-key', String(key));
        assert.equal(res.headers.get('x-ratelimit-limit'), String(h.config.rateLimit.burst));
        assert.match(res.headers.get('x-ratelimit-remaining') ?? '', /^\d+$/);
      }
      assert.equal((await list(ws)).text, before.text);
    });

    test(`${op.name} for a workspace on the free plan answers 403 plan-required and changes nothing`, async () => {
      const ws = await createTestWorkspace(h.ctx, 'free');
      const id = randomUUID();
      const res = await callApi(h, op.method, op.path(id), {
        key: ws.apiKey,
        ...(op.body ? { body: op.body } : {}),
      });
      assertError(res, 403, 'plan-required');
      assert.equal(res.headers.get('x-ratelimit-limit'), String(h.config.rateLimit.burst));
      assert.equal(await countRows(h.ctx, 'webhook_endpoints', { workspace_id: ws.id }), 0);
    });
  }

  test('every success answer carries the rate-limit headers, Remaining counting down', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const responses: ApiResponse[] = [];
    const created = await create(ws);
    responses.push(created);
    const { id } = created.body.data as Endpoint;
    responses.push(
      await list(ws),
      await get(ws, id),
      await patch(ws, id, { enabled: false }),
      await remove(ws, id),
    );
    assert.deepEqual(
      responses.map((r) => r.status),
      [201, 200, 200, 200, 200],
    );
    const remaining = responses.map((r) => Number(r.headers.get('x-ratelimit-remaining')));
    for (const res of responses) {
      assert.equal(res.headers.get('x-ratelimit-limit'), String(h.config.rateLimit.burst));
      assert.match(res.headers.get('x-ratelimit-remaining') ?? '', /^\d+$/);
    }
    for (let i = 1; i < remaining.length; i++)
      assert.ok((remaining[i] as number) < (remaining[i - 1] as number), remaining.join(','));
  });

  // --- query parameters and methods ------------------------------------------------------

  for (const op of operations) {
    test(`${op.name} with an unknown query parameter answers 400 invalid-query and changes nothing`, async () => {
      const ws = await createTestWorkspace(h.ctx);
      const { id } = await createOk(ws);
      const before = await list(ws);
      for (const query of ['?foo=1', '?limit=10', '?cursor=abc', '?secret=1', '?x']) {
        const res = await callApi(h, op.method, `${op.path(id)}${query}`, {
          key: ws.apiKey,
          ...(op.body ? { body: op.body } : {}),
        });
        assertError(res, 400, 'invalid-query', query);
      }
      assert.equal((await list(ws)).text, before.text);
    });
  }

  const wrongMethods: Array<{ method: ApiMethod; path: (id: string) => string; allow: string }> = [
    { method: 'PUT', path: () => collection, allow: 'GET, HEAD, POST' },
    { method: 'PATCH', path: () => collection, allow: 'GET, HEAD, POST' },
    { method: 'DELETE', path: () => collection, allow: 'GET, HEAD, POST' },
    { method: 'POST', path: item, allow: 'DELETE, GET, HEAD, PATCH' },
    { method: 'PUT', path: item, allow: 'DELETE, GET, HEAD, PATCH' },
  ];

  for (const w of wrongMethods) {
    const where = w.path('{id}');
    test(`${w.method} ${where} answers 405 method-not-allowed with Allow: ${w.allow}`, async () => {
      const ws = await createTestWorkspace(h.ctx);
      const { id } = await createOk(ws);
      const before = await list(ws);
      for (const body of [undefined, validBody, '{"broken":']) {
        const res = await callApi(h, w.method, w.path(id), {
          key: ws.apiKey,
          ...(body === undefined ? {} : { body }),
        });
        assertError(res, 405, 'method-not-allowed');
        assert.equal(res.headers.get('allow'), w.allow);
      }
      assert.equal((await list(ws)).text, before.text);
    });
  }
});
