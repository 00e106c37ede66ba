// When each API key last authenticated a request, for the keys list in the web
// application. Written at most once a minute per key and process (keys/key-usage.ts).
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw('alter table api_keys add column last_used_at timestamptz(3)').execute(db);
}
