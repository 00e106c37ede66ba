// A PDF uploaded with a new-document or edit form that was refused (a mistyped address, a
// missing title) is kept for the form's next submit (issue 36, sending/kept-uploads.ts):
// stored once as a file, named by an unguessable id, bound to the session and workspace
// that uploaded it, gone with the session or after six hours.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table kept_uploads (
      id text primary key check (id ~ '^[A-Za-z0-9_-]{32}$'),
      session_id uuid not null references sessions (id) on delete cascade,
      workspace_id uuid not null references workspaces (id) on delete cascade,
      file_sha256 text not null references files (sha256),
      file_name text not null check (length(file_name) between 1 and 200),
      created_at timestamptz(3) not null,
      expires_at timestamptz(3) not null
    )
  `.execute(db);
  await sql`create index kept_uploads_session on kept_uploads (session_id)`.execute(db);
  await sql`create index kept_uploads_expires on kept_uploads (expires_at)`.execute(db);
}
