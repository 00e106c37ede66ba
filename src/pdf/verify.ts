// Reads every signature in a PDF and says whether each still holds: what /verify, `signet
// verify` and the tests ask of a file. Anyone may upload anything here, so this module does not
// parse the document with a PDF library (which would inflate every object stream, a
// decompression bomb's door) but scans the raw bytes: a signature's /ByteRange and /Contents
// must sit uncompressed in the file for the signature to be checkable at all, so a scan for
// /ByteRange finds every signature there is. Work is linear in the file's size and capped per
// file; nothing here backtracks, recurses without a bound, or throws on hostile input.
// This module owns finding the signatures, checking each one's /Contents (the CMS or document
// time-stamp, and whether it is exactly what Signet writes) and the verdict; the object reader
// is raw-objects.ts, the revision a signature covers seal-revision.ts.
import * as pkijs from 'pkijs';
import { type CmsCheck, certificateNames, readSealContainer, type SealContainer, verifyCms } from './cms.ts';
import {
  holdsContents,
  nameEntry,
  objectHeaderBefore,
  type PdfValue,
  parsePdfDate,
  Reader,
  readDictionaryAt,
  textEntry,
} from './raw-objects.ts';
import { type CertificateDescription, describeCertificate } from './seal-identity.ts';
import { readSealRevision, type SealRevision } from './seal-revision.ts';
import { isRegular } from './syntax.ts';
import { readTimestampToken, type TimestampCheck } from './timestamp.ts';

export type SealSignature = {
  fieldName: string | null; // the first field in the file naming it: the uploader's word for anything before the seal
  revision: SealRevision | null; // null when the signature dictionary is not an object of the last revision it covers
  name: string | null;
  reason: string | null;
  location: string | null;
  signedAt: Date | null; // the signature dictionary's /M
  subFilter: string | null;
  byteRange: [number, number, number, number];
  certificate: CertificateDescription | null;
  certificateDer: Uint8Array | null;
  signatureValid: boolean; // the signer's signature verifies with the certificate it carries
  digestMatches: boolean; // the signed byte ranges are unchanged
  intact: boolean; // both, and /ByteRange is well formed and lies within the file
  coversWholeFile: boolean; // /ByteRange runs from the first byte to the last: nothing appended
  timestamp: TimestampCheck | null; // an RFC 3161 signature time-stamp (B-T), or the document time-stamp itself
  signatureDer: Uint8Array | null; // the CMS, without the padding after it
  // Its parts when /Contents is exactly what Signet writes: upper-case hex of the DER that
  // createCadesSignature makes of them, then only zeros, the certificates after the first a chain.
  container: SealContainer | null;
  problem: string | null;
};

export type SealReport =
  | { isPdf: true; bytes: number; signatures: SealSignature[]; truncated: boolean }
  | { isPdf: false; problem: string; signatures: [] };

export type SealVerdict = {
  // `seal-holds`: one of ours verifies over every byte of the file but its /Contents (whether
  // those are the bytes it was issued with is the installation's question: verification.service.ts).
  verdict: 'seal-holds' | 'changed-after-sealing' | 'not-sealed-here';
  signature: SealSignature | null;
};

// Caps that keep a hostile file's cost bounded: checking a signature hashes up to the whole
// file, so at most `maxSignatures` are checked; the cheaper scans stop after so many hits.
const limits = {
  maxSignatures: 32,
  maxByteRangeHits: 1000,
  maxReferenceHits: 100_000,
  objectHeaderWindow: 64 * 1024,
};

// ---- Finding the signatures in the raw bytes ----

type Candidate = {
  byteRange: [number, number, number, number];
  dict: Map<string, PdfValue> | null;
  objectKey: string | null; // 'num gen' of the signature dictionary
};

function readByteRange(bytes: Buffer, at: number): [number, number, number, number] | null {
  const reader = new Reader(bytes, at, Math.min(bytes.length, at + 256));
  reader.skipWhite();
  if (bytes[reader.pos] !== 0x5b) return null;
  reader.pos++;
  const numbers: number[] = [];
  for (let i = 0; i < 4; i++) {
    reader.skipWhite();
    const n = reader.readUnsigned();
    if (n === null) return null;
    numbers.push(n);
  }
  reader.skipWhite();
  if (bytes[reader.pos] !== 0x5d) return null;
  return numbers as [number, number, number, number];
}

