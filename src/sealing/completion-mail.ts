// The completion mail: every recipient (unless the document's delivery is `none`, the
// integrator's own channel: progress/recipient-mail.ts `mailsRecipients`) and every owner of the sending workspace gets the sealed PDF, attached when it is at most 10 MB, else as a download link valid 7 days.
// Queued in the transaction that stores the sealed file (mail outbox: at least once).
import type { Transaction } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../db/schema.ts';
import type { FullDocumentRow } from '../documents/documents.repository.ts';
import { downloadUrl, mailedDownloadLinkMs, pdfFileName } from '../files/download-links.ts';
import type { FileRow } from '../files/files.service.ts';
import { firstLanguage } from '../i18n/languages.ts';
import { translator } from '../i18n/messages.ts';
import { emailKey } from '../mail/address.ts';
import { queueMail } from '../mail/mail.service.ts';
import { completionMail } from '../mail/templates.ts';
import { mailsRecipients } from '../progress/recipient-mail.ts';
import { senderNameOf } from '../workspaces/brand.ts';
import { findOwners, findReplyAddress, findWorkspace } from '../workspaces/workspaces.repository.ts';

export const maxAttachmentBytes = 10 * 1024 * 1024;

export async function queueCompletionMails(
  trx: Transaction<Database>,
  ctx: Context,
  input: {
    document: FullDocumentRow;
    recipients: Array<{ id: string; email: string; language: string | null }>;
    sealed: FileRow;
  },
): Promise<void> {
  const { document, sealed } = input;
  const workspace = await findWorkspace(trx, document.workspace_id);
  const attach = sealed.bytes <= maxAttachmentBytes;
  const attachmentName = pdfFileName(document.title, 'sealed');
  const mail = (language: string | null) =>
    completionMail(translator(firstLanguage(language, workspace?.default_language)), {
      documentTitle: document.title,
      workspaceName: senderNameOf(workspace),
      attachmentName: attach ? attachmentName : null,
      link: attach ? null : downloadUrl(ctx, document.id, 'sealed', mailedDownloadLinkMs),
      linkValidDays: mailedDownloadLinkMs / 86_400_000,
      verifyUrl: `${ctx.config.publicUrl}/verify`,
    });
  // Each recipient reads it in their language, each owner in theirs (else the workspace's default).
  const addressees = new Map<
    string,
    { email: string; recipientId: string | null; language: string | null }
  >();
  // A document delivered by the integrator's own channel mails its recipients nothing; its owners still get it.
  if (mailsRecipients(document))
    for (const r of input.recipients)
      addressees.set(emailKey(r.email), { email: r.email, recipientId: r.id, language: r.language });
  for (const { email, language } of await findOwners(trx, document.workspace_id)) {
    if (!addressees.has(emailKey(email)))
      addressees.set(emailKey(email), { email, recipientId: null, language });
  }
  const replyTo = await findReplyAddress(trx, document.workspace_id, document.created_by);
  for (const { email, recipientId, language } of addressees.values()) {
    await queueMail(trx, ctx, {
      replyTo,
      workspaceId: document.workspace_id,
      documentId: document.id,
      recipientId,
      to: email,
      priority: 'automatic',
      ...mail(language),
      attachment: attach ? { sha256: sealed.sha256, name: attachmentName } : undefined,
    });
  }
}
