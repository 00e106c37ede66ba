// Reminders: the sender's by hand (`remindRecipient`, at most once an hour per signer) and
// the worker's automatic ones (`remindDueSigners`, every `remind_every_days`). A reminder
// mails the signer the link they were first mailed, under the document's lock.
// The automatic reminder's "due" rule is stated once, in SQL: `findDueReminders` in
// documents/documents.repository.ts. The worker's pass finds candidates with it and, under
// each document's lock, runs that same query again for the one signer (a signature or a
// reminder by hand may have come in between).

import type { Transaction } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../db/schema.ts';
import {
  type FullRecipientRow,
  findDueReminders,
  updateRecipient,
} from '../documents/documents.repository.ts';
import { recordHistoryEvent } from '../documents/events.ts';
import { DocumentActionError, isActive, signersAhead } from '../documents/lifecycle.ts';
import { ApiError } from '../http/errors.ts';
import { firstLanguage } from '../i18n/languages.ts';
import { translator } from '../i18n/messages.ts';
import { findMails } from '../mail/mails.repository.ts';
import { reminderMail, signingLinkIn } from '../mail/templates.ts';
import { type Locked, withDocument } from '../progress/document-lock.ts';
import { mailRecipient } from '../progress/recipient-mail.ts';
import { senderNameOf } from '../workspaces/brand.ts';
import { findWorkspace } from '../workspaces/workspaces.repository.ts';

/** How often the sender may remind one signer. */
export const reminderIntervalMs = 60 * 60_000;

/**
 * Mails a signer whose turn it is, and who has not signed, their link again: at most once
 * an hour (a refusal says when the next may go).
 */
export async function remindRecipient(
  ctx: Context,
  workspaceId: string,
  documentId: string,
  recipientId: string,
  /** Run in the reminder's transaction once it is queued (the API's Idempotency-Key claim). */
  within?: (trx: Transaction<Database>) => Promise<void>,
): Promise<{ sentTo: string }> {
  return withDocument(ctx, workspaceId, documentId, async (trx, locked, now) => {
    const recipient = locked.recipients.find((r) => r.id === recipientId);
    if (!recipient) throw new ApiError('not-found');
    if (!isActive(locked.document.status)) throw new DocumentActionError('not-allowed');
    if (!isRemindable(locked, recipient)) throw new DocumentActionError('not-remindable');
    const last = recipient.reminded_at?.getTime() ?? Number.NEGATIVE_INFINITY;
    if (now.getTime() - last < reminderIntervalMs) throw new DocumentActionError('reminded-recently');
    if (!(await remindLocked(trx, ctx, locked, recipient, now, 'by hand')))
      throw new DocumentActionError('not-remindable');
    await within?.(trx);
    return { sentTo: recipient.email };
  });
}

/** A signer who has their link, has not signed, and whose turn it is. */
function isRemindable(locked: Locked, recipient: FullRecipientRow): boolean {
  return (
    recipient.role === 'signer' &&
    recipient.signed_at === null &&
    recipient.token_hash !== null &&
    signersAhead(locked.recipients, recipient).length === 0
  );
}

/**
 * Queues the reminder and records it (on the signer, and as a history event saying which
 * kind it was: event-types.ts). The link is the one they were mailed, read back from
 * that mail (only its hash is kept), so their first mail's link keeps working. False when
 * no mail of theirs holds a link (nothing is sent).
 */
async function remindLocked(
  trx: Transaction<Database>,
  ctx: Context,
  locked: Locked,
  recipient: FullRecipientRow,
  now: Date,
  how: 'by hand' | 'automatic',
): Promise<boolean> {
  const { document } = locked;
  const [invitation] = await findMails(trx, { documentId: document.id, to: recipient.email, limit: 50 }).then(
    (mails) => mails.filter((m) => signingLinkIn(m.text_body)).slice(-1),
  );
  const link = invitation && signingLinkIn(invitation.text_body);
  if (!link) return false;
  const workspace = await findWorkspace(trx, document.workspace_id);
  const mail = reminderMail(translator(firstLanguage(recipient.language, workspace?.default_language)), {
    recipientName: recipient.full_name,
    documentTitle: document.title,
    workspaceName: senderNameOf(workspace),
    link,
    expiresAt: document.expires_at,
    timeZone: workspace?.time_zone ?? 'UTC',
  });
  // The sender's reminder is one signer's invitation sent again by hand (the signer is often
  // waiting for it, on the phone with the sender), at most hourly: urgent. The worker's are not.
  await mailRecipient(trx, ctx, document, recipient, mail, how === 'by hand' ? 'urgent' : 'automatic');
  await updateRecipient(trx, document.workspace_id, recipient.id, { reminded_at: now });
  recipient.reminded_at = now;
  await recordHistoryEvent(trx, ctx, { document, type: 'reminder.sent', recipient, at: now, detail: how });
  return true;
}

/** How often a document may remind its signers by itself, in days: the form's choices. */
export const autoReminderChoices = [1, 2, 3, 5, 7, 14] as const;

/**
 * The worker's pass of automatic reminders: every signer due one (findDueReminders) gets
 * their link again, each under their document's lock and checked again there (a signature
 * or a reminder from the sender may have come first). Returns how many were sent.
 */
export async function remindDueSigners(ctx: Context, batchSize = 100): Promise<number> {
  let sent = 0;
  for (;;) {
    const due = await findDueReminders(ctx.db, ctx.clock.now(), batchSize);
    let sentNow = 0;
    for (const { workspaceId, documentId, recipientId } of due) {
      const reminded = await withDocument(ctx, workspaceId, documentId, async (trx, locked, now) => {
        const recipient = locked.recipients.find((r) => r.id === recipientId);
        if (!recipient || !isRemindable(locked, recipient)) return false;
        // Still due, by the same rule that found them (documents.repository.ts).
        if ((await findDueReminders(trx, now, 1, { documentId, recipientId })).length === 0) return false;
        return remindLocked(trx, ctx, locked, recipient, now, 'automatic');
      }).catch((error: unknown) => {
        // Overdue: withDocument expired it, and a document that has ended reminds nobody.
        if (error instanceof DocumentActionError && error.refusal === 'expired') return false;
        throw error;
      });
      if (reminded) sentNow++;
    }
    sent += sentNow;
    // A full batch of rows that all turned out not due (or had no link to send) must not loop.
    if (due.length < batchSize || sentNow === 0) return sent;
  }
}
