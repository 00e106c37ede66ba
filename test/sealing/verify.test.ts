// Verifying a sealed PDF (issue 23, "Verify"; issue 33, "/verify says unchanged only when
// nothing changed"): the public /verify page and `signet verify`.
// A document sealed by this installation verifies as sealed and unchanged, naming its title
// and id; one changed byte, bytes after %%EOF and an incremental update each make it
// "changed after sealing" (and pdfsig agrees about the changed byte); a PDF sealed by
// another seal, an unsigned PDF and a text file each get their own sentence. The page is
// public, sessionless and limited per address; the CLI says the same, with exit codes.
// The seal's /Contents is outside what it signs, so the tests make the attacks on it
// themselves: a time-stamp replaced by another authority's with an earlier time, one stamping
// other bytes, an earlier one from the pinned authority, one removed, data in the padding, a
// byte of the seal certificate changed; and an upload with planted 'Signet seal <id>' widgets
// naming another workspace's document.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import type { Context } from '../../src/context.ts';
import { findFullDocument } from '../../src/documents/documents.repository.ts';
import { readFile } from '../../src/files/files.service.ts';
import { sealPdf } from '../../src/pdf/seal.ts';
import { createSelfSignedSeal } from '../../src/pdf/seal-identity.ts';
import { createTsaTimestamper } from '../../src/pdf/timestamp.ts';
import { inspectSeals } from '../../src/pdf/verify.ts';
import { currentSeal, describeSeal } from '../../src/sealing/seal-key.ts';
import { sealDueDocuments } from '../../src/sealing/sealing.service.ts';
import { readerNote, verifyPdf } from '../../src/sealing/verification.service.ts';
import { signDocument } from '../../src/signing/signing.service.ts';
import { launchChromium, openPage, screenshotDir, viewports } from '../support/chromium.ts';
import { describeRun, runSignet } from '../support/cli-process.ts';
import {
  createDraftDocument,
  createSentDocument,
  createTestWorkspace,
  databaseKinds,
  describeEachDatabase,
  recipient,
  useHarness,
} from '../support/harness.ts';
import {
  certifiedReference,
  fieldLock,
  lockedReference,
  pdfsig,
  qpdfSealPermissions,
  startTestTsa,
} from '../support/pdf-tools.ts';
import { wholePageScreenshots } from '../support/screenshots.ts';
import { assertPage, createWebClient, type WebResponse } from '../support/web-client.ts';

const folder = mkdtempSync(join(tmpdir(), 'signet-verify-'));
const fixtures = join(import.meta.dirname, '..', 'fixtures', 'pdf');
after(() => rmSync(folder, { recursive: true, force: true }));

// This installation's time-stamp authority (pinned by SIGNET_SEAL_TSA_CERT_FILE), and another
// one, as anyone can run, that stamps whatever time it is told.
const tsa = await startTestTsa(new Date());
const evilTsa = await startTestTsa(new Date('2025-01-01T00:00:00Z'), { name: 'Evil Backdating TSA' });
after(() => Promise.all([tsa.close(), evilTsa.close()]));
const tsaCertFile = join(folder, 'tsa.pem');
writeFileSync(tsaCertFile, tsa.certificatePem);
const tsaEnv = { SIGNET_SEAL_TSA_URL: tsa.url, SIGNET_SEAL_TSA_CERT_FILE: tsaCertFile };

// ---- The seal's container, taken apart and put together as an attacker would ----

type Der = { start: number; body: number; end: number };

function element(bytes: Uint8Array, at: number): Der {
  const first = bytes[at + 1] ?? 0;
  const count = first & 0x80 ? first & 0x7f : 0;
  let length = count ? 0 : first;
  for (let i = 0; i < count; i++) length = length * 256 + (bytes[at + 2 + i] ?? 0);
  const body = at + 2 + count;
  return { start: at, body, end: body + length };
}

function children(bytes: Uint8Array, parent: Der): Der[] {
  const found: Der[] = [];
  for (let at = parent.body; at < parent.end; at = (found.at(-1) as Der).end) found.push(element(bytes, at));
  return found;
}

function tlv(tag: number, ...parts: Uint8Array[]): Buffer {
  const body = Buffer.concat(parts);
  const length = body.length;
  const octets: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) octets.unshift(n % 256);
  const header = length < 0x80 ? [tag, length] : [tag, 0x80 | octets.length, ...octets];
  return Buffer.concat([Buffer.from(header), body]);
}

/** The last seal's /Contents: where its hex digits are, and the CMS at their start. */
function sealContents(pdf: Uint8Array): { start: number; end: number; cms: Buffer } {
  const text = Buffer.from(pdf).toString('latin1');
  const start = text.lastIndexOf('/Contents <') + '/Contents <'.length;
  const end = text.indexOf('>', start);
  const decoded = Buffer.from(text.slice(start, end), 'hex');
  return { start, end, cms: decoded.subarray(0, element(decoded, 0).end) };
}

/** `pdf` with its seal's /Contents holding `cms`, then `after` (nothing), then zeros: the same length. */
function withContents(pdf: Uint8Array, cms: Uint8Array, after = Buffer.alloc(0)): Buffer {
  const { start, end } = sealContents(pdf);
  const hex = Buffer.concat([cms, after]).toString('hex').toUpperCase();
  assert.ok(hex.length <= end - start, 'fits the placeholder');
  const changed = Buffer.from(pdf);
  changed.write(hex.padEnd(end - start, '0'), start, 'latin1');
  return changed;
}

// ContentInfo → [0] → SignedData (version, digests, content, [0] certificates, signerInfos).
function signerInfoOf(cms: Buffer) {
  const [type, wrapper] = children(cms, element(cms, 0)) as [Der, Der];
  const signedData = children(cms, wrapper)[0] as Der;
  const fields = children(cms, signedData);
  const signerInfo = children(cms, fields[4] as Der)[0] as Der;
  return { type, fields, parts: children(cms, signerInfo) };
}

