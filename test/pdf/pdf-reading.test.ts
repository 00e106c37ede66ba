// One reading of every PDF, the one readers use (issue 33, items 1 and 3): a file that
// different parsers read differently is refused at upload and never sealed; a file with
// active content likewise; and for every file Signet accepts, what signers were shown (pdf.js,
// which draws the signing page) is what the sealed file shows (poppler), page by page.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { PDFDocument, PDFName, PDFRawStream, PDFRef } from '@cantoo/pdf-lib';
import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import { storeFile } from '../../src/files/files.service.ts';
import { InputError } from '../../src/input-error.ts';
import { appendCertificate, type Certificate } from '../../src/pdf/certificate.ts';
import type { FieldStamp } from '../../src/pdf/fields.ts';
import { inspectPdf } from '../../src/pdf/inspect.ts';
import { loadPdf } from '../../src/pdf/load.ts';
import { sealPdf } from '../../src/pdf/seal.ts';
import { createSelfSignedSeal } from '../../src/pdf/seal-identity.ts';
import { renderTextDocument } from '../../src/pdf/text-document.ts';
import { sealDueDocuments } from '../../src/sealing/sealing.service.ts';
import { signDocument } from '../../src/signing/signing.service.ts';
import {
  createSentDocument,
  createTestWorkspace,
  describeEachDatabase,
  recipient,
  useHarness,
} from '../support/harness.ts';
import {
  activeContentPdfs,
  ambiguousPdfs,
  annotationPdfs,
  bombPdf,
  honestParts,
  hybridPdf,
  linkPdf,
  updatedPdf,
  writePdf,
} from '../support/hostile-pdfs.ts';
import { assertSealedOver, pdftotext, qpdfCheck, rewritePdf } from '../support/pdf-tools.ts';

const folder = mkdtempSync(join(tmpdir(), 'signet-reading-'));
after(() => rmSync(folder, { recursive: true, force: true }));
const fixtures = join(import.meta.dirname, '..', 'fixtures', 'pdf');
const identity = createSelfSignedSeal({ commonName: 'Signet test seal', now: new Date() }).then(
  (s) => s.identity,
);

async function refusal(data: Uint8Array): Promise<string> {
  try {
    await inspectPdf(data, { maxBytes: 25 * 1024 * 1024 });
  } catch (error) {
    assert.ok(error instanceof InputError, String(error));
    return error.fields.file as string;
  }
  assert.fail('the file was accepted');
}

function seal(data: Uint8Array): Promise<Uint8Array> {
  return identity.then((seal) =>
    sealPdf(data, seal, {
      signedAt: new Date(),
      name: 'Signet',
      reason: 'test',
      fieldName: 'Signet seal test',
    }),
  );
}

/** Each page's text as pdf.js reads it: what the signing page was drawn from. */
async function pdfjsPages(data: Uint8Array): Promise<string[]> {
  const task = pdfjs.getDocument({ data: data.slice(), verbosity: 0 });
  const pages: string[] = [];
  try {
    const document = await task.promise;
    for (let n = 1; n <= document.numPages; n++) {
      const page = await document.getPage(n);
      const content = await page.getTextContent();
      // The signing page draws form fields from their appearances (render.ts); pdf.js's text
      // content leaves them out, poppler's takes their text in.
      const fields = (await page.getAnnotations()).flatMap((annotation) =>
        annotation.fieldType === 'Tx' && typeof annotation.fieldValue === 'string'
          ? [annotation.fieldValue]
          : [],
      );
      pages.push([...content.items.map((item) => ('str' in item ? item.str : '')), ...fields].join(' '));
    }
  } finally {
    await task.destroy();
  }
  return pages;
}

