// Which certificate seals this installation's PDFs. With SIGNET_SEAL_P12_FILE, the
// PKCS#12 from a CA; otherwise the installation's own self-signed seal, made by the first
// worker to start (or `signet seal show`) and stored in the database (`seal_keys`), so every
// process seals with the same one and no seal waits for it to be made. Its private key is
// stored encrypted with the key-encryption key (seal-kek.ts), which is never in the
// database; it is decrypted only to be imported, non-extractable, into this process's Web
// Crypto, and never logged nor printed.
//
// `signet seal rotate` retires the current seal and makes the next one. Every process
// reads the current seal's name before each seal (one small row), so a rotation made by
// another process is used from the next seal on; the transaction that stores a sealed file
// checks, under a lock a rotation waits for, that its seal was still current. So a retired
// seal is recorded (`documents.sealed_by`) only for files it sealed before its retirement,
// and /verify accepts it for those files only.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Kysely } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../db/schema.ts';
import {
  type CertificateDescription,
  createSelfSignedSeal,
  describeCertificate,
  identityFromPkcs8,
  loadP12,
  type SealAlgorithm,
  type SealIdentity,
} from '../pdf/seal-identity.ts';
import {
  decryptSealKey,
  encryptSealKey,
  hasKeyEncryptionKey,
  type KeyEncryptionKey,
  keyEncryptionKey,
  SealKeyError,
} from './seal-kek.ts';
import {
  findClearSealKeyNames,
  findCurrentSealName,
  findSealersOfFile,
  findStoredSealKey,
  insertSealKey,
  listSealKeys,
  replaceClearSealKey,
  retireCurrentSealKey,
  type SealKeyRow,
} from './seal-keys.repository.ts';

type SealContext = Pick<Context, 'db' | 'config' | 'clock'>;

/** The seal a document is sealed with now. */
export interface CurrentSeal {
  identity: SealIdentity;
  /** SHA-256 of the certificate, lowercase hex: what `documents.sealed_by` records. */
  fingerprint: string;
}

// One identity per database and seal in this process: every seal of a process uses the same
// one, and a PKCS#12 is read once, a stored key decrypted once. Keyed by the PKCS#12's path or
// the stored seal's name; a rotation makes a new name, and the old entry is dropped.
const identities = new WeakMap<Kysely<Database>, Map<string, Promise<SealIdentity>>>();

function cached(db: Kysely<Database>, key: string, load: () => Promise<SealIdentity>): Promise<SealIdentity> {
  let forDb = identities.get(db);
  if (!forDb) {
    forDb = new Map();
    identities.set(db, forDb);
  }
  let identity = forDb.get(key);
  if (!identity) {
    for (const old of forDb.keys()) forDb.delete(old);
    identity = load();
    forDb.set(key, identity);
    // A failure (a missing file, a wrong passphrase or key, an outage) is not remembered:
    // the next seal tries again.
    const entries = forDb;
    identity.catch(() => entries.delete(key));
  }
  return identity;
}

export function certificateFingerprint(certificate: Uint8Array): string {
  return createHash('sha256').update(certificate).digest('hex');
}

/**
 * The seal in use, for a seal: read, never made here. A worker makes the installation's
 * first seal and encrypts an older version's clear key when it starts (`prepareSealKeys`),
 * so the seal is ready before the first seal and no seal pass spends its time on it.
 */
export async function currentSeal(ctx: SealContext): Promise<CurrentSeal> {
  const { p12File, p12Passphrase } = ctx.config.seal;
  if (p12File) {
    const identity = await cached(ctx.db, `p12:${p12File}`, async () =>
      loadP12(await readFile(p12File), p12Passphrase),
    );
    return { identity, fingerprint: certificateFingerprint(identity.certificate) };
  }
  const current = await findCurrentSealName(ctx.db);
  if (!current) {
    throw new Error(
      'this installation has no seal yet: a worker makes it when it starts (signet serve), and so does "signet seal show"',
    );
  }
  const { name, fingerprint } = current;
  const identity = await cached(ctx.db, `stored:${name}`, () => loadStoredSeal(ctx, name));
  return { identity, fingerprint };
}

