// documents.download(id, kind) of @signet/client against a live Signet: a completed
// document's sealed PDF and its original, streamed and hashing to the API's sha256; the link
// fetched on another origin (a recording proxy standing in for the public URL) without the
// API key; the typed errors (no such file, a link that answers 404 or 410); verifySha256
// against node:crypto; Content-Disposition names; and the README's and the webhooks guide's
// examples, run as published.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import {
  createClient,
  dispositionFileName,
  type FileDownload,
  SignetApiError,
  type SignetClient,
  SignetDownloadError,
  SignetFileUnavailableError,
  SignetIntegrityError,
  verifySha256,
  type WebhookEvent,
} from '../../packages/client/src/index.ts';
import { sealDueDocuments } from '../../src/sealing/sealing.service.ts';
import { signDocument } from '../../src/signing/signing.service.ts';
import { contractFetch } from '../support/contract.ts';
import {
  createDraftDocument,
  createSentDocument,
  createTestWorkspace,
  describeEachDatabase,
  signingLinksOf,
  storedEventBody,
  type TestWorkspace,
  useHarness,
} from '../support/harness.ts';
import type { ReceivedRequest } from '../support/receiver.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';
import { bytesOf, sha256Hex } from './client-setup.ts';

/** The first `ts` block under `heading` in a Markdown file, importing the client from its source. */
async function publishedExample<T>(file: string, heading: string, folder: string): Promise<T> {
  const markdown = readFileSync(join(import.meta.dirname, '..', '..', file), 'utf8');
  const section = markdown.slice(markdown.indexOf(heading));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(markdown.includes(heading) && code, `${file} has a ts block under "${heading}"`);
  const source = pathToFileURL(
    join(import.meta.dirname, '..', '..', 'packages', 'client', 'src', 'index.ts'),
  ).href;
  assert.match(code, /from '@signet\/client';/);
  const path = join(folder, `${heading.replace(/\W+/g, '-')}.ts`);
  await writeFile(path, code.replace("from '@signet/client';", `from '${source}';`));
  return (await import(pathToFileURL(path).href)) as T;
}

