// The signing links a recipient was mailed, read back from those mails (the database keeps
// only their hashes): `findMailedSigningLinks` for any recipients (the tests' harness finds
// links through it), `findSharableSigningLinks` for the ones a sender may copy from a
// document's page (as Documenso's "copy link"). Never the link of an `email-code` signer
// there: that method proves the signer reads their own mailbox, so nobody else may hold the
// link (docs/web-app.md, "Who may read which mail").
import type { Context } from '../context.ts';
import { emailKey } from '../mail/address.ts';
import { listMails } from '../mail/mail.service.ts';
import { signingLinkIn } from '../mail/templates.ts';

/** The newest link mailed to each of `recipients` (by id), among the document's last 200 mails. */
export async function findMailedSigningLinks(
  ctx: Context,
  workspaceId: string,
  document: { id: string; recipients: Array<{ id: string; email: string }> },
): Promise<Map<string, string>> {
  const links = new Map<string, string>();
  if (document.recipients.length === 0) return links;
  const mails = await listMails(ctx, { workspaceId, documentId: document.id, limit: 200 });
  for (const recipient of document.recipients) {
    for (const mail of mails) {
      const link = emailKey(mail.to) === emailKey(recipient.email) ? signingLinkIn(mail.text) : null;
      if (link) {
        links.set(recipient.id, link);
        break;
      }
    }
  }
  return links;
}

export function findSharableSigningLinks(
  ctx: Context,
  workspaceId: string,
  document: { id: string; recipients: Array<{ id: string; email: string; signingMethod: string }> },
): Promise<Map<string, string>> {
  const sharable = document.recipients.filter((r) => r.signingMethod !== 'email-code');
  return findMailedSigningLinks(ctx, workspaceId, { id: document.id, recipients: sharable });
}
