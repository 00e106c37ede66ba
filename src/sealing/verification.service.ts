// Verifying a PDF against this installation: was it sealed here, and is it still the file
// that was sealed? What /verify and `signet verify` answer, in the same sentence and table.
// The file is checked and forgotten (nothing is stored), so anyone may ask, about any file.
//
// The judgement of each signature is src/pdf/verify.ts's (checked over the raw bytes, bounded
// work, never a throw); this module adds what only the installation knows: which seal
// certificates are its own, which time-stamp authority it uses, and which sealed files it
// issued. "Unchanged" means the exact bytes Signet issued: the stored sealed file of the
// document the seal names (SHA-256 equal), or, where no stored copy is left, a container that
// is exactly what Signet writes with a time-stamp (when this Signet time-stamps) from its
// pinned authority, not earlier than the seal. /Contents is outside what the seal signs, so
// without these checks a time-stamp could be swapped or removed, or data carried in the
// padding, under a seal that still verifies.
//
// The document a seal belongs to comes only from Signet's own revision (its signature
// dictionary and field, read by that revision's cross-reference section: SealRevision), never
// from bytes the uploader wrote; its title (and anything else of the document) is shown only
// when the file is that document's stored sealed file, or that file with bytes appended.
import type { LimitDecision } from '../accounts/account-limits.ts';
import type { Context } from '../context.ts';
import { sha256Hex } from '../files/files.service.ts';
import type { BucketShape, RateLimiter } from '../http/rate-limiter.ts';
import { type MessageKey, type Translator, translator } from '../i18n/messages.ts';
import { formatBytes } from '../pdf/inspect.ts';
import { type CertificateDescription, describeCertificate } from '../pdf/seal-identity.ts';
import { isPinnedAuthority } from '../pdf/timestamp.ts';
import { inspectSeals, type SealSignature, sealVerdict } from '../pdf/verify.ts';
import { type RetiredSeal, sealCertificatesFor } from './seal-key.ts';
import { findSealedDocument } from './sealing.repository.ts';
import { pinnedTsaCertificates } from './tsa.ts';

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
  /** The signature dictionary's /M: when Signet sealed the file (null when nothing in it can be trusted). */
  sealedAt: Date | null;
  /** The certificate the seal carries; null when it was altered past reading. */
  certificate: CertificateDescription | null;
  /**
   * The signature time-stamp, only when it is a fact: it verifies against the seal's signature,
   * comes from this Signet's authority (SIGNET_SEAL_TSA_CERT_FILE) or is in the very file
   * Signet issued, and is not earlier than the seal.
   */
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

/**
 * How a file that carries this Signet's seal differs from what it issued:
 * `appended`: the sealed bytes are intact and more follow them (an incremental update);
 * `altered`: bytes the seal covers were changed, so nothing the file says can be trusted;
 * `seal-altered`: the seal itself (its certificate or signature) was changed;
 * `container`: the seal holds, but /Contents is not what Signet wrote (re-encoded, something
 * added, data after the signature);
 * `timestamp-removed`, `timestamp-invalid` (does not stamp this seal's signature),
 * `timestamp-foreign` (another authority), `timestamp-early` (before the seal's /M);
 * `not-as-stored`: none of these, but not the stored sealed file of its document either.
 */
export type SealChange =
  | 'appended'
  | 'altered'
  | 'seal-altered'
  | 'container'
  | 'timestamp-removed'
  | 'timestamp-invalid'
  | 'timestamp-foreign'
  | 'timestamp-early'
  | 'not-as-stored';

/** Whether a sealed file of the document the seal names is stored here, and whether it is this file. */
export type StoredFile = 'identical' | 'differs' | 'none';

export type Verification =
  | (FileFacts & {
      verdict: 'sealed-unchanged';
      seal: SealFound;
      /** The id Signet's own revision names; `document` only when this file is its stored sealed file. */
      documentId: string | null;
      document: SealedDocument | null;
      storedFile: StoredFile;
    })
  | (FileFacts & {
      verdict: 'changed-after-sealing';
      change: SealChange;
      seal: SealFound;
      documentId: string | null;
      /** Only for `appended`, when the sealed part is the document's stored sealed file. */
      document: SealedDocument | null;
      storedFile: StoredFile;
    })
  | (FileFacts & {
      verdict: 'not-sealed-here';
      /** This installation's seal, for comparison. */
      ourSeal: CertificateDescription | null;
      /** The file carries a signature by a retired seal of this installation that is not recorded to have sealed it. */
      retiredSeal: RetiredSeal | null;
    })
  | {
      verdict: 'not-a-pdf';
      /** Why, in English (the CLI's line); `reason` says it in any language. */
      problem: string;
      reason: NotPdfReason;
      /** With `too-large`: the largest file checked. */
      limitBytes?: number;
      sha256: string | null;
      bytes: number;
    };

