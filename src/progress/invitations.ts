// Invitations: a recipient's personal signing link is made when their turn comes and mailed
// to them; only its hash is kept (the link exists in that mail alone). `inviteAll` mails every
// recipient whose turn has come and who has none yet: the first group at send (sending/send.ts),
// each later group when the last signer ahead of it signs (signing/signing.service.ts). The caller
// says how soon the mails go (mail/priority.ts): urgent for a send by hand, bulk for a bulk
// send's, automatic for a later group's.
// `signingTokenHash` is what the signing side looks a link up by.

import { createHash } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../db/schema.ts';
import {
  type FullDocumentRow,
  type FullRecipientRow,
  setInvitations,
} from '../documents/documents.repository.ts';
import { documentUrl } from '../documents/documents.service.ts';
import { signersAhead } from '../documents/lifecycle.ts';
import { firstLanguage } from '../i18n/languages.ts';
import { translator } from '../i18n/messages.ts';
import type { MailPriority } from '../mail/priority.ts';
import { signingRequestMail } from '../mail/templates.ts';
import { senderNameOf } from '../workspaces/brand.ts';
import { findWorkspace } from '../workspaces/workspaces.repository.ts';
import { mailRecipients, mailsRecipients } from './recipient-mail.ts';

/** The hash a signing link's token is stored and looked up by. */
export function signingTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A new signing link's secret and the hash kept of it. */
export function newSigningToken(ctx: Context): { token: string; tokenHash: string } {
  const token = ctx.ids.randomBytes(32).toString('base64url');
  return { token, tokenHash: signingTokenHash(token) };
}

/** A recipient's personal signing link: the document's public url and the token. */
export function signingLink(ctx: Context, documentId: string, token: string): string {
  return `${documentUrl(ctx, documentId)}/${token}`;
}

/**
 * Mails their personal link to every recipient whose turn has come and who has no link
 * yet: at send, the lowest signing order's group; after each signature, the next group once
 * every signer ahead of it has signed (a viewer is mailed with its order's group). A link is
 * made when it is mailed; only its hash is kept, so nobody can act before their turn.
 * Returns the links it made and mailed to nobody: a document its integrator delivers
 * (`delivery: none`) is mailed nothing, and the API hands them over once (api-writes.ts).
 */
export async function inviteAll(
  trx: Transaction<Database>,
  ctx: Context,
  document: Invited['document'],
  recipients: FullRecipientRow[],
  priority: MailPriority,
): Promise<InvitedLink[]> {
  return (await inviteEach(trx, ctx, [{ document, recipients }], priority))[0] ?? [];
}

type Invited = {
  document: Pick<FullDocumentRow, 'id' | 'workspace_id' | 'title' | 'expires_at' | 'delivery' | 'created_by'>;
  recipients: FullRecipientRow[];
};

/**
 * inviteAll for several documents of one transaction (a bulk send's batch): their links
 * stored and their mails queued together. Each document's links, in order.
 */
export async function inviteEach(
  trx: Transaction<Database>,
  ctx: Context,
  documents: Invited[],
  priority: MailPriority,
): Promise<InvitedLink[][]> {
  const dues = documents.map(({ recipients }) =>
    recipients.filter((r) => r.token_hash === null && signersAhead(recipients, r).length === 0),
  );
  if (dues.every((due) => due.length === 0)) return documents.map(() => []);
  const workspaces = new Map<string, Awaited<ReturnType<typeof findWorkspace>>>();
  for (const { document } of documents)
    if (!workspaces.has(document.workspace_id))
      workspaces.set(document.workspace_id, await findWorkspace(trx, document.workspace_id));
  const invited: Parameters<typeof setInvitations>[1] = [];
  const mails: Parameters<typeof mailRecipients>[2] = [];
  const links = documents.map(({ document }, i) =>
    (dues[i] ?? []).flatMap((recipient): InvitedLink[] => {
      const workspace = workspaces.get(document.workspace_id);
      const { token, tokenHash } = newSigningToken(ctx);
      recipient.token_hash = tokenHash;
      recipient.invited_at = ctx.clock.now();
      invited.push({
        workspace_id: recipient.workspace_id,
        id: recipient.id,
        token_hash: tokenHash,
        invited_at: recipient.invited_at,
      });
      const mail = signingRequestMail(
        translator(firstLanguage(recipient.language, workspace?.default_language)),
        {
          recipientName: recipient.full_name,
          documentTitle: document.title,
          workspaceName: senderNameOf(workspace),
          link: signingLink(ctx, document.id, token),
          role: recipient.role,
          expiresAt: document.expires_at,
          timeZone: workspace?.time_zone ?? 'UTC',
        },
      );
      mails.push({ document, recipient, mail });
      if (mailsRecipients(document)) return [];
      return [
        { recipientId: recipient.id, email: recipient.email, url: signingLink(ctx, document.id, token) },
      ];
    }),
  );
  await setInvitations(trx, invited);
  await mailRecipients(trx, ctx, mails, priority);
  return links;
}

/** A personal signing link just made: whose, and the link (its token is kept only as a hash). */
export interface InvitedLink {
  recipientId: string;
  email: string;
  url: string;
}
