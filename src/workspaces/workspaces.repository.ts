// Queries on the workspaces table.
import type { Kysely, Transaction } from 'kysely';
import type { Database, Plan } from '../db/schema.ts';

type Db = Kysely<Database> | Transaction<Database>;

export async function insertWorkspace(
  db: Db,
  row: { id: string; name: string; plan: Plan; created_at: Date },
): Promise<void> {
  await db.insertInto('workspaces').values(row).execute();
}

export async function updateWorkspacePlan(db: Db, id: string, plan: Plan): Promise<boolean> {
  const result = await db.updateTable('workspaces').set({ plan }).where('id', '=', id).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function findWorkspace(db: Db, id: string) {
  return db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Takes the workspace's row lock, serialising limit checks (keys, endpoints) per workspace. */
export async function lockWorkspace(db: Transaction<Database>, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('workspaces')
    .select('id')
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  return row !== undefined;
}

/** The addresses of a workspace's owners: who is told when something needs them. */
export async function findOwnerEmails(db: Db, workspaceId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select('users.email')
    .where('memberships.workspace_id', '=', workspaceId)
    .where('memberships.role', '=', 'owner')
    .orderBy('users.email')
    .execute();
  return rows.map((r) => r.email);
}
