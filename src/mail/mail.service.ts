// Mail as an outbox: a mail is a row written in the transaction of the change that
// needs it, so a failing mail server never loses one. Workers deliver due rows and retry
// failures with growing delays; a worker that dies mid-send leaves its lease to expire
// and the mail is sent again (at least once). Delivery keeps to a pace (deliverDueMails): a
// bulk send's thousands of invitations wait in the outbox rather than flood the server. The
// pace is shared fairly (issue 49 §2): urgent mail (mail/priority.ts) first, with a part of the
// pace kept for it, and the rest of each pass an equal share per workspace (claimDueMails).
import type { Transaction } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../db/schema.ts';
import { readFile } from '../files/files.service.ts';
import { whileLeased } from '../queue/heartbeat.ts';
import { caseFoldedEmail } from './address.ts';
import { mailLeaseMs, mailQueue } from './mail-queue.ts';
import type { MailTransport, OutgoingMail } from './mailer.ts';
import {
  type ClaimedMail,
  claimDueMails,
  countMailsSentSince,
  findMails,
  holdDueMails,
  insertMails,
  type MailLane,
  markMailDelivered,
  markMailFailed,
} from './mails.repository.ts';
import { type MailPriority, mailPriorityRank } from './priority.ts';

export { mailRetryDelaysMs } from './mail-queue.ts';

/** A mail queued: sent by a worker, retried until it is delivered or given up. */
export interface QueuedMail {
  workspaceId: string | null;
  documentId: string | null;
  recipientId: string | null;
  to: string;
  subject: string;
  text: string;
  /** How soon it goes (mail/priority.ts): chosen where it is queued, by what the mail is for. */
  priority: MailPriority;
  /** A stored file to send with it (the sealed PDF), under `name`. */
  attachment?: { sha256: string; name: string };
  /** The name it is sent under (a recipient's mail: "Acme GmbH via Signet"); else SIGNET_MAIL_FROM's. */
  fromName?: string;
  /** Where a reply goes (the member who made the document); none: no Reply-To. */
  replyTo?: string | null;
}

export async function queueMail(trx: Transaction<Database>, ctx: Context, mail: QueuedMail): Promise<void> {
  await queueMails(trx, ctx, [mail]);
}

/** queueMail for several mails of one transaction, in one statement. */
export async function queueMails(
  trx: Transaction<Database>,
  ctx: Context,
  mails: QueuedMail[],
): Promise<void> {
  const now = ctx.clock.now();
  await insertMails(
    trx,
    mails.map((mail) => ({
      id: ctx.ids.uuid(),
      workspace_id: mail.workspaceId,
      document_id: mail.documentId,
      recipient_id: mail.recipientId,
      to_address: mail.to,
      subject: mail.subject,
      text_body: mail.text,
      created_at: now,
      next_attempt_at: now,
      attachment_sha256: mail.attachment?.sha256 ?? null,
      attachment_name: mail.attachment?.name ?? null,
      priority: mailPriorityRank(mail.priority),
      from_name: mail.fromName ?? null,
      reply_to: mail.replyTo ?? null,
    })),
  );
}

/** How long the outbox waits when the mail server answers "slow down" (a 4xx reply). */
export const mailServerPauseMs = 60_000;

/**
 * Whether the mail server asked to be tried later: a 4xx SMTP reply (421 "too many
 * connections", 450/451 "rate limited, try again", 452 "too many recipients").
 */
function askedToWait(error: unknown): boolean {
  const code = (error as { responseCode?: unknown } | null)?.responseCode;
  return typeof code === 'number' && code >= 400 && code < 500;
}

/**
 * The part of the pace that only urgent mail may use: a tenth (at least one mail once the
 * pace allows two). Without it a bulk send fills the minute and a code asked for then waits
 * until the minute rolls on (up to 60 s); with it a code finds room at once. Urgent mail may
 * use the whole pace: people asking for codes and resets are few and rate-limited, and the
 * bulk send is what can wait.
 */
export function urgentReserve(mailPerMinute: number): number {
  return Math.min(mailPerMinute - 1, Math.ceil(mailPerMinute / 10));
}

/**
 * Sends mails that are due now, at the pace the mail server accepts: at most
 * `config.mailPerMinute` handed to it in any minute (counted in the table, so every worker
 * process together keeps to it, give or take one batch), and when it answers "slow down"
 * (a 4xx reply) the whole outbox waits `mailServerPauseMs`. Urgent mail is claimed first;
 * the rest only while the minute's count leaves `urgentReserve` free, shared fairly between
 * workspaces (claimDueMails). The `urgent` lane sends urgent mail alone: the worker runs it
 * beside the main pass, so a code never waits for a pass of 20 bulk mails to end. A stop
 * (`stopping`, asked before each mail) lets the mail in hand finish and lets the rest of the
 * batch go at once, for another worker. Returns how many were attempted.
 */
