// SQL of idempotency_keys (http/idempotency.ts has the rule). Called inside the create's own
// transaction, under the workspace's lock, so two requests with one key cannot both create.
import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';

export async function findIdempotentAnswer(
  trx: Transaction<Database>,
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
