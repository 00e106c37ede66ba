// The certificate of completion: pages appended to the original PDF, as an incremental
// update (the original's bytes, and any signature it already carries, stay as they were).
// It names the document and its original file, shows each signer's signature in a
// signature block, lists every recipient with how and from where they acted and the fields
// they filled, and the full event history, all in UTC, in the document's language (`tr`: the
// catalogues' `certificate.*` and `history.*`). The same update draws the signers'
// field values on the original pages (fields.ts). The seal (seal.ts) then signs the whole file.
import type { PDFDocument, PDFImage } from '@cantoo/pdf-lib';
import type { Language } from '../i18n/languages.ts';
import { type Translator, translator } from '../i18n/messages.ts';
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
  /** The type's name in the certificate's language ("Date signed"). */
  name: string;
  label: string | null;
  /** 1-based, on the original. */
  page: number;
  /** What was entered or filled in (the text, initials; 'checked' or 'not checked' in the certificate's language); null for signatures. */
  value: string | null;
  /** The sender gave the value when the document was made; the recipient signed with it shown. */
  bySender?: boolean;
}

export interface CertificateEvent {
  at: Date;
  /** How the history names it in the certificate's language, with its detail ("Reminder sent (automatic)"): documents/event-types.ts. */
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
  /**
   * The document's language (else the workspace's default): every sentence of the
   * certificate. A tag, not a translator: the certificate is drawn in a thread (seal-thread.ts).
   */
  language: Language;
}

/** "2026-11-25 14:03:07 UTC": the certificate's one way to write a time. */
export function utc(at: Date | null): string {
  return at ? `${at.toISOString().slice(0, 19).replace('T', ' ')} UTC` : '—';
}

/**
 * A value inside a sentence kept in its own direction (UAX #9 isolates, drawn as nothing): an
 * id, a time or an address left to right (LRI), a person's words in their own script's
 * direction (FSI), so a Hebrew or Arabic sentence around them reads in its order.
 */
const leftToRight = (value: string) => `\u2066${value}\u2069`;
const ownDirection = (value: string) => `\u2068${value}\u2069`;

/** "Ann Lee <ann@example.com>", in the page's direction. */
const nameAndAddress = (recipient: CertificateRecipient) =>
  `${ownDirection(recipient.fullName)} ${leftToRight(`<${recipient.email}>`)}`;

/** "2026-11-25 14:03:07 UTC", or "only the completion mail, 2026-11-26 09:00:00 UTC". */
function sentText(sent: CertificateRecipient['sent'], tr: Translator): string {
  if (!sent) return '—';
  return sent.completionMailOnly
    ? tr.t('certificate.onlyCompletionMail', { time: leftToRight(utc(sent.at)) })
    : utc(sent.at);
}

async function signatures(flow: PageFlow, certificate: Certificate): Promise<void> {
  const tr = translator(certificate.language);
  await flow.heading(tr.t('certificate.signatures'));
  for (const recipient of certificate.recipients) {
    if (!recipient.signature || !recipient.signedAt) continue;
    const time = leftToRight(utc(recipient.signedAt));
    const caption = [
      nameAndAddress(recipient),
      recipient.clientIp
        ? tr.t('certificate.signedAtFrom', { time, ip: leftToRight(recipient.clientIp) })
        : tr.t('certificate.signedAt', { time }),
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
function fieldRow(field: CertificateField, tr: Translator): [string, string] {
  let text = field.label
    ? tr.t('certificate.fieldLabelled', { type: field.name, label: ownDirection(field.label) })
    : field.name;
  if (field.value !== null)
    text = tr.t('certificate.fieldValue', { field: text, value: ownDirection(field.value) });
  if (field.bySender) text = tr.t('certificate.fieldBySender', { field: text });
  return [tr.t('certificate.fieldOnPage', { page: field.page }), text];
}

async function recipients(flow: PageFlow, certificate: Certificate): Promise<void> {
  const tr = translator(certificate.language);
  await flow.heading(tr.t('certificate.recipients'));
  for (const recipient of certificate.recipients) {
    await flow.text(nameAndAddress(recipient), { size: 10, style: 'bold', direction: flow.dir });
    await flow.rows([
      [tr.t('certificate.role'), tr.t('certificate.roleValue', { role: recipient.role })],
      [
        tr.t('certificate.signingMethod'),
        tr.t(
          recipient.signingMethod === 'email-code'
            ? 'certificate.method.emailCode'
            : 'certificate.method.link',
        ),
      ],
      [tr.t('certificate.sent'), sentText(recipient.sent, tr)],
      [tr.t('certificate.opened'), utc(recipient.openedAt)],
      [
        tr.t(recipient.declinedAt ? 'certificate.declined' : 'certificate.signed'),
        utc(recipient.declinedAt ?? recipient.signedAt),
      ],
      [tr.t('certificate.ipAddress'), recipient.clientIp ?? '—'],
      [tr.t('certificate.userAgent'), recipient.userAgent ?? '—'],
      ...recipient.fields.map((field) => fieldRow(field, tr)),
    ]);
    flow.space(8);
  }
}

async function history(flow: PageFlow, certificate: Certificate): Promise<void> {
  const tr = translator(certificate.language);
  await flow.heading(tr.t('certificate.history'));
  await flow.table(
    [
      { title: tr.t('certificate.column.time'), share: 0.19 },
      { title: tr.t('certificate.column.event'), share: 0.25 },
      { title: tr.t('certificate.column.recipient'), share: 0.22 },
      { title: tr.t('certificate.ipAddress'), share: 0.13 },
      { title: tr.t('certificate.userAgent'), share: 0.21 },
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
    await layOut(new PageFlow(pdf, fonts, translator(certificate.language).dir), certificate);
  });
  return commitUpdate(pdf);
}

async function layOut(flow: PageFlow, certificate: Certificate): Promise<void> {
  const tr = translator(certificate.language);
  await flow.text(tr.t('certificate.title'), { size: 18, style: 'bold' });
  await flow.text(certificate.title, { size: 12 });
  flow.space(10);
  await flow.rows([
    [tr.t('certificate.document'), certificate.documentId],
    [tr.t('certificate.sentBy'), certificate.workspaceName],
    [tr.t('certificate.originalSha256'), certificate.originalSha256],
    [
      tr.t('certificate.originalPages'),
      tr.t('certificate.originalPagesValue', { count: certificate.originalPages }),
    ],
    [tr.t('certificate.sent'), utc(certificate.sentAt)],
    [tr.t('certificate.completed'), utc(certificate.completedAt)],
  ]);
  await signatures(flow, certificate);
  await recipients(flow, certificate);
  await history(flow, certificate);
  flow.space(12);
  await flow.text(tr.t('certificate.sealNote', { url: leftToRight(certificate.verifyUrl) }), {
    size: 8.5,
    color: 'muted',
  });
  await flow.footers((page, of) =>
    tr.t('certificate.footer', { id: leftToRight(certificate.documentId), page, count: of }),
  );
}
