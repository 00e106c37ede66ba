// The one way Signet mails a recipient of a document while it is being signed (invitations,
// reminders, withdrawal): queued in the caller's transaction, tied to the document and the recipient,
// at the priority the caller gives (mail/priority.ts: a first invitation sent by hand is
// urgent, a bulk send's is bulk, reminders and notices are automatic).
// **The** delivery rule: a document with `delivery: none` (the integrator's own channel)
// mails no recipient, whatever the mail (the completion mail too: sealing/completion-mail.ts).

import type { Transaction } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../db/schema.ts';
import type { FullDocumentRow, FullRecipientRow } from '../documents/documents.repository.ts';
import { queueMails } from '../mail/mail.service.ts';
import type { MailPriority } from '../mail/priority.ts';
import { findReplyAddress } from '../workspaces/workspaces.repository.ts';

/** Whether Signet mails this document's recipients (its links, reminders, the end of it). */
export function mailsRecipients(document: Pick<FullDocumentRow, 'delivery'>): boolean {
  return document.delivery !== 'none';
}

/** Queues `mail` to a recipient of the document, in the caller's transaction (none for `delivery: none`). */
export function mailRecipient(
  trx: Transaction<Database>,
  ctx: Context,
  document: Pick<FullDocumentRow, 'id' | 'workspace_id' | 'delivery' | 'created_by'>,
  recipient: Pick<FullRecipientRow, 'id' | 'email'>,
  mail: { subject: string; text: string; fromName?: string },
  priority: MailPriority,
): Promise<void> {
  return mailRecipients(trx, ctx, [{ document, recipient, mail }], priority);
}

/**
 * mailRecipient for several mails of one transaction (a bulk send's invitations), queued
 * together; each replies to the member who made its document (findReplyAddress).
 */
export async function mailRecipients(
  trx: Transaction<Database>,
  ctx: Context,
  mails: Array<{
    document: Pick<FullDocumentRow, 'id' | 'workspace_id' | 'delivery' | 'created_by'>;
    recipient: Pick<FullRecipientRow, 'id' | 'email'>;
    mail: { subject: string; text: string; fromName?: string };
  }>,
  priority: MailPriority,
): Promise<void> {
  const mailed = mails.filter(({ document }) => mailsRecipients(document));
  // A bulk send's documents share their maker: one look-up per maker.
  const replyTo = new Map<string, string | null>();
  for (const { document } of mailed) {
    const key = `${document.workspace_id}/${document.created_by}`;
    if (!replyTo.has(key))
      replyTo.set(key, await findReplyAddress(trx, document.workspace_id, document.created_by));
  }
  return queueMails(
    trx,
    ctx,
    mailed.map(({ document, recipient, mail }) => ({
      workspaceId: document.workspace_id,
      documentId: document.id,
      recipientId: recipient.id,
      to: recipient.email,
      priority,
      replyTo: replyTo.get(`${document.workspace_id}/${document.created_by}`) ?? null,
      ...mail,
    })),
  );
}
