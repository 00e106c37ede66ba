// Decompression bombs and nested structures (issue 34): the decode budget (decode-budget.ts)
// on real files and on bombs of each kind, the inspection thread that runs it with pdf-lib
// off the event loop (inspect-thread.ts), the seal's own check of a stored file, and uploads
// through the web form: each bomb refused with its sentence, nothing stored, and the server
// answering meanwhile.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { deflateSync } from 'node:zlib';
import { inEnglish } from '../../src/i18n/refusals.ts';
import { InputError } from '../../src/input-error.ts';
import { checkDecodeBudget, decodeBudgetRefusal, measureDecoding } from '../../src/pdf/decode-budget.ts';
import {
  decodeBudgetSentences,
  MAX_FILE_DECODED_BYTES,
  MAX_NESTING_DEPTH,
  MAX_STREAM_DECODED_BYTES,
} from '../../src/pdf/decode-limits.ts';
import {
  INSPECT_THREADS,
  inspectionThreadIds,
  inspectionThreads,
  inspectPdfInThread,
  MIN_INSPECT_HEAP_MB,
  startInspection,
  tooComplexRefusal,
} from '../../src/pdf/inspect-thread.ts';
import { loadForSealing } from '../../src/pdf/seal.ts';
import { countRows, describeEachDatabase, useHarness } from '../support/harness.ts';
import {
  type BombKind,
  bombPdf,
  deflatedZeros,
  honestParts,
  nestedPdf,
  writePdf,
} from '../support/hostile-pdfs.ts';
import { until } from '../support/processes.ts';
import { assertPage, newDocumentFields, pdfFile, webPeople } from '../support/web-client.ts';

const fixtures = [
  ...readdirSync(join(import.meta.dirname, '..', 'fixtures', 'pdf'))
    .filter((name) => name.endsWith('.pdf'))
    .map((name) => join(import.meta.dirname, '..', 'fixtures', 'pdf', name)),
  join(import.meta.dirname, '..', '..', 'src', 'demo', 'statement-of-work.pdf'),
];

const GiB = 1024 ** 3;
const justPast = MAX_STREAM_DECODED_BYTES + 1024 * 1024;
const kinds: Array<[BombKind, keyof typeof decodeBudgetSentences]> = [
  ['object-stream', 'stream'],
  ['content-stream', 'stream'],
  ['image', 'image'],
  ['chained', 'ratio'],
];

/** A one-page file with one more stream (object 6, unreferenced) of `dict` and `data`. */
function withStream(
  dict: string,
  data: Buffer | string,
  extra: Parameters<typeof writePdf>[0] = [],
): Uint8Array {
  const bytes = typeof data === 'string' ? data : data.toString('latin1');
  return writePdf([
    ...honestParts(),
    { object: 6, body: `<< ${dict} >>\nstream\n${bytes}\nendstream` },
    ...extra,
    { xref: true },
  ]);
}

