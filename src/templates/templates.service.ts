// Templates (issue 38): made from an upload or saved from a document, read, listed, replaced
// whole, renamed, deleted. A template's PDF is a stored file like a document's (counted in
// the day's uploads when it is new; shared, never copied, when it is a document's). Deleting
// a template leaves every document made from it as it is (they hold their own recipients and
// fields, and point at the same content-addressed file). Using one is use-template.ts's.
import type { Transaction } from 'kysely';
import type { Context } from '../context.ts';
import type { Database, PageSize, RecipientRole, SigningMethod } from '../db/schema.ts';
import { type CursorPosition, decodeCursor, encodeCursor } from '../documents/cursor.ts';
import { findFullDocument, findFullRecipients } from '../documents/documents.repository.ts';
import { countUpload } from '../documents/upload-usage.ts';
import type { FieldType } from '../fields/field-types.ts';
import { findFields } from '../fields/fields.repository.ts';
import { fieldInputOf, pageSizesOf } from '../fields/fields.service.ts';
import { deleteFileIfUnused, findFile } from '../files/files.repository.ts';
import { storeFile } from '../files/files.service.ts';
import { ApiError } from '../http/errors.ts';
import { parseLanguage } from '../i18n/languages.ts';
import { refusalOf } from '../i18n/refusals.ts';
import { drawableText } from '../pdf/fonts.ts';
import { defaultExpirySeconds } from '../sending/draft-input.ts';
import {
  type CheckedTemplate,
  checkTemplateInput,
  maxTemplateNameLength,
  type TemplateInput,
  templateNameProblem,
} from './template-input.ts';
import {
  countDocumentsByTemplate,
  deleteTemplateRow,
  findTemplate,
  findTemplateFields,
  findTemplateRoles,
  findTemplatesPage,
  insertTemplate,
  lockTemplate,
  replaceRolesAndFields,
  type TemplateRow,
  updateTemplateRow,
} from './templates.repository.ts';

export interface TemplateField {
  id: string;
  type: FieldType;
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  required: boolean;
  label: string | null;
  maxLength: number | null;
  /** Whoever uses the template gives its value. */
  senderFills: boolean;
}

export interface TemplateRole {
  id: string;
  name: string;
  role: RecipientRole;
  signingOrder: number;
  signingMethod: SigningMethod;
  /** The default language of its recipient (i18n/languages.ts); null: the workspace's (migration 0042). */
  language: string | null;
  fields: TemplateField[];
}

export interface TemplateSummary {
  id: string;
  name: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  /** How many documents were made from it (deleted ones not counted). */
  documents: number;
}

export interface TemplateDetail extends TemplateSummary {
  text: string;
  expiresInSeconds: number;
  remindEveryDays: number | null;
  file: { sha256: string; bytes: number; pages: number };
  roles: TemplateRole[];
}

/** The rows a checked template is stored as; a field keeps the id `fieldIds` gives it by position. */
function roleAndFieldRows(
  workspaceId: string,
  templateId: string,
  checked: CheckedTemplate,
  ctx: Context,
  fieldIds: ReadonlyArray<string | null> = [],
) {
  return {
    roles: checked.roles.map((r, position) => ({
      id: r.id,
      workspace_id: workspaceId,
      template_id: templateId,
      position,
      name: drawableText(r.name),
      role: r.role,
      signing_order: r.signingOrder,
      signing_method: r.signingMethod,
      language: r.language ? parseLanguage(r.language) : null,
    })),
    fields: checked.fields.map((f, position) => ({
      id: fieldIds[position] ?? ctx.ids.uuid(),
      workspace_id: workspaceId,
      template_id: templateId,
      role_id: f.recipientId,
      position,
      type: f.type,
      page: f.page,
      x: f.x,
      y: f.y,
      width: f.width,
      height: f.height,
      required: f.required,
      label: f.label,
      max_length: f.maxLength,
      sender_fills: f.senderFills,
    })),
  };
}

/** The template's PDF, stored (and counted in the day's uploads) when it is a new one. */
async function storeTemplatePdf(
  trx: Transaction<Database>,
  ctx: Context,
  input: TemplateInput,
  checked: CheckedTemplate,
  now: Date,
): Promise<string> {
  if (!input.file) return (input.kept as { sha256: string }).sha256;
  await countUpload(trx, ctx, input.workspaceId, input.file.byteLength, now);
  const file = await storeFile(trx, {
    data: input.file,
    mediaType: 'application/pdf',
    pages: checked.pdf.pages,
    pageSizes: checked.pdf.pageSizes,
    now,
    drawPagesFor: input.workspaceId,
  });
  return file.sha256;
}