/** The seal's signature value: what its signature time-stamp stamps. */
function signatureValue(cms: Buffer): Buffer {
  const value = signerInfoOf(cms).parts[5] as Der;
  return cms.subarray(value.body, value.end);
}

/** The CMS with its time-stamp token replaced by `token`, or removed, written as Signet writes it. */
function withToken(cms: Buffer, token: Uint8Array | null): Buffer {
  const { type, fields, parts } = signerInfoOf(cms);
  const slice = (e: Der) => cms.subarray(e.start, e.end);
  const stampOid = Buffer.from('060b2a864886f70d010910020e', 'hex');
  const unsigned = token ? [tlv(0xa1, tlv(0x30, stampOid, tlv(0x31, token)))] : [];
  const signerInfo = tlv(0x30, ...parts.slice(0, 6).map(slice), ...unsigned);
  const signedData = tlv(0x30, ...fields.slice(0, 4).map(slice), tlv(0x31, signerInfo));
  return tlv(0x30, slice(type), tlv(0xa0, signedData));
}

/** The sentence of each change (verification.service.ts), as the page and the CLI say it. */
const changeSentence: Record<string, RegExp> = {
  'timestamp-foreign':
    /the seal’s signature holds, but its time-stamp is not from this Signet’s time-stamp authority \(it was replaced\)/,
  'timestamp-invalid':
    /the seal’s signature holds, but its time-stamp does not verify against it \(it was replaced or altered\)/,
  'timestamp-early':
    /the seal’s signature holds, but its time-stamp is earlier than the seal itself \(it was replaced\)/,
  'timestamp-removed':
    /the seal’s signature holds, but its time-stamp was removed \(this Signet time-stamps every seal\)/,
  container: /the seal’s signature holds, but its container was altered after sealing/,
  'seal-altered':
    /this Signet’s seal in it was altered \(its certificate or signature\), so nothing in it can be trusted/,
};

type Attack = { what: string; change: string; make: (sealed: Uint8Array) => Promise<Uint8Array> };

/** The attacks on a sealed file's /Contents (its signature still holds in each), and the change each must be called. */
const containerAttacks: Attack[] = [
  {
    what: 'the time-stamp replaced by another authority’s, dated before the seal',
    change: 'timestamp-foreign',
    make: async (sealed) => {
      const { cms } = sealContents(sealed);
      const token = await createTsaTimestamper(evilTsa.url)(signatureValue(cms));
      return withContents(sealed, withToken(cms, token));
    },
  },
  {
    what: 'the time-stamp replaced by one of this authority’s for other bytes',
    change: 'timestamp-invalid',
    make: async (sealed) => {
      const { cms } = sealContents(sealed);
      const token = await createTsaTimestamper(tsa.url)(Buffer.from('another signature'));
      return withContents(sealed, withToken(cms, token));
    },
  },
  {
    what: 'the time-stamp removed',
    change: 'timestamp-removed',
    make: async (sealed) => {
      const { cms } = sealContents(sealed);
      return withContents(sealed, withToken(cms, null));
    },
  },
  {
    what: 'arbitrary bytes in the padding after the signature',
    change: 'container',
    make: async (sealed) =>
      withContents(sealed, sealContents(sealed).cms, Buffer.from('Anything at all, carried under the seal')),
  },
  {
    what: 'the signature written again with a long-form length (BER, not DER)',
    change: 'container',
    make: async (sealed) => {
      const { cms } = sealContents(sealed);
      const root = element(cms, 0);
      const length = root.end - root.body;
      const rewritten = Buffer.concat([
        Buffer.from([0x30, 0x84, length >>> 24, (length >>> 16) & 255, (length >>> 8) & 255, length & 255]),
        cms.subarray(root.body),
      ]);
      return withContents(sealed, rewritten);
    },
  },
];

/** One byte of the seal certificate inside the signature changed: a letter of its issuer's name. */
function withCertificateByteChanged(sealed: Uint8Array): Buffer {
  const { cms } = sealContents(sealed);
  const certificates = signerInfoOf(cms).fields[3] as Der;
  // The certificates come first in the signature, so the first 'Document seal' (the installation
  // seal's common name, seal-key.ts) is in the seal's issuer.
  const letter = cms.indexOf('Document seal', 0, 'latin1') + 1;
  assert.ok(letter > certificates.start && letter < certificates.end, 'inside the seal certificate');
  const changed = Buffer.from(cms);
  changed[letter] = changed[letter] === 0x69 ? 0x6f : 0x69;
  return withContents(sealed, changed);
}

/**
 * A PDF whose bytes carry, in an uncompressed stream no page uses, widget dictionaries
 * 'Signet seal <victimId>' pointing (/V) at each object number from 1 to 3000: whichever
 * number the seal's signature dictionary takes, the first /V in the file that points at it
 * names the victim's document.
 */
async function withPlantedSealFields(victimId: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage().drawText('An ordinary contract', { x: 50, y: 700, size: 14, font });
  const planted = Array.from(
    { length: 3000 },
    (_, i) =>
      `${9000 + i} 0 obj\n<< /Type /Annot /Subtype /Widget /FT /Sig /T (Signet seal ${victimId}) /V ${i + 1} 0 R >>\nendobj\n`,
  ).join('');
  doc.context.register(doc.context.stream(planted));
  return doc.save({ useObjectStreams: false });
}

// Every rule, whatever its impact (chromium.ts's checkAccessibility fails only serious ones).
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const pdfFile = (data: Uint8Array, name = 'contract (signed).pdf') =>
  new File([data], name, { type: 'application/pdf' });

