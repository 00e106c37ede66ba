// Queries on the api_keys table.
import type { Kysely, Transaction } from 'kysely';
import type { ApiKeyScope, Database } from '../db/schema.ts';

export type Db = Kysely<Database> | Transaction<Database>;

export interface ApiKeyRow {
  id: string;
  workspace_id: string;
  name: string;
  hint: string;
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
  scope: ApiKeyScope;
}

const listColumns = [
  'id',
  'workspace_id',
  'name',
  'hint',
  'created_at',
  'revoked_at',
  'last_used_at',
  'scope',
] as const;

/** Sets last_used_at to `at` unless it is already later than `unlessAfter`. */
export async function touchApiKeyLastUsed(db: Db, id: string, at: Date, unlessAfter: Date): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: at })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', unlessAfter)]))
    .execute();
}

export async function insertApiKey(db: Db, row: ApiKeyRow & { secret_hash: string }): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

export async function countActiveApiKeys(db: Db, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('workspace_id', '=', workspaceId)
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function findApiKeys(db: Db, workspaceId: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .select(listColumns)
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** `workspaceId` null: any workspace's (operators' commands); otherwise only that workspace's. */
export async function findApiKey(
  db: Db,
  id: string,
  workspaceId: string | null,
): Promise<ApiKeyRow | undefined> {
  let query = db.selectFrom('api_keys').select(listColumns).where('id', '=', id);
  if (workspaceId !== null) query = query.where('workspace_id', '=', workspaceId);
  return query.executeTakeFirst();
}

export async function markApiKeyRevoked(
  db: Db,
  id: string,
  workspaceId: string | null,
  at: Date,
): Promise<void> {
  let query = db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null);
  if (workspaceId !== null) query = query.where('workspace_id', '=', workspaceId);
  await query.execute();
}

/** The one query on the request path: an active key by its hash, with its workspace's plan. */
export async function findActiveKeyByHash(db: Db, secretHash: string) {
  return db
    .selectFrom('api_keys')
    .innerJoin('workspaces', 'workspaces.id', 'api_keys.workspace_id')
    .select([
      'api_keys.id as keyId',
      'api_keys.workspace_id as workspaceId',
      'workspaces.plan as plan',
      'api_keys.scope as scope',
    ])
    .where('api_keys.secret_hash', '=', secretHash)
    .where('api_keys.revoked_at', 'is', null)
    .executeTakeFirst();
}

/** Whether the key is still active and its workspace still on Max (a long-lived event stream asks). */
export async function isActiveMaxKey(db: Db, keyId: string): Promise<boolean> {
  const row = await db
    .selectFrom('api_keys')
    .innerJoin('workspaces', 'workspaces.id', 'api_keys.workspace_id')
    .select('api_keys.id')
    .where('api_keys.id', '=', keyId)
    .where('api_keys.revoked_at', 'is', null)
    .where('workspaces.plan', '=', 'max')
    .executeTakeFirst();
  return row !== undefined;
}
