// NOTIFY a channel from inside the caller's transaction: PostgreSQL delivers it to every
// LISTENing process (DatabaseHandle.subscribe) only when that transaction commits.
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from './schema.ts';

export async function notifyChannel(
  db: Kysely<Database> | Transaction<Database>,
  channel: string,
): Promise<void> {
  await sql`select pg_notify(${channel}, '')`.execute(db);
}
