// Kept Idempotency-Key answers are stored sealed from now on (http/idempotency.ts): they hold
// a webhook endpoint's signing secret. Answers kept in clear before (at most a day's worth)
// are dropped rather than left readable; a retry of one of those creates runs again.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`delete from idempotency_keys where response not like 'v1.%'`.execute(db);
}