/** Why a file is no sealed PDF to check. */
export type NotPdfReason = 'empty' | 'not-a-pdf' | 'incomplete' | 'too-large';

const notPdfKeys: Record<NotPdfReason, MessageKey> = {
  empty: 'verify.refusal.empty',
  'not-a-pdf': 'verify.refusal.notPdf',
  incomplete: 'verify.refusal.incomplete',
  'too-large': 'verify.refusal.tooLarge',
};

/** Why a file is no sealed PDF to check, in `tr`'s language. */
export function notPdfSentence(
  v: Extract<Verification, { verdict: 'not-a-pdf' }>,
  tr: Translator = english,
): string {
  return tr.t(notPdfKeys[v.reason], { size: formatBytes(v.limitBytes ?? 0) });
}

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
  if (bytes.byteLength === 0) return notPdf('empty', null, 0);
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
  const isOurs =
    !!signature.certificateDer && seals.accepted.some((c) => sameBytes(c, signature.certificateDer));
  // A retired seal counts only for the files Signet's records show it sealed (seal-key.ts).
  const retired = retiredSealOf(seals.retired, [signature]) ?? null;
  // With the signed bytes or the seal altered, the id, the time and the certificate's claims in
  // them are not the seal's word: only say that the file was changed.
  if (!isOurs || !signature.signatureValid || !signature.digestMatches) {
    const change = isOurs && signature.signatureValid ? 'altered' : 'seal-altered';
    // An altered certificate's claims are not shown either; ours, byte for byte, is.
    const seal = {
      sealedAt: null,
      certificate: isOurs ? signature.certificate : null,
      timestamp: null,
      retired,
    };
    return {
      verdict: 'changed-after-sealing',
      change,
      ...facts,
      seal,
      documentId: null,
      document: null,
      storedFile: 'none',
    };
  }
  const documentId = namedDocumentId(signature);
  const row = documentId ? await findSealedDocument(ctx.db, documentId) : undefined;
  const storedSha256 = row?.sealed_sha256 ?? null;
  const signedAt = signature.revision?.signedAt ?? signature.signedAt;
  if (verdict === 'changed-after-sealing') {
    // Intact, but not to the end of the file: its sealed part may still be the stored file.
    const sealedEnd = signature.byteRange[2] + signature.byteRange[3];
    const sealedPart = storedSha256 ? sha256Hex(bytes.subarray(0, sealedEnd)) : null;
    const document =
      row && sealedPart === storedSha256 ? { id: row.id, title: row.title, matchesStoredFile: false } : null;
    const seal = sealFound(
      signature,
      signedAt,
      (await pinnedTimestamp(ctx, signature, signedAt)).fact,
      retired,
    );
    return {
      verdict,
      change: 'appended',
      ...facts,
      seal,
      documentId,
      document,
      storedFile: storedSha256 ? 'differs' : 'none',
    };
  }
  if (row && storedSha256 === sha256) {
    // The exact bytes Signet issued: its time-stamp is the one the authority answered then,
    // shown when it stamps this seal and is not before it (a skewed authority's clock is not).
    const stamped = signature.timestamp;
    const timestamp =
      stamped?.valid && stamped.time && (!signedAt || stamped.time.getTime() >= signedAt.getTime())
        ? stamped
        : null;
    const seal = sealFound(signature, signedAt, timestamp, retired);
    const document = { id: row.id, title: row.title, matchesStoredFile: true };
    return { verdict: 'sealed-unchanged', ...facts, seal, documentId, document, storedFile: 'identical' };
  }
  const timestamp = await pinnedTimestamp(ctx, signature, signedAt);
  const seal = sealFound(signature, signedAt, timestamp.fact, retired);
  const change = containerChange(ctx, signature, timestamp.change);
  const storedFile = storedSha256 ? 'differs' : 'none';
  if (change || storedSha256) {
    const changed = change ?? 'not-as-stored';
    return {
      verdict: 'changed-after-sealing',
      change: changed,
      ...facts,
      seal,
      documentId,
      document: null,
      storedFile,
    };
  }
  return { verdict: 'sealed-unchanged', ...facts, seal, documentId, document: null, storedFile };
}

