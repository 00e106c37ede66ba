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
import { createSelfSignedSeal, identityFromPkcs8, loadP12, type SealIdentity } from '../pdf/seal-identity.ts';

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

async function findSealKey(db: Kysely<Database>) {
  const row = await db
    .selectFrom('seal_keys')
    .select(['certificate', 'private_key'])
    .where('name', '=', installationSeal)
    .executeTakeFirst();
  return row && { certificate: asBuffer(row.certificate), privateKey: asBuffer(row.private_key) };
}
