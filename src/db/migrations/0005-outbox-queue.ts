// The outbox holds only events not yet fanned out: fan-out deletes the rows it turns into
// deliveries (which keep the body) instead of marking them processed. An UPDATE rewrote
// the whole row, body included, and re-indexed it; a DELETE writes a few bytes.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  'delete from outbox where processed_at is not null',
  'drop index outbox_pending',
  'drop index outbox_processed',
  'alter table outbox drop column processed_at',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