describe('the decode budget', () => {
  test('every real file passes, and its figures are far below the limits', () => {
    for (const file of fixtures) {
      const data = readFileSync(file);
      assert.equal(checkDecodeBudget(data), null, file);
      const figures = measureDecoding(data);
      assert.ok(figures.streams > 0, `${file}: its streams are found`);
      assert.ok(figures.totalBytes < MAX_FILE_DECODED_BYTES / 100, file);
      assert.ok(figures.deepestNesting < MAX_NESTING_DEPTH / 10, file);
    }
  });

  test('decoded sizes are counted exactly, through every filter of a chain', () => {
    const text = 'BT /F1 24 Tf 72 700 Td (Total price: 100 EUR) Tj ET';
    const flate = deflateSync(Buffer.from(text));
    const cases: Array<[string, string, Buffer | string, number]> = [
      ['Flate', '/Filter /FlateDecode', flate, text.length],
      // Hex, then Flate: both stages' output counts.
      [
        'ASCIIHex + Flate',
        '/Filter [/ASCIIHexDecode /FlateDecode]',
        `${flate.toString('hex')}>`,
        flate.length + text.length,
      ],
      ['ASCII85 with z', '/Filter /ASCII85Decode', '87cURz~>', 8],
      // ISO 32000's example of LZW: 80 0B 60 50 22 0C 0C 85 01 is "-----A---B".
      ['LZW', '/Filter /LZWDecode', Buffer.from('800b6050220c0c8501', 'hex'), 10],
      // 3 literal bytes, then 128 and 72 copies of one byte, then the end (and a byte after it).
      [
        'RunLength',
        '/Filter /RunLengthDecode',
        Buffer.from([2, 1, 2, 3, 257 - 128, 0, 257 - 72, 9, 128, 7]),
        3 + 128 + 72,
      ],
      // A name spelled with #xx is the same name to every reader.
      ['an escaped filter name', '/Filter /Flate#44ecode', flate, text.length],
      // An indirect /Length: the data is found by its `endstream`.
      ['an indirect /Length', '/Filter /FlateDecode /Length 9 0 R', flate, text.length],
    ];
    for (const [what, dict, data, decoded] of cases) {
      const pdf = withStream(dict.includes('/Length') ? dict : `${dict} /Length ${data.length}`, data, [
        { object: 9, body: String(data.length) },
      ]);
      const plain = measureDecoding(writePdf([...honestParts(), { object: 9, body: '0' }, { xref: true }]));
      assert.equal(measureDecoding(pdf).totalBytes - plain.totalBytes, decoded, what);
    }
  });

  test('each kind at 1 GiB is built in under 2 MB and refused for its reason in seconds; at 1 MB it passes', () => {
    for (const [kind, rule] of kinds) {
      const started = performance.now();
      const pdf = bombPdf(kind, GiB);
      assert.ok(pdf.byteLength < 2 * 1024 * 1024, `${kind}: ${pdf.byteLength} bytes`);
      assert.equal(inEnglish(checkDecodeBudget(pdf) ?? ''), decodeBudgetSentences[rule], kind);
      assert.ok(performance.now() - started < 30_000, `${kind}: ${performance.now() - started} ms`);
      // The same kinds of file, legitimately sized, pass.
      assert.equal(checkDecodeBudget(bombPdf(kind, 1024 * 1024)), null, `${kind} of 1 MB`);
    }
  });

  test('a bomb is found wherever it hides: unreferenced, after the last section, behind an indirect /Length, inside another stream', () => {
    // With a stream limit of 8 MB: where the bomb hides is the point, not its size.
    const small = { streamBytes: 8 * 1024 * 1024, fileBytes: MAX_FILE_DECODED_BYTES };
    const bomb = deflatedZeros(9 * 1024 * 1024);
    const stream = (length: string) =>
      `<< /Filter /FlateDecode /Length ${length} >>\nstream\n${bomb.toString('latin1')}\nendstream`;
    const inner = `9 0 obj\n${stream(String(bomb.length))}\nendobj\n`;
    const hidden: Array<[string, Uint8Array]> = [
      [
        'after the last section, in no table',
        writePdf([...honestParts(), { xref: true }, { object: 6, body: stream(String(bomb.length)) }]),
      ],
      [
        'behind an indirect /Length',
        writePdf([...honestParts(), { object: 6, body: stream('7 0 R') }, { xref: true }]),
      ],
      [
        'behind a wrong /Length',
        writePdf([...honestParts(), { object: 6, body: stream('10') }, { xref: true }]),
      ],
      ['inside the data of an unfiltered stream', withStream(`/Length ${inner.length}`, inner)],
      [
        'an image declaring 100 x 100 pixels',
        withStream(
          `/Subtype /Image /Width 100 /Height 100 /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length ${bomb.length}`,
          bomb,
        ),
      ],
    ];
    for (const [what, pdf] of hidden) {
      assert.equal(decodeBudgetRefusal(pdf, small), 'stream', what);
      assert.equal(
        decodeBudgetRefusal(pdf, { ...small, streamBytes: 10 * 1024 * 1024 }),
        null,
        `${what}: found whole`,
      );
    }
  });

  test('a filter named by a reference is followed; one that cannot be followed is refused', () => {
    const bomb = deflatedZeros(9 * 1024 * 1024);
    const small = { streamBytes: 8 * 1024 * 1024, fileBytes: MAX_FILE_DECODED_BYTES };
    const pdf = (filter: string, extra: Parameters<typeof writePdf>[0]) =>
      withStream(`/Filter ${filter} /Length ${bomb.length}`, bomb, extra);
    assert.equal(decodeBudgetRefusal(pdf('7 0 R', [{ object: 7, body: '/FlateDecode' }]), small), 'stream');
    assert.equal(decodeBudgetRefusal(pdf('[7 0 R]', [{ object: 7, body: '/FlateDecode' }]), small), 'stream');
    assert.equal(decodeBudgetRefusal(pdf('7 0 R', []), small), 'hidden');
    assert.equal(decodeBudgetRefusal(pdf('[/FlateDecode 7 0 R]', []), small), 'hidden');
    // Keys after a deeply nested value are read too.
    const deep = `/X ${'['.repeat(100)}${']'.repeat(100)} /Filter /FlateDecode`;
    assert.equal(decodeBudgetRefusal(withStream(`${deep} /Length ${bomb.length}`, bomb), small), 'stream');
  });

  test('a white scan, as compressible as Flate gets (about 1,000 times), passes', () => {
    // A 600 dpi A4 page in gray, all white: 35 million pixels from 34 KB.
    const [width, height] = [4960, 7016];
    const white = deflateSync(Buffer.alloc(width * height, 0xff), { level: 9 });
    const scan = withStream(
      `/Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length ${white.length}`,
      white,
    );
    assert.equal(checkDecodeBudget(scan), null);
    assert.ok(measureDecoding(scan).largestRatio > 1000);
  });

  test('streams without a usable /Length, read to the end of the file each, are bounded in what they read', () => {
    // 40 streams of 200 KB that never reach their end marker (no `~>` in the file): each
    // would read the rest of the file.
    const parts = [...honestParts()];
    for (let n = 0; n < 40; n++) {
      parts.push({
        object: 10 + n,
        body: `<< /Filter /ASCII85Decode >>\nstream\n${'x'.repeat(200_000)}\nendstream`,
      });
    }
    assert.equal(decodeBudgetRefusal(writePdf([...parts, { xref: true }])), 'work');
    assert.equal(decodeBudgetRefusal(writePdf([...parts.slice(0, 7), { xref: true }])), null, 'two pass');
    // Many ordinary streams whose /Length is in an object stream (as LaTeX writes them with
    // object streams on) each end at their own end, and read no further.
    const text = deflateSync(Buffer.from('BT /F1 12 Tf 72 700 Td (Total price: 100 EUR) Tj ET\n'.repeat(50)));
    const many = [...honestParts()];
    for (let n = 0; n < 2000; n++) {
      many.push({
        object: 10 + n,
        body: `<< /Filter /FlateDecode /Length 9999 0 R >>\nstream\n${text.toString('latin1')}\nendstream`,
      });
    }
    const figures = measureDecoding(writePdf([...many, { xref: true }]));
    // Each read up to its `endstream` (the data and the line break before it), no further.
    assert.equal(figures.encodedBytesRead, 2000 * (text.length + 1));
  });

  test('a chain of Flate and RunLength (64 times each) is refused by its ratio', () => {
    // 200 MB as RunLength runs of 128 zeros, deflated: a few kilobytes.
    const runs = Buffer.alloc(2 * Math.ceil(200e6 / 128));
    for (let at = 0; at < runs.length; at += 2) runs[at] = 129;
    const data = deflateSync(runs, { level: 9 });
    assert.equal(
      decodeBudgetRefusal(withStream(`/Filter [/FlateDecode /RunLengthDecode] /Length ${data.length}`, data)),
      'ratio',
    );
  });

  test('many streams under the stream limit are refused by the file limit', () => {
    // Scaled down: streams of 10 MB under a stream limit of 16 MB and a file limit of 32 MB.
    const each = deflatedZeros(10 * 1024 * 1024);
    const parts = [...honestParts()];
    for (let n = 0; n < 6; n++) {
      parts.push({
        object: 10 + n,
        body: `<< /Filter /FlateDecode /Length ${each.length} >>\nstream\n${each.toString('latin1')}\nendstream`,
      });
    }
    const limits = { streamBytes: 16 * 1024 * 1024, fileBytes: 32 * 1024 * 1024 };
    assert.equal(decodeBudgetRefusal(writePdf([...parts, { xref: true }]), limits), 'file');
    assert.equal(
      decodeBudgetRefusal(writePdf([...parts.slice(0, 8), { xref: true }]), limits),
      null,
      'three pass',
    );
  });

  test('nesting: 100,000 arrays and one past the limit are refused, the limit itself passes; in object streams too', () => {
    assert.equal(inEnglish(checkDecodeBudget(nestedPdf(100_000)) ?? ''), decodeBudgetSentences.nesting);
    assert.equal(
      decodeBudgetRefusal(nestedPdf(MAX_NESTING_DEPTH)),
      'nesting',
      'the catalog dictionary is one level',
    );
    assert.equal(decodeBudgetRefusal(nestedPdf(MAX_NESTING_DEPTH - 1)), null);
    // Strings and comments do not count.
    assert.equal(
      decodeBudgetRefusal(
        withStream('/Length 0', '', [{ object: 8, body: `(${'['.repeat(1000)}) % ${'<<'.repeat(1000)}\n1` }]),
      ),
      null,
    );
    const objects = `8 0 ${'['.repeat(1000)}${']'.repeat(1000)}`;
    const data = deflateSync(Buffer.from(objects));
    assert.equal(
      decodeBudgetRefusal(
        withStream(`/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length ${data.length}`, data),
      ),
      'nesting',
    );
  });

  test('a stored bomb fails its seal attempt with the reason, before pdf-lib reads it', async () => {
    await assert.rejects(loadForSealing(bombPdf('chained', GiB)), (error: Error) => {
      assert.equal(error.message, `The PDF cannot be sealed: ${decodeBudgetSentences.ratio}`);
      return true;
    });
  });
});