function findCandidates(bytes: Buffer): { candidates: Candidate[]; truncated: boolean } {
  const candidates: Candidate[] = [];
  const seen = new Map<string, number>();
  let hits = 0;
  for (
    let at = bytes.indexOf('/ByteRange', 0, 'latin1');
    at >= 0;
    at = bytes.indexOf('/ByteRange', at + 10, 'latin1')
  ) {
    if (++hits > limits.maxByteRangeHits || candidates.length >= limits.maxSignatures) {
      return { candidates, truncated: true };
    }
    if (isRegular(bytes[at + 10])) continue;
    const byteRange = readByteRange(bytes, at + 10);
    if (!byteRange) continue;
    const key = byteRange.join(' ');
    const earlier = seen.get(key);
    if (earlier !== undefined && holdsContents(candidates[earlier]?.dict ?? null)) continue;
    // When /Contents comes before /ByteRange, the object header lies before the hex string;
    // either way the dictionary may be as long as the hex string plus its other entries.
    const [offset1, length1, offset2] = byteRange;
    const gapStart = offset1 + length1;
    const gapBefore = offset2 <= at && gapStart < at;
    const header = objectHeaderBefore(bytes, gapBefore ? gapStart : at, limits.objectHeaderWindow);
    const contents = gapStart < offset2 && offset2 <= bytes.length ? { start: gapStart, end: offset2 } : null;
    const dict = header ? readDictionaryAt(bytes, header.body, contents) : null;
    const own = dict?.get('ByteRange');
    const matches =
      own?.kind === 'array' && own.items.map((i) => (i.kind === 'number' ? i.value : -1)).join(' ') === key;
    const candidate = {
      byteRange,
      dict: matches ? dict : null,
      objectKey: matches && header ? `${header.num} ${header.gen}` : null,
    };
    if (earlier === undefined) {
      seen.set(key, candidates.length);
      candidates.push(candidate);
    } else if (holdsContents(candidate.dict)) candidates[earlier] = candidate;
  }
  return { candidates, truncated: false };
}

// Field names: widgets whose /V points at a signature dictionary, read where they are
// uncompressed (Signet writes its own that way); a widget inside an object stream is not
// inflated, so its signature is reported without a field name.
function findFieldNames(bytes: Buffer, wanted: Set<string>): Map<string, string> {
  const names = new Map<string, string>();
  if (wanted.size === 0) return names;
  let hits = 0;
  for (let at = bytes.indexOf('/V', 0, 'latin1'); at >= 0; at = bytes.indexOf('/V', at + 2, 'latin1')) {
    if (++hits > limits.maxReferenceHits || names.size === wanted.size) break;
    if (isRegular(bytes[at + 2])) continue;
    const reader = new Reader(bytes, at + 2, Math.min(bytes.length, at + 64));
    reader.skipWhite();
    const num = reader.readUnsigned();
    reader.skipWhite();
    const gen = reader.readUnsigned();
    reader.skipWhite();
    if (num === null || gen === null || bytes[reader.pos] !== 0x52) continue;
    const key = `${num} ${gen}`;
    if (!wanted.has(key) || names.has(key)) continue;
    const header = objectHeaderBefore(bytes, at, limits.objectHeaderWindow);
    const widget = header ? readDictionaryAt(bytes, header.body) : null;
    const name = widget ? qualifiedName(bytes, widget) : null;
    if (name) names.set(key, name);
  }
  return names;
}

// A field's full name joins its ancestors' partial names with periods (ISO 32000 12.7.3.2).
function qualifiedName(bytes: Buffer, widget: Map<string, PdfValue>): string | null {
  const parts: string[] = [];
  let node: Map<string, PdfValue> | null = widget;
  for (let depth = 0; node && depth < 8; depth++) {
    const partial = textEntry(node, 'T');
    if (partial !== null) parts.unshift(partial);
    const parent = node.get('Parent');
    node = parent?.kind === 'ref' ? objectByNumber(bytes, parent.num, parent.gen) : null;
  }
  return parts.length ? parts.join('.') : null;
}

function objectByNumber(bytes: Buffer, num: number, gen: number): Map<string, PdfValue> | null {
  const header = `${num} ${gen} obj`;
  const at = bytes.lastIndexOf(header, bytes.length, 'latin1');
  if (at < 0 || (at > 0 && isRegular(bytes[at - 1]))) return null;
  return readDictionaryAt(bytes, at + header.length);
}

// ---- Checking each signature ----