export async function deliverDueMails(
  ctx: Context,
  transport: MailTransport,
  options: { lane?: Extract<MailLane, 'urgent' | 'any'>; limit?: number; stopping?: () => boolean } = {},
): Promise<number> {
  const limit = options.limit ?? 20;
  const now = ctx.clock.now();
  const pace = ctx.config.mailPerMinute;
  const room = pace - (await countMailsSentSince(ctx.db, new Date(now.getTime() - 60_000)));
  if (room <= 0) return 0;
  const mails = await claimDueMails(ctx.db, now, mailLeaseMs, Math.min(limit, room), 'urgent');
  const otherRoom = Math.min(limit, room - urgentReserve(pace)) - mails.length;
  if (options.lane !== 'urgent' && otherRoom > 0)
    mails.push(...(await claimDueMails(ctx.db, now, mailLeaseMs, otherRoom, 'other')));
  // The mails not yet tried or marked: their leases renewed while the batch goes out, and
  // let go when it stops early (a clean stop, or the server asking to slow down).
  const unsent = new Set(mails);
  return whileLeased(
    ctx,
    mailQueue,
    () => [...unsent].map((mail) => mail.held),
    async () => {
      for (const [i, mail] of mails.entries()) {
        if (options.stopping?.()) {
          await mailQueue.release(
            ctx.db,
            [...unsent].map((m) => m.held),
            { now: ctx.clock.now() },
          );
          return i;
        }
        try {
          const outcome = await transport.send({
            id: mail.id,
            to: mail.to_address,
            subject: mail.subject,
            text: mail.text_body,
            fromName: mail.from_name,
            replyTo: mail.reply_to,
            ...(await attachmentsOf(ctx, mail)),
          });
          unsent.delete(mail);
          await markMailDelivered(ctx.db, mail.id, outcome, ctx.clock.now());
        } catch (error) {
          unsent.delete(mail);
          const retryAt = mailQueue.retryAt(mail.attempts + 1, ctx.clock.now());
          ctx.log.warn({ mailId: mail.id, attempt: mail.attempts + 1, err: error }, 'mail delivery failed');
          await markMailFailed(ctx.db, mail.id, (error as Error)?.message ?? String(error), retryAt);
          if (askedToWait(error)) {
            const until = new Date(ctx.clock.now().getTime() + mailServerPauseMs);
            const rest = [...unsent].map((m) => m.held);
            unsent.clear();
            const held = await holdDueMails(ctx.db, until, rest, ctx.clock.now());
            ctx.log.warn({ held, until }, 'the mail server asked to slow down: the outbox waits');
            return i + 1;
          }
        }
      }
      return mails.length;
    },
  );
}

/** The mail's stored attachment, read for this attempt only (never kept in memory between). */
async function attachmentsOf(ctx: Context, mail: ClaimedMail): Promise<Pick<OutgoingMail, 'attachments'>> {
  if (!mail.attachment_sha256) return {};
  const content = await readFile(ctx.db, mail.attachment_sha256);
  if (!content) throw new Error(`the attachment ${mail.attachment_sha256} is missing`);
  return {
    attachments: [
      { filename: mail.attachment_name ?? 'document.pdf', content, contentType: 'application/pdf' },
    ],
  };
}

export interface MailView {
  id: string;
  workspaceId: string | null;
  documentId: string | null;
  to: string;
  subject: string;
  text: string;
  status: string;
  attempts: number;
  createdAt: string;
  sentAt: string | null;
  lastError: string | null;
}

/**
 * The development mailbox of one person (/mails): the mails addressed to `email`, and none
 * at all when SMTP delivers mail, since then every mail is in its addressee's own mailbox.
 * Nobody reads a mail addressed to someone else (docs/web-app.md, "Who may read which mail").
 */
export async function listOwnMails(ctx: Context, email: string): Promise<MailView[] | 'sent-by-smtp'> {
  if (ctx.config.smtpUrl !== null) return 'sent-by-smtp';
  return listMails(ctx, { toKey: caseFoldedEmail(email), limit: 100 });
}

export async function listMails(
  ctx: Context,
  filter: { workspaceId?: string; documentId?: string; to?: string; toKey?: string; limit?: number },
): Promise<MailView[]> {
  const rows = await findMails(ctx.db, { ...filter, limit: filter.limit ?? 50 });
  return rows.map((r) => ({
    id: r.id,
    workspaceId: r.workspace_id,
    documentId: r.document_id,
    to: r.to_address,
    subject: r.subject,
    text: r.text_body,
    status: r.status,
    attempts: r.attempts,
    createdAt: r.created_at.toISOString(),
    sentAt: r.sent_at?.toISOString() ?? null,
    lastError: r.last_error,
  }));
}
