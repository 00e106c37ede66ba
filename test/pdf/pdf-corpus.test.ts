// Real PDFs are not refused (issue 48 §2): files from the programs small companies use, each
// uploaded through `POST /v1/documents`, sent, signed by its recipient and sealed by the
// worker's pass, on both databases; then the sealed file is valid by pdfsig, clean by
// `qpdf --check`, and its page 1 holds the upload's text exactly (pdftotext). The recipient
// has no field to fill, so nothing is stamped on the pages: page 1's text is compared whole.
// And each file's page 1, before and after the seal, looks alike in pdf.js (display and print),
// poppler and MuPDF (test/support/pdf-compare.ts; once, not per database: drawing does not touch it).
//
// The corpus: pdfTeX, LibreOffice (from a Word file: plain, PDF/A-2b, tagged) and Chromium
// files made once and committed (test/fixtures/pdf/README.md says how); the rest made here
// from them by the programs themselves: Ghostscript (pdfwrite, and ps2pdf of a PostScript
// file), cairo (pdftocairo), MuPDF (convert, clean), qpdf (object streams, linearized, both,
// QDF), pdf-lib (with and without object streams), and incremental updates (by pdf-lib, to a
// table file and to an xref-stream file). `.ci/run` installs the programs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { PDFDocument, rgb, StandardFonts } from '@cantoo/pdf-lib';
import { readFile } from '../../src/files/files.service.ts';
import { createApiKey } from '../../src/keys/keys.service.ts';
import { appendCertificate, type Certificate } from '../../src/pdf/certificate.ts';
import { inspectPdf } from '../../src/pdf/inspect.ts';
import { sealPdf } from '../../src/pdf/seal.ts';
import { createSelfSignedSeal } from '../../src/pdf/seal-identity.ts';
import { sealDueDocuments } from '../../src/sealing/sealing.service.ts';
import { signDocument } from '../../src/signing/signing.service.ts';
import {
  callApi,
  createTestWorkspace,
  describeEachDatabase,
  signingLinksOf,
  useHarness,
} from '../support/harness.ts';
import { comparePageRenderings, renderingTolerance } from '../support/pdf-compare.ts';
import { pdfsig, pdftotextPage, qpdfCheck, rewritePdf } from '../support/pdf-tools.ts';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'pdf');
const fixture = (name: string) => new Uint8Array(readFileSync(join(fixtures, name)));

/** A one-page letter drawn by pdf-lib, saved with or without object streams. */
async function pdfLibLetter(useObjectStreams: boolean): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const page = pdf.addPage([595.28, 841.89]);
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  page.drawText('Order confirmation 2027-118', { x: 72, y: 760, size: 20, font });
  page.drawText('Northwind GmbH orders 40 licences at 30 EUR a month.', { x: 72, y: 720, size: 12, font });
  page.drawRectangle({ x: 72, y: 600, width: 300, height: 60, color: rgb(0.9, 0.9, 0.95) });
  return pdf.save({ useObjectStreams });
}

/** `original` with one incremental update by pdf-lib: a line of text added to page 1. */
async function pdfLibUpdate(original: Uint8Array): Promise<Uint8Array> {
  const pdf = await PDFDocument.load(original, { forIncrementalUpdate: true });
  const snapshot = pdf.takeSnapshot();
  const page = pdf.getPage(0);
  snapshot.markRefForSave(page.ref);
  page.drawText('Amended on 3 February 2027', {
    x: 72,
    y: 40,
    size: 10,
    font: await pdf.embedFont(StandardFonts.Helvetica),
  });
  const update = await pdf.saveIncremental(snapshot);
  return new Uint8Array(Buffer.concat([original, update]));
}

const qpdf = (original: Uint8Array, ...options: string[]) =>
  rewritePdf(original, 'qpdf', [...options, '{in}', '{out}']);

async function corpus(): Promise<Array<[string, Uint8Array]>> {
  const latex = fixture('latex-xref-table.pdf');
  const libreOffice = fixture('libreoffice-docx.pdf');
  const chromium = fixture('chromium-print.pdf');
  const gs = ['-q', '-dNOPAUSE', '-dBATCH', '-dSAFER', '-sDEVICE=pdfwrite', '-sOutputFile={out}', '{in}'];
  return [
    ['pdfTeX, a cross-reference table', latex],
    ['pdfTeX, object streams', fixture('latex-object-streams.pdf')],
    [
      'pdfTeX, a form with its own appearances (qpdf --generate-appearances)',
      fixture('latex-form-appearances.pdf'),
    ],
    ['LibreOffice, from a Word file', libreOffice],
    ['LibreOffice, PDF/A-2b', fixture('libreoffice-docx-pdfa.pdf')],
    ['LibreOffice, tagged', fixture('libreoffice-docx-tagged.pdf')],
    ['Chromium, print to PDF', chromium],
    ['Ghostscript, pdfwrite', await rewritePdf(latex, 'gs', gs)],
    [
      'Ghostscript, ps2pdf of PostScript',
      await rewritePdf(fixture('invoice.ps'), 'ps2pdf', ['{in}', '{out}']),
    ],
    ['cairo, pdftocairo', await rewritePdf(libreOffice, 'pdftocairo', ['-pdf', '{in}', '{out}'])],
    [
      'MuPDF, mutool convert',
      await rewritePdf(chromium, 'mutool', ['convert', '-F', 'pdf', '-o', '{out}', '{in}']),
    ],
    [
      'MuPDF, mutool clean',
      await rewritePdf(libreOffice, 'mutool', ['clean', '-gggg', '-z', '{in}', '{out}']),
    ],
    ['qpdf, object streams', await qpdf(libreOffice, '--object-streams=generate')],
    ['qpdf, linearized', await qpdf(libreOffice, '--linearize')],
    ['qpdf, object streams and linearized', await qpdf(chromium, '--object-streams=generate', '--linearize')],
    ['qpdf, QDF', await qpdf(latex, '--qdf')],
    ['pdf-lib, object streams', await pdfLibLetter(true)],
    ['pdf-lib, a cross-reference table', await pdfLibLetter(false)],
    ['an incremental update by pdf-lib, to a table', await pdfLibUpdate(latex)],
    [
      'an incremental update by pdf-lib, to an xref stream',
      await pdfLibUpdate(await qpdf(libreOffice, '--object-streams=generate')),
    ],
  ];
}

