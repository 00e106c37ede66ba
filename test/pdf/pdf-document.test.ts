// The PDFs Signet writes itself (a text document, the certificate of completion), the faces
// they are set in, and the upload rule, checked with tools no one here wrote: pdftotext,
// pdfinfo and qpdf (poppler-utils and qpdf, installed by .ci/run).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { PDFDocument, PDFName } from '@cantoo/pdf-lib';
import { pricingView } from '../../src/documents/pricing.ts';
import { InputError } from '../../src/input-error.ts';
import { appendCertificate, type Certificate } from '../../src/pdf/certificate.ts';
import { inspectPdf, maxPages } from '../../src/pdf/inspect.ts';
import { sealPdf } from '../../src/pdf/seal.ts';
import { createSelfSignedSeal } from '../../src/pdf/seal-identity.ts';
import { renderTextDocument } from '../../src/pdf/text-document.ts';
import { runsOf } from '../../src/pdf/text-runs.ts';
import { assertSealedOver, pdfImageList, pdfPageCount, pdftotext, qpdfCheck } from '../support/pdf-tools.ts';

const text = pdftotext;
const pages = pdfPageCount;

async function assertQpdfClean(pdf: Uint8Array): Promise<void> {
  const check = await qpdfCheck(pdf);
  assert.ok(!check.errors && !check.warnings, check.output);
}

const names = {
  latin: 'Zoë Łukasiewicz-Ørsted',
  greek: 'Σωκράτης Παπαδόπουλος',
  cyrillic: 'Жанна Ренуар',
  cjk: '山田太郎',
};

test('a text document becomes a PDF whose text is all there, in every script the fonts cover', async () => {
  const { data: pdf } = await renderTextDocument({
    title: `Agreement ${names.greek} ${names.cjk}`,
    body: `This agreement is made between ${names.latin} and ${names.cyrillic}.\n\nClause 2. ${'Words that wrap. '.repeat(400)}`,
    workspaceName: 'Acme GmbH',
    pricing: pricingView({
      currency: 'EUR',
      pricesIncludeVat: false,
      items: [
        {
          name: 'Consulting',
          quantity: '10',
          unitPrice: '150.00',
          vatRate: '19',
          billing: { type: 'one-off' },
        },
      ],
    }),
    createdAt: new Date('2026-11-25T10:00:00Z'),
  });
  await assertQpdfClean(pdf);
  const words = await text(pdf);
  for (const name of Object.values(names))
    assert.ok(words.includes(name), `${name} in ${words.slice(0, 300)}`);
  assert.match(words, /Consulting/);
  assert.match(words, /€1,785\.00/, 'the gross total');
  assert.ok((await pages(pdf)) >= 2, 'a long body runs over to more pages');
  assert.match(words, /page 1 of \d/);
});

test('the same document makes the same file', async () => {
  const input = { title: 'Same', body: 'Body', workspaceName: 'Acme', pricing: null, createdAt: new Date(0) };
  assert.deepEqual((await renderTextDocument(input)).data, (await renderTextDocument(input)).data);
});

test('a text is set in the first face that encodes each of its characters', () => {
  assert.deepEqual(
    runsOf('text', `Łódź ${names.cjk}`).map((r) => r.face),
    ['sans', 'cjk'],
  );
  assert.deepEqual(
    runsOf('handwriting', names.latin).map((r) => r.face),
    ['hand'],
  );
  assert.deepEqual(
    runsOf('handwriting', names.cyrillic).map((r) => r.face),
    ['hand'],
  );
  // Caveat has no Greek: a Greek name is set in Noto Sans rather than in missing glyphs.
  assert.deepEqual(
    runsOf('handwriting', names.greek).map((r) => r.face),
    ['sans'],
  );
  assert.deepEqual(
    runsOf('handwriting', names.cjk).map((r) => r.face),
    ['cjk'],
  );
});

const at = (minute: number) => new Date(Date.UTC(2026, 10, 25, 9, minute));

function certificateOf(overrides: Partial<Certificate> = {}): Certificate {
  const signer = (fullName: string, email: string, ip: string, minute: number) => ({
    fullName,
    email,
    role: 'signer',
    signingMethod: 'standard',
    sent: null,
    openedAt: at(minute),
    signedAt: at(minute + 1),
    declinedAt: null,
    clientIp: ip,
    userAgent: `Browser of ${email}`,
    signature: { kind: 'typed' as const, name: fullName },
    fields: [],
  });
  return {
    documentId: '6f1c2b8e-0000-4000-8000-000000000001',
    title: 'Service agreement',
    workspaceName: 'Acme GmbH',
    originalSha256: 'ab'.repeat(32),
    originalPages: 1,
    sentAt: at(0),
    completedAt: at(12),
    verifyUrl: 'https://sign.example.com/verify',
    language: 'en' as const,
    recipients: [
      signer(names.latin, 'zoe@example.com', '203.0.113.7', 1),
      signer(names.greek, 'sokratis@example.gr', '2001:db8::7', 5),
      signer(names.cyrillic, 'zhanna@example.com', '198.51.100.4', 8),
      signer(names.cjk, 'taro@example.jp', '192.0.2.9', 10),
      {
        fullName: 'Vera Viewer',
        email: 'vera@example.com',
        role: 'viewer',
        signingMethod: 'standard',
        sent: null,
        openedAt: null,
        signedAt: null,
        declinedAt: null,
        clientIp: null,
        userAgent: null,
        signature: null,
        fields: [],
      },
    ],
    events: [
      { at: at(0), label: 'Sent', recipientEmail: null, clientIp: null, userAgent: null },
      {
        at: at(1),
        label: 'Opened',
        recipientEmail: 'zoe@example.com',
        clientIp: '203.0.113.7',
        userAgent: 'Browser of zoe@example.com',
      },
      {
        at: at(2),
        label: 'Signed',
        recipientEmail: 'zoe@example.com',
        clientIp: '203.0.113.7',
        userAgent: 'Browser of zoe@example.com',
      },
      {
        at: at(11),
        label: 'Signed',
        recipientEmail: 'taro@example.jp',
        clientIp: '192.0.2.9',
        userAgent: 'Browser of taro@example.jp',
      },
    ],
    ...overrides,
  };
}