// The hex string between the signed ranges: the DER it starts with (the CMS), and whether it is
// written as Signet writes it: upper-case hex digits only, the DER followed only by zeros.
function contentsOf(bytes: Buffer, from: number, to: number): { der: Uint8Array; asWritten: boolean } | null {
  if (bytes[from] !== 0x3c || bytes[to - 1] !== 0x3e) return null;
  let hex = bytes.toString('latin1', from + 1, to - 1);
  const upperHex = /^[0-9A-F]*$/.test(hex) && hex.length % 2 === 0;
  if (!/^[0-9a-fA-F]*$/.test(hex)) {
    hex = hex.replace(/[\0\t\n\f\r ]+/g, '');
    if (!/^[0-9a-fA-F]*$/.test(hex)) return null;
  }
  if (hex.length % 2) hex += '0';
  const decoded = Buffer.from(hex, 'hex');
  const length = derLength(decoded) ?? decoded.length;
  const paddedWithZeros = decoded.subarray(length).every((b) => b === 0);
  return {
    der: new Uint8Array(decoded.buffer, decoded.byteOffset, length),
    asWritten: upperHex && paddedWithZeros,
  };
}

// Each certificate after the first is the issuer of the one before it (its signature verifies
// with the next one's key): a chain, not room for anything else.
async function isChain(certificates: Uint8Array[]): Promise<boolean> {
  try {
    const parsed = certificates.map((der) =>
      pkijs.Certificate.fromBER(
        der.buffer.slice(der.byteOffset, der.byteOffset + der.byteLength) as ArrayBuffer,
      ),
    );
    for (let i = 1; i < parsed.length; i++) {
      if (!(await (parsed[i - 1] as pkijs.Certificate).verify(parsed[i]))) return false;
    }
    return true;
  } catch {
    return false;
  }
}

// The length of the DER element at the start (the zero padding after it is not part of the CMS).
function derLength(der: Uint8Array): number | null {
  const first = der[1];
  if (first === undefined) return null;
  if (first < 0x80) return Math.min(der.length, 2 + first);
  const count = first & 0x7f;
  if (count === 0 || count > 4) return null;
  let length = 0;
  for (let i = 0; i < count; i++) length = length * 256 + (der[2 + i] ?? 0);
  return Math.min(der.length, 2 + count + length);
}

// A document time-stamp (/SubFilter /ETSI.RFC3161) is a TimeStampToken over the byte ranges;
// any other signature is a CMS over them, perhaps carrying a signature time-stamp.
async function checkContents(
  cms: Uint8Array,
  parts: Uint8Array[],
  subFilter: string | null,
): Promise<{ check: CmsCheck; timestamp: TimestampCheck | null }> {
  if (subFilter === 'ETSI.RFC3161') {
    const timestamp = await readTimestampToken(cms, parts);
    const check: CmsCheck = {
      signatureValid: timestamp.signatureValid,
      digestMatches: timestamp.imprintMatches,
      signerCertificate: timestamp.authorityCertificate,
      problem: timestamp.problem,
      signatureValue: null,
      timestampToken: cms,
    };
    return { check, timestamp };
  }
  const check = await verifyCms(cms, parts);
  const timestamp =
    check.timestampToken && check.signatureValue
      ? await readTimestampToken(check.timestampToken, [check.signatureValue])
      : null;
  return { check, timestamp };
}

async function checkSignature(
  bytes: Buffer,
  candidate: Candidate,
  fieldName: string | null,
): Promise<SealSignature | null> {
  const [offset1, length1, offset2, length2] = candidate.byteRange;
  const base = {
    fieldName,
    name: textEntry(candidate.dict, 'Name'),
    reason: textEntry(candidate.dict, 'Reason'),
    location: textEntry(candidate.dict, 'Location'),
    signedAt: parsePdfDate(textEntry(candidate.dict, 'M') ?? ''),
    subFilter: nameEntry(candidate.dict, 'SubFilter'),
    byteRange: candidate.byteRange,
    coversWholeFile: offset1 === 0 && offset2 + length2 === bytes.length,
  };
  const failed = (problem: string, extra: Partial<SealSignature> = {}): SealSignature => ({
    ...base,
    revision: null,
    certificate: null,
    certificateDer: null,
    signatureValid: false,
    digestMatches: false,
    intact: false,
    timestamp: null,
    signatureDer: null,
    container: null,
    problem,
    ...extra,
  });
  if (offset1 + length1 > offset2 || offset2 + length2 > bytes.length) {
    return failed('The signed byte ranges lie outside the file: it was cut short or rewritten.');
  }
  const contents = contentsOf(bytes, offset1 + length1, offset2);
  // '/ByteRange [...]' in some text, outside any signature dictionary, is not a signature.
  if (!contents && !candidate.dict) return null;
  if (!contents) return failed('The bytes between the signed ranges are not the signature alone.');
  const cms = contents.der;
  const parts = [bytes.subarray(offset1, offset1 + length1), bytes.subarray(offset2, offset2 + length2)];
  const { check, timestamp } = await checkContents(cms, parts, base.subFilter);
  const written = contents.asWritten && base.subFilter !== 'ETSI.RFC3161' ? readSealContainer(cms) : null;
  const container = written && (await isChain(written.certificates)) ? written : null;
  let certificate: CertificateDescription | null = null;
  try {
    certificate = check.signerCertificate ? describeCertificate(check.signerCertificate) : null;
  } catch {
    certificate = null;
  }
  const startsAtZero = offset1 === 0;
  return {
    ...base,
    certificate,
    certificateDer: check.signerCertificate,
    signatureValid: check.signatureValid,
    digestMatches: check.digestMatches,
    intact: check.signatureValid && check.digestMatches && startsAtZero,
    timestamp,
    signatureDer: cms,
    container,
    revision: readSealRevision(bytes, candidate.byteRange),
    problem: check.problem ?? (startsAtZero ? null : 'The signature does not cover the start of the file.'),
  };
}