const files = corpus();

describeEachDatabase('the corpus of real producers, from upload to sealed file', (kind) => {
  const h = useHarness(kind);

  test('every file is accepted by upload, sent, signed and sealed; the sealed file is valid, clean and keeps page 1’s text', async () => {
    const workspace = await createTestWorkspace(h.ctx);
    const { secret: key } = await createApiKey(h.ctx, {
      workspaceId: workspace.id,
      name: 'corpus',
      scope: 'write',
    });
    for (const [name, original] of await files) {
      const created = await callApi(h, 'POST', '/v1/documents', {
        key,
        body: {
          title: name,
          file: Buffer.from(original).toString('base64'),
          recipients: [{ email: 'zoe@client.example', fullName: 'Zoe Stamp' }],
          send: true,
        },
      });
      assert.equal(created.status, 201, `${name}: ${created.text}`);
      const { id } = created.body.data as { id: string };
      const session = (await signingLinksOf(h.ctx, id)).get('zoe@client.example')?.session;
      assert.ok(session, name);
      const signed = await signDocument(h.ctx, session, { fullName: 'Zoe Stamp', consent: true });
      assert.equal(signed.completed, true, name);
      assert.equal(await sealDueDocuments(h.ctx), 1, `${name}: sealed`);
      const row = await h.ctx.db
        .selectFrom('documents')
        .select(['original_sha256', 'sealed_sha256', 'seal_error'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      assert.ok(row.sealed_sha256, `${name}: ${row.seal_error}`);
      const stored = await readFile(h.ctx.db, row.original_sha256 as string);
      assert.deepEqual(stored, Buffer.from(original), `${name}: the upload is stored as it came`);
      const sealed = await readFile(h.ctx.db, row.sealed_sha256);
      assert.ok(sealed);
      const signatures = (await pdfsig(sealed)).signatures;
      assert.equal(signatures.length, 1, name);
      assert.equal(signatures[0]?.validation, 'Signature is Valid.', `${name}: ${signatures[0]?.text}`);
      assert.ok(signatures[0]?.totalDocumentSigned, `${name}: the seal covers the whole file`);
      const check = await qpdfCheck(sealed);
      assert.ok(!check.errors && !check.warnings, `${name}: ${check.output}`);
      assert.equal(
        await pdftotextPage(sealed, 1),
        await pdftotextPage(original, 1),
        `${name}: page 1's text`,
      );
    }
  });
});

const certificate = (pages: number): Certificate => {
  const at = new Date('2027-02-03T10:00:00Z');
  return {
    documentId: '6f1c2b8e-0000-4000-8000-000000000048',
    title: 'Corpus',
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
        email: 'zoe@client.example',
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
};

test('every file’s page 1 looks alike in pdf.js (display and print), poppler and MuPDF, before and after the seal', async (t) => {
  const { identity } = await createSelfSignedSeal({ commonName: 'Signet test seal', now: new Date() });
  for (const [name, original] of await files) {
    // What the seal pass makes (sealing.service.ts): the certificate appended, then the seal.
    const { pages } = await inspectPdf(original, { maxBytes: 25 * 1024 * 1024 });
    const { data: certified } = await appendCertificate(original, certificate(pages));
    const sealed = await sealPdf(certified, identity, {
      signedAt: new Date(),
      name: 'Signet',
      reason: 'test',
      fieldName: 'Signet seal corpus',
    });
    for (const [which, data] of [
      ['uploaded', original],
      ['sealed', sealed],
    ] as const) {
      const { pairs, worst: share } = await comparePageRenderings(data, 1);
      // The figures behind the tolerance (docs/performance.md), in the test's report.
      t.diagnostic(`${name}, ${which}: the worst pair differs on ${(share * 100).toFixed(3)}% of page 1`);
      for (const { a, b, differing } of pairs) {
        assert.ok(
          differing <= renderingTolerance,
          `${name}, ${which}: ${a} and ${b} differ on ${(differing * 100).toFixed(2)}% of page 1`,
        );
      }
    }
  }
});
