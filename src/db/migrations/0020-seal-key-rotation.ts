// The seal's key (issue 33, part 5): the private key is kept encrypted with a key that is
// not in the database (`encrypted_key`, AES-256-GCM, and `kek_id`, a one-way identifier of
// the key that encrypted it); `private_key` stays only for rows an older version wrote in
// the clear, until the first start that knows the key encrypts them (code, not this
// migration: a migration knows no key). `signet seal rotate` retires a seal (`retired_at`)
// and makes the next one, so a table that held one row now holds every seal there was, at
// most one of them current. `fingerprint` is the SHA-256 of the certificate, and
// `documents.sealed_by` records which certificate sealed each document, so a retired seal
// vouches only for the files it is recorded to have sealed.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  'alter table seal_keys alter column private_key drop not null',
  'alter table seal_keys add column encrypted_key bytea',
  'alter table seal_keys add column kek_id text',
  'alter table seal_keys add column retired_at timestamptz(3)',
  'alter table seal_keys add column fingerprint text',
  `update seal_keys set fingerprint = encode(sha256(certificate), 'hex')`,
  'alter table seal_keys alter column fingerprint set not null',
  'create unique index seal_keys_fingerprint on seal_keys (fingerprint)',
  // At most one seal in use: two processes making the first seal at once store one.
  'create unique index seal_keys_current on seal_keys ((retired_at is null)) where retired_at is null',
  // Exactly one form of the key, and an encrypted one says which key encrypted it.
  `alter table seal_keys add constraint seal_keys_one_key
     check ((private_key is null) <> (encrypted_key is null) and (encrypted_key is null or kek_id is not null))`,
  // The certificate's fingerprint (SHA-256, hex) of the seal that sealed the document; null
  // for documents sealed before this migration (their stored file is the record).
  'alter table documents add column sealed_by text',
  // /verify looks a file up by its SHA-256 among sealed files.
  'create index documents_sealed_sha256 on documents (sealed_sha256) where sealed_sha256 is not null',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
