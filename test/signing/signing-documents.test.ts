// The signing page with a real document: its pages as images (made once, then cached), a
// signature typed or drawn, the decline that asks for confirmation, and the downloads of
// the original and the sealed PDF on the "done" screen. Over HTTP, on both databases.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { crc32, createDeflate } from 'node:zlib';
import { PDFDocument } from '@cantoo/pdf-lib';
import { createCanvas } from '@napi-rs/canvas';
import { sealDueDocuments } from '../../src/sealing/sealing.service.ts';
import { createDocument } from '../../src/sending/drafts.ts';
import { sendDocument } from '../../src/sending/send.ts';
import {
  callApi,
  countRows,
  createTestWorkspace,
  describeEachDatabase,
  linkFor,
  twoSigners,
  useHarness,
} from '../support/harness.ts';

/** A drawn signature as the pad sends it: a PNG data URL of a stroke on transparency. */
function drawnSignature(): string {
  const canvas = createCanvas(900, 300);
  const context = canvas.getContext('2d');
  context.strokeStyle = '#1a2f73';
  context.lineWidth = 6;
  context.beginPath();
  context.moveTo(60, 200);
  context.bezierCurveTo(200, 40, 320, 260, 480, 120);
  context.lineTo(820, 180);
  context.stroke();
  return canvas.toDataURL('image/png');
}

/** A PNG chunk: length, type, data and the CRC of type and data. */
function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.byteLength);
  return Buffer.concat([length, body, crc]);
}

/**
 * A decompression bomb as a drawn signature: a PNG that says 100 × 100 pixels (40 KB of
 * data) whose data inflates to 500 MB, about 500 KB posted. Zeros are streamed through the
 * deflater a megabyte at a time, so the test never holds 500 MB.
 */
async function signatureBomb(): Promise<Buffer> {
  const deflate = createDeflate({ level: 9 });
  const compressed: Buffer[] = [];
  deflate.on('data', (part: Buffer) => compressed.push(part));
  const done = new Promise((resolve, reject) => deflate.on('end', resolve).on('error', reject));
  const zeros = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < 500; i += 1) {
    if (!deflate.write(zeros)) await new Promise((resolve) => deflate.once('drain', resolve));
  }
  deflate.end();
  await done;
  const header = Buffer.alloc(13);
  header.writeUInt32BE(100, 0);
  header.writeUInt32BE(100, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8 bits, RGBA, not interlaced
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', Buffer.concat(compressed)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Three pages, with a mark that makes the file's bytes (and so its page images) its own. */
async function threePagePdf(mark = randomUUID()): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  pdf.setSubject(mark);
  for (let i = 0; i < 3; i += 1)
    pdf.addPage([595, 842]).drawText(`Page ${i + 1} of the lease`, { x: 72, y: 760, size: 20 });
  return pdf.save();
}