function sameBytes(a: Uint8Array, b: Uint8Array | null): boolean {
  return !!b && Buffer.from(a).equals(Buffer.from(b));
}

// With no stored copy to compare, the container itself must be what Signet writes.
function containerChange(
  ctx: VerifyContext,
  signature: SealSignature,
  timestampChange: SealChange | null,
): SealChange | null {
  if (!signature.container) return 'container';
  if (timestampChange) return timestampChange;
  if (!signature.timestamp && ctx.config.seal.tsaUrl) return 'timestamp-removed';
  return null;
}

type TimestampJudgement = {
  fact: { time: Date | null; authority: string | null } | null;
  change: SealChange | null;
};

/** The seal's time-stamp judged against this Signet's pinned authority and the seal's /M. */
async function pinnedTimestamp(
  ctx: VerifyContext,
  signature: SealSignature,
  signedAt: Date | null,
): Promise<TimestampJudgement> {
  const { timestamp } = signature;
  if (!timestamp) return { fact: null, change: null };
  if (!timestamp.valid) return { fact: null, change: 'timestamp-invalid' };
  if (!isPinnedAuthority(timestamp, await pinnedTsaCertificates(ctx)))
    return { fact: null, change: 'timestamp-foreign' };
  if (!timestamp.time || (signedAt && timestamp.time.getTime() < signedAt.getTime())) {
    return { fact: null, change: 'timestamp-early' };
  }
  return { fact: timestamp, change: null };
}

/** The verdict on an upload over the limit, before (or instead of) reading it. */
export function tooLargeToVerify(ctx: Pick<Context, 'config'>, bytes: number): Verification {
  return notPdf('too-large', null, bytes, maxVerifyBytes(ctx.config));
}

function notPdf(
  reason: NotPdfReason,
  sha256: string | null,
  bytes: number,
  limitBytes?: number,
): Verification {
  const v = { verdict: 'not-a-pdf' as const, reason, sha256, bytes, ...(limitBytes ? { limitBytes } : {}) };
  return { ...v, problem: notPdfSentence({ ...v, problem: '' }) };
}

