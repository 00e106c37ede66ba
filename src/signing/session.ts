// Who a signing link belongs to, and what the recipient's pages read: `findSigningSession`
// (a link's token, looked up by its hash), `recipientOf` and `checkCanSign` (the recipient's
// turn, under the document's lock), `loadSigningView` (everything the signing page shows) and
// `signingPageImage` (a page of the document's PDF as an image).

import type { Context } from '../context.ts';
import {
  type FullRecipientRow,
  findFullDocument,
  findFullRecipients,
  findRecipientByTokenHash,
} from '../documents/documents.repository.ts';
import { DocumentActionError, isActive, signersAhead } from '../documents/lifecycle.ts';
import { listFields, pageSizesOf } from '../fields/fields.service.ts';
import { findDocumentFiles } from '../files/files.repository.ts';
import { type PageImageSize, pageImage } from '../files/page-images.ts';
import { ApiError } from '../http/errors.ts';
import { firstLanguage, parseLanguage } from '../i18n/languages.ts';
import type { Locked } from '../progress/document-lock.ts';
import { signingTokenHash } from '../progress/invitations.ts';
import { brandOf, senderNameOf } from '../workspaces/brand.ts';
import { findWorkspace } from '../workspaces/workspaces.repository.ts';

/** Who a signing link belongs to: the recipient, or null for a link that is not one of ours. */
export async function findSigningSession(
  ctx: Context,
  documentId: string,
  token: string,
): Promise<{ workspaceId: string; documentId: string; recipientId: string } | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const row = await findRecipientByTokenHash(ctx.db, documentId, signingTokenHash(token));
  return row ? { workspaceId: row.workspace_id, documentId: row.document_id, recipientId: row.id } : null;
}

export type SigningSession = NonNullable<Awaited<ReturnType<typeof findSigningSession>>>;

export function recipientOf(locked: Locked, session: SigningSession): FullRecipientRow {
  const recipient = locked.recipients.find((r) => r.id === session.recipientId);
  if (!recipient) throw new ApiError('not-found');
  return recipient;
}

export function checkCanSign(locked: Locked, recipient: FullRecipientRow): void {
  if (!isActive(locked.document.status)) throw new DocumentActionError('not-allowed');
  if (recipient.role !== 'signer') throw new DocumentActionError('not-a-signer');
  if (recipient.signed_at !== null) throw new DocumentActionError('already-signed');
  if (signersAhead(locked.recipients, recipient).length > 0) throw new DocumentActionError('not-your-turn');
}

/** Everything the signing page shows, read in one go. */
export async function loadSigningView(ctx: Context, session: SigningSession) {
  const document = await findFullDocument(ctx.db, session.workspaceId, session.documentId);
  if (!document) throw new ApiError('not-found');
  const recipients = await findFullRecipients(ctx.db, session.workspaceId, session.documentId);
  const recipient = recipients.find((r) => r.id === session.recipientId);
  if (!recipient) throw new ApiError('not-found');
  const files = await findDocumentFiles(ctx.db, session.workspaceId, session.documentId);
  const fields = await listFields(ctx.db, session.workspaceId, session.documentId);
  // The pages' sizes: where the fields go, and each image's proportions before it arrives.
  const pageSizes = document.original_sha256 ? await pageSizesOf(ctx.db, document.original_sha256) : [];
  const workspace = await findWorkspace(ctx.db, session.workspaceId);
  return {
    document,
    recipients,
    recipient,
    files,
    fields,
    pageSizes,
    senderName: senderNameOf(workspace),
    /** The workspace's brand (workspaces/brand.ts): its name, colour and "Sent with Signet". */
    brand: workspace ? brandOf(workspace) : null,
    /** The recipient's language (their own, else the workspace's default): the page's and their mails'. */
    language: firstLanguage(recipient.language, workspace?.default_language),
  };
}

/**
 * The recipient's choice of language from the signing page's switch: it sticks, for the page
 * and their next mails. False for a tag Signet has no catalogue of (nothing changes).
 */
export async function chooseRecipientLanguage(
  ctx: Context,
  session: SigningSession,
  tag: string,
): Promise<boolean> {
  const language = parseLanguage(tag);
  if (!language) return false;
  await ctx.db
    .updateTable('recipients')
    .set({ language })
    .where('workspace_id', '=', session.workspaceId)
    .where('id', '=', session.recipientId)
    .execute();
  return true;
}

/** Page `page` of the document's PDF as an image of `size`, or null when there is no such page. */
export async function signingPageImage(
  ctx: Context,
  session: SigningSession,
  page: number,
  size: PageImageSize,
) {
  const files = await findDocumentFiles(ctx.db, session.workspaceId, session.documentId);
  const original = files.find((f) => f.kind === 'original');
  return original ? pageImage(ctx, session.workspaceId, original.sha256, page, size) : null;
}