/** A new template: its PDF, roles and fields stored together, or nothing. */
export async function createTemplate(ctx: Context, input: TemplateInput): Promise<{ id: string }> {
  const checked = await checkTemplateInput(ctx, input);
  const id = ctx.ids.uuid();
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    const row = await writtenRow(trx, ctx, input, checked, now);
    await insertTemplate(trx, { ...row, id, workspace_id: input.workspaceId, created_at: now });
    await replaceRolesAndFields(
      trx,
      input.workspaceId,
      id,
      roleAndFieldRows(input.workspaceId, id, checked, ctx),
    );
  });
  return { id };
}

/** What a create or a replacement writes on the template's row, its PDF stored first when new. */
async function writtenRow(
  trx: Transaction<Database>,
  ctx: Context,
  input: TemplateInput,
  checked: CheckedTemplate,
  now: Date,
) {
  return {
    name: input.name.trim(),
    title: drawableText(input.title.trim()),
    body: drawableText(input.body ?? ''),
    original_sha256: await storeTemplatePdf(trx, ctx, input, checked, now),
    expires_in_seconds: input.expiresInSeconds,
    remind_every_days: input.remindEveryDays ?? null,
    updated_at: now,
  };
}

/** The PDF a template already has, as an input that keeps it. */
async function keptPdfOf(ctx: Context, template: TemplateRow) {
  const file = await findFile(ctx.db, template.original_sha256);
  if (!file?.pages) throw new Error(`template ${template.id}'s file is missing`);
  const pageSizes: PageSize[] = await pageSizesOf(ctx.db, template.original_sha256);
  return { sha256: file.sha256, pages: file.pages, pageSizes };
}

/** A template replaced whole (its PDF too when `input.file` is given); refused changes change nothing. */
export async function updateTemplate(
  ctx: Context,
  id: string,
  input: Omit<TemplateInput, 'kept'>,
): Promise<void> {
  const current = await findTemplate(ctx.db, input.workspaceId, id);
  if (!current) throw new ApiError('not-found');
  const full: TemplateInput = input.file ? input : { ...input, kept: await keptPdfOf(ctx, current) };
  const checked = await checkTemplateInput(ctx, full);
  await ctx.db.transaction().execute(async (trx) => {
    if (!(await lockTemplate(trx, input.workspaceId, id))) throw new ApiError('not-found');
    await writeReplacement(trx, ctx, id, { input: full, checked });
  });
}

/**
 * Writes a checked replacement of a template locked in `trx`: its row, roles and fields (a
 * field keeps the id `fieldIds` gives it by position; the others get new ones).
 */
export async function writeReplacement(
  trx: Transaction<Database>,
  ctx: Context,
  id: string,
  replacement: { input: TemplateInput; checked: CheckedTemplate; fieldIds?: ReadonlyArray<string | null> },
): Promise<void> {
  const { input, checked } = replacement;
  const row = await writtenRow(trx, ctx, input, checked, ctx.clock.now());
  await updateTemplateRow(trx, input.workspaceId, id, row);
  await replaceRolesAndFields(
    trx,
    input.workspaceId,
    id,
    roleAndFieldRows(input.workspaceId, id, checked, ctx, replacement.fieldIds),
  );
}

/** A new name for a template (the list's), nothing else changed. */
export async function renameTemplate(
  ctx: Context,
  workspaceId: string,
  id: string,
  name: string,
): Promise<void> {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > maxTemplateNameLength) throw refusalOf({ name: templateNameProblem });
  await ctx.db.transaction().execute(async (trx) => {
    if (!(await lockTemplate(trx, workspaceId, id))) throw new ApiError('not-found');
    await updateTemplateRow(trx, workspaceId, id, { name: trimmed, updated_at: ctx.clock.now() });
  });
}

/**
 * Deletes a template, and its PDF and page images unless a document made from it (or anything
 * else) uses the same bytes: documents made from it keep everything they need.
 */
export async function deleteTemplate(ctx: Context, workspaceId: string, id: string): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const original = await deleteTemplateRow(trx, workspaceId, id);
    if (original === null) throw new ApiError('not-found');
    await deleteFileIfUnused(trx, original);
  });
}

function summaryOf(row: TemplateRow, documents: number): TemplateSummary {
  return {
    id: row.id,
    name: row.name,
    title: row.title,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    documents,
  };
}

