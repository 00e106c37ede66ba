// Real documents (issue 23): the PDF a sender uploads (or the one made from a text body when
// it is sent) and the sealed PDF made when the last signer signs.
// - Files are content-addressed by SHA-256 and stored in 1 MiB chunks, so every process reads
//   the same bytes, a download streams chunk by chunk, and backups carry them. A file and
//   all its chunks are written in one transaction: there is never a half-stored file.
// - Page images are rendered once per file, page and width, and kept beside the file.
// - A document points to its original and sealed file (and says whether the original was
//   made from its text, which then is not shown again beside the pages); `seal_due_at` is set while its seal
//   is owed (the worker claims it), `seal_attempts` and `seal_error` say how it went.
// - A signer's adopted signature: typed (their name, set in a handwriting font when sealed)
//   or drawn (a PNG).
// - Events that a recipient causes keep the client's address and user agent, for the
//   certificate of completion only (the API does not show them).
// - A mail may carry one stored file (the sealed PDF of a completion mail).
// - The workspace seal: one certificate and key per installation (or a configured PKCS#12),
//   created by the first process that needs it.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  `create table files (
    sha256 text primary key check (sha256 ~ '^[0-9a-f]{64}$'),
    bytes bigint not null check (bytes >= 0),
    media_type text not null,
    pages integer check (pages > 0),
    chunk_count integer not null check (chunk_count >= 0),
    created_at timestamptz(3) not null
  )`,
  `create table file_chunks (
    sha256 text not null references files (sha256) on delete cascade,
    seq integer not null check (seq >= 0),
    data bytea not null,
    primary key (sha256, seq)
  )`,
  `create table page_images (
    sha256 text not null references files (sha256) on delete cascade,
    page integer not null check (page > 0),
    width integer not null check (width > 0),
    height integer not null check (height > 0),
    png bytea not null,
    primary key (sha256, page, width)
  )`,
  'alter table documents add column original_sha256 text references files (sha256)',
  'alter table documents add column sealed_sha256 text references files (sha256)',
  'alter table documents add column original_from_text boolean not null default false',
  'alter table documents add column seal_due_at timestamptz(3)',
  'alter table documents add column seal_attempts integer not null default 0',
  'alter table documents add column seal_error text',
  'create index documents_seal_due on documents (seal_due_at) where seal_due_at is not null',
  `alter table recipients add column signature_kind text check (signature_kind in ('typed', 'drawn'))`,
  'alter table recipients add column signature_image bytea',
  'alter table document_events add column client_ip text',
  'alter table document_events add column user_agent text',
  'alter table mails add column attachment_sha256 text references files (sha256)',
  'alter table mails add column attachment_name text',
  `create table seal_keys (
    name text primary key,
    certificate bytea not null,
    private_key bytea not null,
    created_at timestamptz(3) not null
  )`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
