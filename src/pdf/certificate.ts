// The certificate of completion: pages appended to the original PDF, as an incremental
// update (the original's bytes, and any signature it already carries, stay as they were).
// It names the document and its original file, shows each signer's signature in a
// signature block, lists every recipient with how and from where they acted and the fields
// they filled, and the full event history, all in UTC. The same update draws the signers'
// field values on the original pages (fields.ts). The seal (seal.ts) then signs the whole file.
import type { PDFDocument, PDFImage } from '@cantoo/pdf-lib';
import { drawFieldStamps, type FieldStamp } from './fields.ts';
import { FontSet } from './fonts.ts';
import { updateUntracked } from './incremental.ts';
import { PageFlow } from './layout.ts';
import { loadPdf } from './load.ts';
import { commitUpdate } from './seal.ts';

export interface CertificateRecipient {
  fullName: string;
  email: string;
  role: string;
  signingMethod: string;
  /**
   * When their first mail went out (their link, at their turn), or `completionMailOnly`: a
   * viewer of a later order than every signer, mailed only the sealed file, at `at`.
   */
  sent: { at: Date; completionMailOnly: boolean } | null;
  /** When they viewed the document (signing/opening.ts: a page image loaded, or a post). */
  openedAt: Date | null;
  signedAt: Date | null;
  declinedAt: Date | null;
  /** Where they signed from (else where they opened it from), if known. */
  clientIp: string | null;
  userAgent: string | null;
  signature: { kind: 'typed'; name: string } | { kind: 'drawn'; png: Uint8Array } | null;
  /** The fields they filled (or the service filled for them), in the order to list them. */
  fields: CertificateField[];
}

/** A filled field as the certificate lists it: its wording is the field type's (fields/field-types.ts). */
export interface CertificateField {
  /** The type's name ("Date signed"). */
  name: string;
  label: string | null;
  /** 1-based, on the original. */
  page: number;
  /** What was entered or filled in (the text, initials; 'checked' or 'not checked'); null for signatures. */
  value: string | null;
  /** The sender gave the value when the document was made; the recipient signed with it shown. */
  bySender?: boolean;
}

export interface CertificateEvent {
  at: Date;
  /** How the history names it, with its detail ("Reminder sent (automatic)"): documents/event-types.ts. */
  label: string;
  recipientEmail: string | null;
  clientIp: string | null;
  userAgent: string | null;
}

export interface Certificate {
  documentId: string;
  title: string;
  workspaceName: string;
  originalSha256: string;
  originalPages: number;
  sentAt: Date | null;
  completedAt: Date;
  recipients: CertificateRecipient[];
  events: CertificateEvent[];
  /** Where anyone may check the sealed file (the public /verify page). */
  verifyUrl: string;
}

/** "2026-11-25 14:03:07 UTC": the certificate's one way to write a time. */
export function utc(at: Date | null): string {
  return at ? `${at.toISOString().slice(0, 19).replace('T', ' ')} UTC` : '—';
}

/** "2026-11-25 14:03:07 UTC", or "only the completion mail, 2026-11-26 09:00:00 UTC". */
function sentText(sent: CertificateRecipient['sent']): string {
  if (!sent) return '—';
  return sent.completionMailOnly ? `only the completion mail, ${utc(sent.at)}` : utc(sent.at);
}

async function signatures(flow: PageFlow, certificate: Certificate): Promise<void> {
  await flow.heading('Signatures');
  for (const recipient of certificate.recipients) {
    if (!recipient.signature || !recipient.signedAt) continue;
    const caption = [
      `${recipient.fullName} <${recipient.email}>`,
      `Signed ${utc(recipient.signedAt)}${recipient.clientIp ? ` from ${recipient.clientIp}` : ''}`,
    ];
    if (recipient.signature.kind === 'drawn') {
      const image: PDFImage = await flow.pdf.embedPng(recipient.signature.png);
      await flow.signatureBlock({ image }, caption);
    } else {
      await flow.signatureBlock({ typed: recipient.signature.name }, caption);
    }
  }
}

/** A field's row: "Field, page 2" and "Text “Company”: ACME Ltd". */
function fieldRow(field: CertificateField): [string, string] {
  const label = field.label ? ` “${field.label}”` : '';
  const value = field.value === null ? '' : `: ${field.value}`;
  const by = field.bySender ? ' (filled in by the sender)' : '';
  return [`Field, page ${field.page}`, `${field.name}${label}${value}${by}`];
}

