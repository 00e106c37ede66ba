// **The** rule of SIGNET_UPLOAD_BYTES_PER_DAY: what a workspace may upload as documents' PDFs
// in a UTC day, all files together (the web form, the CLI and the API alike: the signing
// service applies it wherever a document gets a file). Checked before a file is inspected
// or stored, with a sentence for the form's file field; counted in the transaction that
// stores the file, where the count is also checked again, so two uploads at once cannot
// both slip under the limit (the second's transaction is refused and stores nothing).
import type { Kysely, Transaction } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../db/schema.ts';
import { type KeyedSentence, refusalOf } from '../i18n/refusals.ts';
import { formatBytes } from '../pdf/inspect.ts';

/** "2026-11-26": the UTC day a byte is counted on. */
export function usageDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** Until the next UTC day, when the allowance starts again (at least 1 s): the API's Retry-After. */
export function untilNextDay(at: Date): { retryAfterSeconds: number } {
  const next = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1);
  return { retryAfterSeconds: Math.max(1, Math.ceil((next - at.getTime()) / 1000)) };
}

function overRefusal(limit: number): KeyedSentence {
  return { key: 'upload.overAllowance', values: { size: formatBytes(limit) } };
}

async function usedOn(db: Kysely<Database>, workspaceId: string, day: string): Promise<number> {
  const row = await db
    .selectFrom('upload_usage')
    .select('bytes')
    .where('workspace_id', '=', workspaceId)
    .where('day', '=', day)
    .executeTakeFirst();
  return Number(row?.bytes ?? 0);
}

/** The file field's sentence when `bytes` more would go past today's limit; null when they fit. */
export async function uploadAllowanceProblem(
  ctx: Context,
  workspaceId: string,
  bytes: number,
): Promise<KeyedSentence | null> {
  const limit = ctx.config.uploadBytesPerDay;
  const used = await usedOn(ctx.db, workspaceId, usageDay(ctx.clock.now()));
  return used + bytes > limit ? overRefusal(limit) : null;
}

/** Counts an upload in the storing transaction; past the limit it throws (InputError on `file`). */
export async function countUpload(
  trx: Transaction<Database>,
  ctx: Context,
  workspaceId: string,
  bytes: number,
  now: Date,
): Promise<void> {
  const row = await trx
    .insertInto('upload_usage')
    .values({ workspace_id: workspaceId, day: usageDay(now), bytes })
    .onConflict((conflict) =>
      conflict
        .columns(['workspace_id', 'day'])
        .doUpdateSet((eb) => ({ bytes: eb('upload_usage.bytes', '+', bytes) })),
    )
    .returning('bytes')
    .executeTakeFirstOrThrow();
  const limit = ctx.config.uploadBytesPerDay;
  if (Number(row.bytes) > limit)
    throw refusalOf({ file: overRefusal(limit) }, { overAllowance: untilNextDay(now) });
}
