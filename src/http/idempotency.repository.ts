// SQL of idempotency_keys (http/idempotency.ts has the rule). Called inside the create's own
// transaction, under the workspace's lock, so two requests with one key cannot both create.
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';

export async function findIdempotentAnswer(
  trx: Kysely<Database> | Transaction<Database>,
  workspaceId: string,
  key: string,
  since: Date,
) {
  return trx
    .selectFrom('idempotency_keys')
    .select(['request_sha256', 'response'])
    .where('workspace_id', '=', workspaceId)
    .where('key', '=', key)
    .where('created_at', '>', since)
    .executeTakeFirst();
}

/** Keeps the answer; drops the workspace's answers past their window (and an old one of this key). */
export async function storeIdempotentAnswer(
  trx: Transaction<Database>,
  row: {
    workspace_id: string;
    key: string;
    request_sha256: string;
    response: string;
    created_at: Date;
  },
  since: Date,
): Promise<void> {
  await trx
    .deleteFrom('idempotency_keys')
    .where('workspace_id', '=', row.workspace_id)
    .where('created_at', '<=', since)
    .execute();
  await trx.insertInto('idempotency_keys').values(row).execute();
}

/**
 * Claims `key` for this request in the caller's transaction, its answer stored with the
 * change it answers: true when claimed; false when another request holds it (a concurrent
 * one blocks here on the row until that one commits or rolls back, then reads false or
 * claims it). An answer past its window is dropped first.
 */
export async function claimIdempotencyKey(
  trx: Transaction<Database>,
  row: {
    workspace_id: string;
    key: string;
    request_sha256: string;
    response: string;
    created_at: Date;
  },
  since: Date,
): Promise<boolean> {
  await trx
    .deleteFrom('idempotency_keys')
    .where('workspace_id', '=', row.workspace_id)
    .where('key', '=', row.key)
    .where('created_at', '<=', since)
    .execute();
  const claimed = await trx
    .insertInto('idempotency_keys')
    .values(row)
    .onConflict((conflict) => conflict.columns(['workspace_id', 'key']).doNothing())
    .returning('key')
    .executeTakeFirst();
  return claimed !== undefined;
}

/** The kept answer of a key this transaction claimed, replaced (a change that learnt more after its claim). */
export async function replaceIdempotentAnswer(
  trx: Transaction<Database>,
  workspaceId: string,
  key: string,
  response: string,
): Promise<void> {
  await trx
    .updateTable('idempotency_keys')
    .set({ response })
    .where('workspace_id', '=', workspaceId)
    .where('key', '=', key)
    .execute();
}
