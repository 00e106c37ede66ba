// Which certificate seals this installation's PDFs. With SIGNET_SEAL_P12_FILE, the
// PKCS#12 from a CA; otherwise the installation's own self-signed seal, made by the first
// process that needs it and stored in the database (`seal_keys`), so every process seals
// with the same one. The private key is never logged nor printed; it leaves the database
// only to be imported, non-extractable, into this process's Web Crypto.
import { readFile } from 'node:fs/promises';
import type { Kysely } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../db/schema.ts';
import { asBuffer } from '../files/files.repository.ts';
import {
  type CertificateDescription,
  createSelfSignedSeal,
  describeCertificate,
  identityFromPkcs8,
  loadP12,
  type SealAlgorithm,
  type SealIdentity,
} from '../pdf/seal-identity.ts';

const installationSeal = 'installation';

// One identity per database and seal configuration in this process: every seal of a
// process uses the same one, and a PKCS#12 is read once.
const identities = new WeakMap<Kysely<Database>, Map<string, Promise<SealIdentity>>>();

export function sealIdentity(ctx: Pick<Context, 'db' | 'config' | 'clock'>): Promise<SealIdentity> {
  let forDb = identities.get(ctx.db);
  if (!forDb) {
    forDb = new Map();
    identities.set(ctx.db, forDb);
  }
  const key = ctx.config.seal.p12File ?? installationSeal;
  let identity = forDb.get(key);
  if (!identity) {
    identity = loadSealIdentity(ctx);
    forDb.set(key, identity);
    // A failure (a missing file, a wrong passphrase, an outage) is not remembered: the next
    // seal tries again.
    identity.catch(() => forDb.delete(key));
  }
  return identity;
}

async function loadSealIdentity(ctx: Pick<Context, 'db' | 'config' | 'clock'>): Promise<SealIdentity> {
  const { p12File, p12Passphrase } = ctx.config.seal;
  if (p12File) return loadP12(await readFile(p12File), p12Passphrase);
  const stored = await findSealKey(ctx.db);
  if (stored) return identityFromPkcs8(stored.certificate, stored.privateKey);
  const made = await createSelfSignedSeal({
    commonName: `Signet seal (${new URL(ctx.config.publicUrl).hostname})`,
    organization: 'Signet',
    now: ctx.clock.now(),
  });
  // Two processes may both make one; the first stored wins and both use it.
  await ctx.db
    .insertInto('seal_keys')
    .values({
      name: installationSeal,
      certificate: Buffer.from(made.identity.certificate),
      private_key: Buffer.from(made.pkcs8),
      created_at: ctx.clock.now(),
    })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const winner = await findSealKey(ctx.db);
  if (!winner) throw new Error('the seal key vanished right after it was stored');
  return identityFromPkcs8(winner.certificate, winner.privateKey);
}

/**
 * Every certificate this installation's seals carry: the current seal's, and, when a
 * PKCS#12 is configured, the self-signed one stored before it (documents sealed then are
 * still this installation's). What /verify and `signet verify` accept as "sealed here".
 */
export async function sealCertificates(ctx: Pick<Context, 'db' | 'config' | 'clock'>): Promise<Uint8Array[]> {
  const current = (await sealIdentity(ctx)).certificate;
  if (!ctx.config.seal.p12File) return [current];
  const row = await ctx.db
    .selectFrom('seal_keys')
    .select('certificate')
    .where('name', '=', installationSeal)
    .executeTakeFirst();
  return row ? [current, asBuffer(row.certificate)] : [current];
}

export type SealDescription = CertificateDescription & {
  /** SIGNET_SEAL_P12_FILE, or the installation's own self-signed seal (stored in the database). */
  source: 'p12-file' | 'installation';
  file: string | null;
  algorithm: SealAlgorithm;
  /** Subjects of the certificates sent with the seal (a CA's intermediates), in the file's order. */
  chain: string[];
};

/** What `signet seal show` prints: the seal in use (made now if there is none yet, as the first seal would), never its key. */
export async function describeSeal(ctx: Pick<Context, 'db' | 'config' | 'clock'>): Promise<SealDescription> {
  const identity = await sealIdentity(ctx);
  const { p12File } = ctx.config.seal;
  return {
    source: p12File ? 'p12-file' : 'installation',
    file: p12File,
    algorithm: identity.algorithm,
    ...describeCertificate(identity.certificate),
    chain: identity.chain.map((der) => describeCertificate(der).subject),
  };
}

async function findSealKey(db: Kysely<Database>) {
  const row = await db
    .selectFrom('seal_keys')
    .select(['certificate', 'private_key'])
    .where('name', '=', installationSeal)
    .executeTakeFirst();
  return row && { certificate: asBuffer(row.certificate), privateKey: asBuffer(row.private_key) };
}
