// SQL of templates (migration 0034): a template, its roles and its fields. Every statement
// names the workspace, so a template is only ever reached through the caller's workspace.
import type { Insertable, Kysely, Selectable, Transaction } from 'kysely';
import type { Database, TemplateFieldsTable, TemplateRolesTable, TemplatesTable } from '../db/schema.ts';

type Db = Kysely<Database> | Transaction<Database>;

export type TemplateRow = Selectable<TemplatesTable>;
export type TemplateRoleRow = Selectable<TemplateRolesTable>;
export type TemplateFieldRow = Selectable<TemplateFieldsTable>;

export async function insertTemplate(trx: Transaction<Database>, row: Insertable<TemplatesTable>) {
  await trx.insertInto('templates').values(row).execute();
}

export async function updateTemplateRow(
  trx: Transaction<Database>,
  workspaceId: string,
  id: string,
  changes: Partial<Omit<Insertable<TemplatesTable>, 'id' | 'workspace_id' | 'created_at'>>,
): Promise<void> {
  await trx
    .updateTable('templates')
    .set(changes)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .execute();
}

/** The template's row, locked for the caller's transaction (a change waits for another). */
export async function lockTemplate(
  trx: Transaction<Database>,
  workspaceId: string,
  id: string,
): Promise<TemplateRow | undefined> {
  return trx
    .selectFrom('templates')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

export async function findTemplate(
  db: Db,
  workspaceId: string,
  id: string,
): Promise<TemplateRow | undefined> {
  return db
    .selectFrom('templates')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** A page of the workspace's templates, newest first, after `after` (a cursor's position). */
export async function findTemplatesPage(
  db: Db,
  query: { workspaceId: string; limit: number; after: { createdAt: Date; id: string } | null },
): Promise<TemplateRow[]> {
  let select = db
    .selectFrom('templates')
    .selectAll()
    .where('workspace_id', '=', query.workspaceId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(query.limit);
  const { after } = query;
  if (after) {
    select = select.where((eb) =>
      eb.or([
        eb('created_at', '<', after.createdAt),
        eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)]),
      ]),
    );
  }
  return select.execute();
}

export async function findTemplateRoles(db: Db, workspaceId: string, templateId: string) {
  return db
    .selectFrom('template_roles')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('template_id', '=', templateId)
    .orderBy('position')
    .execute();
}

export async function findTemplateFields(db: Db, workspaceId: string, templateId: string) {
  return db
    .selectFrom('template_fields')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('template_id', '=', templateId)
    .orderBy('position')
    .execute();
}

/** Replaces a template's roles and fields (in the caller's transaction): its fields go with its roles. */
export async function replaceRolesAndFields(
  trx: Transaction<Database>,
  workspaceId: string,
  templateId: string,
  rows: { roles: Array<Insertable<TemplateRolesTable>>; fields: Array<Insertable<TemplateFieldsTable>> },
): Promise<void> {
  await trx
    .deleteFrom('template_roles')
    .where('workspace_id', '=', workspaceId)
    .where('template_id', '=', templateId)
    .execute();
  if (rows.roles.length > 0) await trx.insertInto('template_roles').values(rows.roles).execute();
  if (rows.fields.length > 0) await trx.insertInto('template_fields').values(rows.fields).execute();
}

/** Deletes a template (its roles and fields with it); its PDF's hash, or null if there was none. */
export async function deleteTemplateRow(
  trx: Transaction<Database>,
  workspaceId: string,
  id: string,
): Promise<string | null> {
  const deleted = await trx
    .deleteFrom('templates')
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .returning('original_sha256')
    .executeTakeFirst();
  return deleted?.original_sha256 ?? null;
}

/** How many documents were made from each of the workspace's templates (for the list). */
export async function countDocumentsByTemplate(
  db: Db,
  workspaceId: string,
  templateIds: string[],
): Promise<Map<string, number>> {
  if (templateIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('documents')
    .select(['template_id', (eb) => eb.fn.countAll<string>().as('n')])
    .where('workspace_id', '=', workspaceId)
    .where('template_id', 'in', templateIds)
    .groupBy('template_id')
    .execute();
  return new Map(rows.map((r) => [r.template_id as string, Number(r.n)]));
}
