// The signing links a sender may copy from a document's page (as Documenso's "copy link"):
// read back from the mails that carried them, since the database keeps only their hashes.
// Never the link of an `email-code` signer: that method proves the signer reads their own
// mailbox, so nobody else may hold the link (docs/web-app.md, "Who may read which mail").
import type { Context } from '../context.ts';
import { emailKey } from '../mail/address.ts';
import { listMails } from '../mail/mail.service.ts';
import { signingLinkIn } from '../mail/templates.ts';

export async function findSharableSigningLinks(
  ctx: Context,
  workspaceId: string,
  document: { id: string; recipients: Array<{ id: string; email: string; signingMethod: string }> },
): Promise<Map<string, string>> {
  const links = new Map<string, string>();
  const sharable = document.recipients.filter((r) => r.signingMethod !== 'email-code');
  if (sharable.length === 0) return links;
  const mails = await listMails(ctx, { workspaceId, documentId: document.id, limit: 200 });
  for (const recipient of sharable) {
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
