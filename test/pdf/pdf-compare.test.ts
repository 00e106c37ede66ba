// The cross-renderer check (test/support/pdf-compare.ts) sees what it is for: a page every renderer
// draws alike is within the tolerance, and a page that prints what the screen does not show
// (an annotation flagged Print and NoView: readers hide it on screen, print it on paper) is far
// outside it, in exactly the pairs with pdf.js's print intent.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PDFDocument, PDFName, StandardFonts } from '@cantoo/pdf-lib';
import { comparePageRenderings, renderingTolerance } from '../support/pdf-compare.ts';

async function letter(printOnly: boolean): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const page = pdf.addPage([595.28, 841.89]);
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  page.drawText('Total price: 100 EUR', { x: 72, y: 760, size: 20, font });
  if (printOnly) {
    // A black box over a third of the page, drawn by its appearance stream, for paper only.
    const appearance = pdf.context.register(
      pdf.context.stream('0 g 0 0 400 300 re f', {
        Type: 'XObject',
        Subtype: 'Form',
        BBox: [0, 0, 400, 300],
      }),
    );
    const annotation = pdf.context.register(
      pdf.context.obj({
        Type: 'Annot',
        Subtype: 'Square',
        Rect: [72, 300, 472, 600],
        F: 4 | 32, // Print, NoView
        AP: { N: appearance },
      }),
    );
    page.node.set(PDFName.of('Annots'), pdf.context.obj([annotation]));
  }
  return pdf.save();
}

test('a page every renderer draws alike is within the tolerance, pair by pair', async () => {
  const { pairs, worst, width, height } = await comparePageRenderings(await letter(false), 1, { width: 400 });
  assert.deepEqual([width, height], [400, 566]);
  assert.equal(pairs.length, 6, 'every pair of the four renderers');
  assert.ok(worst <= renderingTolerance, JSON.stringify(pairs));
});

test('a page that prints what the screen does not show is caught, in the pairs with the print intent', async () => {
  const { pairs, worst } = await comparePageRenderings(await letter(true), 1, { width: 400 });
  assert.ok(worst > 0.1, JSON.stringify(pairs));
  for (const { a, b, differing } of pairs) {
    const withPrint = a === 'pdf.js print' || b === 'pdf.js print';
    assert.equal(differing > renderingTolerance, withPrint, `${a} and ${b}: ${differing}`);
  }
});
