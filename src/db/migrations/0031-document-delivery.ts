// How a document reaches its recipients (issue 37): `email` (Signet mails each their link,
// reminders, withdrawal and the completion mail) or `none` (the integrator's own channel:
// Signet mails no recipient; the API hands over the signing links instead). Every document
// made before this was mailed.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table documents add column delivery text not null default 'email'
    check (delivery in ('email', 'none'))`.execute(db);
}