describe('the inspection thread', () => {
  const good = readFileSync(fixtures.find((file) => file.endsWith('latex-object-streams.pdf')) as string);

  test('answers what inspectPdf answers: the facts, or the InputError with its sentence', async () => {
    const facts = await inspectPdfInThread(good, { maxBytes: 25 * 1024 * 1024 });
    assert.ok(facts.pages >= 1 && facts.pageSizes.length === facts.pages);
    await assert.rejects(
      inspectPdfInThread(bombPdf('chained', GiB), { maxBytes: 25 * 1024 * 1024 }),
      (error) => {
        assert.ok(error instanceof InputError);
        assert.deepEqual(error.fields, { file: decodeBudgetSentences.ratio });
        return true;
      },
    );
  });

  test('an inspection out of time is ended and refused with a sentence; the next one works', async () => {
    // Measuring a 1 GiB object stream takes seconds: far past 100 ms even when the thread is
    // quick (a small file within 1 ms could win the race against a loaded event loop).
    const slow = bombPdf('object-stream', GiB);
    await assert.rejects(
      inspectPdfInThread(slow, { maxBytes: 25 * 1024 * 1024, timeoutMs: 100 }),
      (error) => {
        assert.ok(error instanceof InputError);
        assert.deepEqual(error.fields, { file: inEnglish(tooComplexRefusal) });
        return true;
      },
    );
    assert.ok((await inspectPdfInThread(good, { maxBytes: 25 * 1024 * 1024 })).pages >= 1);
  });

  test('an inspection out of memory is ended and refused with a sentence', async () => {
    await assert.rejects(
      inspectPdfInThread(good, { maxBytes: 25 * 1024 * 1024, heapMb: MIN_INSPECT_HEAP_MB }),
      (error) => {
        assert.ok(error instanceof InputError, String(error));
        assert.deepEqual(error.fields, { file: inEnglish(tooComplexRefusal) });
        return true;
      },
    );
  });

  test(`at most ${INSPECT_THREADS} threads at once, however many uploads arrive`, async () => {
    let most = 0;
    const watching = setInterval(() => {
      most = Math.max(most, inspectionThreads());
    }, 5);
    try {
      const all = await Promise.all(
        Array.from({ length: 5 }, () => inspectPdfInThread(good, { maxBytes: 25 * 1024 * 1024 })),
      );
      assert.equal(all.length, 5);
    } finally {
      clearInterval(watching);
    }
    assert.ok(most >= 1 && most <= INSPECT_THREADS, `${most} threads`);
  });
  test('a thread left idle is ended, and the last one replaced by a fresh thread waiting for the next upload', async () => {
    const maxBytes = 25 * 1024 * 1024;
    await Promise.all([
      inspectPdfInThread(good, { maxBytes, idleMs: 20 }),
      inspectPdfInThread(good, { maxBytes, idleMs: 20 }),
    ]);
    const used = inspectionThreadIds();
    assert.ok(used.length >= 1, 'the inspections ran in threads');
    await until(
      () => {
        const now = inspectionThreadIds();
        return now.length === 1 && !used.includes(now[0] as number);
      },
      10_000,
      'the used threads to be replaced by one fresh thread',
    );
    // The fresh thread takes the next upload, and stays until then.
    const [fresh] = inspectionThreadIds();
    const facts = await inspectPdfInThread(good, { maxBytes });
    assert.ok(facts.pages >= 1);
    assert.deepEqual(inspectionThreadIds(), [fresh]);
  });

  test('startInspection: resolves once a thread has the file; a refusal waits, unobserved, for its reader', async () => {
    const started = await startInspection(Buffer.from('not a pdf at all'), { maxBytes: 1024 });
    // Nothing awaits the facts for a while: no unhandled rejection may end the process.
    await new Promise((resolve) => setTimeout(resolve, 50));
    await assert.rejects(started.facts, (error: unknown) => error instanceof InputError);
  });
});