/**
 * The seal made ready to use: keys an older version stored in the clear encrypted, and the
 * installation's first self-signed seal made if it has none (two processes may both make
 * it: the first stored wins and both use it). At a worker's start and `signet seal show`.
 */
async function readySeal(ctx: SealContext): Promise<CurrentSeal> {
  if (ctx.config.seal.p12File) return currentSeal(ctx);
  const kek = keyEncryptionKey(ctx.config);
  await encryptClearSealKeysWith(ctx.db, kek);
  if (!(await findCurrentSealName(ctx.db))) await makeSeal(ctx, { retirePrevious: false });
  return currentSeal(ctx);
}

async function loadStoredSeal(ctx: SealContext, name: string): Promise<SealIdentity> {
  const kek = keyEncryptionKey(ctx.config);
  const stored = await findStoredSealKey(ctx.db, name);
  if (!stored?.encryptedKey) throw new Error(`the seal "${name}" is not stored`);
  const pkcs8 = decryptSealKey(kek, { name, encrypted_key: stored.encryptedKey, kek_id: stored.kekId });
  try {
    return await identityFromPkcs8(stored.certificate, pkcs8);
  } finally {
    pkcs8.fill(0);
  }
}

/** A new self-signed seal, stored encrypted; with `retirePrevious`, the current one is retired in the same transaction. */
async function makeSeal(
  ctx: SealContext,
  options: { retirePrevious: boolean },
): Promise<{ made: SealKeyRow | null; retired: string | null }> {
  const kek = keyEncryptionKey(ctx.config);
  const now = ctx.clock.now();
  const host = new URL(ctx.config.publicUrl).hostname;
  const made = await createSelfSignedSeal({
    commonName: `Document seal of ${host}`,
    organization: ctx.config.seal.organization ?? host,
    now,
  });
  const certificate = made.identity.certificate;
  const fingerprint = certificateFingerprint(certificate);
  const name = `seal-${fingerprint.slice(0, 16)}`;
  const encryptedKey = encryptSealKey(kek, name, made.pkcs8);
  made.pkcs8.fill(0);
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      const retired = options.retirePrevious ? await retireCurrentSealKey(trx, now) : null;
      // Two processes may both make the first seal; the first stored wins and both use it.
      const stored = await insertSealKey(trx, {
        name,
        certificate,
        fingerprint,
        encryptedKey,
        kekId: kek.id,
        now,
      });
      if (!stored && options.retirePrevious) {
        throw new SealKeyError(
          'another seal rotation ran at the same time; run "signet seal show" to see which seal is current',
        );
      }
      return {
        made: stored
          ? { name, certificate: Buffer.from(certificate), fingerprint, createdAt: now, retiredAt: null }
          : null,
        retired,
      };
    });
  } catch (error) {
    if ((error as { code?: string }).code === '23505') {
      throw new SealKeyError(
        'another seal rotation ran at the same time; run "signet seal show" to see which seal is current',
      );
    }
    throw error;
  }
}

export interface Rotation {
  seal: SealSummary;
  /** The seal it replaced (null on an installation that had none). */
  retired: SealSummary | null;
}

/**
 * `signet seal rotate`: a new self-signed seal becomes current, the previous one is retired
 * (it still vouches for the files it is recorded to have sealed). Needs the key-encryption
 * key for the new seal only, so it is also the way out when the old key is lost; but a
 * command run with another key than the servers' would leave them a seal they cannot open,
 * so a key other than the current seal's is refused unless `keyLost` says that is the point.
 */
