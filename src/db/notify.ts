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

/**
 * NOTIFYed in the transaction that revokes a key (keys/) or changes a workspace's plan
 * (workspaces/): every process's key cache (keys/key-cache.ts, subscribed in context.ts)
 * forgets what it knew when it commits. Here, below both folders that send it.
 */
export const authChangesChannel = 'signet_auth_changes';

/** Tells every process (on commit of `db`'s transaction) to forget what it cached about keys. */
export async function notifyAuthChanged(db: Kysely<Database> | Transaction<Database>): Promise<void> {
  await notifyChannel(db, authChangesChannel);
}
