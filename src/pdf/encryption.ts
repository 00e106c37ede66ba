// **The** kind of an encrypted PDF, for the sentence that refuses it (inspect.ts): one that
// needs a password to open, or one that opens without one (its user password is empty) and
// carries an owner password over what may be changed. Told apart as readers tell them apart:
// the standard security handler's check of the empty user password (ISO 32000-2 7.6.4.4:
// algorithms 2, 4 and 5 for revisions 2 to 4, 11 with 2.B for revision 6, and Acrobat 9's
// revision 5, a SHA-256 of the salt), with node:crypto. RC4 (revisions 2 to 4) is written
// out below: Node 24's OpenSSL 3 leaves it in the legacy provider, often absent. Bounded: a
// few hashes and ciphers over inputs of at most 4 KB, and revision 6's hash ends by its
// 287th round whatever the file holds (see `hash2B`). Nothing here decrypts a file.
// pdf.js could tell the kinds apart too (it opens the second kind without asking), but only
// by loading its whole parser into the inspection thread, for a file that is refused either
// way; these checks are a page of code on primitives Node has.
import { createCipheriv, createHash } from 'node:crypto';

/** The encryption dictionary's entries the check needs, as the file holds them. */
export interface EncryptionFacts {
  /** /Filter: `Standard` for the password handler. */
  filter: string | null;
  version: number;
  revision: number;
  /** /Length in bits, when given. */
  length: number | null;
  owner: Uint8Array;
  user: Uint8Array;
  permissions: number;
  encryptMetadata: boolean;
  /** The first element of the trailer's /ID (empty when it has none). */
  firstId: Uint8Array;
}

/** `needs-password`: a user password (or a handler other than the password one) guards opening. */
export type EncryptionKind = 'needs-password' | 'opens-without-password';

// ISO 32000-2 7.6.4.3.2, step (a): the bytes an empty password is padded with.
const padding = Buffer.from('28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a', 'hex');

export function encryptionKind(facts: EncryptionFacts | null): EncryptionKind {
  if (facts === null || facts.filter !== 'Standard') return 'needs-password';
  try {
    return opensWithEmptyPassword(facts) ? 'opens-without-password' : 'needs-password';
  } catch {
    // Entries out of shape: no reader could open it without asking either.
    return 'needs-password';
  }
}

function opensWithEmptyPassword(facts: EncryptionFacts): boolean {
  const { revision, user } = facts;
  if (revision === 5 || revision === 6) {
    if (user.length < 48) return false;
    const salt = user.subarray(32, 40);
    const hash =
      revision === 5 ? createHash('sha256').update(salt).digest() : hash2B(new Uint8Array(0), salt);
    return Buffer.from(hash.subarray(0, 32)).equals(user.subarray(0, 32));
  }
  if (revision < 2 || revision > 4 || user.length < 32 || facts.owner.length < 32) return false;
  const key = fileKey(facts);
  if (revision === 2) return Buffer.from(rc4(key, padding)).equals(user.subarray(0, 32));
  // Algorithm 5: MD5 of the padding and the first /ID, encrypted 20 times.
  let value: Uint8Array = createHash('md5').update(padding).update(facts.firstId).digest();
  for (let round = 0; round < 20; round++)
    value = rc4(
      key.map((byte) => byte ^ round),
      value,
    );
  return Buffer.from(value).equals(user.subarray(0, 16));
}

/** Algorithm 2: the file key an empty user password gives (revisions 2 to 4). */
function fileKey(facts: EncryptionFacts): Uint8Array {
  const bits = facts.revision === 2 ? 40 : (facts.length ?? (facts.version >= 4 ? 128 : 40));
  if (!Number.isInteger(bits) || bits < 40 || bits > 128 || bits % 8 !== 0) throw new Error('key length');
  const bytes = bits / 8;
  const permissions = Buffer.alloc(4);
  permissions.writeUInt32LE(facts.permissions >>> 0);
  const md5 = createHash('md5')
    .update(padding)
    .update(facts.owner.subarray(0, 32))
    .update(permissions)
    .update(facts.firstId);
  if (facts.revision >= 4 && !facts.encryptMetadata) md5.update(Buffer.from([0xff, 0xff, 0xff, 0xff]));
  let hash: Uint8Array = md5.digest();
  if (facts.revision >= 3) {
    for (let round = 0; round < 50; round++)
      hash = createHash('md5').update(hash.subarray(0, bytes)).digest();
  }
  return hash.subarray(0, bytes);
}

/**
 * Algorithm 2.B (revision 6) for the user password, which has no owner data. Each round after
 * the 64th ends the loop when its last byte is at most round - 32; a byte is at most 255, so
 * the loop ends by round 287 whatever the inputs.
 */
function hash2B(password: Uint8Array, salt: Uint8Array): Uint8Array {
  let key: Uint8Array = createHash('sha256').update(password).update(salt).digest();
  for (let round = 0; ; round++) {
    const block = Buffer.concat([password, key]);
    const repeated = Buffer.concat(Array.from({ length: 64 }, () => block));
    const cipher = createCipheriv('aes-128-cbc', key.subarray(0, 16), key.subarray(16, 32)).setAutoPadding(
      false,
    );
    const encrypted = Buffer.concat([cipher.update(repeated), cipher.final()]);
    let sum = 0;
    for (let n = 0; n < 16; n++) sum += encrypted[n] as number;
    key = createHash(['sha256', 'sha384', 'sha512'][sum % 3] as string)
      .update(encrypted)
      .digest();
    if (round >= 63 && (encrypted[encrypted.length - 1] as number) <= round + 1 - 32) break;
  }
  return key.subarray(0, 32);
}

/** RC4 (the stream cipher of revisions 2 to 4), in a few lines. */
function rc4(key: Uint8Array, data: Uint8Array): Uint8Array {
  const state = Uint8Array.from({ length: 256 }, (_, n) => n);
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + (state[i] as number) + (key[i % key.length] as number)) & 0xff;
    [state[i], state[j]] = [state[j] as number, state[i] as number];
  }
  const out = new Uint8Array(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 0xff;
    j = (j + (state[i] as number)) & 0xff;
    [state[i], state[j]] = [state[j] as number, state[i] as number];
    out[n] = (data[n] as number) ^ (state[((state[i] as number) + (state[j] as number)) & 0xff] as number);
  }
  return out;
}