/** The file with one byte inside the first signed range changed: the header's version digit. */
function changeOneByte(pdf: Uint8Array): Buffer {
  const changed = Buffer.from(pdf);
  const at = changed.indexOf('%PDF-1.', 0, 'latin1') + 7;
  changed[at] = changed[at] === 0x36 ? 0x37 : 0x36;
  return changed;
}

/** An incremental update, as a PDF editor saves one: text drawn on the first page. */
async function withIncrementalUpdate(pdf: Uint8Array): Promise<Uint8Array> {
  const doc = await PDFDocument.load(pdf, { forIncrementalUpdate: true });
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.getPage(0).drawText('Paid in full', { x: 50, y: 50, size: 12, font });
  return doc.commit();
}

async function unsignedPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage().drawText('A contract nobody sealed', { x: 50, y: 700, size: 14, font });
  return doc.save({ useObjectStreams: false });
}

/** A PDF sealed by another seal (self-signed, made here), the same way Signet seals. */
async function sealedElsewhere(): Promise<Uint8Array> {
  const { identity } = await createSelfSignedSeal({
    commonName: 'Other Signet (other.example)',
    organization: 'Other Ltd',
    now: new Date('2026-01-01T00:00:00Z'),
  });
  return sealPdf(await unsignedPdf(), identity, {
    signedAt: new Date('2026-02-01T10:00:00Z'),
    name: 'Signet',
    reason: 'Completed and sealed by Signet: document 0195936a-2b4c-7d8e-9f01-23456789abcd',
    fieldName: 'Signet seal 0195936a-2b4c-7d8e-9f01-23456789abcd',
  });
}

