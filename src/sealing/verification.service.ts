// Verifying a PDF against this installation: was it sealed here, and is it still the file
// that was sealed? What /verify and `signet verify` answer, in the same sentence and table.
// The file is checked and forgotten (nothing is stored), so anyone may ask, about any file.
//
// The judgement is src/pdf/verify.ts's (every signature checked over the raw bytes, bounded
// work, never a throw); this module adds what only the installation knows: which seal
// certificates are its own, and which document a seal names. A seal names its document by
// id in its field name and reason; that id is looked up only when the signed bytes are
// intact, so a file altered to name another document's id learns nothing about it.
import type { LimitDecision } from '../accounts/account-limits.ts';
import type { Context } from '../context.ts';
import { sha256Hex } from '../files/files.service.ts';
import type { BucketShape, RateLimiter } from '../http/rate-limiter.ts';
import { formatBytes } from '../pdf/inspect.ts';
import { type CertificateDescription, describeCertificate } from '../pdf/seal-identity.ts';
import { inspectSeals, type SealSignature, sealVerdict } from '../pdf/verify.ts';
import { type RetiredSeal, sealCertificatesFor } from './seal-key.ts';
import { findSealedDocument } from './sealing.repository.ts';

type VerifyContext = Pick<Context, 'db' | 'config' | 'clock'>;

/** A signature in the file that is not the seal the verdict is about. */
export interface OtherSignature {
  /** The signer certificate's subject, or null when it cannot be read. */
  signer: string | null;
  signedAt: Date | null;
  /** It verifies and the bytes it signs are unchanged (it may cover an earlier revision only). */
  intact: boolean;
}

/** The seal the verdict is about, as the file carries it. */
export interface SealFound {
  /** The signature dictionary's /M: when Signet sealed the file. */
  sealedAt: Date | null;
  certificate: CertificateDescription;
  /** A valid RFC 3161 signature time-stamp (SIGNET_SEAL_TSA_URL), if the seal has one. */
  timestamp: { time: Date | null; authority: string | null } | null;
  /** The seal is retired (or set aside for a PKCS#12): it counts only because Signet's records show it sealed this file. */
  retired: RetiredSeal | null;
}

export interface SealedDocument {
  id: string;
  title: string;
  /** Whether this file is byte for byte the sealed file stored for the document. */
  matchesStoredFile: boolean;
}

interface FileFacts {
  sha256: string;
  bytes: number;
  otherSignatures: OtherSignature[];
}

export type Verification =
  | (FileFacts & {
      verdict: 'sealed-unchanged';
      seal: SealFound;
      /** The id the seal names; `document` is null when no document of that id is stored here. */
      documentId: string | null;
      document: SealedDocument | null;
    })
  | (FileFacts & {
      verdict: 'changed-after-sealing';
      /**
       * `appended`: the sealed bytes are intact and more follow them (an incremental update);
       * `altered`: bytes the seal covers were changed, so nothing the file says can be trusted
       * (neither the document it names nor the time it claims).
       */
      change: 'appended' | 'altered';
      seal: SealFound;
      documentId: string | null;
      document: SealedDocument | null;
    })
  | (FileFacts & {
      verdict: 'not-sealed-here';
      /** This installation's seal, for comparison. */
      ourSeal: CertificateDescription | null;
      /** The file carries a signature by a retired seal of this installation that is not recorded to have sealed it. */
      retiredSeal: RetiredSeal | null;
    })
  | { verdict: 'not-a-pdf'; problem: string; sha256: string | null; bytes: number };

/**
 * The largest file checked: a sealed file is its original (at most SIGNET_MAX_UPLOAD_BYTES)
 * with the certificate of completion (each signer's drawn signature, up to 20 signers) and
 * the seal appended, so it may be somewhat larger than any upload.
 */
export function maxVerifyBytes(config: Pick<Context['config'], 'maxUploadBytes'>): number {
  return config.maxUploadBytes + 16 * 1024 * 1024;
}

