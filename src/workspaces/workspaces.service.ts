// Workspaces: created by operators (CLI) and carrying the plan that gates the API.
import type { Context } from '../context.ts';
import { notifyAuthChanged } from '../db/notify.ts';
import type { Plan } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import { firstLanguage, type Language, parseLanguage } from '../i18n/languages.ts';
import { refusalOf } from '../i18n/refusals.ts';
import { drawableText, drawingRefusal } from '../pdf/fonts.ts';
import {
  findWorkspace,
  insertWorkspace,
  updateWorkspaceLanguage,
  updateWorkspacePlan,
  updateWorkspaceTimeZone,
} from './workspaces.repository.ts';

export interface Workspace {
  id: string;
  name: string;
  plan: Plan;
  createdAt: string;
}

export const plans: readonly Plan[] = ['free', 'max'];

export function isPlan(value: string): value is Plan {
  return (plans as readonly string[]).includes(value);
}

export async function createWorkspace(ctx: Context, input: { name: string; plan: Plan }): Promise<Workspace> {
  // The name is drawn on every certificate ("Sent by"): the rule of drawable text.
  const problem = drawingRefusal('name', input.name);
  if (problem) throw refusalOf({ name: problem });
  const row = {
    id: ctx.ids.uuid(),
    name: drawableText(input.name),
    plan: input.plan,
    created_at: ctx.clock.now(),
  };
  await insertWorkspace(ctx.db, row);
  return { id: row.id, name: row.name, plan: row.plan, createdAt: row.created_at.toISOString() };
}

/** Takes effect on the next request of every process, like a key revocation. */
export async function setWorkspacePlan(ctx: Context, id: string, plan: Plan): Promise<Workspace> {
  const updated = await ctx.db.transaction().execute(async (trx) => {
    const found = await updateWorkspacePlan(trx, id, plan);
    if (found) await notifyAuthChanged(trx);
    return found;
  });
  ctx.keyCache.clear();
  if (!updated) throw new ApiError('not-found');
  return getWorkspace(ctx, id);
}

export async function getWorkspace(ctx: Context, id: string): Promise<Workspace> {
  const row = await findWorkspace(ctx.db, id);
  if (!row) throw new ApiError('not-found');
  return { id: row.id, name: row.name, plan: row.plan, createdAt: row.created_at.toISOString() };
}

/** The time zones a workspace may choose: UTC and the IANA names this Node knows. */
export const timeZones: readonly string[] = ['UTC', ...Intl.supportedValuesOf('timeZone')];

/** An owner's choice (web/settings): one of `timeZones`, or an InputError naming the field. */
/**
 * The workspace's default language (issue 51): its recipients' when the sender chose none,
 * and (with the certificate's own, later) its documents'. A tag Signet has no catalogue of
 * is an InputError on `language`.
 */
export async function setWorkspaceLanguage(ctx: Context, id: string, tag: string): Promise<Language> {
  const language = parseLanguage(tag);
  if (!language) throw refusalOf({ language: { key: 'settings.language.refusal' } });
  if (!(await updateWorkspaceLanguage(ctx.db, id, language))) throw new ApiError('not-found');
  return language;
}

/** The workspace's default language (English for a workspace that is gone). */
export async function workspaceLanguage(ctx: Context, id: string): Promise<Language> {
  return firstLanguage((await findWorkspace(ctx.db, id))?.default_language);
}

export async function setWorkspaceTimeZone(ctx: Context, id: string, timeZone: string): Promise<void> {
  if (!timeZones.includes(timeZone)) throw refusalOf({ timeZone: { key: 'settings.timeZone.refusal' } });
  if (!(await updateWorkspaceTimeZone(ctx.db, id, timeZone))) throw new ApiError('not-found');
}
