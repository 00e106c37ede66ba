// A document written in Signet's form (a title, a text body, a pricing table) becomes a PDF
// when it is sent, so every sent document has a PDF: the one its signers see, and the one
// that is sealed.
import { PDFDocument } from '@cantoo/pdf-lib';
import type { PricingView } from '../documents/pricing.ts';
import { FontSet } from './fonts.ts';
import { PageFlow } from './layout.ts';

export interface TextDocument {
  title: string;
  body: string;
  workspaceName: string;
  pricing: PricingView | null;
  /** The PDF's creation date (the send time), so the same document makes the same file. */
  createdAt: Date;
}

export async function renderTextDocument(
  document: TextDocument,
): Promise<{ data: Uint8Array; pages: number }> {
  const pdf = await PDFDocument.create({ updateMetadata: false });
  pdf.setTitle(document.title, { showInWindowTitleBar: true });
  pdf.setAuthor(document.workspaceName);
  pdf.setCreator('Signet');
  pdf.setProducer('Signet');
  pdf.setCreationDate(document.createdAt);
  pdf.setModificationDate(document.createdAt);
  // The document's faces get subset tags of their own (a certificate appended later gets others).
  const flow = new PageFlow(
    pdf,
    new FontSet(pdf, `text ${document.title} ${document.createdAt.toISOString()}`),
  );
  await flow.text(document.title, { size: 18, style: 'bold' });
  await flow.text(`From ${document.workspaceName}`, { size: 9.5, color: 'muted' });
  flow.space(14);
  if (document.body.trim()) await flow.text(document.body.trim(), { size: 10.5 });
  if (document.pricing) {
    const pricing = document.pricing;
    await flow.heading('Pricing', 12);
    await flow.table(
      [
        { title: 'Item', share: 0.3 },
        { title: 'Quantity', share: 0.12 },
        { title: 'Unit price', share: 0.16 },
        { title: 'VAT', share: 0.1 },
        { title: 'Billing', share: 0.16 },
        { title: pricing.pricesIncludeVat ? 'Gross' : 'Net', share: 0.16 },
      ],
      pricing.lines.map((line) => [
        line.name,
        line.quantity,
        line.unitPrice,
        `${line.vatRate}%`,
        line.billing,
        pricing.pricesIncludeVat ? line.gross : line.net,
      ]),
    );
    flow.space(6);
    await flow.rows([
      ['Net', pricing.net],
      ['VAT', pricing.vat],
      ['Total', pricing.gross],
    ]);
  }
  if (flow.pages.length === 0) flow.room(0);
  await flow.footers((page, of) => `${document.title} · page ${page} of ${of}`);
  return { data: await pdf.save({ useObjectStreams: false }), pages: flow.pages.length };
}
