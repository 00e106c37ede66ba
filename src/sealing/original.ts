// The PDF a document's signers see: the uploaded one, or, for a document written in
// Signet's form, its text made into a PDF when it is sent (pdf/text-document.ts).
import type { Context } from '../context.ts';
import { findFullDocument } from '../documents/documents.repository.ts';
import { pricingView } from '../documents/pricing.ts';
import type { PricingBlock } from '../documents/value.ts';
import { renderTextDocument } from '../pdf/text-document.ts';
import { findWorkspace } from '../workspaces/workspaces.repository.ts';

/**
 * The text document made into a PDF, or null when the document already has a PDF (or does
 * not exist: the caller's own look-up says so).
 */
export async function renderOriginal(
  ctx: Context,
  workspaceId: string,
  documentId: string,
): Promise<{ data: Uint8Array; pages: number } | null> {
  const document = await findFullDocument(ctx.db, workspaceId, documentId);
  if (!document || document.original_sha256 || document.status !== 'draft') return null;
  const workspace = await findWorkspace(ctx.db, workspaceId);
  return renderTextDocument({
    title: document.title,
    body: document.body,
    workspaceName: workspace?.name ?? 'Signet',
    // Stored only after validation (sending/draft-input.ts), so it is a pricing block.
    pricing: pricingView(document.pricing as PricingBlock | null),
    createdAt: document.created_at,
  });
}