/** A template with its roles, each with its fields; not-found for another workspace's. */
export async function getTemplate(ctx: Context, workspaceId: string, id: string): Promise<TemplateDetail> {
  const row = await findTemplate(ctx.db, workspaceId, id);
  if (!row) throw new ApiError('not-found');
  const [roles, fields, file, counts] = await Promise.all([
    findTemplateRoles(ctx.db, workspaceId, id),
    findTemplateFields(ctx.db, workspaceId, id),
    findFile(ctx.db, row.original_sha256),
    countDocumentsByTemplate(ctx.db, workspaceId, [id]),
  ]);
  return {
    ...summaryOf(row, counts.get(id) ?? 0),
    text: row.body,
    expiresInSeconds: row.expires_in_seconds,
    remindEveryDays: row.remind_every_days,
    file: { sha256: row.original_sha256, bytes: file?.bytes ?? 0, pages: file?.pages ?? 0 },
    roles: roles.map((r) => ({
      id: r.id,
      name: r.name,
      role: r.role,
      signingOrder: r.signing_order,
      signingMethod: r.signing_method,
      language: r.language,
      fields: fields
        .filter((f) => f.role_id === r.id)
        .map((f) => ({
          id: f.id,
          type: f.type,
          page: f.page,
          x: f.x,
          y: f.y,
          width: f.width,
          height: f.height,
          required: f.required,
          label: f.label,
          maxLength: f.max_length,
          senderFills: f.sender_fills,
        })),
    })),
  };
}

/** Templates are listed in a scope of their own: a document list's cursor is not a template list's. */
const cursorScope = (workspaceId: string) => ({ workspaceId, status: 'templates' });

/** A page of the workspace's templates, newest first, and the cursor of the next (null at the end). */
export async function listTemplates(
  ctx: Context,
  input: { workspaceId: string; limit: number; cursor: string | null },
): Promise<{ data: TemplateSummary[]; nextCursor: string | null }> {
  let after: CursorPosition | null = null;
  if (input.cursor) {
    after = decodeCursor(ctx.cursorKey, input.cursor, cursorScope(input.workspaceId), ctx.clock.now());
    if (!after) throw new ApiError('invalid-cursor');
  }
  const rows = await findTemplatesPage(ctx.db, {
    workspaceId: input.workspaceId,
    limit: input.limit + 1,
    after,
  });
  const page = rows.slice(0, input.limit);
  const counts = await countDocumentsByTemplate(
    ctx.db,
    input.workspaceId,
    page.map((r) => r.id),
  );
  const last = page.at(-1);
  return {
    data: page.map((row) => summaryOf(row, counts.get(row.id) ?? 0)),
    nextCursor:
      rows.length > input.limit && last
        ? encodeCursor(
            ctx.cursorKey,
            { createdAt: last.created_at, id: last.id },
            cursorScope(input.workspaceId),
            ctx.clock.now(),
          )
        : null,
  };
}

/**
 * "Save as template": a document's PDF (shared, not copied), its recipients as roles
 * ("Signer 1", "Viewer 1": whoever uses the template names the people), its fields on those
 * roles (a value its sender gave marks a field the template's user fills in), its title,
 * message, expiry and reminders.
 */
export async function templateFromDocument(
  ctx: Context,
  workspaceId: string,
  documentId: string,
  name: string,
): Promise<{ id: string }> {
  const document = await findFullDocument(ctx.db, workspaceId, documentId);
  if (!document) throw new ApiError('not-found');
  if (!document.original_sha256) throw refusalOf({ file: { key: 'template.problem.noPdfYet' } });
  const [recipients, fields, file] = await Promise.all([
    findFullRecipients(ctx.db, workspaceId, documentId),
    findFields(ctx.db, workspaceId, documentId),
    findFile(ctx.db, document.original_sha256),
  ]);
  const ordered = [...recipients].sort((a, b) => a.position - b.position);
  const counters = { signer: 0, viewer: 0 };
  const roleNames = new Map(
    ordered.map((r) => {
      counters[r.role] += 1;
      return [r.id, `${r.role === 'signer' ? 'Signer' : 'Viewer'} ${counters[r.role]}`];
    }),
  );
  const asRoles = ordered.map((r) => ({ id: r.id, email: roleNames.get(r.id) as string }));
  return createTemplate(ctx, {
    workspaceId,
    name,
    title: document.title,
    body: document.body,
    roles: ordered.map((r) => ({
      name: roleNames.get(r.id) as string,
      role: r.role,
      signingOrder: r.signing_order,
      signingMethod: r.signing_method,
      language: r.language,
    })),
    fields: fields.map((f) => {
      // The document's field as its sender describes it, its recipient named by role.
      const { recipient: role, value: _value, ...placed } = fieldInputOf(f, asRoles);
      return { ...placed, role, senderFills: f.prefilled };
    }),
    expiresInSeconds: document.expires_in_seconds ?? defaultExpirySeconds,
    remindEveryDays: document.remind_every_days,
    kept: {
      sha256: document.original_sha256,
      pages: file?.pages ?? 0,
      pageSizes: await pageSizesOf(ctx.db, document.original_sha256),
    },
  });
}