/** Checks one file of at most `maxVerifyBytes`; never throws on what the file holds. */
export async function verifyPdf(ctx: VerifyContext, bytes: Uint8Array): Promise<Verification> {
  if (bytes.byteLength === 0) return notPdf('The file is empty; choose the sealed PDF.', null, 0);
  if (bytes.byteLength > maxVerifyBytes(ctx.config)) return tooLargeToVerify(ctx, bytes.byteLength);
  const sha256 = sha256Hex(bytes);
  const report = await inspectSeals(bytes);
  if (!report.isPdf) return notPdf(pdfProblem(report.problem), sha256, bytes.byteLength);
  const seals = await sealCertificatesFor(ctx, sha256);
  const { verdict, signature } = sealVerdict(report, seals.accepted);
  const facts = {
    sha256,
    bytes: bytes.byteLength,
    otherSignatures: report.signatures.filter((s) => s !== signature).map(otherSignature),
  };
  if (!signature || verdict === 'not-sealed-here') {
    const retiredSeal = retiredSealOf(seals.retired, report.signatures) ?? null;
    return { verdict: 'not-sealed-here', ...facts, ourSeal: describeOrNull(seals.current), retiredSeal };
  }
  // With the signed bytes altered, the id, the time and the certificate's claims in them are
  // not the seal's word: only say that the file was changed.
  const trusted = signature.digestMatches;
  const documentId = trusted ? namedDocumentId(signature) : null;
  const document = documentId ? await sealedDocument(ctx, documentId, sha256) : null;
  const seal = {
    ...sealFound(signature, trusted),
    retired: retiredSealOf(seals.retired, [signature]) ?? null,
  };
  if (verdict === 'sealed-unchanged') return { verdict, ...facts, seal, documentId, document };
  const change = trusted && signature.intact ? 'appended' : 'altered';
  return { verdict, change, ...facts, seal, documentId, document };
}

/** The verdict on an upload over the limit, before (or instead of) reading it. */
export function tooLargeToVerify(ctx: Pick<Context, 'config'>, bytes: number): Verification {
  return notPdf(
    `The file is larger than ${formatBytes(maxVerifyBytes(ctx.config))}, more than any PDF this Signet seals; choose the sealed PDF.`,
    null,
    bytes,
  );
}

function notPdf(problem: string, sha256: string | null, bytes: number): Verification {
  return { verdict: 'not-a-pdf', problem, sha256, bytes };
}

// verify.ts's sentences, said the way this page asks for a file.
function pdfProblem(problem: string): string {
  if (problem === 'The file is not a PDF.') return 'This file is not a PDF; choose the sealed PDF.';
  return problem;
}

/** The retired seal of this installation that made one of these signatures, if any. */
function retiredSealOf(retired: RetiredSeal[], signatures: SealSignature[]): RetiredSeal | undefined {
  return retired.find((r) =>
    signatures.some((s) => s.signatureValid && s.certificate?.fingerprintSha256 === r.fingerprintSha256),
  );
}

function describeOrNull(der: Uint8Array | null): CertificateDescription | null {
  return der ? describeCertificate(der) : null;
}

function otherSignature(signature: SealSignature): OtherSignature {
  return {
    signer: signature.certificate?.subject ?? null,
    signedAt: signature.signedAt,
    intact: signature.intact,
  };
}

function sealFound(signature: SealSignature, trusted: boolean): Omit<SealFound, 'retired'> {
  const { timestamp } = signature;
  return {
    sealedAt: trusted ? signature.signedAt : null,
    // sealVerdict only names a signature whose certificate is one of ours and verifies.
    certificate: signature.certificate as CertificateDescription,
    timestamp: trusted && timestamp?.valid ? { time: timestamp.time, authority: timestamp.authority } : null,
  };
}

const uuidIn = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** The document id a Signet seal names: in its field name ('Signet seal <id>'), else its reason. */
function namedDocumentId(signature: SealSignature): string | null {
  const found = uuidIn.exec(signature.fieldName ?? '') ?? uuidIn.exec(signature.reason ?? '');
  return found ? found[0].toLowerCase() : null;
}

