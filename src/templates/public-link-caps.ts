// **The** caps on public-link code mails (issue 49 §3). A visitor chooses the address their
// code is mailed to, so each code mail is counted, in the transaction that queues it, against
// two caps held in the database (migration 0039), so every process agrees:
// - per destination inbox: 3 in a UTC clock hour, across every link of every workspace, so
//   nobody's mailbox can be flooded through Signet. The inbox is the address's look-alike key
//   (mail/address.ts `emailKey`) without a `+tag`, which most providers deliver to one mailbox;
// - per workspace: SIGNET_PUBLIC_LINK_CODE_MAILS_PER_DAY (500) in a UTC day, all its links
//   together, so a workspace's links cannot mail strangers in bulk in its name.
// A refused mail is never queued: its transaction is undone (the counts with it), the visitor
// gets a sentence saying when to try again (429, Retry-After), the first refusal of a day or
// hour is logged once, and the owner sees a sentence on the link's settings page
// (`codeMailsToday`). What a link itself counts are its confirmed uses (public-links.ts): code
// requests from strangers do not shut it.
import { createHash } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../db/schema.ts';
import { untilNextDay, usageDay } from '../documents/upload-usage.ts';
import { keyedRefusal } from '../i18n/refusals.ts';
import type { InputError } from '../input-error.ts';
import { emailKey } from '../mail/address.ts';

/** Code mails one inbox receives in a UTC hour, from every link of every workspace. */
export const inboxMailsPerHour = 3;

/** The mailbox an address reaches: its look-alike key, a `+tag` of the local part dropped. */
export function inboxKey(email: string): string {
  const key = emailKey(email);
  const at = key.lastIndexOf('@');
  const local = key.slice(0, at);
  const plus = local.indexOf('+');
  return (plus > 0 ? local.slice(0, plus) : local) + key.slice(at);
}

const inboxHash = (email: string) => createHash('sha256').update(inboxKey(email)).digest('hex');

const hourStart = (at: Date) => new Date(Math.floor(at.getTime() / 3_600_000) * 3_600_000);

type Cap =
  | { kind: 'workspace'; workspaceId: string; day: string; limit: number }
  | { kind: 'inbox'; inbox: string; hour: Date };

/** Thrown inside the counting transaction, so everything it wrote is undone. */
class CapReached extends Error {
  readonly cap: Cap;
  constructor(cap: Cap) {
    super(`public-link code mail cap reached: ${cap.kind}`);
    this.cap = cap;
  }
}

/** Counts one code mail against both caps; past either it throws CapReached. */
async function countCodeMail(
  trx: Transaction<Database>,
  ctx: Context,
  mail: { workspaceId: string; email: string },
  now: Date,
): Promise<void> {
  const day = usageDay(now);
  // Workspace first, inbox second, in every transaction: two requests never wait on each other in a circle.
  const workspace = await trx
    .insertInto('public_link_code_mails')
    .values({ workspace_id: mail.workspaceId, day, mails: 1 })
    .onConflict((conflict) =>
      conflict
        .columns(['workspace_id', 'day'])
        .doUpdateSet((eb) => ({ mails: eb('public_link_code_mails.mails', '+', 1) })),
    )
    .returning('mails')
    .executeTakeFirstOrThrow();
  const limit = ctx.config.publicLinkCodeMailsPerDay;
  if (workspace.mails > limit)
    throw new CapReached({ kind: 'workspace', workspaceId: mail.workspaceId, day, limit });
  const inbox = inboxHash(mail.email);
  const hour = hourStart(now);
  const counted = await trx
    .insertInto('public_link_inbox_mails')
    .values({ inbox, hour, mails: 1 })
    .onConflict((conflict) =>
      conflict
        .columns(['inbox', 'hour'])
        .doUpdateSet((eb) => ({ mails: eb('public_link_inbox_mails.mails', '+', 1) })),
    )
    .returning('mails')
    .executeTakeFirstOrThrow();
  if (counted.mails > inboxMailsPerHour) throw new CapReached({ kind: 'inbox', inbox, hour });
}