export async function rotateSeal(
  ctx: SealContext,
  { keyLost = false }: { keyLost?: boolean } = {},
): Promise<Rotation> {
  if (ctx.config.seal.p12File) {
    throw new SealKeyError(
      'SIGNET_SEAL_P12_FILE is set: documents are sealed with that PKCS#12, so there is no self-signed seal to rotate (replace the file to change the seal)',
    );
  }
  const kek = keyEncryptionKey(ctx.config);
  const current = await findCurrentSealName(ctx.db);
  const stored = current && (await findStoredSealKey(ctx.db, current.name));
  if (stored?.kekId && stored.kekId !== kek.id && !keyLost) {
    throw new SealKeyError(
      `the seal key (${kek.source}) is not the one the current seal is encrypted with (key id ${stored.kekId}, this one is ${kek.id}): run this command with the servers' SIGNET_SEAL_KEY_FILE or SIGNET_SEAL_KEY, or, if that key is lost, with --key-lost`,
    );
  }
  const { made, retired } = await makeSeal(ctx, { retirePrevious: true });
  if (!made) throw new Error('the new seal was not stored');
  const seals = await listSealKeys(ctx.db);
  const retiredRow = retired ? seals.find((s) => s.name === retired) : undefined;
  return { seal: summarize(made, 'current'), retired: retiredRow ? summarize(retiredRow, 'retired') : null };
}

/**
 * Encrypts every key an older version stored in the clear, with the configured key-encryption
 * key; idempotent (each row once, whoever runs it). Run at start; returns how many it encrypted,
 * or null when no key is configured to do it with (PostgreSQL without SIGNET_SEAL_KEY[_FILE]).
 */
export async function encryptClearSealKeys(ctx: Pick<Context, 'db' | 'config'>): Promise<number | null> {
  const names = await findClearSealKeyNames(ctx.db);
  if (names.length === 0) return 0;
  if (!hasKeyEncryptionKey(ctx.config)) return null;
  return encryptClearSealKeysWith(ctx.db, keyEncryptionKey(ctx.config));
}

async function encryptClearSealKeysWith(db: Kysely<Database>, kek: KeyEncryptionKey): Promise<number> {
  let encrypted = 0;
  for (const name of await findClearSealKeyNames(db)) {
    const stored = await findStoredSealKey(db, name);
    if (!stored?.privateKey) continue;
    const encryptedKey = encryptSealKey(kek, name, stored.privateKey);
    if (await replaceClearSealKey(db, name, { encryptedKey, kekId: kek.id })) encrypted += 1;
  }
  return encrypted;
}

/**
 * At `signet serve`: encrypts keys an older version stored in the clear and, in a process
 * that seals (`seals`: a worker), makes the installation's first seal if it has none and
 * opens the current seal once, so that the seal is ready before the first document is
 * sealed, and a missing or wrong key-encryption key is said at start (one line, logged),
 * not first at the next document.
 * Returns that line's problem, or null when this process can seal (or need not): `signet
 * serve` then refuses to start a worker that could not seal (server.ts), and `signet
 * trigger` says it at once (demo/trigger.ts).
 */
export async function prepareSealKeys(
  ctx: Pick<Context, 'db' | 'config' | 'log' | 'clock'>,
  { seals }: { seals: boolean },
): Promise<string | null> {
  try {
    const encrypted = await encryptClearSealKeys(ctx);
    if (encrypted) {
      ctx.log.info(
        { encrypted },
        "the seal's private key, stored in the clear by an earlier version, is now encrypted (backups made before hold it in the clear: rotate the seal if they may leak)",
      );
    }
    if (!seals || ctx.config.seal.p12File) return null;
    if (!hasKeyEncryptionKey(ctx.config)) {
      const problem =
        encrypted === null
          ? "the seal's private key is stored in the clear and documents cannot be sealed: set SIGNET_SEAL_KEY_FILE or SIGNET_SEAL_KEY (docs/deployment.md)"
          : 'documents cannot be sealed: with DATABASE_URL, set SIGNET_SEAL_KEY_FILE or SIGNET_SEAL_KEY (or SIGNET_SEAL_P12_FILE); see docs/deployment.md';
      ctx.log.warn(problem);
      return problem;
    }
    // Ready before the first seal: made now on a fresh installation, and opened once.
    await readySeal(ctx);
    return null;
  } catch (error) {
    if (!(error instanceof SealKeyError)) throw error;
    const problem = `documents cannot be sealed: ${error.message}`;
    ctx.log.error(problem);
    return problem;
  }
}

// ---- Verification: which certificates are this installation's, for a given file ----

