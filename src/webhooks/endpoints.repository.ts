// Queries on webhook_endpoints. Every query is scoped by workspace id.
import type { Insertable, Kysely, Transaction, Updateable } from 'kysely';
import type { Database } from '../db/schema.ts';

type Db = Kysely<Database> | Transaction<Database>;

const columns = [
  'id',
  'workspace_id',
  'url',
  'events',
  'description',
  'enabled',
  'failure_count',
  'disabled_reason',
  'paused_at',
  'previous_secret_expires_at',
  'created_at',
] as const;

export interface EndpointRow {
  id: string;
  workspace_id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  failure_count: number;
  disabled_reason: 'failures' | null;
  paused_at: Date | null;
  /** The end of a rotation's overlap (the previous secret signs until then), or null. */
  previous_secret_expires_at: Date | null;
  created_at: Date;
}

export async function insertEndpoint(db: Db, row: Insertable<Database['webhook_endpoints']>): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
}

export async function countEndpoints(db: Db, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function findEndpoints(db: Db, workspaceId: string): Promise<EndpointRow[]> {
  return db
    .selectFrom('webhook_endpoints')
    .select(columns)
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

function selectEndpoint(db: Db, workspaceId: string, id: string) {
  return db
    .selectFrom('webhook_endpoints')
    .select(columns)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id);
}

/** The workspace's endpoints that failures paused (every page of the web app shows them). */
export async function findPausedEndpoints(db: Db, workspaceId: string): Promise<EndpointRow[]> {
  return db
    .selectFrom('webhook_endpoints')
    .select(columns)
    .where('workspace_id', '=', workspaceId)
    .where('disabled_reason', '=', 'failures')
    .where('enabled', '=', false)
    .orderBy('created_at')
    .execute();
}

export async function findEndpoint(
  db: Db,
  workspaceId: string,
  id: string,
): Promise<EndpointRow | undefined> {
  return selectEndpoint(db, workspaceId, id).executeTakeFirst();
}

/** The endpoint, locked for the rest of the transaction (FOR UPDATE). */
export async function lockEndpoint(
  trx: Transaction<Database>,
  workspaceId: string,
  id: string,
): Promise<EndpointRow | undefined> {
  return selectEndpoint(trx, workspaceId, id).forUpdate().executeTakeFirst();
}

export async function updateEndpoint(
  db: Db,
  workspaceId: string,
  id: string,
  patch: Updateable<Database['webhook_endpoints']>,
): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set(patch)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .execute();
}

/**
 * A new signing secret. The current one becomes the previous one and keeps signing until
 * `previousUntil` (null: it stops at once); one rotated earlier is forgotten, so at most two
 * sign at any time. The right-hand sides read the row as it was, so `secret` moves whole.
 */
export async function rotateSecret(
  db: Db,
  workspaceId: string,
  id: string,
  change: { secret: string; at: Date; previousUntil: Date | null },
): Promise<EndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set((eb) => ({
      previous_secret: change.previousUntil ? eb.ref('secret') : null,
      previous_secret_expires_at: change.previousUntil,
      secret: change.secret,
      secret_rotated_at: change.at,
      updated_at: change.at,
    }))
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .returning(columns)
    .executeTakeFirst();
}

export async function deleteEndpoint(db: Db, workspaceId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('webhook_endpoints')
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** The endpoint with its secret: only for signing deliveries, never for a response. */
export async function findEndpointWithSecret(db: Db, workspaceId: string, id: string) {
  return db
    .selectFrom('webhook_endpoints')
    .select([
      'id',
      'url',
      'secret',
      'previous_secret',
      'previous_secret_expires_at',
      'secret_rotated_at',
      'enabled',
    ])
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Which workspace an endpoint belongs to: for operators' commands, which are not scoped. */
export async function findEndpointWorkspaceId(db: Db, id: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select('workspace_id')
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.workspace_id;
}