describeEachDatabase('@signet/client documents.download', (kind) => {
  const h = useHarness(kind);
  const folder = mkdtempSync(join(tmpdir(), 'signet-client-download-'));
  const title = 'Vertrag Müller – “Q3”; 50% (a/b)';
  /** Every request the client made: where to, and with which headers. */
  const sent: Array<{ url: string; headers: Headers; credentials: RequestInit['credentials'] }> = [];
  /** Every request the public URL's stand-in received, as it arrived. */
  let proxy: Receiver;
  /** What the proxy does to a download link before it goes on (tamper, let time pass). */
  let beforeForward: (request: ReceivedRequest) => string = (request) => request.url;
  let ws: TestWorkspace;
  let client: SignetClient;
  let completedId: string;

  after(async () => {
    await proxy?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  test('setup: the public URL served through a recording proxy on another origin; a completed document', async () => {
    proxy = await startReceiver(async (request: ReceivedRequest, response: ServerResponse) => {
      const upstream = await fetch(h.baseUrl + beforeForward(request));
      const headers: Record<string, string> = {};
      upstream.headers.forEach((value, name) => {
        if (!['connection', 'keep-alive', 'transfer-encoding'].includes(name)) headers[name] = value;
      });
      response.writeHead(upstream.status, headers);
      if (upstream.body) Readable.fromWeb(upstream.body).pipe(response);
      else response.end();
    });
    ws = await createTestWorkspace(h.ctx);
    client = createClient({
      apiKey: ws.apiKey,
      baseUrl: `${h.baseUrl}/v1`,
      fetch: (input, init) => {
        const url = input instanceof Request ? input.url : String(input);
        sent.push({ url, headers: new Headers(init?.headers), credentials: init?.credentials });
        return contractFetch(url.replace(h.config.publicUrl, proxy.url), init);
      },
    });
    const { id } = await createSentDocument(h.ctx, ws.id, { title });
    for (const email of ['ann@client.example', 'bob@client.example']) {
      // Read after each signature: Bob's group is mailed once Ann has signed.
      const session = (await signingLinksOf(h.ctx, id)).get(email)?.session;
      assert.ok(session, email);
      const fullName = email.startsWith('ann') ? 'Ann Lee' : 'Bob Ray';
      await signDocument(h.ctx, session, {
        fullName,
        consent: true,
        client: { ip: '203.0.113.9', userAgent: 'Test' },
      });
    }
    assert.equal(await sealDueDocuments(h.ctx), 1);
    completedId = id;
  });

  async function downloaded(kind: 'original' | 'sealed'): Promise<{ file: FileDownload; bytes: Buffer }> {
    const file = await client.documents.download(completedId, kind);
    return { file, bytes: await bytesOf(file.stream) };
  }

  test('a completed document downloads as the sealed PDF, hashing to the API’s sha256', async () => {
    const detail = await client.documents.get(completedId);
    const listed = detail.files.find((f) => f.kind === 'sealed');
    assert.ok(listed);
    const { file, bytes } = await downloaded('sealed');
    assert.equal(file.documentId, completedId);
    assert.equal(file.kind, 'sealed');
    assert.deepEqual([file.sha256, file.bytes, file.pages], [listed.sha256, listed.bytes, listed.pages]);
    assert.ok((file.pages ?? 0) >= 2, 'the document and its certificate of completion');
    assert.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-');
    assert.equal(bytes.byteLength, file.bytes);
    assert.equal(sha256Hex(bytes), file.sha256);
    assert.equal(file.fileName, `${title.replace('/', ' ')} (signed).pdf`, 'the UTF-8 filename*');
  });

  test('the original likewise, a different file: the PDF the signers saw', async () => {
    const { file, bytes } = await downloaded('original');
    const sealed = await downloaded('sealed');
    assert.equal(file.kind, 'original');
    assert.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-');
    assert.equal(sha256Hex(bytes), file.sha256);
    assert.equal(bytes.byteLength, file.bytes);
    assert.notEqual(file.sha256, sealed.file.sha256);
    assert.deepEqual(sealed.bytes.subarray(0, bytes.byteLength), bytes, 'sealed as an incremental update');
    assert.equal(file.fileName, `${title.replace('/', ' ')}.pdf`);
  });

  test('the download link goes to its own origin without the API key, cookies or referrer', async () => {
    sent.length = 0;
    proxy.requests.length = 0;
    await downloaded('sealed');
    const [detailRequest, download] = sent;
    assert.equal(sent.length, 2);
    assert.ok(detailRequest && download);
    assert.equal(new URL(detailRequest.url).origin, new URL(h.baseUrl).origin);
    assert.equal(detailRequest.headers.get('authorization'), `Bearer ${ws.apiKey}`, 'the API call has it');
    assert.equal(new URL(download.url).origin, h.config.publicUrl, 'the link is on the public URL');
    assert.match(new URL(download.url).pathname, /^\/files\//, 'outside /v1');
    assert.deepEqual([...download.headers.keys()], [], 'the client sets no header on the link');
    assert.equal(download.credentials, 'omit');
    const [arrived] = proxy.requests;
    assert.equal(proxy.requests.length, 1);
    assert.ok(arrived);
    for (const header of ['authorization', 'cookie', 'referer']) {
      assert.equal(arrived.headers[header], undefined, `no ${header} on the wire`);
    }
    assert.ok(!JSON.stringify(arrived).includes(ws.apiKey), 'the key is nowhere in the request');
  });

  test('a draft has no file: SignetFileUnavailableError, and no download is tried', async () => {
    const draft = await createDraftDocument(h.ctx, ws.id);
    proxy.requests.length = 0;
    for (const kind of ['sealed', 'original'] as const) {
      await assert.rejects(client.documents.download(draft.id, kind), (error: unknown) => {
        assert.ok(error instanceof SignetFileUnavailableError, String(error));
        assert.deepEqual([error.documentId, error.kind, error.documentStatus], [draft.id, kind, 'draft']);
        assert.equal(error.name, 'SignetFileUnavailableError');
        assert.match(error.message, new RegExp(`no ${kind} PDF`));
        return true;
      });
    }
    const sentOnly = await createSentDocument(h.ctx, ws.id);
    await assert.rejects(
      client.documents.download(sentOnly.id, 'sealed'),
      (error: unknown) => error instanceof SignetFileUnavailableError && error.documentStatus === 'sent',
    );
    const { bytes } = await (async () => {
      const file = await client.documents.download(sentOnly.id, 'original');
      return { bytes: await bytesOf(file.stream) };
    })();
    assert.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-', 'a sent document has its original');
    assert.equal(proxy.requests.length, 1, 'only the original was fetched');
    await assert.rejects(
      client.documents.download('0b8e9c52-7c1f-4e1d-9a6b-3f1e2d4c5b6a', 'sealed'),
      (error: unknown) => error instanceof SignetApiError && error.code === 'not-found',
    );
  });

  test('a link that answers 404 (changed) or 410 (expired) is a SignetDownloadError with the status', async () => {
    try {
      beforeForward = (request) => request.url.replace(/sig=./, (m) => (m.endsWith('A') ? 'sig=B' : 'sig=A'));
      await assert.rejects(client.documents.download(completedId, 'sealed'), (error: unknown) => {
        assert.ok(error instanceof SignetDownloadError, String(error));
        assert.deepEqual([error.status, error.kind, error.documentId], [404, 'sealed', completedId]);
        return true;
      });
      beforeForward = (request) => {
        h.clock.advance(15 * 60_000 + 1_000);
        return request.url;
      };
      await assert.rejects(
        client.documents.download(completedId, 'original'),
        (error: unknown) => error instanceof SignetDownloadError && error.status === 410,
      );
    } finally {
      beforeForward = (request) => request.url;
    }
    const { bytes, file } = await downloaded('sealed');
    assert.equal(sha256Hex(bytes), file.sha256, 'the next call gets a fresh link');
  });

  test('verifySha256 passes the bytes through when they match and errors the stream when not', async () => {
    const file = await client.documents.download(completedId, 'sealed');
    const [a, b] = file.stream.tee();
    const good = await bytesOf(a.pipeThrough(verifySha256(file.sha256.toUpperCase())));
    assert.equal(sha256Hex(good), file.sha256);
    const wrong = '0'.repeat(64);
    await assert.rejects(bytesOf(b.pipeThrough(verifySha256(wrong))), (error: unknown) => {
      assert.ok(error instanceof SignetIntegrityError, String(error));
      assert.deepEqual([error.expected, error.actual, error.bytes], [wrong, file.sha256, file.bytes]);
      return true;
    });
  });

  test('the README’s Node example saves the sealed PDF; the webhooks guide’s handler does on document.completed', async () => {
    const readme = await publishedExample<{
      saveSealedPdf(
        signet: SignetClient,
        id: string,
        folder: string,
      ): Promise<{ path: string; fileName: string }>;
    }>('packages/client/README.md', '### Example: save the sealed PDF to a file in Node', folder);
    const saved = await readme.saveSealedPdf(client, completedId, folder);
    const detail = await client.documents.get(completedId);
    const sealedSha = detail.files.find((f) => f.kind === 'sealed')?.sha256;
    assert.equal(sha256Hex(readFileSync(saved.path)), sealedSha);
    assert.equal(saved.fileName, `${title.replace('/', ' ')} (signed).pdf`);

    const guide = await publishedExample<{
      onEvent(signet: SignetClient, event: WebhookEvent, folder: string): Promise<void>;
    }>('docs/guides/webhooks.md', '## When a document completes: the sealed PDF', folder);
    const event = await storedEventBody<WebhookEvent>(h.ctx, ws.id, 'document.completed');
    assert.equal(event.type, 'document.completed');
    const guideFolder = mkdtempSync(join(folder, 'guide-'));
    await guide.onEvent(client, event, guideFolder);
    assert.equal(sha256Hex(readFileSync(join(guideFolder, `${completedId}.pdf`))), sealedSha);
    // A delivery whose sealed sha256 is not the file's: the handler fails and keeps nothing.
    assert.ok(event.type === 'document.completed');
    const forged = structuredClone(event);
    for (const file of forged.data.document.files ?? []) file.sha256 = '1'.repeat(64);
    const otherFolder = mkdtempSync(join(folder, 'forged-'));
    await assert.rejects(guide.onEvent(client, forged, otherFolder), SignetIntegrityError);
    assert.deepEqual(readdirSync(otherFolder), []);
  });
});

test('verifySha256 agrees with node:crypto on the NIST vectors and on random inputs cut anywhere', async () => {
  const encoder = new TextEncoder();
  const inputs: Uint8Array[] = [
    encoder.encode(''),
    encoder.encode('abc'),
    encoder.encode('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'),
    new Uint8Array(1_000_000).fill(0x61),
  ];
  // Every length around the padding's edges (55/56 and 63/64 bytes mod 64), then random ones.
  for (let length = 0; length <= 200; length++) inputs.push(randomBytes(length));
  for (let i = 0; i < 20; i++) inputs.push(randomBytes(Math.floor(Math.random() * 300_000)));
  for (const input of inputs) {
    const chunks: Uint8Array[] = [];
    for (let at = 0; at < input.length; ) {
      const size = Math.random() < 0.2 ? 0 : Math.floor(Math.random() * 150);
      chunks.push(input.subarray(at, at + size));
      at += size;
    }
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    const out = await bytesOf(stream.pipeThrough(verifySha256(sha256Hex(input))));
    assert.deepEqual(out, Buffer.from(input), `length ${input.length}`);
  }
});

test('dispositionFileName prefers filename*, decodes it, and keeps only a bare name', () => {
  const cases: Array<[string | null, string | null]> = [
    [
      `attachment; filename="Vertrag M_ller.pdf"; filename*=UTF-8''Vertrag%20M%C3%BCller%20(signed).pdf`,
      'Vertrag Müller (signed).pdf',
    ],
    [`attachment; filename*=utf-8'en'%E5%90%88%E5%90%8C.pdf; filename="x.pdf"`, '合同.pdf'],
    [`attachment; filename*=ISO-8859-1''M%FCller.pdf`, 'Müller.pdf'],
    ['attachment; filename="a \\"quoted\\"; name.pdf"', 'a "quoted"; name.pdf'],
    ['attachment; filename=plain.pdf', 'plain.pdf'],
    [`attachment; filename="fallback.pdf"; filename*=UTF-8''%FF%FE.pdf`, 'fallback.pdf'],
    [`attachment; filename*=UTF-8''..%2F..%2Fetc%2Fpasswd`, 'passwd'],
    ['attachment; filename="C:\\\\temp\\\\x.pdf"', 'x.pdf'],
    ['attachment; filename="..\\/"', null],
    ['attachment; filename="tab\tnew\nline.pdf"', 'tabnewline.pdf'],
    ['attachment', null],
    [null, null],
  ];
  for (const [header, expected] of cases) assert.equal(dispositionFileName(header), expected, String(header));
});