describeEachDatabase('signing a real document', (kind) => {
  const h = useHarness(kind);

  async function sentPdfDocument() {
    const ws = await createTestWorkspace(h.ctx);
    const { id } = await createDocument(h.ctx, {
      workspaceId: ws.id,
      title: 'Lease',
      body: 'Please sign by Friday.',
      recipients: twoSigners,
      pricing: null,
      file: await threePagePdf(),
    });
    await sendDocument(h.ctx, ws.id, id);
    // Ann's link; Bob, of order 2, is mailed his once she has signed (`bobsLink`).
    return { ws, id, ann: (await linkFor(h.ctx, id, 'ann@client.example')).path };
  }

  const bobsLink = async (id: string) => (await linkFor(h.ctx, id, 'bob@client.example')).path;

  const post = (path: string, fields: Record<string, string>) =>
    fetch(h.baseUrl + path, { method: 'POST', body: new URLSearchParams(fields), redirect: 'manual' });

  test('the page shows every page as an image, the sender’s text as a message, and the pad', async () => {
    const { ann } = await sentPdfDocument();
    const response = await fetch(h.baseUrl + ann);
    const page = await response.text();
    const images = [...page.matchAll(/<img src="([^"]+)" alt="Page (\d) of 3 of Lease"/g)];
    assert.deepEqual(
      images.map((m) => m[2]),
      ['1', '2', '3'],
    );
    assert.match(page, /Message from the sender[\s\S]*Please sign by Friday\./);
    assert.match(page, /<canvas id="signature-canvas"/);
    assert.match(page, /<p class="signature-preview" id="signature-preview" aria-hidden="true">Ann Lee<\/p>/);
    const policy = response.headers.get('content-security-policy') ?? '';
    assert.match(policy, /img-src 'self'/);
    assert.match(policy, /script-src 'sha256-/);

    const first = await fetch(h.baseUrl + (images[0]?.[1] as string));
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('content-type'), 'image/png');
    const png = Buffer.from(await first.arrayBuffer());
    assert.equal(png.readUInt32BE(16), 1200, 'a page is drawn 1200 pixels wide');
    const kept = await countRows(h.ctx, 'page_images');
    const again = Buffer.from(await (await fetch(h.baseUrl + (images[0]?.[1] as string))).arrayBuffer());
    assert.deepEqual(again, png, 'served from the cache');
    assert.equal(await countRows(h.ctx, 'page_images'), kept, 'nothing drawn twice');
    const thumbnail = await fetch(`${h.baseUrl}${ann}/pages/2?size=thumbnail`);
    assert.equal(Buffer.from(await thumbnail.arrayBuffer()).readUInt32BE(16), 240);
    assert.equal((await fetch(`${h.baseUrl}${ann}/pages/4`)).status, 404, 'no such page');
    assert.equal((await fetch(`${h.baseUrl}${ann.slice(0, -3)}xyz/pages/1`)).status, 404, 'not a link');
  });

  test('a browser asking for every page at once gets each one, each drawn once', async () => {
    const { ann } = await sentPdfDocument();
    const before = await countRows(h.ctx, 'page_images');
    const responses = await Promise.all(
      [1, 2, 3, 1, 2, 3].map((n) => fetch(`${h.baseUrl}${ann}/pages/${n}`)),
    );
    assert.deepEqual(
      responses.map((r) => r.status),
      [200, 200, 200, 200, 200, 200],
    );
    assert.equal(await countRows(h.ctx, 'page_images'), before + 3);
  });

  test('a drawn signature is kept as a PNG and drawn in the sealed PDF; a broken drawing is refused', async () => {
    const { ws, id, ann } = await sentPdfDocument();
    const fields = { fullName: 'Ann Lee', consent: 'yes', signatureKind: 'drawn' };
    const broken = await post(`${ann}/sign`, { ...fields, signatureImage: 'data:image/png;base64,AAAA' });
    assert.equal(broken.status, 400);
    assert.match(await broken.text(), /The drawn signature is not a PNG image/);
    const empty = await post(`${ann}/sign`, { ...fields, signatureImage: '' });
    assert.equal(empty.status, 400);
    assert.match(await empty.text(), /Draw your signature first, or choose Typed/);

    const signed = await post(`${ann}/sign`, { ...fields, signatureImage: drawnSignature() });
    assert.equal(signed.status, 303);
    const stored = await h.ctx.db
      .selectFrom('recipients')
      .select(['signature_kind', 'signature_image'])
      .where('document_id', '=', id)
      .where('email', '=', 'ann@client.example')
      .executeTakeFirstOrThrow();
    assert.equal(stored.signature_kind, 'drawn');
    assert.ok(stored.signature_image && stored.signature_image.byteLength > 100);
    const bob = await bobsLink(id);
    assert.equal((await post(`${bob}/sign`, { fullName: 'Bob Ray', consent: 'yes' })).status, 303);
    await sealDueDocuments(h.ctx);
    const document = await h.ctx.db
      .selectFrom('documents')
      .select('sealed_sha256')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.ok(document.sealed_sha256, `sealed (workspace ${ws.id})`);
  });

  test('a drawn signature that inflates past its declared size is refused at once, before the document is locked', async () => {
    const { id, ann } = await sentPdfDocument();
    const bomb = await signatureBomb();
    assert.ok(bomb.byteLength < 600_000, `${bomb.byteLength} bytes posted`);
    const fields = {
      consent: 'yes',
      signatureKind: 'drawn',
      signatureImage: `data:image/png;base64,${bomb.toString('base64')}`,
    };
    // Ann has signed: a check made under the lock would answer that first (409). The image
    // is refused before it, so it was read before the document's lock was taken.
    assert.equal((await post(`${ann}/sign`, { fullName: 'Ann Lee', consent: 'yes' })).status, 303);
    const started = performance.now();
    const anns = await post(`${ann}/sign`, { ...fields, fullName: 'Ann Lee' });
    const annMs = performance.now() - started;
    assert.equal(anns.status, 400);
    assert.match(await anns.text(), /The drawn signature could not be read; draw it again\./);
    // Unbounded, decoding it took about 3 s; cut off at the 40 KB it declares, milliseconds.
    assert.ok(annMs < 1500, `refused in ${Math.round(annMs)} ms`);
    const bob = await bobsLink(id);
    const again = performance.now();
    const bobs = await post(`${bob}/sign`, { ...fields, fullName: 'Bob Ray' });
    assert.equal(bobs.status, 400);
    assert.match(await bobs.text(), /The drawn signature could not be read/);
    assert.ok(performance.now() - again < 1500, 'refused at once again');
    // Nothing was kept, and the pad's own drawing still signs.
    const signed = await post(`${bob}/sign`, {
      fullName: 'Bob Ray',
      consent: 'yes',
      signatureKind: 'drawn',
      signatureImage: drawnSignature(),
    });
    assert.equal(signed.status, 303);
  });

  test('the done screen offers the signed PDF once it is sealed, and the original before', async () => {
    const { id, ann } = await sentPdfDocument();
    await post(`${ann}/sign`, { fullName: 'Ann Lee', consent: 'yes' });
    const bob = await bobsLink(id);
    await post(`${bob}/sign`, { fullName: 'Bob Ray', consent: 'yes' });
    const pending = await (await fetch(h.baseUrl + bob)).text();
    assert.match(pending, /is being sealed: reload this page in a moment/);
    assert.match(
      pending,
      /href="https:\/\/sign\.example\.test\/files\/[0-9a-f-]{36}\/original\.pdf\?expires=\d+&amp;sig=[^"]+" download>Download the original PDF/,
    );
    await sealDueDocuments(h.ctx);
    const done = await (await fetch(h.baseUrl + bob)).text();
    const link =
      /href="(https:\/\/sign\.example\.test\/files\/[^"]+\/sealed\.pdf[^"]+)" download>Download the signed PDF/.exec(
        done,
      )?.[1];
    assert.ok(link, 'the signed PDF is offered');
    const download = await fetch(
      link.replaceAll('&amp;', '&').replace('https://sign.example.test', h.baseUrl),
    );
    assert.equal(download.status, 200);
    assert.match(
      Buffer.from(await download.arrayBuffer())
        .subarray(0, 5)
        .toString(),
      /%PDF-/,
    );
  });

  test('declining asks for confirmation; without it nothing is declined', async () => {
    const { id, ann } = await sentPdfDocument();
    const page = await (await fetch(h.baseUrl + ann)).text();
    assert.match(page, /<input type="checkbox" id="decline-confirm" name="confirm" value="yes" required>/);
    const unconfirmed = await post(`${ann}/decline`, { reason: 'Too expensive' });
    assert.equal(unconfirmed.status, 400);
    assert.match(await unconfirmed.text(), /To decline, tick “Yes, I decline to sign this document\.”/);
    assert.equal(
      await countRows(h.ctx, 'document_events', { document_id: id, type: 'document.declined' }),
      0,
    );
    assert.equal((await post(`${ann}/decline`, { reason: 'Too expensive', confirm: 'yes' })).status, 303);
    assert.equal(
      await countRows(h.ctx, 'document_events', { document_id: id, type: 'document.declined' }),
      1,
    );
  });

  test('the certificate’s address is the client’s, a proxy’s X-Forwarded-For only when trusted; the API shows neither', async () => {
    const { ws, id, ann } = await sentPdfDocument();
    const signed = await fetch(`${h.baseUrl + ann}/sign`, {
      method: 'POST',
      body: new URLSearchParams({ fullName: 'Ann Lee', consent: 'yes' }),
      headers: { 'x-forwarded-for': '203.0.113.9', 'user-agent': 'Journey browser/1.0' },
      redirect: 'manual',
    });
    assert.equal(signed.status, 303);
    const event = await h.ctx.db
      .selectFrom('document_events')
      .select(['client_ip', 'user_agent'])
      .where('document_id', '=', id)
      .where('type', '=', 'document.signed')
      .executeTakeFirstOrThrow();
    assert.match(
      event.client_ip ?? '',
      /^(::ffff:)?127\.0\.0\.1$/,
      'SIGNET_TRUST_PROXY is off: the forwarded address is not believed',
    );
    assert.equal(event.user_agent, 'Journey browser/1.0');
    const detail = await callApi(h, 'GET', `/v1/documents/${id}`, { key: ws.apiKey });
    const events = (detail.body.data as { events: Array<Record<string, unknown>> }).events;
    assert.deepEqual(Object.keys(events.at(-1) ?? {}).sort(), ['createdAt', 'id', 'recipientEmail', 'type']);
  });
});