test('the certificate is appended to the original, whose bytes stay as they were', async () => {
  const { data: original } = await renderTextDocument({
    title: 'Service agreement',
    body: 'Terms.',
    workspaceName: 'Acme GmbH',
    pricing: null,
    createdAt: at(0),
  });
  const { data: certified, pages: certifiedPages } = await appendCertificate(original, certificateOf());
  assert.deepEqual(certified.subarray(0, original.byteLength), original, 'an incremental update');
  await assertQpdfClean(certified);
  assert.ok((await pages(certified)) > 1);
  assert.equal(certifiedPages, await pages(certified));
  const words = await text(certified);
  assert.match(words, /Certificate of completion/);
  assert.match(words, /6f1c2b8e-0000-4000-8000-000000000001/);
  assert.ok(words.includes('ab'.repeat(32)), 'the original file hash');
  for (const name of Object.values(names)) assert.ok(words.includes(name), name);
  for (const ip of ['203.0.113.7', '2001:db8::7', '198.51.100.4', '192.0.2.9'])
    assert.ok(words.includes(ip), ip);
  for (const email of [
    'zoe@example.com',
    'sokratis@example.gr',
    'zhanna@example.com',
    'taro@example.jp',
    'vera@example.com',
  ]) {
    assert.ok(words.includes(email), email);
  }
  assert.match(
    words,
    /2026-11-25 09:11:00 Signed taro@example\.jp 192\.0\.2\.9 Browser of taro@example\.jp/,
    'an event row',
  );
  assert.match(words, /Browser of zoe@example\.com/, 'the user agent');
  assert.ok(words.includes('https://sign.example.com/verify'));
});

// Faces share their decoded tables across the documents of a process (fonts.ts), never their
// glyphs: fontkit keeps a glyph with the characters it was first made for, and the dotless ı
// that a subset makes as a part of ì í î ï has none. Shared, it left every later document's
// ı out of its text layer (no other test here draws an ı before this one).
test('a certificate made after another document has all of its text', async () => {
  const { data: original } = await renderTextDocument({
    title: 'T',
    body: 'ì í î ï',
    workspaceName: 'W',
    pricing: null,
    createdAt: at(0),
  });
  const base = certificateOf();
  const first = base.recipients[0] as Certificate['recipients'][number];
  const certificate = certificateOf({ recipients: [{ ...first, fullName: 'Kıvanç Yıldız' }] });
  const words = await text((await appendCertificate(original, certificate)).data);
  assert.ok(words.includes('Kıvanç Yıldız <zoe@example.com>'), words);
});

test('a drawn signature is drawn in its block', async () => {
  const { data: original } = await renderTextDocument({
    title: 'T',
    body: '',
    workspaceName: 'W',
    pricing: null,
    createdAt: at(0),
  });
  // A 2×1 PNG (black, transparent), as the signature pad sends.
  const png = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAYAAAD0In+KAAAAEUlEQVR4nGNgYGD4z8DAwAAABQAB6ZyKngAAAABJRU5ErkJggg==',
    'base64',
  );
  const base = certificateOf();
  const certificate = certificateOf({
    recipients: [
      { ...(base.recipients[0] as Certificate['recipients'][number]), signature: { kind: 'drawn', png } },
    ],
  });
  const { data: certified } = await appendCertificate(original, certificate);
  assert.match(await pdfImageList(certified), /image\s+2\s+1 /);
});

const folder = mkdtempSync(join(tmpdir(), 'signet-pdf-'));

