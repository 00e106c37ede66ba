// What a running server tells the commands run beside it (issue 26): its public URL, so a
// link made by `signet document send` or `signet trigger` names the address the server
// really serves, not the default http://127.0.0.1:3000.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table server_settings (
      name text primary key,
      value text not null,
      updated_at timestamptz(3) not null
    )
  `.execute(db);
}