/** Page `n`'s text as poppler reads it. */
function popplerPage(data: Uint8Array, n: number): string {
  const file = join(folder, `page-${n}-${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(file, data);
  return execFileSync('pdftotext', ['-enc', 'UTF-8', '-f', String(n), '-l', String(n), file, '-']).toString();
}

// Two readings of a page are "the same text" when they hold the same characters: pdf.js and
// poppler order a line's pieces and the spaces between them each its own way.
const letters = (text: string) => [...text.replace(/\s+/g, '')].sort().join('');

/**
 * Whether poppler's text of a page holds exactly pdf.js's characters, but for those pdf.js
 * could not map to Unicode (it gives U+0000 where a font has no ToUnicode entry and poppler
 * guesses from the glyph's name): as many of those as pdf.js left unmapped.
 */
function assertSameText(poppler: string, pdfjsText: string, label: string): void {
  const unmapped = [...pdfjsText].filter((c) => c === '\0' || c === '\ufffd').length;
  const left = [...letters(poppler)];
  for (const c of letters(pdfjsText.replace(/[\0\ufffd]/g, ''))) {
    const at = left.indexOf(c);
    assert.ok(at >= 0, `${label}: "${c}" shown to signers is not in the sealed page`);
    left.splice(at, 1);
  }
  assert.ok(left.length <= unmapped, `${label}: the sealed page has more: ${left.join('')}`);
}

/** The text pdf-lib would find in page 1's content, read its own way (last definition wins). */
async function pdfLibPageText(data: Uint8Array): Promise<string> {
  const pdf = await PDFDocument.load(data, { updateMetadata: false });
  const contents = pdf.getPage(0).node.lookup(PDFName.of('Contents'));
  return contents instanceof PDFRawStream ? Buffer.from(contents.getContents()).toString('latin1') : '';
}

test('a file that readers and pdf-lib read differently is refused at upload and never sealed', async () => {
  for (const [index, [what, data]] of ambiguousPdfs().entries()) {
    // Every reader shows what the table says: poppler (rebuilding the broken ones), and pdf.js
    // for the first three (on the others it fails, with a rejection it leaves unhandled) ...
    assert.match(await pdftotext(data), /Total price: 100 EUR/, what);
    if (index < 3) assert.match((await pdfjsPages(data)).join(' '), /Total price: 100 EUR/, what);
    assert.match(await refusal(data), /built ambiguously|damaged \(its index of objects is broken\)/, what);
    await assert.rejects(
      seal(data),
      /not a PDF that can be sealed \(This PDF is (built ambiguously|damaged)/,
      what,
    );
  }
  // ... and the danger is real: pdf-lib alone takes the later definition of the first two.
  const [[, pageTree], [, pageObject]] = ambiguousPdfs() as [[string, Uint8Array], [string, Uint8Array]];
  assert.match(await pdfLibPageText(pageTree), /1,000,000 EUR/);
  assert.match(await pdfLibPageText(pageObject), /1,000,000 EUR/);
});

test('an honest update is read as readers read it, its newest revision, and sealed so', async () => {
  const data = updatedPdf();
  assert.deepEqual(await inspectPdf(data, { maxBytes: 1024 * 1024 }), {
    pages: 1,
    pageSizes: [{ width: 612, height: 792 }],
  });
  const sealed = await seal(data);
  await assertSealedOver(data, sealed, 1, 'updated');
  assert.match(popplerPage(sealed, 1), /Total price: 200 EUR/);
  assert.doesNotMatch(popplerPage(sealed, 1), /100 EUR/);
});

test('an object that no section lists is nothing, for pdf-lib as for readers', async () => {
  const data = writePdf([
    ...honestParts(),
    { raw: '9 0 obj\n<< /Type /Annot /Subtype /Text /Contents (unlisted) >>\nendobj\n' },
    { xref: true },
  ]);
  assert.ok((await PDFDocument.load(data)).context.lookup(PDFRef.of(9)), 'pdf-lib alone keeps it');
  assert.equal((await loadPdf(data)).context.lookup(PDFRef.of(9)), undefined);
  await inspectPdf(data, { maxBytes: 1024 * 1024 });
});

// What qpdf writes (issue 48 §2): object streams and cross-reference streams with a PNG
// predictor, a linearized file's first-page section at the start and its hint stream, both at
// once, QDF, a new /ID. Readers read each without a warning, and so must the one reading.
const qpdfShapes: Array<[string, string[]]> = [
  ['object streams', ['--object-streams=generate', '{in}', '{out}']],
  ['linearized', ['--linearize', '{in}', '{out}']],
  ['object streams, linearized', ['--object-streams=generate', '--linearize', '{in}', '{out}']],
  ['QDF', ['--qdf', '{in}', '{out}']],
  ['a deterministic /ID', ['--deterministic-id', '{in}', '{out}']],
];

test('every shape qpdf writes is read as readers read it, and sealed so', async () => {
  for (const name of ['latex-xref-table.pdf', 'latex-object-streams.pdf', 'chromium-print.pdf']) {
    const original = new Uint8Array(readFileSync(join(fixtures, name)));
    for (const [shape, args] of qpdfShapes) {
      const data = await rewritePdf(original, 'qpdf', args);
      const label = `${name}, ${shape}`;
      assert.equal((await inspectPdf(data, { maxBytes: 25 * 1024 * 1024 })).pages, 1, label);
      assert.equal(letters(popplerPage(data, 1)), letters(popplerPage(original, 1)), label);
      await assertSealedOver(data, await seal(data), 1, label);
    }
  }
});

test('a table numbered from 1 whose first entry is object 0’s is read from 0, as poppler and pdf.js read it', async () => {
  const honest = Buffer.from(writePdf([...honestParts(), { xref: true }])).toString('latin1');
  const data = new Uint8Array(Buffer.from(honest.replace('xref\n0 1\n', 'xref\n1 1\n'), 'latin1'));
  assert.match(await pdftotext(data), /Total price: 100 EUR/);
  assert.match((await pdfjsPages(data)).join(' '), /Total price: 100 EUR/);
  assert.equal((await inspectPdf(data, { maxBytes: 1024 * 1024 })).pages, 1);
});

test('a hybrid file whose table and /XRefStm agree is read as readers read it; a font defined in both ways is refused', async () => {
  const hybrid = hybridPdf();
  const check = await qpdfCheck(hybrid);
  assert.ok(!check.errors && !check.warnings, check.output);
  assert.match(await pdftotext(hybrid), /Total price: 100 EUR/);
  assert.equal((await inspectPdf(hybrid, { maxBytes: 1024 * 1024 })).pages, 1);
  const font = (await loadPdf(hybrid)).context.lookup(PDFRef.of(5));
  assert.match(String(font), /Helvetica/, 'the font from its object stream, as the stream says');
  await assertSealedOver(hybrid, await seal(hybrid), 1, 'hybrid');
  assert.match(await refusal(hybridPdf({ fontAgainAt: 'table' })), /built ambiguously/);
});

test('an object-stream file with a page defined again after its cross-reference stream is refused', async () => {
  const streams = await rewritePdf(updatedPdf(), 'qpdf', ['--object-streams=generate', '{in}', '{out}']);
  const page = (await loadPdf(streams)).getPage(0).ref.objectNumber;
  assert.match(Buffer.from(streams).toString('latin1'), /\/Predictor 12/, 'a PNG-predicted xref stream');
  // Readers find the page in its object stream, as the cross-reference stream says ...
  const data = Buffer.concat([
    streams,
    Buffer.from(`${page} 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>\nendobj\n`),
  ]);
  assert.match(await pdftotext(data), /Total price: 200 EUR/);
  // ... pdf-lib alone would take this blank one.
  assert.match(await refusal(data), /built ambiguously/);
});

test('active content is refused at upload, named in the sentence, and never sealed; a plain link is not', async () => {
  for (const [what, made, words] of activeContentPdfs()) {
    const data = await made;
    const sentence = await refusal(data);
    assert.match(sentence, /^This PDF contains /, what);
    assert.match(sentence, words, what);
    await assert.rejects(seal(data), /cannot be sealed: This PDF contains/, what);
  }
  const link = await linkPdf();
  await inspectPdf(link, { maxBytes: 1024 * 1024 });
  await assertSealedOver(link, await seal(link), 1, 'a link');
});

test('a form that asks each reader to draw its fields (NeedAppearances) is refused, and so is one whose fields have no appearance; one drawn by its own appearances is sealed as drawn', async () => {
  const form = readFileSync(join(fixtures, 'latex-form.pdf'));
  assert.match(await refusal(form), /form fields that each reader draws its own way/);
  // Without NeedAppearances but still without appearances, poppler and MuPDF draw the fields
  // (the quantity's 1, red boxes) and pdf.js draws nothing (issue 48).
  const bare = readFileSync(join(fixtures, 'latex-form-drawn.pdf'));
  assert.match(await refusal(bare), /form fields without an appearance of their own/);
  const drawn = readFileSync(join(fixtures, 'latex-form-appearances.pdf'));
  await inspectPdf(drawn, { maxBytes: 1024 * 1024 });
  const sealed = await seal(drawn);
  await assertSealedOver(drawn, sealed, 1, 'latex-form-appearances');
  assert.doesNotMatch(Buffer.from(sealed).toString('latin1'), /\/NeedAppearances true/);
});

function certificate(pages: number): Certificate {
  const at = new Date('2026-11-20T10:00:00Z');
  return {
    documentId: '6f1c2b8e-0000-4000-8000-000000000001',
    title: 'Service agreement',
    workspaceName: 'Acme GmbH',
    originalSha256: 'ab'.repeat(32),
    originalPages: pages,
    sentAt: at,
    completedAt: at,
    verifyUrl: 'https://sign.example.com/verify',
    language: 'en' as const,
    recipients: [
      {
        fullName: 'Zoe Stamp',
        email: 'zoe@example.com',
        role: 'signer',
        signingMethod: 'standard',
        sent: null,
        openedAt: at,
        signedAt: at,
        declinedAt: null,
        clientIp: '203.0.113.7',
        userAgent: 'Browser',
        signature: { kind: 'typed', name: 'Zoe Stamp' },
        fields: [],
      },
    ],
    events: [],
  };
}

async function corpus(): Promise<Array<[string, Uint8Array]>> {
  const { data: text } = await renderTextDocument({
    title: 'Lease agreement',
    body: `The tenant rents the flat. ${'Words that wrap. '.repeat(300)}`,
    workspaceName: 'Acme',
    pricing: null,
    createdAt: new Date('2026-11-01T00:00:00Z'),
  });
  return [
    ...[
      'latex-xref-table.pdf',
      'latex-object-streams.pdf',
      'latex-form-appearances.pdf',
      'chromium-print.pdf',
      'openssl-signed.pdf',
    ].map((name) => [name, new Uint8Array(readFileSync(join(fixtures, name)))] as [string, Uint8Array]),
    ['a text document', text],
    ['an honest update', updatedPdf()],
    ['a link', await linkPdf()],
  ];
}

const stampText = 'STAMPVALUE';

test('for every file of the corpus, each sealed page shows what pdf.js showed signers, apart from the stamps', async () => {
  for (const [name, original] of await corpus()) {
    const { pages } = await inspectPdf(original, { maxBytes: 25 * 1024 * 1024 });
    const stamps: FieldStamp[] = [
      {
        page: 1,
        x: 20,
        y: 20,
        width: 200,
        height: 24,
        content: { kind: 'text', text: stampText, style: 'text' },
      },
    ];
    const { data: certified } = await appendCertificate(original, certificate(pages), stamps);
    const sealed = await seal(certified);
    await assertSealedOver(original, sealed, name === 'openssl-signed.pdf' ? 2 : 1, name);
    const check = await qpdfCheck(sealed);
    assert.ok(!check.errors, `${name}: ${check.output}`);
    const shown = await pdfjsPages(original);
    assert.equal(shown.length, pages, name);
    for (const [index, text] of shown.entries()) {
      const sealedText = popplerPage(sealed, index + 1).replace(stampText, '');
      assertSameText(sealedText, text, `${name}, page ${index + 1}`);
      // And poppler, page for page, reads the same text before and after.
      assert.equal(
        letters(sealedText),
        letters(popplerPage(original, index + 1)),
        `${name}, page ${index + 1}`,
      );
    }
    assert.ok(popplerPage(sealed, 1).includes(stampText), `${name}: the stamp is drawn`);
  }
});

/** The newest trailer's /ID as qpdf reads it. */
function fileId(data: Uint8Array): [string, string] {
  const file = join(folder, `id-${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(file, data);
  const trailer = execFileSync('qpdf', ['--show-object=trailer', file]).toString();
  const match = /\/ID \[ <([0-9a-f]+)> <([0-9a-f]+)> \]/i.exec(trailer);
  assert.ok(match, trailer);
  return [match[1] as string, match[2] as string];
}

test('every update Signet appends takes the file’s cross-reference form and renews its /ID', async () => {
  for (const [name, form] of [
    ['latex-xref-table.pdf', /^xref/],
    ['latex-object-streams.pdf', /^\d+ 0 obj\s*<<[\s\S]*\/Type\s*\/XRef/],
  ] as const) {
    const original = new Uint8Array(readFileSync(join(fixtures, name)));
    const { data: certified } = await appendCertificate(original, certificate(1));
    const sealed = await seal(certified);
    const sections = [
      ...Buffer.from(sealed)
        .toString('latin1')
        .matchAll(/startxref\s+(\d+)/g),
    ].map((m) => Buffer.from(sealed.subarray(Number(m[1]), Number(m[1]) + 400)).toString('latin1'));
    assert.equal(sections.length, 3, `${name}: the original's section, the certificate's and the seal's`);
    for (const section of sections) assert.match(section, form, name);
    const ids = [fileId(original), fileId(certified), fileId(sealed)];
    assert.deepEqual(new Set(ids.map(([first]) => first)).size, 1, `${name}: the first /ID stays`);
    assert.deepEqual(
      new Set(ids.map(([, second]) => second)).size,
      3,
      `${name}: each update a new second /ID`,
    );
  }
});

// A file stored before these rules (written into the files table here, as an older version
// would have accepted it) is not sealed when its document completes: the seal fails with the
// rule's sentence and no sealed file is stored.
describeEachDatabase('a stored file that breaks the reading rules', (kind) => {
  const h = useHarness(kind);

  for (const [what, made] of [
    ['an ambiguous file', async () => (ambiguousPdfs()[0] as [string, Uint8Array])[1]],
    ['a file with JavaScript', () => (activeContentPdfs()[0] as [string, Promise<Uint8Array>, RegExp])[1]],
    // Stored before the one-look rules (issue 48): shown differently on screen and in print.
    ['a print-only annotation', () => (annotationPdfs()[0] as [string, Promise<Uint8Array>, RegExp])[1]],
    // Stored before the decode budget (issue 34): the seal attempt fails, its memory bounded.
    ['a decompression bomb', async () => bombPdf('chained', 1024 ** 3)],
  ] as const) {
    test(`${what} is never sealed`, async () => {
      const workspace = await createTestWorkspace(h.ctx);
      const { data: honest } = await renderTextDocument({
        title: 'Lease',
        body: 'Total price: 100 EUR',
        workspaceName: 'Acme',
        pricing: null,
        createdAt: new Date('2026-11-01T00:00:00Z'),
      });
      const { id, links } = await createSentDocument(h.ctx, workspace.id, {
        recipients: [recipient('zoe@client.example', 'Zoe Stamp')],
        file: honest,
      });
      const data = await made();
      await h.ctx.db.transaction().execute(async (trx) => {
        const { sha256 } = await storeFile(trx, {
          data,
          mediaType: 'application/pdf',
          pages: 1,
          now: h.clock.now(),
        });
        await trx.updateTable('documents').set({ original_sha256: sha256 }).where('id', '=', id).execute();
      });
      const session = links.get('zoe@client.example')?.session;
      assert.ok(session);
      const signed = await signDocument(h.ctx, session, { fullName: 'Zoe Stamp', consent: true });
      assert.equal(signed.completed, true);
      assert.equal(await sealDueDocuments(h.ctx), 1, 'the seal was tried');
      const row = await h.ctx.db
        .selectFrom('documents')
        .select(['sealed_sha256', 'seal_error'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      assert.equal(row.sealed_sha256, null);
      assert.match(row.seal_error ?? '', /cannot be sealed|not a PDF that can be sealed/);
    });
  }
});