async function sealedDocument(
  ctx: VerifyContext,
  id: string,
  sha256: string,
): Promise<SealedDocument | null> {
  const row = await findSealedDocument(ctx.db, id);
  return row ? { id: row.id, title: row.title, matchesStoredFile: row.sealed_sha256 === sha256 } : null;
}

// ---- Limits ----

/**
 * Per client address: 20 files, then one every 3 seconds. Checking a file hashes it once per
 * signature it carries (up to 32), so a stranger may not make the server do that without end.
 */
export const verifyLimitShape: BucketShape = { burst: 20, refillPerSecond: 1 / 3 };

/** Whether `clientAddress` may have a file checked now. */
export async function takeVerifyAttempt(
  ctx: Pick<Context, 'clock'>,
  limiter: RateLimiter,
  clientAddress: string,
): Promise<LimitDecision> {
  const taken = await limiter.take(
    `verify:address:${clientAddress}`,
    ctx.clock.now().getTime(),
    verifyLimitShape,
  );
  return taken.allowed ? { allowed: true } : { allowed: false, retryAfterSeconds: taken.retryAfterSeconds };
}

// ---- The answer, as people read it (the page and the CLI say the same) ----

/** "2026-03-01 12:00:05 UTC". */
export function formatUtc(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** A certificate subject as a name: its CN, or the whole subject when it has none. */
function signerName(subject: string | null): string {
  if (!subject) return 'an unreadable certificate';
  const cn = /(?:^|, )CN=((?:\\.|[^,\\])*)/.exec(subject)?.[1];
  return cn ? cn.replace(/\\(.)/g, '$1') : subject;
}

const names = new Intl.ListFormat('en', { style: 'long', type: 'conjunction' });

function onTime(date: Date | null): string {
  return date ? ` on ${formatUtc(date)}` : '';
}

/** The answer in one sentence. */
export function verificationSentence(v: Verification): string {
  switch (v.verdict) {
    case 'sealed-unchanged':
      return v.document
        ? `Sealed by this Signet for document “${v.document.title}”${onTime(v.seal.sealedAt)}${retiredPhrase(v.seal.retired)}; unchanged since.`
        : `Sealed by this Signet${onTime(v.seal.sealedAt)}${retiredPhrase(v.seal.retired)}; unchanged since. The document it names is not stored here.`;
    case 'changed-after-sealing':
      if (v.change === 'altered') {
        return 'This file was changed after it was sealed: bytes covered by this Signet’s seal were altered, so nothing in it can be trusted.';
      }
      return `This file was changed after it was sealed: something was added after the seal this Signet made${
        v.document ? ` for document “${v.document.title}”` : ''
      }${onTime(v.seal.sealedAt)} (an incremental update), so it is not the file that was sealed.`;
    case 'not-sealed-here': {
      if (v.otherSignatures.length === 0) {
        return 'This file was not sealed by this Signet: it carries no digital signature.';
      }
      const signers = [...new Set(v.otherSignatures.map((s) => signerName(s.signer)))];
      const count = v.otherSignatures.length === 1 ? 'a signature' : `${v.otherSignatures.length} signatures`;
      if (v.retiredSeal) {
        return `This file was not sealed by this Signet: it carries ${count} by ${names.format(signers)}, made with a seal this Signet ${retiredWhen(v.retiredSeal)}, and a retired seal vouches only for the files Signet’s records show it sealed, not for this one.`;
      }
      return `This file was not sealed by this Signet: it carries ${count} by ${names.format(signers)}, not by this Signet’s seal.`;
    }
    case 'not-a-pdf':
      return v.problem;
  }
}

/** "retired on 2026-03-01 12:00:05 UTC", or set aside for a PKCS#12. */
function retiredWhen(retired: RetiredSeal): string {
  return retired.retiredAt
    ? `retired on ${formatUtc(retired.retiredAt)}`
    : 'no longer uses (it seals with a PKCS#12 certificate now)';
}

function retiredPhrase(retired: RetiredSeal | null): string {
  if (!retired) return '';
  return retired.retiredAt
    ? ` with a seal retired on ${formatUtc(retired.retiredAt)}`
    : ' with a seal no longer in use';
}

export interface VerificationFact {
  label: string;
  value: string;
  /** A hash, fingerprint or id: shown in a fixed-width font and broken anywhere. */
  isCode?: boolean;
}

function sealFacts(seal: SealFound): VerificationFact[] {
  const facts: VerificationFact[] = [];
  if (seal.sealedAt) facts.push({ label: 'Sealed on', value: formatUtc(seal.sealedAt) });
  if (seal.timestamp?.time) {
    const by = seal.timestamp.authority ? ` by ${signerName(seal.timestamp.authority)}` : '';
    facts.push({ label: 'Time-stamped', value: `${formatUtc(seal.timestamp.time)}${by}` });
  }
  facts.push(...certificateFacts('Seal', seal.certificate));
  if (seal.retired) {
    facts.push({
      label: 'Seal status',
      value: `${seal.retired.retiredAt ? `Retired on ${formatUtc(seal.retired.retiredAt)}` : 'No longer in use'}; Signet’s records show it sealed this file`,
    });
  }
  return facts;
}

function certificateFacts(label: string, certificate: CertificateDescription): VerificationFact[] {
  return [
    { label: `${label} subject`, value: certificate.subject },
    { label: `${label} issuer`, value: certificate.issuer },
    { label: `${label} fingerprint (SHA-256)`, value: certificate.fingerprintSha256, isCode: true },
  ];
}

function documentFacts(documentId: string | null, document: SealedDocument | null): VerificationFact[] {
  const facts: VerificationFact[] = [];
  if (document) facts.push({ label: 'Document', value: document.title });
  if (documentId) facts.push({ label: 'Document id', value: documentId, isCode: true });
  if (documentId && !document) facts.push({ label: 'Document', value: 'Not stored in this Signet' });
  if (document) {
    facts.push({
      label: 'Stored sealed file',
      value: document.matchesStoredFile ? 'Identical to this file' : 'Differs from this file',
    });
  }
  return facts;
}

function otherFacts(others: OtherSignature[]): VerificationFact[] {
  return others.map((s) => ({
    label: 'Other signature',
    value: `${signerName(s.signer)}${onTime(s.signedAt)} (${s.intact ? 'valid' : 'does not verify'})`,
  }));
}

/** The answer's details: one row per fact, in the order people check them. */
export function verificationFacts(v: Verification): VerificationFact[] {
  const file = (sha256: string | null, bytes: number): VerificationFact[] => [
    ...(sha256 ? [{ label: 'File SHA-256', value: sha256, isCode: true }] : []),
    { label: 'File size', value: `${bytes.toLocaleString('en')} bytes` },
  ];
  switch (v.verdict) {
    case 'sealed-unchanged':
      return [
        ...documentFacts(v.documentId, v.document),
        ...sealFacts(v.seal),
        ...file(v.sha256, v.bytes),
        ...otherFacts(v.otherSignatures),
      ];
    case 'changed-after-sealing':
      return [
        {
          label: 'Change',
          value:
            v.change === 'appended'
              ? 'Bytes were added after the seal'
              : 'Bytes covered by the seal were altered',
        },
        ...documentFacts(v.documentId, v.document),
        ...sealFacts(v.seal),
        ...file(v.sha256, v.bytes),
        ...otherFacts(v.otherSignatures),
      ];
    case 'not-sealed-here':
      return [
        ...file(v.sha256, v.bytes),
        ...otherFacts(v.otherSignatures),
        ...(v.ourSeal ? certificateFacts('This Signet’s seal', v.ourSeal) : []),
      ];
    case 'not-a-pdf':
      return v.sha256 ? file(v.sha256, v.bytes) : [];
  }
}
