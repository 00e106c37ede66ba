// The workspace's time zone (issue 36 §6): the web app and the mails show times in it, named
// ("2026-11-26 14:03 Europe/Berlin"); an IANA name, UTC until an owner chooses another. The
// certificate and the API stay in UTC.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table workspaces add column time_zone text not null default 'UTC'`.execute(db);
}
