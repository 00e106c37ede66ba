// SQL of idempotency_keys (http/idempotency.ts has the rule). Called inside the change's own
// transaction: an endpoint's create under the workspace's lock (`storeIdempotentAnswer`), a
// document write by claiming the key's row (`claimIdempotencyKey`), so two requests with one
// key cannot both change anything. Either drops the workspace's answers past their window.
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

/** A key's row: the request it answered and its answer, sealed (idempotency.ts). */
export interface IdempotencyRow {
  workspace_id: string;
  key: string;
  request_sha256: string;
  response: string;
  created_at: Date;
}

/** Drops the workspace's answers past their window (an old one of the key about to be stored with them). */
async function dropExpired(trx: Transaction<Database>, workspaceId: string, since: Date): Promise<void> {
  await trx
    .deleteFrom('idempotency_keys')
    .where('workspace_id', '=', workspaceId)
    .where('created_at', '<=', since)
    .execute();
}

/** Keeps the answer, under the workspace's lock (the caller checked the key is free); drops expired ones. */
export async function storeIdempotentAnswer(
  trx: Transaction<Database>,
  row: IdempotencyRow,
  since: Date,
): Promise<void> {
  await dropExpired(trx, row.workspace_id, since);
  await trx.insertInto('idempotency_keys').values(row).execute();
}

/**
 * Claims `key` for this request in the caller's transaction, its answer stored with the
 * change it answers: true when claimed; false when another request holds it (a concurrent
 * one blocks here on the row until that one commits or rolls back, then reads false or
 * claims it). The workspace's answers past their window are dropped first, as a store does.
 */
export async function claimIdempotencyKey(
  trx: Transaction<Database>,
  row: IdempotencyRow,
  since: Date,
): Promise<boolean> {
  await dropExpired(trx, row.workspace_id, since);
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