/** "2026-03-01 12:00:05 UTC", as the answer writes times. */
const utc = (date: Date) => `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;

/** The page without the line-break hints a fingerprint carries after each colon. */
const withoutBreaks = (page: WebResponse) => page.text.replaceAll('<wbr>', '');

/** The page's one-sentence answer (the status box). */
function sentenceOf(page: WebResponse): string {
  return (/<div class="box [^"]*" role="status"><p><strong>(.*?)<\/strong>/.exec(page.text)?.[1] ?? '')
    .replaceAll('&amp;', '&')
    .replaceAll('&#39;', "'")
    .replaceAll('&quot;', '"');
}

describeEachDatabase('verifying a sealed PDF', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: 'true', ...tsaEnv } });
  let addresses = 0;
  /** A visitor with an address of their own, so the per-address limit counts only them. */
  const visitor = () =>
    createWebClient(h.baseUrl, { address: `10.77.${addresses >> 8}.${addresses++ & 255}` });

  async function sealedDocument(title: string, sealingCtx: Context = h.ctx, file?: Uint8Array) {
    const workspace = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, workspace.id, {
      title,
      recipients: [recipient('ann@client.example', 'Ann Lee')],
      ...(file ? { file } : {}),
    });
    const session = links.get('ann@client.example')?.session;
    assert.ok(session);
    await signDocument(h.ctx, session, { fullName: 'Ann Lee', consent: true });
    h.clock.advance(5_000);
    tsa.setTime(new Date(h.clock.now().getTime() + 1_000));
    await sealDueDocuments(sealingCtx);
    const document = await findFullDocument(h.ctx.db, workspace.id, id);
    const sealed = document?.sealed_sha256 && (await readFile(h.ctx.db, document.sealed_sha256));
    assert.ok(sealed, 'the document was sealed');
    return { id, sealed, sha256: document.sealed_sha256 as string, sealedAt: utc(h.clock.now()) };
  }

  /**
   * A file sealed by this installation's seal as Signet seals, with a time-stamp from its
   * authority dated `stampedAt` after the seal, for a document this database does not hold:
   * no stored copy to compare with, so only the container can say it is unchanged.
   */
  async function sealedWithoutStoredCopy(stampedAfterMs = 2_000) {
    const id = randomUUID();
    tsa.setTime(new Date(h.clock.now().getTime() + stampedAfterMs));
    const sealed = await sealPdf(
      await unsignedPdf(),
      (await currentSeal(h.ctx)).identity,
      {
        signedAt: h.clock.now(),
        name: 'Signet',
        reason: `Completed and sealed by Signet: document ${id}`,
        location: 'sign.example.test',
        contactInfo: 'https://sign.example.test',
        fieldName: `Signet seal ${id}`,
      },
      { timestamp: createTsaTimestamper(tsa.url) },
    );
    return {
      id,
      sealed,
      sealedAt: utc(h.clock.now()),
      stampedAt: utc(new Date(h.clock.now().getTime() + stampedAfterMs)),
    };
  }

  async function verify(data: Uint8Array, name?: string): Promise<WebResponse> {
    return visitor().post('/verify', { file: pdfFile(data, name) });
  }

  test('GET /verify is a public form: multipart, a file input, no script, no session, the plain pages’ headers', async () => {
    const page = await visitor().get('/verify');
    assertPage(page, 200);
    assert.match(page.text, /<form method="post" action="\/verify" enctype="multipart\/form-data">/);
    assert.match(
      page.text,
      /<input id="file" name="file" type="file" accept="application\/pdf,\.pdf" required/,
    );
    assert.doesNotMatch(page.text, /<script|name="_csrf"/);
    assert.equal(page.headers.get('set-cookie'), null);
    assert.match(
      page.headers.get('content-security-policy') ?? '',
      /default-src 'none'.*frame-ancestors 'none'/,
    );
    assert.equal(page.headers.get('x-frame-options'), 'DENY');
    assert.equal(page.headers.get('cache-control'), 'no-store');
    assertPage(await visitor().get('/verify/'), 200);
    assertPage(await visitor().get('/verify/anything'), 404);
  });

  test('a sealed document’s file verifies as sealed and unchanged, naming its title, id, seal and hash', async () => {
    const { id, sealed, sha256, sealedAt } = await sealedDocument('Lease for Łódź & “Sons”');
    const page = await verify(sealed);
    assertPage(page, 200);
    assert.equal(
      sentenceOf(page),
      `Sealed by this Signet for document “Lease for Łódź & “Sons”” on ${sealedAt}; unchanged since.`,
    );
    const seal = await describeSeal(h.ctx);
    for (const expected of [
      id,
      sha256,
      seal.subject,
      seal.fingerprintSha256,
      'Identical to this file',
      'Result for contract (signed).pdf',
    ]) {
      assert.ok(withoutBreaks(page).includes(expected), `${expected} on the page`);
    }
    assert.match(page.text, /<div class="box box-success" role="status">/);
    // What a PDF reader will show about this self-signed seal, and what makes it show valid.
    const note = /<p class="small table-note" id="reader-note">(.*?)<\/p>/.exec(page.text)?.[1] ?? '';
    for (const expected of [
      'PDF readers check this seal offline too',
      'its own self-signed certificate',
      'validity unknown',
      'issuer unknown',
      'That does not mean the file was changed: this page confirms it.',
      'the operator of this Signet configures a seal certificate from an authority on the Adobe Approved Trust List or the EU Trusted Lists',
      'trust this seal’s certificate in your reader by hand',
    ]) {
      assert.ok(note.includes(expected), `${expected} in the note: ${note}`);
    }
    assert.ok(
      !(await verify(changeOneByte(sealed))).text.includes('reader-note'),
      'only beside an unchanged seal',
    );
  });

  test('the seal certifies the document, no changes permitted: qpdf reads DocMDP P 1 and /Perms naming it, pdfsig says valid, /verify unchanged and a form fill after it changed', async () => {
    const { id, sealed, sealedAt } = await sealedDocument('Certified lease');
    const permissions = await qpdfSealPermissions(sealed, `Signet seal ${id}`);
    assert.deepEqual(permissions.reference, certifiedReference);
    assert.ok(permissions.permsNameIt, `/Perms: ${JSON.stringify(permissions.perms)}`);
    assert.equal(permissions.lock, undefined);
    const { signatures, output } = await pdfsig(sealed);
    assert.equal(signatures.length, 1, output);
    assert.equal(signatures[0]?.validation, 'Signature is Valid.', output);
    assert.ok(signatures[0]?.totalDocumentSigned, output);
    const page = await verify(sealed);
    assert.equal(
      sentenceOf(page),
      `Sealed by this Signet for document “Certified lease” on ${sealedAt}; unchanged since.`,
    );
    // What a reader that judges permissions is now told to report: a change after the seal.
    const filled = await withIncrementalUpdate(sealed);
    assert.match(
      sentenceOf(await verify(filled)),
      /^This file was changed after it was sealed: something was added after the seal this Signet made for document “Certified lease”/,
    );
  });

  test('a file uploaded with another signer’s signature: the seal locks its own field (FieldMDP, /Lock P 1), both signatures stay valid, /verify unchanged', async () => {
    const upload = readFileSync(join(fixtures, 'openssl-signed.pdf'));
    const { id, sealed, sealedAt } = await sealedDocument('Countersigned invoice', h.ctx, upload);
    const permissions = await qpdfSealPermissions(sealed, `Signet seal ${id}`);
    assert.deepEqual(permissions.reference, lockedReference(permissions.catalogRef));
    assert.deepEqual(permissions.lock, fieldLock);
    assert.equal(permissions.perms, undefined, 'a certification can only be the first signature');
    const { signatures, output } = await pdfsig(sealed);
    assert.deepEqual(
      signatures.map((s) => [s.validation, s.totalDocumentSigned]),
      [
        ['Signature is Valid.', false],
        ['Signature is Valid.', true],
      ],
      output,
    );
    const page = await verify(sealed);
    assert.equal(
      sentenceOf(page),
      `Sealed by this Signet for document “Countersigned invoice” on ${sealedAt}; unchanged since.`,
    );
    assert.ok(page.text.includes('<td>Other Signer on 2025-03-14 09:26:53 UTC (valid)</td>'));
    assert.match(
      sentenceOf(await verify(changeOneByte(sealed))),
      /bytes covered by this Signet’s seal were altered/,
    );
  });

  test('one changed byte inside the signed range: changed after sealing, and pdfsig says the signature is invalid', async () => {
    const { id, sealed } = await sealedDocument('Changed byte');
    const changed = changeOneByte(sealed);
    const page = await verify(changed);
    assertPage(page, 200);
    assert.equal(
      sentenceOf(page),
      'This file was changed after it was sealed: bytes covered by this Signet’s seal were altered, so nothing in it can be trusted.',
    );
    assert.ok(!page.text.includes(id), 'an altered file is not trusted to name its document');
    assert.ok(!page.text.includes('Changed byte'));
    const [signature] = (await pdfsig(changed)).signatures;
    assert.ok(signature, 'pdfsig finds the seal');
    assert.notEqual(signature.validation, 'Signature is Valid.');
    assert.match(signature.validation, /Digest Mismatch/);
  });

  test('bytes appended after %%EOF, or an incremental update: changed after sealing, naming the document it was sealed for', async () => {
    const { id, sealed, sealedAt } = await sealedDocument('Appended to');
    const appended = Buffer.concat([sealed, Buffer.from('\n% one more line\n%%EOF\n')]);
    const updated = await withIncrementalUpdate(sealed);
    for (const [what, file] of [
      ['bytes after %%EOF', appended],
      ['an incremental update', updated],
    ] as const) {
      const page = await verify(file);
      assertPage(page, 200, what);
      assert.equal(
        sentenceOf(page),
        `This file was changed after it was sealed: something was added after the seal this Signet made for document “Appended to” on ${sealedAt} (an incremental update), so it is not the file that was sealed.`,
        what,
      );
      assert.ok(page.text.includes('Bytes were added after the seal'), what);
      assert.ok(page.text.includes(id), what);
      assert.ok(page.text.includes('Differs from this file'), what);
      assert.match(page.text, /<div class="box box-danger" role="status">/, what);
    }
    const [signature] = (await pdfsig(updated)).signatures;
    assert.equal(signature?.validation, 'Signature is Valid.', 'the seal itself still holds');
    assert.equal(signature?.totalDocumentSigned, false, 'but it no longer covers the whole file');
  });

  test('no stored copy: a seal exactly as Signet writes it, time-stamped after it by the pinned authority, is unchanged, without a title', async () => {
    const { id, sealed, sealedAt, stampedAt } = await sealedWithoutStoredCopy();
    const page = await verify(sealed);
    assertPage(page, 200);
    assert.equal(
      sentenceOf(page),
      `Sealed by this Signet on ${sealedAt}; unchanged since. The document it names is not stored here.`,
    );
    assert.match(page.text, /<div class="box box-success" role="status">/);
    assert.ok(page.text.includes(`<td>${stampedAt} by Signet Test TSA</td>`), 'the time-stamp, a fact');
    assert.ok(page.text.includes(id), 'the id Signet’s own revision names');
  });

  test('no stored copy: each attack on the container under a seal that still holds gets its own sentence, and the time it claims is never shown', async () => {
    const { sealed } = await sealedWithoutStoredCopy();
    for (const attack of containerAttacks) {
      const file = await attack.make(sealed);
      const report = await inspectSeals(file);
      const seal = report.isPdf ? report.signatures.at(-1) : undefined;
      assert.ok(seal?.intact && seal.coversWholeFile, `${attack.what}: the seal itself still holds`);
      const page = await verify(file);
      assertPage(page, 200, attack.what);
      assert.match(sentenceOf(page), changeSentence[attack.change] as RegExp, attack.what);
      assert.match(page.text, /<div class="box box-danger" role="status">/, attack.what);
      assert.doesNotMatch(page.text, /Evil Backdating|2025-01-01/, `${attack.what}: no claimed time`);
      // A time-stamp is shown only while it is a fact: the pinned authority's, over this seal.
      if (attack.change.startsWith('timestamp-')) assert.doesNotMatch(page.text, /Time-stamped/, attack.what);
      else assert.match(page.text, /Time-stamped/, attack.what);
      const result = await verifyPdf(h.ctx, file);
      assert.equal(result.verdict === 'changed-after-sealing' && result.change, attack.change, attack.what);
    }
    // From the pinned authority and verifying, but a minute before the seal's own time.
    const early = (await sealedWithoutStoredCopy(-60_000)).sealed;
    const page = await verify(early);
    assert.match(sentenceOf(page), changeSentence['timestamp-early'] as RegExp);
    assert.doesNotMatch(page.text, /Time-stamped/);
    // A byte of the seal certificate inside the signature: altered, not 'not sealed here'.
    const certificate = await verify(withCertificateByteChanged(sealed));
    assert.match(sentenceOf(certificate), changeSentence['seal-altered'] as RegExp);
  });

  test('the stored sealed file is unchanged with its title and time-stamp; each attack on it says how it changed, without the title', async () => {
    const { id, sealed, sealedAt } = await sealedDocument('Time-stamped lease');
    const page = await verify(sealed);
    assert.equal(
      sentenceOf(page),
      `Sealed by this Signet for document “Time-stamped lease” on ${sealedAt}; unchanged since.`,
    );
    assert.match(page.text, /<th scope="row">Time-stamped<\/th><td>.+ UTC by Signet Test TSA<\/td>/);
    const attacks: Attack[] = [
      ...containerAttacks,
      {
        what: 'one byte of the seal certificate inside the signature',
        change: 'seal-altered',
        make: async (file) => withCertificateByteChanged(file),
      },
    ];
    for (const attack of attacks) {
      const file = await attack.make(sealed);
      const changed = await verify(file);
      assertPage(changed, 200, attack.what);
      assert.match(sentenceOf(changed), changeSentence[attack.change] as RegExp, attack.what);
      assert.ok(
        !changed.text.includes('Time-stamped lease'),
        `${attack.what}: no title, it is not the stored file`,
      );
      assert.doesNotMatch(changed.text, /Evil Backdating|2025-01-01/, attack.what);
      if (attack.change !== 'seal-altered') {
        assert.ok(changed.text.includes(id), `${attack.what}: the id the seal’s own revision names`);
        assert.ok(changed.text.includes('Differs from this file'), attack.what);
      } else {
        assert.ok(!changed.text.includes(id), 'an altered seal is not trusted to name its document');
        assert.ok(!changed.text.includes('Sognet seal'), 'nor are the altered certificate’s names shown');
      }
    }
  });

  test('widgets planted in an upload naming another workspace’s document: /verify names the uploader’s own document, never the other’s title', async () => {
    const victimWorkspace = await createTestWorkspace(h.ctx);
    const victim = await createDraftDocument(h.ctx, victimWorkspace.id, {
      title: 'Confidential merger draft',
    });
    const planted = await withPlantedSealFields(victim.id);
    const { id, sealed, sealedAt } = await sealedDocument('The uploader’s own contract', h.ctx, planted);
    // The trap is armed: the first field in the file that points at the seal names the victim.
    const report = await inspectSeals(sealed);
    const seal = report.isPdf ? report.signatures.at(-1) : undefined;
    assert.equal(seal?.fieldName, `Signet seal ${victim.id}`, 'the uploader’s bytes name the victim');
    assert.equal(seal?.revision?.fieldName, `Signet seal ${id}`, 'Signet’s own revision names its document');

    const page = await verify(sealed);
    assert.equal(
      sentenceOf(page),
      `Sealed by this Signet for document “The uploader’s own contract” on ${sealedAt}; unchanged since.`,
    );
    // Changed under the seal's container, or with bytes appended: still never the victim.
    for (const file of [
      sealed,
      withContents(sealed, sealContents(sealed).cms, Buffer.from('padding')),
      await withIncrementalUpdate(sealed),
    ]) {
      const answer = await verify(file);
      assertPage(answer, 200);
      assert.ok(!answer.text.includes('Confidential merger draft'), 'never the other workspace’s title');
      assert.ok(!answer.text.includes(victim.id), 'nor its id');
    }
  });

  test('a PDF sealed by another seal, and an unsigned PDF: not sealed by this Signet, saying what signs it', async () => {
    const elsewhere = await verify(await sealedElsewhere());
    assertPage(elsewhere, 200);
    assert.equal(
      sentenceOf(elsewhere),
      'This file was not sealed by this Signet: it carries a signature by Other Signet (other.example), not by this Signet’s seal.',
    );
    assert.ok(!elsewhere.text.includes('0195936a-2b4c'), 'its claim to a document id is not repeated');
    const seal = await describeSeal(h.ctx);
    assert.ok(
      withoutBreaks(elsewhere).includes(seal.fingerprintSha256),
      'this Signet’s seal, for comparison',
    );
    const otherTool = await verify(readFileSync(join(fixtures, 'openssl-signed.pdf')));
    assert.equal(
      sentenceOf(otherTool),
      'This file was not sealed by this Signet: it carries a signature by Other Signer, not by this Signet’s seal.',
      'a real file signed by another tool (OpenSSL)',
    );
    // Its /M is 2025-03-14 10:26:53 +01'00'.
    assert.ok(
      otherTool.text.includes('<td>Other Signer on 2025-03-14 09:26:53 UTC (valid)</td>'),
      'the signer, in UTC',
    );
    const unsigned = await verify(await unsignedPdf());
    assertPage(unsigned, 200);
    assert.equal(
      sentenceOf(unsigned),
      'This file was not sealed by this Signet: it carries no digital signature.',
    );
    assert.match(unsigned.text, /<div class="box box-neutral" role="status">/);
  });

  test('with a PKCS#12 seal configured, files sealed by it and by the self-signed seal before it both verify as sealed here', async () => {
    const withP12: Context = {
      ...h.ctx,
      config: {
        ...h.ctx.config,
        seal: {
          ...h.ctx.config.seal,
          p12File: join(fixtures, 'seal-ec-with-chain.p12'),
          p12Passphrase: 'correct horse',
          tsaUrl: null,
          tsaCertFile: null,
        },
      },
    };
    const before = await sealedDocument('Sealed before the CA certificate');
    const after = await sealedDocument('Sealed with the CA certificate', withP12);
    for (const [what, document] of [
      ['the self-signed seal', before],
      ['the PKCS#12 seal', after],
    ] as const) {
      const result = await verifyPdf(withP12, document.sealed);
      assert.equal(result.verdict, 'sealed-unchanged', what);
      assert.equal(result.verdict === 'sealed-unchanged' && result.document?.id, document.id, what);
    }
    const caSealed = await verifyPdf(withP12, after.sealed);
    assert.equal(
      caSealed.verdict === 'sealed-unchanged' && caSealed.seal.certificate?.subject,
      'CN=sign.example.com, O=Example Ltd, C=CH',
    );
    assert.match(
      readerNote(caSealed) ?? '',
      /^PDF readers check this seal offline too\. They show it as valid when they trust its issuer, Signet Test Root CA \(/,
      'a seal a CA issued: valid where its issuer is trusted',
    );
    assert.equal(
      (await verifyPdf(h.ctx, after.sealed)).verdict,
      'not-sealed-here',
      'another installation’s CA seal is not ours',
    );
    const seal = await describeSeal(withP12);
    assert.equal(seal.source, 'p12-file');
    assert.deepEqual(seal.chain, ['CN=Signet Test Root CA, O=Signet Test CA, C=CH']);
  });

  test('a text file, an empty form and an empty file answer their sentence beside the field (400)', async () => {
    const cases: Array<[string, Record<string, File | string>, string]> = [
      [
        'a text file',
        { file: pdfFile(Buffer.from('Name,Amount\nAnn,1\n'), 'export.pdf') },
        'This file is not a PDF; choose the sealed PDF.',
      ],
      ['no file chosen', { file: new File([], '') }, 'Choose the sealed PDF to verify.'],
      ['an empty file', { file: pdfFile(new Uint8Array(0)) }, 'The file is empty; choose the sealed PDF.'],
      ['an urlencoded form', { note: 'no file' }, 'Choose the sealed PDF to verify.'],
    ];
    for (const [what, fields, sentence] of cases) {
      const page = await visitor().post('/verify', fields);
      assertPage(page, 400, what);
      assert.ok(page.text.includes(`<span class="field-error" id="file-error">${sentence}</span>`), what);
      assert.match(page.text, /aria-describedby="file-hint file-error" aria-invalid="true"/, what);
      assert.doesNotMatch(page.text, /id="result-heading"/, `${what}: no result`);
    }
  });

  test('a file over the limit is cut off as it arrives and answers its sentence (400)', async () => {
    const limit = h.config.maxUploadBytes + 16 * 1024 * 1024;
    const page = await verify(Buffer.alloc(limit + 1024, 0x20));
    assertPage(page, 400);
    assert.match(
      page.text,
      /The file is larger than 41 MB, more than any PDF this Signet seals; choose the sealed PDF\./,
    );
  });

  test('a JSON or text post is refused (415) and changes nothing', async () => {
    for (const type of ['application/json', 'text/plain']) {
      const response = await fetch(`${h.baseUrl}/verify`, {
        method: 'POST',
        headers: { 'content-type': type, 'x-forwarded-for': '10.78.0.1' },
        body: '{}',
      });
      assert.equal(response.status, 415, type);
    }
  });

  test('20 files from one address, then one every 3 seconds: 429 with Retry-After and a sentence', async () => {
    const client = visitor();
    const text = pdfFile(Buffer.from('not a pdf'));
    for (let i = 0; i < 20; i++) assert.equal((await client.post('/verify', { file: text })).status, 400);
    const refused = await client.post('/verify', { file: text });
    assertPage(refused, 429);
    assert.equal(refused.headers.get('retry-after'), '3');
    assert.match(refused.text, /Too many files were checked from your network\. Try again in 3 seconds\./);
    assert.equal(
      (await visitor().post('/verify', { file: text })).status,
      400,
      'another address is not limited',
    );
    h.clock.advance(3_000);
    assert.equal((await client.post('/verify', { file: text })).status, 400, 'a token again after 3 s');
  });

  test('in Chromium, on a desktop and a phone: choose the sealed file, press Verify, read the answer (axe-clean, no sideways scroll)', async () => {
    const { id, sealed } = await sealedDocument('Service agreement with Zoë Łukasiewicz');
    const path = join(folder, 'Service agreement (signed).pdf');
    writeFileSync(path, sealed);
    const watch = { foreignRequests: [] as string[], pageErrors: [] as string[] };
    const browser = await launchChromium({ screenshots: kind === databaseKinds[0] });
    try {
      for (const [name, options] of Object.entries(viewports)) {
        const { context, page } = await openPage(browser, h.baseUrl, watch, {
          ...options,
          extraHTTPHeaders: { 'x-forwarded-for': `10.80.0.${name.length}` },
        });
        try {
          await page.goto(`${h.baseUrl}/verify`);
          await page.getByLabel('Sealed PDF').setInputFiles(path);
          await page.getByRole('button', { name: 'Verify' }).click();
          const answer = page.locator('.box-success');
          await answer.waitFor();
          assert.match(
            await answer.innerText(),
            /^Sealed by this Signet for document “Service agreement with Zoë Łukasiewicz” on .+ UTC; unchanged since\.$/,
          );
          assert.ok(await page.getByRole('cell', { name: id }).isVisible(), `${name}: the document id`);
          assert.ok(await page.locator('#reader-note').isVisible(), `${name}: what PDF readers show`);
          await page.evaluate(axeSource);
          const violations = (await page.evaluate(
            `axe.run(document).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(' ')) })))`,
          )) as unknown[];
          assert.deepEqual(violations, [], `${name}: axe`);
          const width = (await page.evaluate('document.documentElement.scrollWidth')) as number;
          assert.ok(width <= options.viewport.width, `${name}: ${width} px wide`);
          await page.screenshot({
            fullPage: wholePageScreenshots,
            ...(kind === databaseKinds[0] ? { path: join(screenshotDir, `verify-${name}.png`) } : {}),
          });
        } finally {
          await context.close();
        }
      }
    } finally {
      await browser.close();
    }
    assert.deepEqual(watch, { foreignRequests: [], pageErrors: [] });
  });

  test('at most 4 files are checked at once; a fifth waits with 429 before its body is read', async () => {
    const url = new URL(h.baseUrl);
    const boundary = 'verifyboundary';
    const open: Socket[] = [];
    // Four uploads that have started and never finish: each holds its place.
    for (let i = 0; i < 4; i++) {
      const socket = connect(Number(url.port), url.hostname);
      await once(socket, 'connect');
      socket.write(
        `POST /verify HTTP/1.1\r\nHost: ${url.host}\r\nX-Forwarded-For: 10.79.0.${i}\r\n` +
          `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 100000\r\n\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.pdf"\r\n\r\n%PDF-1.7\n`,
      );
      open.push(socket);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    const busy = await visitor().post('/verify', { file: pdfFile(await unsignedPdf()) });
    assertPage(busy, 429);
    assert.equal(busy.headers.get('retry-after'), '5');
    assert.match(busy.text, /Signet is checking other files right now\. Try again in 5 seconds\./);
    for (const socket of open) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assertPage(await visitor().post('/verify', { file: pdfFile(await unsignedPdf()) }), 200);
  });
});

