// Deleting what a sender deletes (issue 49): a draft's or a template's PDF is deleted with it
// unless something else still uses the same bytes (files are content-addressed and shared).
// That check, and the foreign keys' own check on every delete from `files`, look the hash up
// in each table that refers to files: these indexes keep both cheap however many documents,
// mails and templates there are (documents.sealed_sha256 has one since 0020).
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  'create index documents_original_sha256 on documents (original_sha256) where original_sha256 is not null',
  'create index templates_original_sha256 on templates (original_sha256)',
  'create index mails_attachment_sha256 on mails (attachment_sha256) where attachment_sha256 is not null',
  'create index kept_uploads_file on kept_uploads (file_sha256)',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