/** Whether this refusal is the first of its day or hour (then it is logged), in any process. */
async function isFirstRefusal(ctx: Context, cap: Cap, now: Date): Promise<boolean> {
  const marked =
    cap.kind === 'workspace'
      ? await ctx.db
          .updateTable('public_link_code_mails')
          .set({ reached_at: now })
          .where('workspace_id', '=', cap.workspaceId)
          .where('day', '=', cap.day)
          .where('reached_at', 'is', null)
          .returning('mails')
          .executeTakeFirst()
      : await ctx.db
          .updateTable('public_link_inbox_mails')
          .set({ reached_at: now })
          .where('inbox', '=', cap.inbox)
          .where('hour', '=', cap.hour)
          .where('reached_at', 'is', null)
          .returning('mails')
          .executeTakeFirst();
  return marked !== undefined;
}

/** The visitor's sentence (a key of the catalogues, English in `fields`) and when to try again. */
function refusalOf(cap: Cap, now: Date, senderName: string): InputError {
  if (cap.kind === 'workspace')
    return keyedRefusal([['email', 'publicLink.refusal.workspaceCap', { sender: senderName }]], {
      overAllowance: untilNextDay(now),
    });
  const retryAfterSeconds = Math.max(1, Math.ceil((cap.hour.getTime() + 3_600_000 - now.getTime()) / 1000));
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return keyedRefusal([['email', 'publicLink.refusal.inboxCap', { count: inboxMailsPerHour, minutes }]], {
    overAllowance: { retryAfterSeconds },
  });
}

/**
 * Runs `write` (which queues one code mail to `email`) in a transaction that counts the mail
 * against both caps first. Past a cap nothing is written and an InputError on `email` (with
 * `overAllowance`: when to try again) is thrown; the first such refusal is logged.
 */
export async function withCodeMailCounted<T>(
  ctx: Context,
  mail: { workspaceId: string; templateId: string; email: string; senderName: string },
  write: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  const now = ctx.clock.now();
  let written: T;
  try {
    written = await ctx.db.transaction().execute(async (trx) => {
      await countCodeMail(trx, ctx, mail, now);
      return write(trx);
    });
  } catch (error) {
    if (!(error instanceof CapReached)) throw error;
    const { cap } = error;
    if (await isFirstRefusal(ctx, cap, now)) {
      const at = { workspaceId: mail.workspaceId, templateId: mail.templateId };
      if (cap.kind === 'workspace')
        ctx.log.warn(
          { ...at, limit: cap.limit, day: cap.day },
          'public links: the workspace reached its daily limit of code mails (SIGNET_PUBLIC_LINK_CODE_MAILS_PER_DAY); visitors are refused codes until the next UTC day',
        );
      else
        ctx.log.warn(
          { ...at, inbox: cap.inbox.slice(0, 16), limit: inboxMailsPerHour },
          'public links: one address reached its hourly limit of code mails; codes to it are refused until the next hour',
        );
    }
    throw refusalOf(cap, now, mail.senderName);
  }
  // Only the current hour is read: hours that ended are dropped (one before, for a process whose clock lags).
  await ctx.db
    .deleteFrom('public_link_inbox_mails')
    .where('hour', '<', new Date(hourStart(now).getTime() - 3_600_000))
    .execute();
  return written;
}

/** The workspace's public-link code mails today (UTC), and the owner's sentence once the limit is reached. */
export async function codeMailsToday(
  ctx: Context,
  workspaceId: string,
): Promise<{ mails: number; limit: number; reached: string | null }> {
  const row = await ctx.db
    .selectFrom('public_link_code_mails')
    .select('mails')
    .where('workspace_id', '=', workspaceId)
    .where('day', '=', usageDay(ctx.clock.now()))
    .executeTakeFirst();
  const mails = row?.mails ?? 0;
  const limit = ctx.config.publicLinkCodeMailsPerDay;
  const reached =
    mails >= limit
      ? `Your public links reached their limit of ${limit} code mails today (UTC, all your links together): visitors are refused a code until midnight UTC. If your links are this busy, ask the operator to raise SIGNET_PUBLIC_LINK_CODE_MAILS_PER_DAY; if not, someone may be asking for codes in bulk, and renewing the link stops the old one.`
      : null;
  return { mails, limit, reached };
}