describe('signet verify, seal show and document download', () => {
  const dir = mkdtempSync(join(tmpdir(), 'signet-cli-verify-'));
  const env: NodeJS.ProcessEnv = { ...process.env, ...tsaEnv, SIGNET_DATA_DIR: dir, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a sealed document downloaded from the CLI verifies (exit 0); changed, it does not (exit 1); not a PDF is exit 2', async () => {
    // The CLI seals on the real clock: the authority stamps a time just after it.
    tsa.setTime(new Date(Date.now() + 60_000));
    const workspace = await runSignet(['workspace', 'create', '--name', 'Verify', '--json'], env);
    const workspaceId = (JSON.parse(workspace.stdout) as { id: string }).id;
    const triggered = await runSignet(
      ['trigger', 'document.completed', '--workspace', workspaceId, '--json'],
      env,
    );
    assert.equal(triggered.code, 0, describeRun(triggered));
    const documentId = (JSON.parse(triggered.stdout) as { documentId: string }).documentId;

    const out = join(folder, 'cli-sealed.pdf');
    const downloaded = await runSignet(['document', 'download', documentId, '--out', out, '--json'], env);
    assert.equal(downloaded.code, 0, describeRun(downloaded));
    const download = JSON.parse(downloaded.stdout) as { kind: string; sha256: string; bytes: number };
    assert.equal(download.kind, 'sealed');
    const sealed = readFileSync(out);
    assert.equal(download.bytes, sealed.byteLength);
    const again = await runSignet(['document', 'download', documentId, '--out', out], env);
    assert.equal(again.code, 2, describeRun(again));
    assert.match(again.stderr, /exists; pass --force to replace it/);
    assert.deepEqual(readFileSync(out), sealed, 'the existing file is left alone');
    const original = await runSignet(
      ['document', 'download', documentId, '--kind', 'original', '--out', out, '--force'],
      env,
    );
    assert.equal(original.code, 0, describeRun(original));
    assert.ok(readFileSync(out).byteLength < sealed.byteLength, 'replaced by the original');
    writeFileSync(out, sealed);

    const verified = await runSignet(['verify', out], env);
    assert.equal(verified.code, 0, describeRun(verified));
    assert.match(
      verified.stdout,
      /^Sealed by this Signet for document “Sample agreement \(document\.completed\)” on \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC; unchanged since\.\n/,
    );
    assert.match(verified.stdout, new RegExp(`Document id +${documentId}`));
    assert.match(verified.stdout, new RegExp(`File SHA-256 +${download.sha256}`));
    assert.match(verified.stdout, /Time-stamped +.+ UTC by Signet Test TSA/);
    const asJson = await runSignet(['verify', out, '--json'], env);
    assert.equal(asJson.code, 0, describeRun(asJson));
    const result = JSON.parse(asJson.stdout) as {
      verdict: string;
      sentence: string;
      documentId: string;
      document: { title: string; matchesStoredFile: boolean };
      seal: { certificate: { fingerprintSha256: string } };
    };
    assert.equal(result.verdict, 'sealed-unchanged');
    assert.equal(result.documentId, documentId);
    assert.deepEqual(result.document, {
      id: documentId,
      title: 'Sample agreement (document.completed)',
      matchesStoredFile: true,
    });

    const changedPath = join(folder, 'cli-changed.pdf');
    writeFileSync(changedPath, changeOneByte(sealed));
    const changed = await runSignet(['verify', changedPath, '--json'], env);
    assert.equal(changed.code, 1, describeRun(changed));
    assert.equal((JSON.parse(changed.stdout) as { verdict: string }).verdict, 'changed-after-sealing');
    // Each attack on the seal's container, the seal altered, bytes appended, an unsigned PDF:
    // exit 1, each with its verdict, change and sentence, and never the document's title.
    const attacks: Attack[] = [
      // One of each kind (every process costs seconds; /verify's tests above take every attack).
      ...containerAttacks.filter((a) => a.change !== 'timestamp-invalid' && !a.what.includes('BER')),
      {
        what: 'one byte of the seal certificate inside the signature',
        change: 'seal-altered',
        make: async (file) => withCertificateByteChanged(file),
      },
      { what: 'an incremental update', change: 'appended', make: withIncrementalUpdate },
    ];
    const attackPath = join(folder, 'cli-attack.pdf');
    for (const attack of attacks) {
      writeFileSync(attackPath, await attack.make(sealed));
      const run = await runSignet(['verify', attackPath, '--json'], env);
      assert.equal(run.code, 1, `${attack.what}: ${describeRun(run)}`);
      const answer = JSON.parse(run.stdout) as { verdict: string; change: string; sentence: string };
      assert.equal(answer.verdict, 'changed-after-sealing', attack.what);
      assert.equal(answer.change, attack.change, attack.what);
      if (attack.change !== 'appended') {
        assert.match(answer.sentence, changeSentence[attack.change] as RegExp, attack.what);
        assert.doesNotMatch(run.stdout, /Sample agreement/, `${attack.what}: no title`);
      }
    }
    writeFileSync(attackPath, await unsignedPdf());
    const unsigned = await runSignet(['verify', attackPath], env);
    assert.equal(unsigned.code, 1, describeRun(unsigned));
    assert.match(
      unsigned.stdout,
      /^This file was not sealed by this Signet: it carries no digital signature\./,
    );
    const textPath = join(folder, 'notes.pdf');
    writeFileSync(textPath, 'not a pdf');
    const notPdf = await runSignet(['verify', textPath], env);
    assert.equal(notPdf.code, 2, describeRun(notPdf));
    assert.match(notPdf.stdout, /^This file is not a PDF; choose the sealed PDF\./);
    const missing = await runSignet(['verify', join(folder, 'nope.pdf')], env);
    assert.equal(missing.code, 2, describeRun(missing));
    assert.match(missing.stderr, /no such file/);

    const show = await runSignet(['seal', 'show'], env);
    assert.equal(show.code, 0, describeRun(show));
    assert.match(show.stdout, /Subject +CN=Document seal of (.+), O=\1\n/);
    assert.ok(
      show.stdout.includes(result.seal.certificate.fingerprintSha256),
      'the fingerprint the seal carries',
    );
    assert.match(show.stdout, /Source +this installation’s own self-signed seal/);
    const showJson = await runSignet(['seal', 'show', '--json'], env);
    const seal = JSON.parse(showJson.stdout) as Record<string, unknown>;
    assert.equal(seal.fingerprintSha256, result.seal.certificate.fingerprintSha256);
    assert.equal(seal.source, 'installation');
    for (const output of [show, showJson]) {
      assert.doesNotMatch(`${output.stdout}${output.stderr}`, /PRIVATE KEY|privateKey|pkcs8/i);
    }
  });

  test('signet seal show on a new installation makes the seal, as the first seal would', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'signet-cli-seal-'));
    try {
      const freshEnv = { ...env, SIGNET_DATA_DIR: fresh, SIGNET_PUBLIC_URL: 'https://sign.acme.example' };
      const first = await runSignet(['seal', 'show', '--json'], freshEnv);
      assert.equal(first.code, 0, describeRun(first));
      const second = await runSignet(['seal', 'show', '--json'], freshEnv);
      const [a, b] = [first, second].map(
        (r) => JSON.parse(r.stdout) as { subject: string; fingerprintSha256: string },
      );
      assert.equal(a?.subject, 'CN=Document seal of sign.acme.example, O=sign.acme.example');
      assert.equal(a?.fingerprintSha256, b?.fingerprintSha256, 'made once, then the same one');
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });
});
