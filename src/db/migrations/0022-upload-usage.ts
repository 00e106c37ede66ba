// What each workspace uploaded on each UTC day (issue 34): the bytes of every file a form,
// the CLI or the API stored as a document's PDF, counted in the transaction that stores it,
// so SIGNET_UPLOAD_BYTES_PER_DAY can refuse the next one (documents/upload-usage.ts).
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table upload_usage (
      workspace_id uuid not null references workspaces (id) on delete cascade,
      day text not null check (day ~ '^\\d{4}-\\d{2}-\\d{2}$'),
      bytes bigint not null check (bytes >= 0),
      primary key (workspace_id, day)
    )
  `.execute(db);
}
