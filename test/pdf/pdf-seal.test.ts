// The seal (src/pdf/seal.ts and its parts): PAdES B-B signatures that pdfsig and qpdf accept on
// PDFs from pdf-lib, LaTeX, Chromium and another signer; inspectSeals and sealVerdict telling
// unchanged, changed and foreign files apart; seal identities made here or loaded from PKCS#12.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { PDFDocument, PDFName, PDFRef, PDFString, StandardFonts } from '@cantoo/pdf-lib';
import type * as asn1js from 'asn1js';
import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import * as pkijs from 'pkijs';
import { loadConfig } from '../../src/config.ts';
import { createCadesSignature, digestParts, verifyCms } from '../../src/pdf/cms.ts';
import { decodePdfText, parsePdfDate } from '../../src/pdf/raw-objects.ts';
import { pdfDate, pdfTextString, sealPdf } from '../../src/pdf/seal.ts';
import {
  createSelfSignedSeal,
  describeCertificate,
  identityFromPkcs8,
  loadP12,
} from '../../src/pdf/seal-identity.ts';
import { createTsaTimestamper, readPemCertificates } from '../../src/pdf/timestamp.ts';
import { inspectSeals, type SealReport, sealVerdict } from '../../src/pdf/verify.ts';
import {
  certifiedReference,
  fieldLock,
  lockedReference,
  pdfsig,
  qpdfCheck,
  qpdfSealPermissions,
  startTestTsa,
} from '../support/pdf-tools.ts';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'pdf');
const fixture = (name: string) => new Uint8Array(readFileSync(join(fixtures, name)));
const now = new Date('2025-03-14T09:26:53.589Z');
const { identity, pkcs8 } = await createSelfSignedSeal({
  commonName: 'sign.example.com',
  organization: 'Signet',
  now,
});
const info = {
  signedAt: new Date('2025-03-14T10:00:00Z'),
  name: 'Signet',
  reason: 'Every recipient signed “Service agreement”',
  location: 'sign.example.com',
  fieldName: 'Signet seal 0195936a-2b4c-7d8e-9f01-23456789abcd',
};

async function pdfLibDocument(pages = 1): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= pages; n++) {
    doc.addPage().drawText(`Page ${n} of a contract made by pdf-lib`, { x: 50, y: 700, font, size: 14 });
  }
  return doc.save({ useObjectStreams: false });
}

function lastXrefSectionIsStream(pdf: Uint8Array): boolean {
  const text = Buffer.from(pdf).toString('latin1');
  const offset = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(text)?.[1]);
  return !text.startsWith('xref', offset);
}

function signedReport(report: SealReport) {
  assert.ok(report.isPdf, 'the report reads the file as a PDF');
  return report.signatures;
}

async function assertSealedAndValid(
  sealed: Uint8Array,
  input: Uint8Array,
  { earlierSignatures = 0, fieldName = info.fieldName } = {},
) {
  assert.deepEqual(sealed.subarray(0, input.length), input, 'the original bytes are kept as they were');
  const { signatures, output } = await pdfsig(sealed);
  assert.equal(signatures.length, earlierSignatures + 1, output);
  const seal = signatures.at(-1);
  assert.equal(seal?.validation, 'Signature is Valid.', output);
  assert.equal(seal?.signatureType, 'ETSI.CAdES.detached', output);
  assert.equal(seal?.totalDocumentSigned, true, output);
  for (const earlier of signatures.slice(0, -1)) {
    assert.equal(earlier.validation, 'Signature is Valid.', output);
    assert.equal(earlier.totalDocumentSigned, false, output);
  }
  const [before, after] = await Promise.all([qpdfCheck(input), qpdfCheck(sealed)]);
  assert.equal(after.errors, false, after.output);
  if (!before.warnings) assert.equal(after.warnings, false, after.output);

  const report = await inspectSeals(sealed);
  const ours = signedReport(report).at(-1);
  assert.equal(ours?.intact, true, ours?.problem ?? '');
  assert.equal(ours?.coversWholeFile, true);
  assert.equal(ours?.fieldName, fieldName);
  // Signet's own revision, read by its cross-reference section (table or stream), names the field.
  assert.deepEqual(ours?.revision, { fieldName, reason: info.reason, signedAt: info.signedAt });
  assert.ok(ours?.container, 'the container is exactly what Signet writes');
  assert.equal(ours?.reason, info.reason);
  assert.equal(ours?.subFilter, 'ETSI.CAdES.detached');
  assert.equal(ours?.signedAt?.toISOString(), info.signedAt.toISOString());
  assert.equal(sealVerdict(report, [identity.certificate]).verdict, 'seal-holds');
  // What readers that judge permissions read, by qpdf: the first signature certifies the file
  // with no changes permitted (the catalog's /Perms naming it); after another, it locks its field.
  const permissions = await qpdfSealPermissions(sealed, fieldName);
  if (earlierSignatures === 0) {
    assert.deepEqual(permissions.reference, certifiedReference);
    assert.ok(
      permissions.permsNameIt,
      `the catalog's /Perms names the seal: ${JSON.stringify(permissions.perms)}`,
    );
    assert.equal(permissions.lock, undefined);
  } else {
    assert.deepEqual(permissions.reference, lockedReference(permissions.catalogRef));
    assert.deepEqual(permissions.lock, fieldLock);
    assert.ok(!permissions.permsNameIt, 'a certification can only be the first signature');
  }
}

