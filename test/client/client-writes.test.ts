// The document writes through @signet/client against a live Signet with a write key: create
// with the PDF as a path, bytes, a Blob, a web stream and a Node stream (multipart), and
// without one (JSON, its text); send, remind, withdraw, a fresh signing link of a document
// delivered by the integrator, delete, update (PUT, a draft replaced whole); templates; the
// event stream; a refusal with its code and pointer; a timeout against a server that accepts
// and stays silent, and a caller's abort (of a request, of a wait between retries, of a
// download's stream).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, test } from 'node:test';
import {
  createClient,
  type PdfInput,
  type SignetClient,
  SignetNetworkError,
  type WebhookEvent,
} from '../../packages/client/src/index.ts';
import { systemClock } from '../../src/context.ts';
import { createApiKey } from '../../src/keys/keys.service.ts';
import { contractFetch } from '../support/contract.ts';
import { signatureField, templateRole, textPdf } from '../support/factories.ts';
import { createTestWorkspace, describeEachDatabase, useHarness, withApp } from '../support/harness.ts';
import type { ReceivedRequest } from '../support/receiver.ts';
import { startReceiver } from '../support/receiver.ts';
import { bytesOf, failure, sha256Hex } from './client-setup.ts';

/** A TCP server that accepts every connection and never answers; counts the requests that came. */
async function silentServer(): Promise<{ url: string; requests: () => number; close(): Promise<void> }> {
  const sockets: Socket[] = [];
  let requests = 0;
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      requests += chunk.toString('latin1').match(/^[A-Z]+ \/\S* HTTP\/1\.1\r$/gm)?.length ?? 0;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const isAbortError = (error: unknown) => error instanceof DOMException && error.name === 'AbortError';

describeEachDatabase('@signet/client document writes', (kind) => {
  const h = useHarness(kind);
  const folder = mkdtempSync(join(tmpdir(), 'signet-client-writes-'));
  const ann = { email: 'ann@client-writes.example', fullName: 'Ann Lee' };
  const bob = { email: 'bob@client-writes.example', fullName: 'Bob Ray', signingOrder: 2 };
  let writer: SignetClient;
  let writerKey: string;
  let reader: SignetClient;
  let pdf: Buffer;
  /** The Content-Type of every request the writer sent, in order. */
  const contentTypes: string[] = [];

  after(() => rmSync(folder, { recursive: true, force: true }));

  test('setup: a workspace with a write key, and a PDF', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const key = await createApiKey(h.ctx, { workspaceId: ws.id, name: 'client writer', scope: 'write' });
    writerKey = key.secret;
    writer = createClient({
      apiKey: writerKey,
      baseUrl: `${h.baseUrl}/v1`,
      // Download links go to the public URL, which is this server.
      fetch: (input, init) => {
        contentTypes.push(new Headers(init?.headers).get('content-type') ?? '');
        return contractFetch(String(input).replace(h.config.publicUrl, h.baseUrl), init);
      },
    });
    reader = createClient({ apiKey: ws.apiKey, baseUrl: `${h.baseUrl}/v1`, fetch: contractFetch });
    pdf = await textPdf({
      title: 'Service level agreement',
      body: 'The supplier answers within four hours.\n'.repeat(60),
      workspaceName: 'Acme',
      createdAt: new Date('2026-11-01T00:00:00Z'),
    });
  });

  test('documents.create sends the PDF as multipart from a path, bytes, a Blob, a web stream and a Node stream', async () => {
    const path = join(folder, 'sla.pdf');
    writeFileSync(path, pdf);
    const half = pdf.byteLength >> 1;
    const forms: Array<[string, PdfInput]> = [
      ['a path', path],
      ['a Buffer', pdf],
      ['a Uint8Array', new Uint8Array(pdf)],
      ['a Blob', new Blob([new Uint8Array(pdf)])],
      ['a web ReadableStream', Readable.toWeb(Readable.from([pdf.subarray(0, half), pdf.subarray(half)]))],
      ['a Node Readable', Readable.from([pdf.subarray(0, half), pdf.subarray(half)])],
    ];
    for (const [form, file] of forms) {
      contentTypes.length = 0;
      const created = await writer.documents.create({ title: `From ${form}`, recipients: [ann], file });
      assert.equal(created.status, 'draft', form);
      assert.equal(created.title, `From ${form}`);
      assert.deepEqual(created.signingUrls, []);
      const [original] = created.files;
      assert.deepEqual(
        [original?.kind, original?.sha256, original?.bytes],
        ['original', sha256Hex(pdf), pdf.byteLength],
        form,
      );
      assert.match(contentTypes[0] ?? '', /^multipart\/form-data; boundary=signet-[\w-]+$/, form);
    }
    await assert.rejects(
      writer.documents.create({ title: 'Nowhere', recipients: [ann], file: join(folder, 'missing.pdf') }),
      (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT',
      'a path that is not there fails before anything is sent',
    );
  });

  test('documents.create without a file is JSON; send, remind and withdraw follow it through', async () => {
    contentTypes.length = 0;
    const draft = await writer.documents.create({
      title: 'Terms of service',
      text: 'Terms.',
      recipients: [ann, bob],
    });
    assert.deepEqual([draft.status, draft.files], ['draft', []]);
    assert.equal(contentTypes[0], 'application/json');
    const idempotencyKey = randomUUID();
    const sent = await writer.documents.send(draft.id, { idempotencyKey });
    assert.equal(sent.status, 'sent');
    assert.deepEqual(sent.signingUrls, [], 'a mailed document hands out no links');
    assert.equal((await writer.documents.send(draft.id, { idempotencyKey })).id, draft.id, 'a keyed repeat');
    const [first, second] = sent.recipients;
    assert.ok(first && second);
    const reminded = await writer.documents.remind(draft.id, first.id);
    assert.deepEqual([reminded.id, reminded.status], [draft.id, 'sent']);
    const again = await failure(writer.documents.remind(draft.id, first.id));
    assert.deepEqual([again.code, again.status, again.pointer], ['reminded-recently', 429, null]);
    assert.ok((again.retryAfter ?? 0) > 0);
    const notYet = await failure(writer.documents.remind(draft.id, second.id));
    assert.deepEqual([notYet.code, notYet.status], ['recipient-not-remindable', 409]);
    const withdrawn = await writer.documents.withdraw(draft.id, { reason: 'Superseded by v2' });
    assert.equal(withdrawn.status, 'expired');
    const twice = await failure(writer.documents.withdraw(draft.id));
    assert.deepEqual([twice.code, twice.status], ['document-not-active', 409]);
  });

  test('templates: list, get, create, update, delete, and documents made and sent from one', async () => {
    const created = await writer.templates.create({
      name: 'Client agreement',
      title: 'Client agreement',
      roles: [templateRole('Client')],
      fields: [signatureField({ role: 'Client' })],
      file: pdf,
    });
    assert.equal(created.name, 'Client agreement');
    assert.equal(created.file.sha256, sha256Hex(pdf));
    assert.deepEqual(
      (await reader.templates.get(created.id)).roles.map((r) => r.name),
      ['Client'],
    );
    const updated = await writer.templates.update(created.id, {
      name: 'Client agreement v2',
      title: 'Client agreement',
      roles: [templateRole('Client')],
      fields: [signatureField({ role: 'Client' })],
    });
    assert.deepEqual([updated.name, updated.file.sha256], ['Client agreement v2', sha256Hex(pdf)]);
    const listed = [];
    for await (const template of reader.templates.list({ limit: 1 })) listed.push(template.id);
    assert.ok(listed.includes(created.id));
    assert.equal((await reader.templates.page({ limit: 1 })).data.length, 1);
    const items = { items: [{ recipients: { Client: ann }, send: true }] };
    const idempotencyKey = randomUUID();
    const made = await writer.templates.documents(created.id, items, { idempotencyKey });
    assert.deepEqual(
      made.documents.map((d) => [d.index, d.document.status]),
      [[0, 'sent']],
    );
    const again = await writer.templates.documents(created.id, items, { idempotencyKey });
    assert.equal(again.documents[0]?.document.id, made.documents[0]?.document.id, 'a keyed repeat');
    const reused = await failure(
      writer.templates.documents(
        created.id,
        { items: [{ recipients: { Client: { email: bob.email, fullName: bob.fullName } } }] },
        { idempotencyKey },
      ),
    );
    assert.deepEqual([reused.code, reused.status, reused.pointer], ['idempotency-key-reused', 409, null]);
    const readOnly = await failure(reader.templates.delete(created.id));
    assert.deepEqual([readOnly.code, readOnly.status], ['insufficient-scope', 403]);
    assert.deepEqual(await writer.templates.delete(created.id), { id: created.id, deleted: true });
    const gone = await failure(reader.templates.get(created.id));
    assert.deepEqual([gone.code, gone.status], ['not-found', 404]);
  });

  test('events.stream yields the events as a webhook carries them, and resumes after lastEventId', async () => {
    // The stream is read with plain fetch: the contract check reads answers whole.
    const streamer = createClient({ apiKey: writerKey, baseUrl: `${h.baseUrl}/v1` });
    const send = async (title: string) => {
      // Each send a moment later than the one before: events are ordered by their time.
      h.clock.advance(1000);
      const draft = await writer.documents.create({ title, text: 'Terms.', recipients: [ann] });
      await writer.documents.send(draft.id);
      return draft.id;
    };
    const first = new AbortController();
    const ready: Array<{ workspaceId: string }> = [];
    const events = streamer.events.stream({
      types: ['document.sent'],
      signal: first.signal,
      onReady: (message) => ready.push(message),
    });
    const firstId = await send('Streamed once');
    const documentOf = (event: WebhookEvent) => (event.data as { document: { id: string } }).document.id;
    // The stream reaches back a few seconds (late commits): earlier tests' sends may come first.
    let seen: WebhookEvent;
    do seen = (await events.next()).value as WebhookEvent;
    while (documentOf(seen) !== firstId);
    assert.equal(seen.type, 'document.sent');
    assert.equal(ready.length, 1);
    first.abort();
    assert.equal((await events.next()).done, true, 'an abort ends the iterator');

    const secondId = await send('Streamed after');
    const resumed = new AbortController();
    const after = streamer.events.stream({
      types: ['document.sent'],
      lastEventId: seen.id,
      signal: resumed.signal,
    });
    const next = (await after.next()).value as WebhookEvent;
    assert.equal(documentOf(next), secondId);
    resumed.abort();
    await after.return(undefined);

    const refused = await failure(
      (async () => {
        for await (const _ of createClient({
          apiKey: 'sgn_nobody',
          baseUrl: `${h.baseUrl}/v1`,
        }).events.stream())
          break;
      })(),
    );
    assert.deepEqual([refused.code, refused.status], ['invalid-api-key', 401]);
  });

  test('delivery none: the send answers the first link; signingUrl makes a fresh one, a keyed repeat the same', async () => {
    const created = await writer.documents.create({
      title: 'Own channel',
      text: 'Terms.',
      recipients: [ann, bob],
      delivery: 'none',
      send: true,
    });
    const [first, second] = created.recipients;
    assert.ok(first && second);
    assert.deepEqual(
      created.signingUrls.map((l) => [l.recipientId, l.email]),
      [[first.id, ann.email]],
    );
    const idempotencyKey = randomUUID();
    const fresh = await writer.documents.signingUrl(created.id, first.id, { idempotencyKey });
    assert.deepEqual([fresh.recipientId, fresh.email], [first.id, ann.email]);
    assert.notEqual(fresh.url, created.signingUrls[0]?.url, 'a new link replaces the one before');
    assert.deepEqual(await writer.documents.signingUrl(created.id, first.id, { idempotencyKey }), fresh);
    const early = await failure(writer.documents.signingUrl(created.id, second.id));
    assert.deepEqual([early.code, early.status], ['recipient-not-invited', 409]);
  });

  test('documents.delete removes a draft; a sent one is document-not-draft', async () => {
    const draft = await writer.documents.create({ title: 'To delete', text: 'x', recipients: [ann] });
    assert.deepEqual(await writer.documents.delete(draft.id), { id: draft.id, deleted: true });
    const gone = await failure(writer.documents.get(draft.id));
    assert.deepEqual([gone.code, gone.status], ['not-found', 404]);
    const sent = await writer.documents.create({ title: 'Sent', text: 'x', recipients: [ann], send: true });
    const kept = await failure(writer.documents.delete(sent.id));
    assert.deepEqual([kept.code, kept.status], ['document-not-draft', 409]);
  });

  test('a refusal is a SignetApiError with its code, status and pointer (null when the answer has none)', async () => {
    const refused = await failure(
      writer.documents.create({
        title: 'Own',
        text: 'x',
        recipients: [ann],
        delivery: 'none',
        remindEveryDays: 3,
      }),
    );
    assert.deepEqual(
      [refused.code, refused.status, refused.pointer],
      ['invalid-body', 400, '/remindEveryDays'],
    );
    assert.match(refused.message, /invalid-body at \/remindEveryDays/);
    const badEmail = await failure(
      writer.documents.create({
        title: 'Bad',
        recipients: [ann, { email: 'nope', fullName: 'X' }],
        file: pdf,
      }),
    );
    assert.deepEqual(
      [badEmail.code, badEmail.pointer],
      ['invalid-body', '/recipients/1/email'],
      'in multipart too',
    );
    const notPdf = await failure(
      writer.documents.create({ title: 'Not a PDF', recipients: [ann], file: new Blob(['hello']) }),
    );
    assert.deepEqual([notPdf.code, notPdf.status, notPdf.pointer], ['invalid-file', 400, '/file']);
    const readKey = await failure(
      reader.documents.create({ title: 'Read key', text: 'x', recipients: [ann] }),
    );
    assert.deepEqual([readKey.code, readKey.status, readKey.pointer], ['insufficient-scope', 403, null]);
  });

  test('documents.update replaces a draft whole, JSON or multipart, under a key too (PUT /documents/{id})', async () => {
    const draft = await writer.documents.create({ title: 'First', text: 'x', recipients: [ann] });
    contentTypes.length = 0;
    const json = await writer.documents.update(draft.id, {
      title: 'Second',
      text: 'y',
      recipients: [ann, bob],
    });
    assert.equal(contentTypes[0], 'application/json');
    assert.deepEqual([json.id, json.title, json.status, json.files], [draft.id, 'Second', 'draft', []]);
    assert.equal(json.recipients[0]?.id, draft.recipients[0]?.id, 'a recipient who stays keeps their id');
    assert.deepEqual(
      json.recipients.map((r) => r.email),
      [ann.email, bob.email],
    );
    const idempotencyKey = randomUUID();
    const input = { title: 'Third', recipients: [bob], file: pdf };
    const withPdf = await writer.documents.update(draft.id, input, { idempotencyKey });
    assert.match(contentTypes.at(-1) ?? '', /^multipart\/form-data; boundary=/);
    assert.deepEqual(
      [withPdf.title, withPdf.recipients.length, withPdf.files[0]?.sha256],
      ['Third', 1, sha256Hex(pdf)],
    );
    const repeated = await writer.documents.update(draft.id, input, { idempotencyKey });
    assert.deepEqual([repeated.id, repeated.title], [draft.id, 'Third'], 'a keyed repeat answers it again');
    const keptPdf = await writer.documents.update(draft.id, {
      title: 'Fourth',
      recipients: [bob],
      send: true,
    });
    assert.deepEqual(
      [keptPdf.status, keptPdf.files[0]?.sha256],
      ['sent', sha256Hex(pdf)],
      'kept its PDF, sent',
    );
    const refused = await failure(writer.documents.update(draft.id, { title: 'Late', recipients: [ann] }));
    assert.deepEqual([refused.code, refused.status], ['document-not-draft', 409]);
    const unknown = await failure(
      writer.documents.update('0b8e9c52-7c1f-4e1d-9a6b-3f1e2d4c5b6a', { title: 'X', recipients: [ann] }),
    );
    assert.deepEqual([unknown.code, unknown.status], ['not-found', 404]);
  });

  test('a server that never answers: the call fails as SignetNetworkError within its timeout, once, unretried', async () => {
    const silent = await silentServer();
    try {
      const client = createClient({ apiKey: 'sgn_x', baseUrl: silent.url, timeoutMs: 300 });
      let started = Date.now();
      await assert.rejects(client.documents.page(), (error: unknown) => {
        assert.ok(error instanceof SignetNetworkError, String(error));
        assert.match(error.message, /^GET \/v1\/documents: no answer within 300 ms/);
        return true;
      });
      assert.ok(Date.now() - started < 2_000, `took ${Date.now() - started} ms`);
      assert.equal(silent.requests(), 1, 'a read timed out is not repeated');
      started = Date.now();
      await assert.rejects(
        client.documents.create(
          { title: 'T', text: 'x', recipients: [ann] },
          { idempotencyKey: 'k', timeoutMs: 150 },
        ),
        (error: unknown) => error instanceof SignetNetworkError && /within 150 ms/.test(error.message),
      );
      assert.ok(Date.now() - started < 2_000);
      assert.equal(silent.requests(), 2, 'nor a write, keyed or not');
      // The default is 30 seconds: a call's own timeoutMs is what bounds it here.
      const byDefault = createClient({ apiKey: 'sgn_x', baseUrl: silent.url });
      await assert.rejects(
        byDefault.documents.get('d', { timeoutMs: 100 }),
        (error: unknown) => error instanceof SignetNetworkError && /within 100 ms/.test(error.message),
      );
    } finally {
      await silent.close();
    }
  });

  test('an abort rejects with the caller’s reason at once: a request under way, a signal aborted before, a wait between retries', async () => {
    const silent = await silentServer();
    try {
      const client = createClient({ apiKey: 'sgn_x', baseUrl: silent.url });
      const started = Date.now();
      await assert.rejects(client.documents.send('d', { signal: abortAfter(100) }), isAbortError);
      assert.ok(Date.now() - started < 2_000);
      const reason = new Error('the user went away');
      const controller = new AbortController();
      controller.abort(reason);
      const requests = silent.requests();
      await assert.rejects(
        client.documents.list({}, { signal: controller.signal }).next(),
        (error) => error === reason,
      );
      assert.equal(silent.requests(), requests, 'nothing is sent under an aborted signal');
    } finally {
      await silent.close();
    }
    // A real Signet whose bucket refills slowly: the 429 asks for a wait of 20 s, the abort ends it.
    await withApp({ ...h.ctx, clock: systemClock }, { burst: 1, refillPerSecond: 0.05 }, async (base) => {
      const ws = await createTestWorkspace(h.ctx);
      let requests = 0;
      const patient = createClient({
        apiKey: ws.apiKey,
        baseUrl: `${base}/v1`,
        rateLimitRetry: { retries: 3, maxWaitSeconds: 600 },
        fetch: (input, init) => {
          requests++;
          return contractFetch(input, init);
        },
      });
      await patient.documents.page();
      const started = Date.now();
      await assert.rejects(patient.documents.page({}, { signal: abortAfter(300) }), isAbortError);
      assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms`);
      assert.equal(requests, 2, 'the 429 was not retried after the abort');
    });
  });

  test('documents.download takes the signal: aborted mid-stream, the stream stops with its reason', async () => {
    const sent = await writer.documents.create({
      title: 'To download',
      recipients: [ann],
      file: pdf,
      send: true,
    });
    // The public URL through a slow line: Signet's answer, its headers and first bytes, then nothing.
    const slow = await startReceiver(async (request: ReceivedRequest, response: ServerResponse) => {
      const upstream = await fetch(h.baseUrl + request.url);
      const body = Buffer.from(await upstream.arrayBuffer());
      response.writeHead(upstream.status, {
        'content-type': upstream.headers.get('content-type') ?? '',
        'content-length': String(body.byteLength),
      });
      response.write(body.subarray(0, 100));
    });
    try {
      const slowly = createClient({
        apiKey: writerKey,
        baseUrl: `${h.baseUrl}/v1`,
        fetch: (input, init) => fetch(String(input).replace(h.config.publicUrl, slow.url), init),
      });
      const controller = new AbortController();
      const file = await slowly.documents.download(sent.id, 'original', { signal: controller.signal });
      const reader = file.stream.getReader();
      assert.equal((await reader.read()).value?.byteLength, 100, 'the first bytes came');
      const pending = reader.read();
      controller.abort();
      await assert.rejects(pending, isAbortError);
      await assert.rejects(
        slowly.documents.download(sent.id, 'original', { signal: AbortSignal.abort() }),
        isAbortError,
      );
      // The headers never come: the timeout bounds the link as it bounds the API.
      const stalled = await startReceiver(() => {});
      try {
        const waiting = createClient({
          apiKey: writerKey,
          baseUrl: `${h.baseUrl}/v1`,
          fetch: (input, init) => fetch(String(input).replace(h.config.publicUrl, stalled.url), init),
        });
        await assert.rejects(
          waiting.documents.download(sent.id, 'original', { timeoutMs: 200 }),
          (error: unknown) =>
            error instanceof SignetNetworkError &&
            /^download of original\.pdf: no answer within 200 ms/.test(error.message),
        );
      } finally {
        await stalled.close();
      }
    } finally {
      await slow.close();
    }
    const whole = await writer.documents.download(sent.id, 'original', {
      signal: new AbortController().signal,
    });
    assert.equal(sha256Hex(await bytesOf(whole.stream)), sha256Hex(pdf));
  });
});

/** A signal that aborts (with an AbortError) after `ms`. */
function abortAfter(ms: number): AbortSignal {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), ms).unref();
  return controller.signal;
}