/** A seal no longer in use whose certificate the installation still knows. */
export interface RetiredSeal {
  /** SHA-256 of the certificate, as describeCertificate writes it (AA:BB:…). */
  fingerprintSha256: string;
  /** When `signet seal rotate` retired it; null: set aside because SIGNET_SEAL_P12_FILE is set. */
  retiredAt: Date | null;
  /** Signet's records show it sealed this very file (so it vouches for it). */
  vouchesForFile: boolean;
}

export interface SealCertificates {
  /** The certificates that count as this installation's seal for this file. */
  accepted: Uint8Array[];
  /** The seal in use now, for comparison; null before the first seal is made. */
  current: Uint8Array | null;
  retired: RetiredSeal[];
}

/**
 * What /verify and `signet verify` accept as "sealed here" for the file whose SHA-256 is
 * given: the current seal's certificate always; a retired seal's (or, with a PKCS#12
 * configured, the self-signed seal set aside) only when the file is the stored sealed file
 * of a document Signet's records show it sealed, before its retirement. A retired seal
 * vouches for nothing else, since its key may be anywhere a backup went. Never makes a seal.
 */
export async function sealCertificatesFor(ctx: SealContext, sha256: string): Promise<SealCertificates> {
  const stored = await listSealKeys(ctx.db);
  const p12 = ctx.config.seal.p12File ? (await currentSeal(ctx)).identity.certificate : null;
  const current = p12 ?? stored.find((s) => s.retiredAt === null)?.certificate ?? null;
  const set = stored.filter((s) => p12 !== null || s.retiredAt !== null);
  const sealers = set.length > 0 ? await findSealersOfFile(ctx.db, sha256) : [];
  const retired = set.map((s) => ({
    certificate: s.certificate,
    fingerprintSha256: colonHex(s.fingerprint),
    retiredAt: s.retiredAt,
    // sealed_by is written only under a lock that a retirement waits for, while the seal is
    // current; null marks a document sealed before such records were kept, whose stored file
    // (what Signet itself wrote) shows which seal sealed it.
    vouchesForFile: sealers.some((by) => by === s.fingerprint || by === null),
  }));
  return {
    accepted: [
      ...(current ? [current] : []),
      ...retired.filter((r) => r.vouchesForFile).map((r) => r.certificate),
    ],
    current,
    retired: retired.map(({ certificate: _, ...rest }) => rest),
  };
}

function colonHex(hex: string): string {
  return hex.toUpperCase().match(/../g)?.join(':') ?? '';
}

// ---- What `signet seal show` prints ----

export type SealDescription = CertificateDescription & {
  /** SIGNET_SEAL_P12_FILE, or the installation's own self-signed seal (stored in the database). */
  source: 'p12-file' | 'installation';
  file: string | null;
  algorithm: SealAlgorithm;
  /** Subjects of the certificates sent with the seal (a CA's intermediates), in the file's order. */
  chain: string[];
};

export type SealSummary = CertificateDescription & {
  name: string;
  /** current: seals now; retired: by `signet seal rotate`; set-aside: unused while SIGNET_SEAL_P12_FILE is set. */
  status: 'current' | 'retired' | 'set-aside';
  createdAt: Date;
  retiredAt: Date | null;
};

function summarize(row: SealKeyRow, status: SealSummary['status']): SealSummary {
  return {
    name: row.name,
    status,
    ...describeCertificate(row.certificate),
    createdAt: row.createdAt,
    retiredAt: row.retiredAt,
  };
}

/** The seal in use (made now if there is none yet, as a worker's start would), never its key. */
export async function describeSeal(ctx: SealContext): Promise<SealDescription> {
  const { identity } = await readySeal(ctx);
  const { p12File } = ctx.config.seal;
  return {
    source: p12File ? 'p12-file' : 'installation',
    file: p12File,
    algorithm: identity.algorithm,
    ...describeCertificate(identity.certificate),
    chain: identity.chain.map((der) => describeCertificate(der).subject),
  };
}

/** Every self-signed seal this installation has stored, newest first, with its status. */
export async function listSeals(ctx: SealContext): Promise<SealSummary[]> {
  const rows = await listSealKeys(ctx.db);
  return rows.map((row) =>
    summarize(row, row.retiredAt ? 'retired' : ctx.config.seal.p12File ? 'set-aside' : 'current'),
  );
}