// verify.ts's sentences, said the way this page asks for a file.
function pdfProblem(problem: string): NotPdfReason {
  return problem === 'The file is not a PDF.' ? 'not-a-pdf' : 'incomplete';
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

function sealFound(
  signature: SealSignature,
  sealedAt: Date | null,
  timestamp: { time: Date | null; authority: string | null } | null,
  retired: RetiredSeal | null,
): SealFound {
  return {
    sealedAt,
    certificate: signature.certificate,
    timestamp: timestamp && { time: timestamp.time, authority: timestamp.authority },
    retired,
  };
}

const uuidIn = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/**
 * The document id a Signet seal names, from Signet's own revision only: its field
 * ('Signet seal <id>') and its signature dictionary's reason, which must agree.
 */
function namedDocumentId(signature: SealSignature): string | null {
  const { revision } = signature;
  const inField = uuidIn.exec(revision?.fieldName ?? '')?.[0].toLowerCase() ?? null;
  const inReason = uuidIn.exec(revision?.reason ?? '')?.[0].toLowerCase() ?? null;
  return inField && inReason === inField ? inField : null;
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

// Every sentence below is a message of the catalogues (`verify.*`), in the page's language;
// English, the CLI's, when no translator is given. Times stay ISO 8601 in UTC in every language.
const english = translator('en');

/** A certificate subject as a name: its CN, or the whole subject when it has none. */
function signerName(subject: string | null, tr: Translator): string {
  if (!subject) return tr.t('verify.unreadableCertificate');
  const cn = /(?:^|, )CN=((?:\\.|[^,\\])*)/.exec(subject)?.[1];
  return cn ? cn.replace(/\\(.)/g, '$1') : subject;
}

/** A moment for a message's `{x, select, none {} other {… {x}}}`: the time, or `none`. */
const when = (date: Date | null): string => (date ? formatUtc(date) : 'none');

/** A retired seal for a message's `{retired, select, …}` and its `{retiredAt}`. */
function retiredValues(retired: RetiredSeal | null) {
  if (!retired) return { retired: 'none', retiredAt: '' };
  return retired.retiredAt
    ? { retired: 'retired', retiredAt: formatUtc(retired.retiredAt) }
    : { retired: 'unused', retiredAt: '' };
}

// The sentence for each way a file carrying this Signet's seal is not the file it issued.
const changeSentences: Record<Exclude<SealChange, 'appended'>, MessageKey> = {
  altered: 'verify.verdict.altered',
  'seal-altered': 'verify.verdict.sealAltered',
  container: 'verify.verdict.container',
  'timestamp-removed': 'verify.verdict.timestampRemoved',
  'timestamp-invalid': 'verify.verdict.timestampInvalid',
  'timestamp-foreign': 'verify.verdict.timestampForeign',
  'timestamp-early': 'verify.verdict.timestampEarly',
  'not-as-stored': 'verify.verdict.notAsStored',
};

/** The answer in one sentence. */
export function verificationSentence(v: Verification, tr: Translator = english): string {
  switch (v.verdict) {
    case 'sealed-unchanged': {
      const values = { sealedAt: when(v.seal.sealedAt), ...retiredValues(v.seal.retired) };
      if (v.document) return tr.t('verify.verdict.sealedDocument', { ...values, title: v.document.title });
      return tr.t('verify.verdict.sealed', { ...values, notStored: v.documentId ? 'yes' : 'no' });
    }
    case 'changed-after-sealing':
      if (v.change !== 'appended') return tr.t(changeSentences[v.change]);
      return tr.t('verify.verdict.appended', {
        document: v.document ? 'yes' : 'no',
        title: v.document?.title ?? '',
        sealedAt: when(v.seal.sealedAt),
      });
    case 'not-sealed-here': {
      if (v.otherSignatures.length === 0) return tr.t('verify.verdict.unsigned');
      const signers = tr.list([...new Set(v.otherSignatures.map((s) => signerName(s.signer, tr)))]);
      const count = v.otherSignatures.length;
      if (v.retiredSeal)
        return tr.t('verify.verdict.retiredSeal', { count, signers, ...retiredValues(v.retiredSeal) });
      return tr.t('verify.verdict.others', { count, signers });
    }
    case 'not-a-pdf':
      return notPdfSentence(v, tr);
  }
}

/**
 * What a PDF reader shows about a seal this page found unchanged, which is the first thing a
 * recipient opening the file in Acrobat sees: readers check the signature offline, and trust
 * its certificate only when they trust its issuer, so the default self-signed seal shows as of
 * unknown validity. Said here so nobody takes that for a change (docs/deployment.md, "What
 * readers show", says what an operator does about it). Null for every other verdict.
 */
export function readerNote(v: Verification, tr: Translator = english): string | null {
  if (v.verdict !== 'sealed-unchanged') return null;
  const certificate = v.seal.certificate;
  if (certificate && certificate.subject !== certificate.issuer) {
    return tr.t('verify.readerNote.issuer', { issuer: signerName(certificate.issuer, tr) });
  }
  return tr.t('verify.readerNote.selfSigned');
}

export interface VerificationFact {
  label: string;
  value: string;
  /** A hash, fingerprint or id: shown in a fixed-width font and broken anywhere. */
  isCode?: boolean;
}

function sealFacts(seal: SealFound, tr: Translator): VerificationFact[] {
  const facts: VerificationFact[] = [];
  if (seal.sealedAt) facts.push({ label: tr.t('verify.fact.sealedOn'), value: formatUtc(seal.sealedAt) });
  if (seal.timestamp?.time) {
    const time = formatUtc(seal.timestamp.time);
    const value = seal.timestamp.authority
      ? tr.t('verify.fact.timeStampedBy', { time, authority: signerName(seal.timestamp.authority, tr) })
      : time;
    facts.push({ label: tr.t('verify.fact.timeStamped'), value });
  }
  if (seal.certificate) facts.push(...certificateFacts('seal', seal.certificate, tr));
  if (seal.retired) {
    facts.push({
      label: tr.t('verify.fact.sealStatus'),
      value: tr.t('verify.fact.sealStatusValue', retiredValues(seal.retired)),
    });
  }
  return facts;
}

const certificateLabels = {
  seal: ['verify.fact.sealSubject', 'verify.fact.sealIssuer', 'verify.fact.sealFingerprint'],
  ours: ['verify.fact.ourSealSubject', 'verify.fact.ourSealIssuer', 'verify.fact.ourSealFingerprint'],
} as const;

function certificateFacts(
  whose: keyof typeof certificateLabels,
  certificate: CertificateDescription,
  tr: Translator,
): VerificationFact[] {
  const [subject, issuer, fingerprint] = certificateLabels[whose];
  return [
    { label: tr.t(subject), value: certificate.subject },
    { label: tr.t(issuer), value: certificate.issuer },
    { label: tr.t(fingerprint), value: certificate.fingerprintSha256, isCode: true },
  ];
}

const storedFileValues: Record<StoredFile, MessageKey | null> = {
  identical: 'verify.fact.identical',
  differs: 'verify.fact.differs',
  none: null,
};

function documentFacts(
  documentId: string | null,
  document: SealedDocument | null,
  storedFile: StoredFile,
  tr: Translator,
): VerificationFact[] {
  const facts: VerificationFact[] = [];
  if (document) facts.push({ label: tr.t('verify.fact.document'), value: document.title });
  if (documentId) facts.push({ label: tr.t('verify.fact.documentId'), value: documentId, isCode: true });
  if (documentId && storedFile === 'none')
    facts.push({ label: tr.t('verify.fact.document'), value: tr.t('verify.fact.notStored') });
  const stored = storedFileValues[storedFile];
  if (stored) facts.push({ label: tr.t('verify.fact.storedFile'), value: tr.t(stored) });
  return facts;
}

const changeValues: Record<SealChange, MessageKey> = {
  appended: 'verify.change.appended',
  altered: 'verify.change.altered',
  'seal-altered': 'verify.change.sealAltered',
  container: 'verify.change.container',
  'timestamp-removed': 'verify.change.timestampRemoved',
  'timestamp-invalid': 'verify.change.timestampInvalid',
  'timestamp-foreign': 'verify.change.timestampForeign',
  'timestamp-early': 'verify.change.timestampEarly',
  'not-as-stored': 'verify.change.notAsStored',
};

function otherFacts(others: OtherSignature[], tr: Translator): VerificationFact[] {
  return others.map((s) => ({
    label: tr.t('verify.fact.otherSignature'),
    value: tr.t('verify.fact.otherSignatureValue', {
      signer: signerName(s.signer, tr),
      sealedAt: when(s.signedAt),
      intact: s.intact ? 'yes' : 'no',
    }),
  }));
}

/** The answer's details: one row per fact, in the order people check them. */
export function verificationFacts(v: Verification, tr: Translator = english): VerificationFact[] {
  const file = (sha256: string | null, bytes: number): VerificationFact[] => [
    ...(sha256 ? [{ label: tr.t('verify.fact.fileSha256'), value: sha256, isCode: true }] : []),
    { label: tr.t('verify.fact.fileSize'), value: tr.t('verify.fact.fileSizeValue', { bytes }) },
  ];
  switch (v.verdict) {
    case 'sealed-unchanged':
      return [
        ...documentFacts(v.documentId, v.document, v.storedFile, tr),
        ...sealFacts(v.seal, tr),
        ...file(v.sha256, v.bytes),
        ...otherFacts(v.otherSignatures, tr),
      ];
    case 'changed-after-sealing':
      return [
        { label: tr.t('verify.fact.change'), value: tr.t(changeValues[v.change]) },
        ...documentFacts(v.documentId, v.document, v.storedFile, tr),
        ...sealFacts(v.seal, tr),
        ...file(v.sha256, v.bytes),
        ...otherFacts(v.otherSignatures, tr),
      ];
    case 'not-sealed-here':
      return [
        ...file(v.sha256, v.bytes),
        ...otherFacts(v.otherSignatures, tr),
        ...(v.ourSeal ? certificateFacts('ours', v.ourSeal, tr) : []),
      ];
    case 'not-a-pdf':
      return v.sha256 ? file(v.sha256, v.bytes) : [];
  }
}