async function recipients(flow: PageFlow, certificate: Certificate): Promise<void> {
  await flow.heading('Recipients');
  for (const recipient of certificate.recipients) {
    await flow.text(`${recipient.fullName} <${recipient.email}>`, {
      size: 10,
      style: 'bold',
      direction: 'ltr',
    });
    await flow.rows([
      ['Role', recipient.role],
      [
        'Signing method',
        recipient.signingMethod === 'email-code' ? 'link and one-time code by email' : 'link by email',
      ],
      ['Sent', sentText(recipient.sent)],
      ['Opened', utc(recipient.openedAt)],
      [recipient.declinedAt ? 'Declined' : 'Signed', utc(recipient.declinedAt ?? recipient.signedAt)],
      ['IP address', recipient.clientIp ?? '—'],
      ['User agent', recipient.userAgent ?? '—'],
      ...recipient.fields.map(fieldRow),
    ]);
    flow.space(8);
  }
}

async function history(flow: PageFlow, certificate: Certificate): Promise<void> {
  await flow.heading('Event history');
  await flow.table(
    [
      { title: 'Time (UTC)', share: 0.19 },
      { title: 'Event', share: 0.25 },
      { title: 'Recipient', share: 0.22 },
      { title: 'IP address', share: 0.13 },
      { title: 'User agent', share: 0.21 },
    ],
    certificate.events.map((event) => [
      utc(event.at).replace(' UTC', ''),
      event.label,
      event.recipientEmail ?? '—',
      event.clientIp ?? '—',
      event.userAgent ?? '—',
    ]),
  );
}

/**
 * The original PDF with `stamps` drawn on its pages and the certificate's pages appended
 * (an incremental update).
 */
export async function appendCertificate(
  original: Uint8Array,
  certificate: Certificate,
  stamps: FieldStamp[] = [],
): Promise<{ data: Uint8Array; pages: number }> {
  const pdf = await loadPdf(original, { forIncrementalUpdate: true });
  return { data: await certify(pdf, certificate, stamps), pages: pdf.getPageCount() };
}

/**
 * Draws `stamps` (the signers' field values) on the original pages of `pdf` (loaded for
 * incremental updates), appends the certificate's pages, and commits both as one update:
 * returns the file so far, and `pdf` stays loaded for the seal's update. Stamps and
 * certificate share their embedded faces.
 */
export async function certify(
  pdf: PDFDocument,
  certificate: Certificate,
  stamps: FieldStamp[] = [],
): Promise<Uint8Array> {
  await updateUntracked(pdf, async () => {
    // The subset tags come from the document and its original file: another update of the
    // same file (a second certificate, say) never reuses one.
    const fonts = new FontSet(pdf, `certificate ${certificate.documentId} ${certificate.originalSha256}`);
    await drawFieldStamps(pdf, fonts, stamps);
    await layOut(new PageFlow(pdf, fonts), certificate);
  });
  return commitUpdate(pdf);
}

async function layOut(flow: PageFlow, certificate: Certificate): Promise<void> {
  await flow.text('Certificate of completion', { size: 18, style: 'bold' });
  await flow.text(certificate.title, { size: 12 });
  flow.space(10);
  await flow.rows([
    ['Document', certificate.documentId],
    ['Sent by', certificate.workspaceName],
    ['Original file SHA-256', certificate.originalSha256],
    ['Original pages', `${certificate.originalPages} (this certificate follows them)`],
    ['Sent', utc(certificate.sentAt)],
    ['Completed', utc(certificate.completedAt)],
  ]);
  await signatures(flow, certificate);
  await recipients(flow, certificate);
  await history(flow, certificate);
  flow.space(12);
  await flow.text(
    `This file is sealed with a digital signature by Signet: any change to it after sealing breaks the seal. ${certificate.verifyUrl} confirms whether it is the file this Signet sealed. PDF readers check the seal offline too: until the operator configures a seal certificate readers trust, or the reader is set to trust this one, they show Signet’s default self-signed seal as of unknown validity (“issuer unknown”, “validity unknown”), which does not mean the file was changed.`,
    { size: 8.5, color: 'muted' },
  );
  await flow.footers(
    (page, of) => `Certificate of completion · ${certificate.documentId} · page ${page} of ${of}`,
  );
}