describeEachDatabase('bombs uploaded through the web form', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: 'true' } });
  const people = webPeople(h, '10.34');
  const form = newDocumentFields('Bomb');

  async function ownerOnForm() {
    const client = await people.signedIn(await people.newOwner());
    assertPage(await client.get('/documents/new'), 200);
    return client;
  }

  test('each kind is refused with its sentence beside the file field, and nothing is stored', async () => {
    const client = await ownerOnForm();
    const cases: Array<[string, Uint8Array, string]> = [
      ...kinds.map(([bomb, rule]): [string, Uint8Array, string] => [
        bomb,
        bombPdf(bomb, bomb === 'image' || bomb === 'chained' ? GiB : justPast),
        decodeBudgetSentences[rule],
      ]),
      ['100,000 nested arrays', nestedPdf(100_000), decodeBudgetSentences.nesting],
    ];
    for (const [what, data, sentence] of cases) {
      const files = await countRows(h.ctx, 'files');
      const documents = await countRows(h.ctx, 'documents');
      const refused = await client.post('/documents', { ...form, file: pdfFile(data) });
      assertPage(refused, 400, what);
      assert.ok(refused.text.includes(sentence.replaceAll("'", '&#39;')), `${what}: ${sentence}`);
      assert.match(refused.text, /<span class="field-error" id="file-error">/, what);
      assert.equal(await countRows(h.ctx, 'files'), files, `${what}: no file stored`);
      assert.equal(await countRows(h.ctx, 'documents'), documents, `${what}: no document stored`);
    }
  });

  test('the server keeps answering while a 1 GiB bomb is inspected', async () => {
    const client = await ownerOnForm();
    const bomb = bombPdf('object-stream', GiB);
    let done = false;
    const upload = client.post('/documents', { ...form, file: pdfFile(bomb) }).finally(() => {
      done = true;
    });
    const answers: number[] = [];
    while (!done) {
      const started = performance.now();
      const response = await fetch(`${h.baseUrl}/healthz`);
      await response.arrayBuffer();
      assert.equal(response.status, 200);
      answers.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assertPage(await upload, 400);
    assert.ok(answers.length >= 3, `only ${answers.length} answers while the bomb was inspected`);
    // Generous: a loaded 2-core machine, not a benchmark (the inspection itself takes seconds).
    assert.ok(Math.max(...answers) < 1000, `slowest /healthz: ${Math.round(Math.max(...answers))} ms`);
  });
});