function writeTemp(pdf: Uint8Array): string {
  const file = join(folder, `${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(file, pdf);
  return file;
}

async function refusal(data: Uint8Array, maxBytes = 25 * 1024 * 1024): Promise<string> {
  try {
    await inspectPdf(data, { maxBytes });
  } catch (error) {
    assert.ok(error instanceof InputError, String(error));
    assert.deepEqual(Object.keys(error.fields), ['file']);
    return error.fields.file as string;
  }
  assert.fail('the file was accepted');
}

test('an upload is refused with one sentence when it is not a whole, open PDF of at most 500 pages', async () => {
  const { data: good } = await renderTextDocument({
    title: 'T',
    body: 'B',
    workspaceName: 'W',
    pricing: null,
    createdAt: at(0),
  });
  assert.deepEqual(await inspectPdf(good, { maxBytes: 1e6 }), {
    pages: 1,
    pageSizes: [{ width: 595.28, height: 841.89 }],
  });
  assert.match(await refusal(new Uint8Array()), /empty/);
  assert.match(await refusal(Buffer.from('Name,Amount\nAnn,1\n')), /not a PDF/);
  assert.match(await refusal(good.subarray(0, good.byteLength - 100)), /incomplete/);
  assert.match(await refusal(Buffer.concat([good.subarray(0, 600), Buffer.from('\n%%EOF\n')])), /incomplete/);
  assert.match(
    await refusal(Buffer.from('%PDF-1.7\n1 0 obj <<>> endobj\nstartxref\n9\n%%EOF\n')),
    /damaged|no pages/,
  );
  assert.match(await refusal(good, 1024), /larger than 1 KB/);
  const source = writeTemp(good);
  // Beside the four ciphers of the upload test (uploads.test.ts): AES-256 as revision 6 and as
  // Acrobat 9's revision 5, metadata left unencrypted (/EncryptMetadata false changes the file
  // key), permissions withheld, and an owner password as empty as the user's.
  for (const [what, options, opens] of [
    ['R6', ['--encrypt', 'secret', 'owner', '256', '--'], false],
    ['R6, no user password', ['--encrypt', '', 'owner', '256', '--'], true],
    ['R5', ['--allow-weak-crypto', '--encrypt', 'secret', 'owner', '256', '--force-R5', '--'], false],
    [
      'R5, no user password',
      ['--allow-weak-crypto', '--encrypt', '', 'owner', '256', '--force-R5', '--'],
      true,
    ],
    [
      'AES-128, clear metadata',
      ['--encrypt', 'secret', 'owner', '128', '--use-aes=y', '--cleartext-metadata', '--'],
      false,
    ],
    [
      'AES-128, clear metadata, no user password',
      ['--encrypt', '', 'owner', '128', '--use-aes=y', '--cleartext-metadata', '--'],
      true,
    ],
    [
      'no changes or printing allowed',
      ['--encrypt', '', 'owner', '256', '--modify=none', '--print=none', '--'],
      true,
    ],
    ['both passwords empty', ['--encrypt', '', '', '256', '--'], true],
  ] as const) {
    const target = join(folder, `encrypted-${what.replace(/\W+/g, '-')}.pdf`);
    execFileSync('qpdf', [...options, source, target]);
    assert.match(
      await refusal(readFileSync(target)),
      opens
        ? /^This PDF opens without a password, but it is encrypted/
        : /^This PDF needs a password to open/,
      what,
    );
  }
  // A certified PDF (a certifying signature's /DocMDP in the catalog's /Perms) forbids the
  // certificate pages completion adds.
  const certified = await PDFDocument.load(good);
  const signatureDictionary = certified.context.obj({ Type: 'Sig', Filter: 'Adobe.PPKLite' });
  certified.catalog.set(
    PDFName.of('Perms'),
    certified.context.obj({ DocMDP: certified.context.register(signatureDictionary) }),
  );
  assert.match(await refusal(await certified.save()), /certified by its author against changes/);
  const many = await PDFDocument.create();
  for (let i = 0; i <= maxPages; i += 1) many.addPage([100, 100]);
  assert.match(await refusal(await many.save()), /501 pages; a document may have at most 500/);
});

// The real-world files of test/fixtures/pdf (README there says how each was made): the
// certificate is appended and the whole sealed the way completion does it, and every
// reader agrees: pdfsig (every signature valid, ours covering the whole file, another
// tool's earlier signature still valid), qpdf --check, and pdftotext finds the certificate.
const fixtures = join(import.meta.dirname, '..', 'fixtures', 'pdf');
for (const name of [
  'latex-xref-table.pdf',
  'latex-object-streams.pdf',
  'latex-form-appearances.pdf',
  'chromium-print.pdf',
  'openssl-signed.pdf',
]) {
  test(`${name}: the certificate is appended and the file sealed; every signature stays valid`, async () => {
    const original = readFileSync(join(fixtures, name));
    const { pages: before } = await inspectPdf(original, { maxBytes: 25 * 1024 * 1024 });
    const { data: certified, pages: after } = await appendCertificate(original, certificateOf());
    assert.ok(after > before, 'the certificate pages follow the original ones');
    const { identity } = await createSelfSignedSeal({ commonName: 'Signet test seal', now: new Date() });
    const sealed = await sealPdf(certified, identity, {
      signedAt: new Date(),
      name: 'Signet',
      reason: 'test',
      fieldName: 'Signet seal test',
    });
    await assertSealedOver(original, sealed, name === 'openssl-signed.pdf' ? 2 : 1, name);
    assert.match(await pdftotext(sealed), /Certificate of completion/);
    assert.equal(await pdfPageCount(sealed), after);
  });
}
