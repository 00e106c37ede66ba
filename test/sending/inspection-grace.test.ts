// An upload's bytes are written while its inspection runs in a thread (sending/drafts.ts
// createDocument). When the inspection outlasts the write by the grace, the transaction is
// rolled back and its connection given back (PGlite has only one) until the inspection is
// over, then the write is done again. The test holds the inspection itself, so the order of
// events is the test's, not the machine's: no timing decides what is tested.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import pino from 'pino';
import { storeBytesFirst } from '../../src/files/files.service.ts';
import type { CheckedInput } from '../../src/sending/draft-input.ts';
import { checkedBesideWrite, writeBesideInspection } from '../../src/sending/drafts.ts';
import { countRows, describeEachDatabase, useHarness } from '../support/harness.ts';

/** A promise the test settles itself. */
function held<T>() {
  let settle!: (value: T) => void;
  let fail!: (error: unknown) => void;
  const promise = new Promise<T>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  return { promise, settle, fail };
}

/** A logger that settles `heard` on the first line containing `text`. */
function listeningLog(text: string, heard: () => void) {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      if (String(chunk).includes(text)) heard();
      done();
    },
  });
  return pino({ level: 'trace' }, stream);
}

const facts: CheckedInput = { pricing: null, pdf: { pages: 1, pageSizes: [{ width: 200, height: 300 }] } };

describeEachDatabase('an upload still being inspected once its bytes are written', (kind) => {
  const h = useHarness(kind);

  test('gives its transaction back, and is written once the inspection passes', async () => {
    const check = held<CheckedInput>();
    const givenBack = held<void>();
    const ctx = { ...h.ctx, log: listeningLog('still being inspected', () => givenBack.settle()) };
    const bytes = new TextEncoder().encode(`%PDF-1.7 held ${kind}`);
    const before = await countRows(h.ctx, 'files');
    const attempts: Array<CheckedInput> = [];
    const writing = writeBesideInspection(
      ctx,
      check.promise,
      async (trx) => {
        const now = h.ctx.clock.now();
        const { input } = await checkedBesideWrite(
          check.promise,
          storeBytesFirst(trx, { data: bytes, mediaType: 'application/pdf', now }),
          0,
        );
        attempts.push(input);
      },
      'a-document',
    );
    await givenBack.promise;
    // The first write is rolled back, and the connection is free while the check goes on.
    assert.equal(await countRows(h.ctx, 'files'), before);
    assert.equal(attempts.length, 0);
    check.settle(facts);
    await writing;
    assert.deepEqual(attempts, [facts]);
    assert.equal(await countRows(h.ctx, 'files'), before + 1);
  });

  test('stores nothing when the inspection it waited for refuses the file', async () => {
    const check = held<CheckedInput>();
    const givenBack = held<void>();
    const ctx = { ...h.ctx, log: listeningLog('still being inspected', () => givenBack.settle()) };
    const bytes = new TextEncoder().encode(`%PDF-1.7 refused ${kind}`);
    const before = await countRows(h.ctx, 'files');
    const writing = writeBesideInspection(
      ctx,
      check.promise,
      async (trx) => {
        await checkedBesideWrite(
          check.promise,
          storeBytesFirst(trx, { data: bytes, mediaType: 'application/pdf', now: h.ctx.clock.now() }),
          0,
        );
      },
      'a-document',
    );
    await givenBack.promise;
    const refusal = new Error('the file is refused');
    check.fail(refusal);
    await assert.rejects(writing, (error) => error === refusal);
    assert.equal(await countRows(h.ctx, 'files'), before);
  });

  test('is written in one transaction when the inspection is over within the grace', async () => {
    const lines: string[] = [];
    const ctx = { ...h.ctx, log: listeningLog('still being inspected', () => lines.push('given back')) };
    const bytes = new TextEncoder().encode(`%PDF-1.7 quick ${kind}`);
    const before = await countRows(h.ctx, 'files');
    let attempts = 0;
    const checked = Promise.resolve(facts);
    await writeBesideInspection(
      ctx,
      checked,
      async (trx) => {
        attempts += 1;
        await checkedBesideWrite(
          checked,
          storeBytesFirst(trx, { data: bytes, mediaType: 'application/pdf', now: h.ctx.clock.now() }),
          60_000,
        );
      },
      'a-document',
    );
    assert.equal(attempts, 1);
    assert.deepEqual(lines, []);
    assert.equal(await countRows(h.ctx, 'files'), before + 1);
  });
});