function pdfProblem(bytes: Buffer): string | null {
  const header = bytes.indexOf('%PDF-', 0, 'latin1');
  if (header < 0 || header > 1024) return 'The file is not a PDF.';
  // ISO 32000 7.5.5: %%EOF ends the file (readers look for it within the last 1024 bytes).
  const eof = bytes.lastIndexOf('%%EOF', bytes.length, 'latin1');
  if (eof < 0 || eof < bytes.length - 1024 || eof < header) {
    return 'The PDF is incomplete: it does not end with %%EOF, so it was probably cut short.';
  }
  return null;
}

/** Every signature in `pdf`, each checked against the bytes it signs. Never throws. */
export async function inspectSeals(pdf: Uint8Array): Promise<SealReport> {
  const bytes = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  const problem = pdfProblem(bytes);
  if (problem) return { isPdf: false, problem, signatures: [] };
  const { candidates, truncated } = findCandidates(bytes);
  const objectKeys = new Set(candidates.flatMap((c) => (c.objectKey ? [c.objectKey] : [])));
  const fieldNames = findFieldNames(bytes, objectKeys);
  const signatures: SealSignature[] = [];
  for (const candidate of candidates) {
    const fieldName = candidate.objectKey ? (fieldNames.get(candidate.objectKey) ?? null) : null;
    const signature = await checkSignature(bytes, candidate, fieldName);
    if (signature) signatures.push(signature);
  }
  // In file order of what they sign: the earliest revision's signature first.
  signatures.sort((a, b) => a.byteRange[2] + a.byteRange[3] - (b.byteRange[2] + b.byteRange[3]));
  return { isPdf: true, bytes: bytes.length, signatures, truncated };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(
    Buffer.from(b.buffer, b.byteOffset, b.byteLength),
  );
}

function contains(haystack: Uint8Array, needle: Uint8Array): boolean {
  return Buffer.from(haystack.buffer, haystack.byteOffset, haystack.byteLength).indexOf(needle) >= 0;
}

/**
 * Whether a signature that is not exactly ours looks like it once was: its certificate has the
 * public key of one of ours, or its subject and issuer; or, when no certificate can be read from
 * it, the signature's bytes still hold one of those. One changed byte cannot remove both.
 */
function resemblesOurs(signature: SealSignature, ourCertificates: Uint8Array[]): boolean {
  const theirs = signature.certificateDer ? certificateNames(signature.certificateDer) : null;
  return ourCertificates.some((certificate) => {
    const ours = certificateNames(certificate);
    if (!ours) return false;
    if (theirs) {
      return (
        sameBytes(theirs.publicKey, ours.publicKey) ||
        (sameBytes(theirs.subject, ours.subject) && sameBytes(theirs.issuer, ours.issuer))
      );
    }
    const der = signature.signatureDer;
    return (
      !!der && (contains(der, ours.publicKey) || (contains(der, ours.subject) && contains(der, ours.issuer)))
    );
  });
}

/**
 * What the signatures in a file say about one of `ourCertificates`: one of them verifies over
 * every byte but its /Contents (`seal-holds`); it was changed after sealing (a byte it covers
 * altered, anything appended, or the seal certificate inside it altered: a signature whose
 * certificate has our key or our names but is not ours byte for byte); or not sealed here.
 */
export function sealVerdict(report: SealReport, ourCertificates: Uint8Array[]): SealVerdict {
  const ours = report.signatures.filter(
    (s) =>
      s.signatureValid &&
      s.certificateDer &&
      ourCertificates.some((c) => sameBytes(c, s.certificateDer as Uint8Array)),
  );
  const holds = ours.findLast((s) => s.intact && s.coversWholeFile);
  if (holds) return { verdict: 'seal-holds', signature: holds };
  const latest = ours.at(-1) ?? report.signatures.findLast((s) => resemblesOurs(s, ourCertificates));
  if (latest) return { verdict: 'changed-after-sealing', signature: latest };
  return { verdict: 'not-sealed-here', signature: null };
}
