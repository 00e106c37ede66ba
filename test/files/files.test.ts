// Stored files (src/files): content-addressed, chunked, written whole in one transaction or
// not at all, read back whole or streamed chunk by chunk. On PGlite and PostgreSQL.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { text } from 'node:stream/consumers';
import { test } from 'node:test';
import { chunkBytes } from '../../src/files/files.repository.ts';
import { fileStream, readFile, sha256Hex, storeFile } from '../../src/files/files.service.ts';
import { countRows, describeEachDatabase, useHarness } from '../support/harness.ts';

describeEachDatabase('stored files', (kind) => {
  const h = useHarness(kind);

  test('a file of several chunks is stored once and read back byte for byte, whole and streamed', async () => {
    const data = randomBytes(2 * chunkBytes + 12_345);
    const now = h.clock.now();
    const stored = await h.ctx.db
      .transaction()
      .execute((trx) => storeFile(trx, { data, mediaType: 'application/pdf', pages: 3, now }));
    assert.deepEqual(stored, {
      sha256: sha256Hex(data),
      bytes: data.byteLength,
      mediaType: 'application/pdf',
      pages: 3,
      chunkCount: 3,
    });
    assert.deepEqual(await readFile(h.ctx.db, stored.sha256), data);
    const streamed: Buffer[] = [];
    for await (const chunk of fileStream(h.ctx.db, stored)) streamed.push(chunk as Buffer);
    assert.equal(streamed.length, 3, 'one piece per chunk');
    assert.deepEqual(Buffer.concat(streamed), data);
    // The same bytes again: nothing new is written.
    const chunksBefore = await countRows(h.ctx, 'file_chunks');
    await h.ctx.db
      .transaction()
      .execute((trx) => storeFile(trx, { data, mediaType: 'application/pdf', pages: 3, now }));
    assert.equal(await countRows(h.ctx, 'file_chunks'), chunksBefore);
  });

  test('a file whose transaction fails leaves nothing behind', async () => {
    const data = randomBytes(chunkBytes + 1);
    const filesBefore = await countRows(h.ctx, 'files');
    const chunksBefore = await countRows(h.ctx, 'file_chunks');
    await assert.rejects(
      h.ctx.db.transaction().execute(async (trx) => {
        await storeFile(trx, { data, mediaType: 'application/pdf', pages: 1, now: h.clock.now() });
        throw new Error('the document insert failed');
      }),
      /document insert failed/,
    );
    assert.equal(await countRows(h.ctx, 'files'), filesBefore);
    assert.equal(await countRows(h.ctx, 'file_chunks'), chunksBefore);
    assert.equal(await readFile(h.ctx.db, sha256Hex(data)), undefined);
  });

  test('an empty file has no chunks and reads back empty', async () => {
    const stored = await h.ctx.db
      .transaction()
      .execute((trx) =>
        storeFile(trx, { data: new Uint8Array(), mediaType: 'text/plain', pages: null, now: h.clock.now() }),
      );
    assert.equal(stored.chunkCount, 0);
    assert.equal((await readFile(h.ctx.db, stored.sha256))?.byteLength, 0);
    assert.equal(await text(fileStream(h.ctx.db, stored)), '');
  });
});
