// SQL of `seal_keys` (the installation's self-signed seals, at most one current) and of what
// the seal records about the documents it sealed (`documents.sealed_by`).
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import { asBuffer } from '../files/files.repository.ts';

type Db = Kysely<Database> | Transaction<Database>;

export interface SealKeyRow {
  name: string;
  certificate: Buffer;
  fingerprint: string;
  createdAt: Date;
  retiredAt: Date | null;
}

export interface StoredSealKey extends SealKeyRow {
  privateKey: Buffer | null;
  encryptedKey: Buffer | null;
  kekId: string | null;
}

/** The current seal's name and fingerprint: one small row, read before every seal. */
export async function findCurrentSealName(db: Db): Promise<{ name: string; fingerprint: string } | null> {
  const row = await db
    .selectFrom('seal_keys')
    .select(['name', 'fingerprint'])
    .where('retired_at', 'is', null)
    .executeTakeFirst();
  return row ?? null;
}

export async function findStoredSealKey(db: Db, name: string): Promise<StoredSealKey | null> {
  const row = await db.selectFrom('seal_keys').selectAll().where('name', '=', name).executeTakeFirst();
  return row
    ? {
        ...sealKeyRow(row),
        privateKey: row.private_key && asBuffer(row.private_key),
        encryptedKey: row.encrypted_key && asBuffer(row.encrypted_key),
        kekId: row.kek_id,
      }
    : null;
}

/** Every seal, newest first, without their keys. */
export async function listSealKeys(db: Db): Promise<SealKeyRow[]> {
  const rows = await db
    .selectFrom('seal_keys')
    .select(['name', 'certificate', 'fingerprint', 'created_at', 'retired_at'])
    .orderBy('created_at', 'desc')
    .orderBy('name')
    .execute();
  return rows.map(sealKeyRow);
}

function sealKeyRow(row: {
  name: string;
  certificate: Uint8Array;
  fingerprint: string;
  created_at: Date;
  retired_at: Date | null;
}): SealKeyRow {
  return {
    name: row.name,
    certificate: asBuffer(row.certificate),
    fingerprint: row.fingerprint,
    createdAt: row.created_at,
    retiredAt: row.retired_at,
  };
}

/** Stores a new current seal; false when another one is current already (another process won). */
export async function insertSealKey(
  db: Db,
  seal: {
    name: string;
    certificate: Uint8Array;
    fingerprint: string;
    encryptedKey: Buffer;
    kekId: string;
    now: Date;
  },
): Promise<boolean> {
  const inserted = await db
    .insertInto('seal_keys')
    .values({
      name: seal.name,
      certificate: Buffer.from(seal.certificate),
      fingerprint: seal.fingerprint,
      encrypted_key: seal.encryptedKey,
      kek_id: seal.kekId,
      created_at: seal.now,
    })
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Retires the current seal, if any; returns its name. */
export async function retireCurrentSealKey(db: Db, now: Date): Promise<string | null> {
  const row = await db
    .updateTable('seal_keys')
    .set({ retired_at: now })
    .where('retired_at', 'is', null)
    .returning('name')
    .executeTakeFirst();
  return row?.name ?? null;
}

/** Names of rows an older version stored with a clear private key. */
export async function findClearSealKeyNames(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('seal_keys').select('name').where('private_key', 'is not', null).execute();
  return rows.map((r) => r.name);
}

/** Replaces a row's clear key by its encryption (once: a row already encrypted is left alone). */
export async function replaceClearSealKey(
  db: Db,
  name: string,
  encrypted: { encryptedKey: Buffer; kekId: string },
): Promise<boolean> {
  const updated = await db
    .updateTable('seal_keys')
    .set({ encrypted_key: encrypted.encryptedKey, kek_id: encrypted.kekId, private_key: null })
    .where('name', '=', name)
    .where('private_key', 'is not', null)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/**
 * Locks a stored seal against retirement until the transaction ends (a rotation's update
 * waits for it) and says when it was retired: null while it is current, undefined when the
 * fingerprint is no stored seal (a PKCS#12's).
 */
export async function lockSealForUse(
  db: Transaction<Database>,
  fingerprint: string,
): Promise<Date | null | undefined> {
  const row = await db
    .selectFrom('seal_keys')
    .select('retired_at')
    .where('fingerprint', '=', fingerprint)
    .forShare()
    .executeTakeFirst();
  return row ? row.retired_at : undefined;
}

/**
 * Which seals Signet's records show sealed the file with this SHA-256: the `sealed_by` of
 * each document whose stored sealed file it is (null for documents sealed before those
 * records were kept: the stored file itself is then the record).
 */
export async function findSealersOfFile(db: Db, sha256: string): Promise<Array<string | null>> {
  const rows = await db
    .selectFrom('documents')
    .select('sealed_by')
    .where('sealed_sha256', '=', sha256)
    .execute();
  return rows.map((r) => r.sealed_by);
}
