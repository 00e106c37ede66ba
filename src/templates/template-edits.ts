// The web application's changes to a template, one at a time (issue 38: "edited with the same
// field editor"): a field added, changed or deleted; the roles renamed, added, removed or
// reordered; the defaults of the documents made from it. Each reads the template under its
// lock, changes its input and writes it whole through checkTemplateInput (the check of every
// create and replacement, so an edit can make nothing a create could not), in one
// transaction. A field keeps its id from one change to the next: the editor's forms, shapes
// and anchors name it. The API replaces a template whole (templates.service.ts
// `updateTemplate`).
import type { Context } from '../context.ts';
import type { RecipientRole, SigningMethod } from '../db/schema.ts';
import { pageSizesOf } from '../fields/fields.service.ts';
import { ApiError } from '../http/errors.ts';
import { refusalOf } from '../i18n/refusals.ts';
import { checkTemplateInput, type TemplateInput, type TemplateRoleInput } from './template-input.ts';
import { lockTemplate } from './templates.repository.ts';
import { getTemplate, type TemplateDetail, writeReplacement } from './templates.service.ts';

/** A template's fields as its input takes them (a role by name), each with its stored id. */
type EditedFields = Array<{ id: string | null; field: unknown }>;

/** The defaults of the documents made from a template. */
export interface TemplateDefaults {
  title: string;
  body: string;
  expiresInSeconds: number;
  remindEveryDays: number | null;
}

interface Edited {
  defaults: TemplateDefaults;
  roles: TemplateRoleInput[];
  fields: EditedFields;
}

/** The template's roles and fields as the input of a replacement (fields in the roles' order). */
function editedOf(template: TemplateDetail): Edited {
  return {
    defaults: {
      title: template.title,
      body: template.text,
      expiresInSeconds: template.expiresInSeconds,
      remindEveryDays: template.remindEveryDays,
    },
    roles: template.roles.map(({ name, role, signingOrder, signingMethod, language }) => ({
      name,
      role,
      signingOrder,
      signingMethod,
      language,
    })),
    fields: template.roles.flatMap((role) =>
      role.fields.map(({ id, ...field }) => ({ id, field: { ...field, role: role.name } })),
    ),
  };
}

/** Runs `change` on the template's roles and fields under its lock and stores the result, checked whole. */
async function editTemplate(
  ctx: Context,
  workspaceId: string,
  id: string,
  change: (current: Edited) => Edited,
): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    if (!(await lockTemplate(trx, workspaceId, id))) throw new ApiError('not-found');
    // Read in the transaction: on PGlite it holds the only connection.
    const template = await getTemplate({ ...ctx, db: trx }, workspaceId, id);
    const next = change(editedOf(template));
    const input: TemplateInput = {
      workspaceId,
      name: template.name,
      ...next.defaults,
      roles: next.roles,
      fields: next.fields.map((f) => f.field),
      kept: {
        sha256: template.file.sha256,
        pages: template.file.pages,
        pageSizes: await pageSizesOf(trx, template.file.sha256),
      },
    };
    const checked = await checkTemplateInput(ctx, input);
    await writeReplacement(trx, ctx, id, { input, checked, fieldIds: next.fields.map((f) => f.id) });
  });
}

const noSuchField = () => refusalOf({ fields: { key: 'editor.problem.noSuchField' } });

/** A field added to the template: untrusted, as a field of `TemplateInput.fields`. */
export function addTemplateField(ctx: Context, workspaceId: string, id: string, field: unknown) {
  return editTemplate(ctx, workspaceId, id, (current) => ({
    ...current,
    fields: [...current.fields, { id: null, field }],
  }));
}

/** One field of the template replaced (moved, resized, retyped, given to another role). */
export function updateTemplateField(
  ctx: Context,
  workspaceId: string,
  id: string,
  fieldId: string,
  field: unknown,
) {
  return editTemplate(ctx, workspaceId, id, (current) => {
    if (!current.fields.some((f) => f.id === fieldId)) throw noSuchField();
    return { ...current, fields: current.fields.map((f) => (f.id === fieldId ? { id: fieldId, field } : f)) };
  });
}

/** One field of the template deleted (already gone: nothing to do). */
export function deleteTemplateField(ctx: Context, workspaceId: string, id: string, fieldId: string) {
  return editTemplate(ctx, workspaceId, id, (current) => ({
    ...current,
    fields: current.fields.filter((f) => f.id !== fieldId),
  }));
}

/** A role as the roles form gives it: `was`, the place of the role it was (null: a new one). */
export interface RoleChange {
  was: number | null;
  name: string;
  role: RecipientRole;
  signingOrder: number;
  signingMethod: SigningMethod;
  /** Its recipient's default language; null or absent: the workspace's. */
  language?: string | null;
}

/**
 * The roles replaced: a role that was one keeps its fields under its new name; a role left
 * out loses its fields. Refused as a whole (a field left on a role that became a viewer, two
 * roles of one name, no signing role…) with the sentences of `checkTemplateInput`.
 */
export function changeTemplateRoles(ctx: Context, workspaceId: string, id: string, roles: RoleChange[]) {
  return editTemplate(ctx, workspaceId, id, (current) => {
    const renamed = new Map<string, string>();
    for (const r of roles) {
      const before = r.was === null ? undefined : current.roles[r.was];
      if (before) renamed.set(before.name.toLowerCase(), r.name.trim());
    }
    const fields = current.fields.flatMap((f) => {
      const field = f.field as Record<string, unknown>;
      const name = renamed.get(String(field.role).toLowerCase());
      return name === undefined ? [] : [{ id: f.id, field: { ...field, role: name } }];
    });
    return {
      ...current,
      roles: roles.map(({ was: _was, ...role }) => role),
      fields,
    };
  });
}

/** The title, message, expiry and reminders of the documents made from the template from now on. */
export function changeTemplateDefaults(
  ctx: Context,
  workspaceId: string,
  id: string,
  defaults: TemplateDefaults,
) {
  return editTemplate(ctx, workspaceId, id, (current) => ({ ...current, defaults }));
}