// ---- identities ----

test('a new seal is ECDSA P-256, self-signed for ten years, and marked for signing documents', () => {
  const certificate = pkijs.Certificate.fromBER(identity.certificate.slice().buffer);
  const described = describeCertificate(identity.certificate);
  assert.equal(identity.algorithm, 'ECDSA-P256');
  assert.equal(described.subject, 'CN=sign.example.com, O=Signet');
  assert.equal(described.issuer, described.subject);
  assert.equal(described.notBefore.getTime(), Math.floor(now.getTime() / 1000) * 1000);
  assert.equal(described.notAfter.toISOString(), '2035-03-14T09:26:53.000Z');
  assert.match(described.fingerprintSha256, /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
  const extension = (oid: string) => certificate.extensions?.find((e) => e.extnID === oid);
  const parsed = <T>(oid: string): T => {
    const found = extension(oid);
    assert.ok(found, oid);
    return found.parsedValue as T;
  };
  assert.equal(extension('2.5.29.15')?.critical, true);
  assert.deepEqual([...parsed<asn1js.BitString>('2.5.29.15').valueBlock.valueHexView], [0xc0]);
  assert.deepEqual(parsed<pkijs.ExtKeyUsage>('2.5.29.37').keyPurposes, [
    '1.3.6.1.5.5.7.3.36',
    '1.3.6.1.5.5.7.3.4',
  ]);
  assert.equal(parsed<pkijs.BasicConstraints>('2.5.29.19').cA, false);
  assert.ok(extension('2.5.29.14'), 'subjectKeyIdentifier');
});

test("a seal's private key cannot be exported from the identity", async () => {
  assert.equal(identity.privateKey.extractable, false);
  await assert.rejects(globalThis.crypto.subtle.exportKey('pkcs8', identity.privateKey));
});

test('a stored certificate and PKCS#8 key rebuild the identity; a key of another seal is refused', async () => {
  const rebuilt = await identityFromPkcs8(identity.certificate, pkcs8);
  const sealed = await sealPdf(await pdfLibDocument(), rebuilt, info);
  assert.equal(signedReport(await inspectSeals(sealed))[0]?.intact, true);
  const other = await createSelfSignedSeal({ commonName: 'other.example.com', now });
  await assert.rejects(
    identityFromPkcs8(identity.certificate, other.pkcs8),
    /does not belong to its certificate/,
  );
});

test('a PKCS#12 file from openssl (AES-256) loads with its chain, and describeCertificate reads like openssl', async () => {
  const loaded = await loadP12(fixture('seal-ec-with-chain.p12'), 'correct horse');
  assert.equal(loaded.algorithm, 'ECDSA-P256');
  // Values from `openssl x509 -noout -subject -issuer -serial -fingerprint -sha256 -nameopt RFC2253`.
  assert.deepEqual(describeCertificate(loaded.certificate), {
    subject: 'CN=sign.example.com, O=Example Ltd, C=CH',
    issuer: 'CN=Signet Test Root CA, O=Signet Test CA, C=CH',
    serialNumber: '47A76CDA1382FF9485C8CF030CA7B3B09F06CEC7',
    fingerprintSha256:
      '29:EA:91:9A:52:70:EB:DB:EB:71:6E:16:B0:CF:A7:CE:DF:F6:1A:9C:3F:BC:95:54:A1:40:12:30:9A:74:F0:2D',
    notBefore: new Date('2026-11-25T16:39:35Z'),
    notAfter: new Date('2036-11-22T16:39:35Z'),
  });
  assert.deepEqual(
    loaded.chain.map((der) => describeCertificate(der).subject),
    ['CN=Signet Test Root CA, O=Signet Test CA, C=CH'],
  );
});

test('a wrong passphrase, a file without a key, legacy encryption and a non-PKCS#12 file each say what is wrong', async () => {
  await assert.rejects(loadP12(fixture('seal-rsa.p12'), 'not the passphrase'), /passphrase is wrong/);
  await assert.rejects(loadP12(fixture('seal-no-key.p12'), 'secret'), /holds no private key/);
  await assert.rejects(loadP12(fixture('seal-legacy.p12'), 'secret'), /legacy PKCS#12 encryption/);
  await assert.rejects(loadP12(fixture('chromium-print.pdf'), 'secret'), /not a PKCS#12/);
});

test('an RSA seal from a PKCS#12 file seals a PDF that pdfsig and inspectSeals accept', async () => {
  const rsa = await loadP12(fixture('seal-rsa.p12'), 'secret');
  assert.equal(rsa.algorithm, 'RSA');
  const input = fixture('latex-xref-table.pdf');
  const sealed = await sealPdf(input, rsa, info);
  const { signatures, output } = await pdfsig(sealed);
  assert.equal(signatures[0]?.validation, 'Signature is Valid.', output);
  const report = await inspectSeals(sealed);
  assert.equal(signedReport(report)[0]?.certificate?.subject, 'CN=rsa.example.com, O=Example Ltd');
  assert.equal(sealVerdict(report, [rsa.certificate]).verdict, 'seal-holds');
  assert.equal(sealVerdict(report, [identity.certificate]).verdict, 'not-sealed-here');
});

test('an ECDSA P-384 seal (as CAs issue them) seals too', async () => {
  const p384 = await loadP12(fixture('seal-p384.p12'), 'x');
  assert.equal(p384.algorithm, 'ECDSA-P384');
  const sealed = await sealPdf(fixture('chromium-print.pdf'), p384, info);
  const { signatures, output } = await pdfsig(sealed);
  assert.equal(signatures[0]?.validation, 'Signature is Valid.', output);
  assert.equal(signedReport(await inspectSeals(sealed))[0]?.intact, true);
});

// ---- CMS ----

test('the CMS signs contentType, messageDigest and signing-certificate-v2, and no signingTime', async () => {
  const content = new TextEncoder().encode('the signed bytes');
  const cms = await createCadesSignature(identity, digestParts([content]));
  const signedData = new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(cms.slice().buffer).content });
  assert.equal(signedData.encapContentInfo.eContent, undefined, 'detached');
  assert.equal(signedData.certificates?.length, 1);
  const types = signedData.signerInfos[0]?.signedAttrs?.attributes.map((a) => a.type);
  assert.deepEqual(types, ['1.2.840.113549.1.9.3', '1.2.840.113549.1.9.4', '1.2.840.113549.1.9.16.2.47']);
  const check = await verifyCms(cms, [content.subarray(0, 4), content.subarray(4)]);
  assert.equal(check.signatureValid, true);
  assert.equal(check.digestMatches, true);
  assert.equal(check.problem, null);
  assert.deepEqual(check.signerCertificate, identity.certificate);
  assert.equal(check.timestampToken, null);
  const changed = await verifyCms(cms, [new TextEncoder().encode('the signed bytez')]);
  assert.equal(changed.signatureValid, true);
  assert.equal(changed.digestMatches, false);
  assert.equal((await verifyCms(new Uint8Array([0x30, 0x80, 1]), [content])).signatureValid, false);
});

test('/Contents is sized to the signature: no more than a few bytes of padding are left', async () => {
  const sealed = Buffer.from(await sealPdf(await pdfLibDocument(), identity, info)).toString('latin1');
  const hex = /\/Contents <([0-9A-F]+)>/.exec(sealed)?.[1] ?? '';
  const padding = hex.length - hex.replace(/(00)+$/, '').length;
  assert.ok(padding <= 2 * 8, `${padding / 2} bytes of padding`);
});

test('PDF dates and text strings are written as ISO 32000 says and read back', () => {
  assert.equal(pdfDate(new Date('2025-03-04T05:06:07.890Z')), 'D:20250304050607Z');
  assert.equal(parsePdfDate('D:20250304050607Z')?.toISOString(), '2025-03-04T05:06:07.000Z');
  assert.equal(parsePdfDate("D:20250304070607+02'00'")?.toISOString(), '2025-03-04T05:06:07.000Z');
  assert.equal(parsePdfDate('D:2025')?.toISOString(), '2025-01-01T00:00:00.000Z');
  assert.equal(parsePdfDate('yesterday'), null);
  assert.equal(pdfTextString('Signet (seal) \\ ok'), '(Signet \\(seal\\) \\\\ ok)');
  assert.equal(pdfTextString('Zoë'), '<FEFF005A006F00EB>');
  assert.equal(decodePdfText(Buffer.from('FEFF005A006F00EB', 'hex')), 'Zoë');
  assert.equal(decodePdfText(new Uint8Array([0x8d, 0x41, 0x8e, 0x93])), '“A”ﬁ');
});

// ---- sealing real-world files ----

const realWorld: [string, string][] = [
  ['a pdf-lib document', ''],
  ['a LaTeX document with a classic xref table', 'latex-xref-table.pdf'],
  ['a LaTeX document with object streams and an xref stream', 'latex-object-streams.pdf'],
  ["Chromium's print to PDF", 'chromium-print.pdf'],
  ['a LaTeX form (AcroForm with text fields and a check box)', 'latex-form-appearances.pdf'],
];

for (const [what, file] of realWorld) {
  test(`sealing ${what}: pdfsig says valid, ETSI.CAdES.detached, total document; qpdf --check passes`, async () => {
    const input = file ? fixture(file) : await pdfLibDocument();
    const sealed = await sealPdf(input, identity, info);
    await assertSealedAndValid(sealed, input);
    assert.equal(
      lastXrefSectionIsStream(sealed),
      lastXrefSectionIsStream(input),
      'the update keeps the xref form',
    );
    // pdf.js, which renders Signet's page images, reads the update too.
    const doc = await pdfjs.getDocument({ data: sealed.slice(), verbosity: 0 }).promise;
    assert.equal(doc.numPages, (await PDFDocument.load(input)).getPageCount());
    const widgets = (await (await doc.getPage(1)).getAnnotations()) as {
      fieldType?: string;
      fieldName?: string;
    }[];
    assert.ok(widgets.some((a) => a.fieldType === 'Sig' && a.fieldName === info.fieldName));
  });
}

test('the form keeps its fields, and the seal joins them as a signature field', async () => {
  const sealed = await sealPdf(fixture('latex-form-appearances.pdf'), identity, info);
  const names = (await PDFDocument.load(sealed))
    .getForm()
    .getFields()
    .map((field) => field.getName());
  for (const name of ['customer', 'quantity', 'terms', info.fieldName]) assert.ok(names.includes(name), name);
});

test('a PDF signed by another tool keeps that signature valid, and the report names both signers', async () => {
  const input = fixture('openssl-signed.pdf');
  const sealed = await sealPdf(input, identity, info);
  await assertSealedAndValid(sealed, input, { earlierSignatures: 1 });
  const [theirs, ours] = signedReport(await inspectSeals(sealed));
  assert.equal(theirs?.fieldName, 'Approval');
  assert.equal(theirs?.subFilter, 'adbe.pkcs7.detached');
  assert.equal(theirs?.certificate?.subject, 'CN=Other Signer, O=Other Signer Org');
  assert.equal(theirs?.intact, true);
  assert.equal(theirs?.coversWholeFile, false);
  assert.equal(ours?.certificate?.subject, 'CN=sign.example.com, O=Signet');
});

test('sealing a sealed file keeps the first seal valid; the second gets its own field name', async () => {
  const input = fixture('latex-object-streams.pdf');
  const once = await sealPdf(input, identity, info);
  const twice = await sealPdf(once, identity, info);
  await assertSealedAndValid(twice, once, { earlierSignatures: 1, fieldName: `${info.fieldName} (2)` });
  const signatures = signedReport(await inspectSeals(twice));
  assert.deepEqual(
    signatures.map((s) => [s.fieldName, s.intact, s.coversWholeFile]),
    [
      [info.fieldName, true, false],
      [`${info.fieldName} (2)`, true, true],
    ],
  );
});

test('an empty signature field is no earlier signature (the seal certifies); a signed one inside a parent field is (it locks)', async () => {
  // A parent field of type /Sig whose kid widget inherits the type and holds the signature
  // dictionary, as form tools nest them (ISO 32000 12.7.3.1); and the same field left unsigned.
  async function formWithSignatureField(signed: boolean): Promise<Uint8Array> {
    const doc = await PDFDocument.create();
    const page = doc.addPage();
    const { context } = doc;
    const parentField = context.obj({ FT: 'Sig', T: PDFString.of('Approvals') });
    const parent = context.register(parentField);
    const kid = context.obj({
      Type: 'Annot',
      Subtype: 'Widget',
      Rect: [0, 0, 0, 0],
      Parent: parent,
      T: PDFString.of('First'),
      P: page.ref,
    });
    if (signed)
      kid.set(PDFName.of('V'), context.register(context.obj({ Type: 'Sig', Filter: 'Adobe.PPKLite' })));
    const kidRef = context.register(kid);
    parentField.set(PDFName.of('Kids'), context.obj([kidRef]));
    page.node.set(PDFName.of('Annots'), context.obj([kidRef]));
    doc.catalog.set(PDFName.of('AcroForm'), context.obj({ Fields: [parent] }));
    return doc.save({ useObjectStreams: false });
  }
  const unsigned = await sealPdf(await formWithSignatureField(false), identity, info);
  const certified = await qpdfSealPermissions(unsigned, info.fieldName);
  assert.deepEqual(certified.reference, certifiedReference);
  assert.ok(certified.permsNameIt);
  const signed = await sealPdf(await formWithSignatureField(true), identity, info);
  const locked = await qpdfSealPermissions(signed, info.fieldName);
  assert.deepEqual(locked.reference, lockedReference(locked.catalogRef));
  assert.deepEqual(locked.lock, fieldLock);
  assert.equal(locked.perms, undefined, 'no certification after a signature');
  // Signet's widget with its lock still names the seal's document, from Signet's own revision.
  assert.equal(signedReport(await inspectSeals(signed)).at(-1)?.revision?.fieldName, info.fieldName);
});

test('a usage-rights /Perms entry is replaced: the catalog’s /Perms names the seal and nothing else', async () => {
  const doc = await PDFDocument.create();
  doc.addPage();
  const usageRights = doc.context.register(doc.context.obj({ Type: 'Sig', Filter: 'Adobe.PPKLite' }));
  doc.catalog.set(PDFName.of('Perms'), doc.context.obj({ UR3: usageRights }));
  const sealed = await sealPdf(await doc.save({ useObjectStreams: false }), identity, info);
  const permissions = await qpdfSealPermissions(sealed, info.fieldName);
  assert.ok(permissions.permsNameIt, JSON.stringify(permissions.perms));
  assert.deepEqual(permissions.reference, certifiedReference);
});

test('an encrypted PDF and a file that is not a PDF are refused with a sentence', async () => {
  await assert.rejects(sealPdf(fixture('encrypted.pdf'), identity, info), /encrypted or password-protected/);
  await assert.rejects(sealPdf(new TextEncoder().encode('hello'), identity, info), /not a PDF/);
});

// ---- time-stamps (B-T) ----

test('with a time-stamp authority, the seal carries its token: pdfsig valid, the report gives the time', async (t) => {
  const stampedAt = new Date('2025-03-14T10:00:02Z');
  const tsa = await startTestTsa(stampedAt);
  t.after(() => tsa.close());
  const input = fixture('latex-object-streams.pdf');
  const sealed = await sealPdf(input, identity, info, { timestamp: createTsaTimestamper(tsa.url) });
  await assertSealedAndValid(sealed, input);
  const [seal] = signedReport(await inspectSeals(sealed));
  assert.equal(seal?.timestamp?.valid, true, seal?.timestamp?.problem ?? '');
  assert.equal(seal?.timestamp?.time?.toISOString(), stampedAt.toISOString());
  assert.equal(seal?.timestamp?.authority, 'CN=Signet Test TSA');
  assert.ok(seal?.container?.timestampToken, 'the token, in the container as Signet writes it');
  assert.equal(tsa.requests(), 1);
});

test('a token larger than the reserve: the seal is made again with room for it', async (t) => {
  const tsa = await startTestTsa(new Date('2025-03-14T10:00:02Z'));
  t.after(() => tsa.close());
  const timestamp = createTsaTimestamper(tsa.url);
  const sealed = await sealPdf(fixture('chromium-print.pdf'), identity, info, {
    timestamp,
    timestampReserveBytes: 16,
  });
  assert.equal(tsa.requests(), 2);
  assert.equal(signedReport(await inspectSeals(sealed))[0]?.timestamp?.valid, true);
});

test('with SIGNET_SEAL_TSA_CERT_FILE, a token signed by another certificate stops the seal; the URL and the file go together', async (t) => {
  const pinned = await startTestTsa(new Date('2025-03-14T10:00:02Z'));
  const other = await startTestTsa(new Date('2025-03-14T10:00:02Z'), { name: 'Evil Backdating TSA' });
  t.after(() => Promise.all([pinned.close(), other.close()]));
  const certificates = readPemCertificates(`${pinned.certificatePem}${pinned.certificatePem}`);
  assert.equal(certificates.length, 2, 'every CERTIFICATE block of the file');
  const input = fixture('chromium-print.pdf');
  await assert.rejects(
    sealPdf(input, identity, info, { timestamp: createTsaTimestamper(other.url, { pinned: certificates }) }),
    /signed with a certificate other than SIGNET_SEAL_TSA_CERT_FILE's \(CN=Evil Backdating TSA\)/,
  );
  const sealed = await sealPdf(input, identity, info, {
    timestamp: createTsaTimestamper(pinned.url, { pinned: certificates }),
  });
  assert.equal(signedReport(await inspectSeals(sealed))[0]?.timestamp?.valid, true);
  for (const env of [{ SIGNET_SEAL_TSA_URL: pinned.url }, { SIGNET_SEAL_TSA_CERT_FILE: '/etc/tsa.pem' }]) {
    assert.throws(() => loadConfig(env), /SIGNET_SEAL_TSA_URL and SIGNET_SEAL_TSA_CERT_FILE go together/);
  }
  const both = loadConfig({ SIGNET_SEAL_TSA_URL: pinned.url, SIGNET_SEAL_TSA_CERT_FILE: '/etc/tsa.pem' });
  assert.equal(both.seal.tsaCertFile, '/etc/tsa.pem');
});

test('a time-stamp authority that fails or cannot be reached stops the seal with a sentence', async (t) => {
  const failing = await startTestTsa(new Date(), { fail: true });
  t.after(() => failing.close());
  const input = fixture('chromium-print.pdf');
  await assert.rejects(
    sealPdf(input, identity, info, { timestamp: createTsaTimestamper(failing.url) }),
    /time-stamp authority answered HTTP 500/,
  );
  const closed = await startTestTsa(new Date());
  await closed.close();
  await assert.rejects(
    sealPdf(input, identity, info, { timestamp: createTsaTimestamper(closed.url, { timeoutMs: 2000 }) }),
    /could not be reached/,
  );
});

// ---- changes after sealing ----

const sealedOriginal = await sealPdf(fixture('chromium-print.pdf'), identity, info);

test('one changed byte inside the signed range: pdfsig reports a digest mismatch, inspectSeals intact false', async () => {
  const tampered = sealedOriginal.slice();
  const at = 1000; // inside the page content of the original file
  tampered[at] = (tampered[at] ?? 0) ^ 0x01;
  const { signatures, output } = await pdfsig(tampered);
  assert.equal(signatures[0]?.validation, 'Digest Mismatch.', output);
  const report = await inspectSeals(tampered);
  const [seal] = signedReport(report);
  assert.equal(seal?.intact, false);
  assert.equal(seal?.digestMatches, false);
  assert.equal(seal?.signatureValid, true);
  assert.deepEqual(sealVerdict(report, [identity.certificate]), {
    verdict: 'changed-after-sealing',
    signature: seal,
  });
});

test('bytes appended after %%EOF: the seal no longer covers the whole file', async () => {
  const appended = Buffer.concat([sealedOriginal, Buffer.from('\n% appended later\n')]);
  const report = await inspectSeals(appended);
  const [seal] = signedReport(report);
  assert.equal(seal?.intact, true);
  assert.equal(seal?.coversWholeFile, false);
  assert.equal(sealVerdict(report, [identity.certificate]).verdict, 'changed-after-sealing');
  const { signatures } = await pdfsig(appended);
  assert.equal(signatures[0]?.totalDocumentSigned, false);
});

test('an incremental update appended after sealing: changed after sealing', async () => {
  const doc = await PDFDocument.load(sealedOriginal, { forIncrementalUpdate: true });
  doc.getPage(0).drawText('PAID', { x: 400, y: 700, size: 40 });
  const updated = await doc.save();
  const report = await inspectSeals(updated);
  const [seal] = signedReport(report);
  assert.equal(seal?.intact, true);
  assert.equal(seal?.coversWholeFile, false);
  assert.equal(sealVerdict(report, [identity.certificate]).verdict, 'changed-after-sealing');
});

// Until issue 33 this was 'not sealed here': a seal altered inside its signature is still
// recognisably this installation's seal (its certificate's key and names), so it is 'changed'.
test('a changed byte inside the signature itself: changed after sealing (the seal no longer verifies)', async () => {
  const tampered = sealedOriginal.slice();
  const text = Buffer.from(tampered).toString('latin1');
  const contents = text.indexOf('/Contents <', sealedOriginal.length - 20_000) + '/Contents <'.length;
  const at = contents + 1400; // inside the signature value, near the end of the CMS
  tampered[at] = tampered[at] === 0x41 ? 0x42 : 0x41;
  const report = await inspectSeals(tampered);
  assert.equal(signedReport(report)[0]?.intact, false);
  assert.equal(sealVerdict(report, [identity.certificate]).verdict, 'changed-after-sealing');
  const other = await createSelfSignedSeal({ commonName: 'other.example', organization: 'Other', now });
  assert.equal(sealVerdict(report, [other.identity.certificate]).verdict, 'not-sealed-here');
});

test('a file without signatures, and a file sealed by someone else, are not sealed here', async () => {
  const plain = await inspectSeals(fixture('latex-form.pdf'));
  assert.deepEqual(plain, {
    isPdf: true,
    bytes: fixture('latex-form.pdf').length,
    signatures: [],
    truncated: false,
  });
  assert.deepEqual(sealVerdict(plain, [identity.certificate]), {
    verdict: 'not-sealed-here',
    signature: null,
  });
  const foreign = await inspectSeals(fixture('openssl-signed.pdf'));
  assert.equal(signedReport(foreign)[0]?.intact, true);
  assert.equal(sealVerdict(foreign, [identity.certificate]).verdict, 'not-sealed-here');
});

test('an uploader’s /T and /V on the page Signet rewrites in its own revision do not name the seal: only Signet’s widget does', async () => {
  const victim = 'Signet seal 01959999-0000-7000-8000-000000000000';
  // The page dictionary is copied into the seal's revision (its /Annots gains the widget), with
  // whatever else the uploader put in it: here a field name and a /V at the seal's object.
  async function planted(signatureNumber: number): Promise<Uint8Array> {
    const doc = await PDFDocument.create();
    const page = doc.addPage();
    page.node.set(PDFName.of('FT'), PDFName.of('Sig'));
    page.node.set(PDFName.of('T'), PDFString.of(victim));
    page.node.set(PDFName.of('V'), PDFRef.of(signatureNumber));
    return doc.save({ useObjectStreams: false });
  }
  const signatureNumberOf = (sealed: Uint8Array, from: number) =>
    Number(
      /(\d+) 0 obj\s*<<\s*\/Type \/Sig\b/.exec(Buffer.from(sealed.subarray(from)).toString('latin1'))?.[1],
    );
  const first = await planted(1);
  const number = signatureNumberOf(await sealPdf(first, identity, info), first.length);
  const original = await planted(number);
  const sealed = await sealPdf(original, identity, info);
  assert.equal(signatureNumberOf(sealed, original.length), number, 'the plant points at the seal');
  const [seal] = signedReport(await inspectSeals(sealed));
  assert.equal(seal?.fieldName, victim, 'the first field in the file pointing at the seal is the uploader’s');
  assert.equal(seal?.revision?.fieldName, info.fieldName, 'Signet’s own widget, by its exact keys');
});

// ---- hostile input ----

test('garbage, empty and truncated files are reported as not a PDF, without throwing', async () => {
  const cases = [
    new Uint8Array(0),
    new TextEncoder().encode('MZ this is an executable'),
    new Uint8Array(4096).fill(0xff),
    sealedOriginal.subarray(0, Math.floor(sealedOriginal.length / 2)),
    new TextEncoder().encode('%PDF-1.7\n1 0 obj << /ByteRange [0 1 2 3] >>'),
  ];
  for (const bytes of cases) {
    const report = await inspectSeals(bytes);
    assert.equal(report.isPdf, false);
    assert.match(report.isPdf ? '' : report.problem, /not a PDF|incomplete/);
  }
});

test('hostile PDFs (thousands of fake signatures, deep nesting, long digit runs) finish quickly', async () => {
  const fakes = Array.from(
    { length: 5000 },
    (_, i) =>
      `${i + 1} 0 obj << /Type /Sig /ByteRange [0 ${i * 10} ${i * 10 + 5} 7] /Contents <3082> >> endobj\n`,
  ).join('');
  const deep = `1 0 obj << /ByteRange [0 10 20 30] /Contents ${'['.repeat(200_000)} >> endobj\n`;
  const digits = `${'1'.repeat(3_000_000)} 0 obj << /ByteRange [0 10 20 5] >>\n`;
  const strings = `1 0 obj << /Reason (${'('.repeat(500_000)} /ByteRange [0 1 2 3] >> endobj\n`;
  // Forty signature dictionaries sharing one 5 MB /Contents: each is read without decoding it twice.
  const hugeContents = (() => {
    const dicts = Array.from(
      { length: 40 },
      (_, i) => `${i + 1} 0 obj << /Type /Sig /ByteRange [0 AAAAAAAA BBBBBBBB ${i + 9}] >> endobj\n`,
    ).join('');
    const before = `%PDF-1.7\n${dicts}99 0 obj << /Contents `;
    const start = String(before.length).padStart(8, '0');
    const end = String(before.length + 5_000_002).padStart(8, '0');
    return `${before.replaceAll('AAAAAAAA', start).replaceAll('BBBBBBBB', end).slice('%PDF-1.7\n'.length)}<${'0'.repeat(5_000_000)}> >>\n`;
  })();
  for (const body of [fakes, deep, digits, strings, hugeContents]) {
    const started = performance.now();
    const report = await inspectSeals(new TextEncoder().encode(`%PDF-1.7\n${body}%%EOF\n`));
    assert.ok(performance.now() - started < 5000, 'bounded time');
    assert.equal(report.isPdf, true);
    assert.ok(report.signatures.every((s) => !s.intact));
  }
});
