// Queries on the workspaces table.
import type { Kysely, Transaction } from 'kysely';
import type { Database, Plan } from '../db/schema.ts';
import { firstLanguage, type Language } from '../i18n/languages.ts';

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

export async function updateWorkspaceTimeZone(db: Db, id: string, timeZone: string): Promise<boolean> {
  const result = await db
    .updateTable('workspaces')
    .set({ time_zone: timeZone })
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The workspace's default language: its recipients' and certificates' when they have none of their own. */
export async function updateWorkspaceLanguage(db: Db, id: string, language: Language): Promise<boolean> {
  const result = await db
    .updateTable('workspaces')
    .set({ default_language: language })
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The workspace's brand (workspaces/brand.ts); false when there is no such workspace. */
export async function updateWorkspaceBrand(
  db: Db,
  id: string,
  brand: { brand_name: string | null; brand_accent: string | null; brand_sent_with: boolean },
): Promise<boolean> {
  const result = await db.updateTable('workspaces').set(brand).where('id', '=', id).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** What a workspace's brand is made of: its name and its brand's columns. */
export function findWorkspaceBrand(db: Db, id: string) {
  return db
    .selectFrom('workspaces')
    .select(['name', 'brand_name', 'brand_accent', 'brand_sent_with'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/** A workspace's time zone (UTC when there is no such workspace). */
export async function findWorkspaceTimeZone(db: Db, id: string): Promise<string> {
  const row = await db.selectFrom('workspaces').select('time_zone').where('id', '=', id).executeTakeFirst();
  return row?.time_zone ?? 'UTC';
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

/**
 * A workspace's owners: who is told when something needs them, each in their own language
 * (users.language), else the workspace's default.
 */
/**
 * Where a reply to a document's mail goes: the address of the member who made it, while they
 * are still a member of the workspace (one who left gets no more replies); null otherwise.
 */
export async function findReplyAddress(
  db: Db,
  workspaceId: string,
  userId: string | null,
): Promise<string | null> {
  if (!userId) return null;
  const row = await db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select('users.email')
    .where('memberships.workspace_id', '=', workspaceId)
    .where('memberships.user_id', '=', userId)
    .executeTakeFirst();
  return row?.email ?? null;
}

export async function findOwners(
  db: Db,
  workspaceId: string,
): Promise<Array<{ email: string; language: Language }>> {
  const rows = await db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .innerJoin('workspaces', 'workspaces.id', 'memberships.workspace_id')
    .select(['users.email', 'users.language', 'workspaces.default_language'])
    .where('memberships.workspace_id', '=', workspaceId)
    .where('memberships.role', '=', 'owner')
    .orderBy('users.email')
    .execute();
  return rows.map((r) => ({ email: r.email, language: firstLanguage(r.language, r.default_language) }));
}
