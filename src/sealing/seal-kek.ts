// The key that encrypts the seal's private key at rest (the key-encryption key), and the
// encryption itself. The key is never in the database, so a stolen backup holds only
// ciphertext and cannot seal:
//   SIGNET_SEAL_KEY_FILE  a file holding 32 bytes as base64 or hex (operators back it up apart
//                         from the database);
//   SIGNET_SEAL_KEY       the same value in the environment;
//   neither, on the embedded database (no DATABASE_URL): `seal.key` in the data folder,
//                         generated once (mode 0600, created atomically, never overwritten);
//   neither, on PostgreSQL: no key, and sealing refuses with one line saying what to set,
//                         rather than storing a key in the clear.
// Each encrypted key is stored with `kek_id`, a one-way identifier of the key that encrypted
// it, so a wrong key is told apart from a damaged row. Nothing here logs or returns a key.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Config, parseKeyEncryptionKey } from '../config.ts';
import { dataDirLayout, sealKeyFileName } from '../db/data-dir.ts';

export interface KeyEncryptionKey {
  key: Buffer;
  /** One-way identifier (HMAC of a fixed label, 16 hex digits): stored beside each encrypted key. */
  id: string;
  /** Where it came from, for messages: 'SIGNET_SEAL_KEY', or the file's path. */
  source: string;
}

/** A problem with the key-encryption key, said in one line an operator can act on. */
export class SealKeyError extends Error {}

type KekConfig = Pick<Config, 'databaseUrl' | 'dataDir' | 'seal'>;

/** The key-encryption key this configuration names (generating the data folder's on first use). */
export function keyEncryptionKey(config: KekConfig): KeyEncryptionKey {
  if (config.seal.key !== null) return withId(parsed(config.seal.key, 'SIGNET_SEAL_KEY'), 'SIGNET_SEAL_KEY');
  if (config.seal.keyFile !== null) return withId(readKeyFile(config.seal.keyFile), config.seal.keyFile);
  if (config.databaseUrl === null) {
    const path = join(dataDirLayout(config.dataDir).root, sealKeyFileName);
    return withId(readKeyFile(path, { create: true }), path);
  }
  throw new SealKeyError(
    "SIGNET_SEAL_KEY_FILE or SIGNET_SEAL_KEY must be set to seal with DATABASE_URL: the seal's private key is kept encrypted with a key that is not in the database (see docs/deployment.md)",
  );
}

/** Whether this configuration has (or, on a data folder, will make) a key-encryption key. */
export function hasKeyEncryptionKey(config: KekConfig): boolean {
  return config.seal.key !== null || config.seal.keyFile !== null || config.databaseUrl === null;
}

function withId(key: Buffer, source: string): KeyEncryptionKey {
  return { key, id: kekId(key), source };
}

export function kekId(key: Buffer): string {
  return createHmac('sha256', key).update('signet seal key-encryption key id').digest('hex').slice(0, 16);
}

function parsed(text: string, source: string): Buffer {
  const key = parseKeyEncryptionKey(text);
  if (!key) throw new SealKeyError(`${source} must hold 32 bytes in base64 or hex (openssl rand -base64 32)`);
  return key;
}

function readKeyFile(path: string, options: { create?: boolean } = {}): Buffer {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new SealKeyError(`the seal key file ${path} cannot be read: ${(error as Error).message}`);
    }
    if (!options.create)
      throw new SealKeyError(`the seal key file ${path} (SIGNET_SEAL_KEY_FILE) does not exist`);
    createKeyFile(path);
    text = readFileSync(path, 'utf8');
  }
  return parsed(text, `the seal key file ${path}`);
}

/**
 * Writes a new key to `path` unless a file is there already: written whole under a temporary
 * name, then linked into place (link fails if the name exists), so no process ever reads a
 * half-written key and two processes starting at once end up with the same one.
 */
function createKeyFile(path: string): void {
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temporary, `${randomBytes(32).toString('base64')}\n`, {
    mode: 0o600,
    flag: 'wx',
    flush: true,
  });
  try {
    linkSync(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temporary);
  }
}

// The stored form: version (1), nonce (12), ciphertext, tag (16).
const formatVersion = 1;

function associatedData(name: string): Buffer {
  return Buffer.from(`signet seal_keys ${name}`, 'utf8');
}

/** The PKCS#8 encrypted for the row named `name` (AES-256-GCM, the name as associated data). */
export function encryptSealKey(kek: KeyEncryptionKey, name: string, pkcs8: Uint8Array): Buffer {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', kek.key, nonce);
  cipher.setAAD(associatedData(name));
  const body = Buffer.concat([cipher.update(pkcs8), cipher.final()]);
  return Buffer.concat([Buffer.from([formatVersion]), nonce, body, cipher.getAuthTag()]);
}

/** The PKCS#8 of the row named `name`; a clear SealKeyError when the key is not the one that encrypted it. */
export function decryptSealKey(
  kek: KeyEncryptionKey,
  row: { name: string; encrypted_key: Buffer; kek_id: string | null },
): Buffer {
  if (row.kek_id !== kek.id) {
    throw new SealKeyError(
      `the seal key (${kek.source}) does not match the database's seal "${row.name}" (it was encrypted with key id ${row.kek_id}, this one is ${kek.id}): restore the key it was made with, or run "signet seal rotate" to make a new seal`,
    );
  }
  const data = row.encrypted_key;
  if (data.byteLength < 1 + 12 + 16 || data[0] !== formatVersion) {
    throw new SealKeyError(`the database's seal "${row.name}" holds no key Signet can read`);
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', kek.key, data.subarray(1, 13));
    decipher.setAAD(associatedData(row.name));
    decipher.setAuthTag(data.subarray(data.byteLength - 16));
    return Buffer.concat([decipher.update(data.subarray(13, data.byteLength - 16)), decipher.final()]);
  } catch {
    throw new SealKeyError(
      `the database's seal "${row.name}" could not be decrypted with its key (${kek.source}): the row was altered or copied from another seal`,
    );
  }
}
