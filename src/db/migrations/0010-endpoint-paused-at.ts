// When an endpoint was paused after consecutive failures, for the web application's
// banner ("paused on …"). Endpoints paused before this migration take the time of their
// last change, which was the pause unless they were edited since.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  'alter table webhook_endpoints add column paused_at timestamptz(3)',
  "update webhook_endpoints set paused_at = updated_at where disabled_reason = 'failures'",
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
