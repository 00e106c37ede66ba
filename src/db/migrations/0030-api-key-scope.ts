// An API key's scope (issue 37): `read` (the spec's key: reads the workspace's documents and
// manages its webhook endpoints) or `write` (also creates, changes, sends, reminds and
// withdraws documents). Every key made before this is a read key, as the spec describes.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table api_keys add column scope text not null default 'read'
    check (scope in ('read', 'write'))`.execute(db);
}
