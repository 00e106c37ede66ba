// Turns what the signing service loaded into the page's view model: what this recipient
// may do now, everyone's progress, and the pricing table formatted for people.
import type { Context } from '../context.ts';
import type { FullDocumentRow, FullRecipientRow } from '../documents/documents.repository.ts';
import { isActive, signersAhead } from '../documents/lifecycle.ts';
import type { PricingBlock } from '../documents/value.ts';
import { downloadUrl, type FileKind } from '../files/download-links.ts';
import { pricingView } from '../ui/document-views.ts';
import type { SigningPageView } from './signing-page.ts';

export function maskEmail(email: string): string {
  const [local = '', domain = ''] = email.split('@');
  const shown = local.length <= 2 ? local.slice(0, 1) : `${local.slice(0, 2)}`;
  return `${shown}${'•'.repeat(Math.max(1, Math.min(6, local.length - shown.length)))}@${domain}`;
}

/** The document's PDFs for the page: its pages as images, and download links for both files. */
function filesOf(
  ctx: Context,
  loaded: Loaded,
  basePath: string,
): Pick<SigningPageView, 'pages' | 'textIsPages' | 'downloads'> {
  const { document, files } = loaded;
  const original = files.find((f) => f.kind === 'original');
  const sealed = files.find((f) => f.kind === 'sealed');
  return {
    pages: Array.from({ length: original?.pages ?? 0 }, (_, i) => ({
      number: i + 1,
      src: `${basePath}/pages/${i + 1}`,
    })),
    textIsPages: document.original_from_text,
    downloads: {
      original: original ? downloadUrl(ctx, document.id, 'original') : null,
      sealed: sealed ? downloadUrl(ctx, document.id, 'sealed') : null,
      sealPending: document.status === 'signed' && !sealed,
    },
  };
}

type Loaded = {
  document: FullDocumentRow;
  recipients: FullRecipientRow[];
  recipient: FullRecipientRow;
  files: Array<{ kind: FileKind; pages: number | null }>;
};

export function buildSigningView(
  ctx: Context,
  loaded: Loaded,
  options: { basePath: string; notice: SigningPageView['notice'] },
): SigningPageView {
  const { document, recipients, recipient } = loaded;
  const active = isActive(document.status);
  const isSigner = recipient.role === 'signer';
  const ahead = isSigner ? signersAhead(recipients, recipient) : [];
  const mayAct = active && isSigner && recipient.signed_at === null && recipient.declined_at === null;
  return {
    document: {
      title: document.title,
      body: document.body,
      status: document.status,
      sentAt: document.sent_at?.toISOString() ?? null,
      expiresAt: document.expires_at?.toISOString() ?? null,
      signedAt: document.signed_at?.toISOString() ?? null,
    },
    pricing: pricingView(document.pricing as PricingBlock | null),
    recipient: {
      fullName: recipient.full_name,
      email: recipient.email,
      role: recipient.role,
      signingMethod: recipient.signing_method,
      signedAt: recipient.signed_at?.toISOString() ?? null,
      declined: recipient.declined_at !== null,
    },
    recipients: recipients.map((r) => ({
      fullName: r.full_name,
      role: r.role,
      signingOrder: r.signing_order,
      state: r.role === 'viewer' ? 'viewer' : r.signed_at ? 'signed' : r.declined_at ? 'declined' : 'waiting',
      signedAt: r.signed_at?.toISOString() ?? null,
      isYou: r.id === recipient.id,
    })),
    actions: {
      canSign: mayAct && ahead.length === 0,
      canDecline: mayAct,
      waitingFor: mayAct ? ahead.map((r) => r.full_name) : [],
    },
    emailCode:
      isSigner && recipient.signing_method === 'email-code' && mayAct
        ? { sentTo: maskEmail(recipient.email), codeSent: recipient.code_sent_at !== null }
        : null,
    basePath: options.basePath,
    notice: options.notice,
    ...filesOf(ctx, loaded, options.basePath),
  };
}
