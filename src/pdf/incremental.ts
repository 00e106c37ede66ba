// Appending pages to a PDF as an incremental update, without pdf-lib's change tracking.
// A document loaded `forIncrementalUpdate` records every change to a dictionary or array by
// searching all of the file's objects for the one that holds it: a search per change, each
// as long as the file, which made laying out a certificate after a 500-page contract cost
// more than loading and saving the contract. The pages Signet appends, and everything drawn
// on them (content streams, fonts, images), are new objects, which the update writes
// anyway; the only old objects that change are the page-tree nodes that take the new pages
// in. So tracking is paused while the pages are added and drawn and their fonts and images
// embedded, and those nodes (with their
// /Kids and /Count where those are objects of their own) are marked for the update after.
import { PDFDict, type PDFDocument, PDFName, PDFRef } from '@cantoo/pdf-lib';

/**
 * Runs `draw`, which may only add pages at the end of `pdf` and objects of its own, with
 * change tracking paused; then marks the page-tree nodes above every page added.
 */
export async function appendPagesUntracked<T>(pdf: PDFDocument, draw: () => Promise<T>): Promise<T> {
  const context = pdf.context;
  const snapshot = context.snapshot;
  if (!snapshot) throw new Error('appendPagesUntracked needs a document loaded forIncrementalUpdate');
  const before = pdf.getPageCount();
  context.snapshot = undefined;
  let result: T;
  try {
    result = await draw();
    await pdf.flush(); // fonts and images are written now, as new objects, still untracked
  } finally {
    context.snapshot = snapshot;
  }
  const marked = new Set<number>();
  const mark = (ref: PDFRef) => {
    if (marked.has(ref.objectNumber)) return false;
    marked.add(ref.objectNumber);
    snapshot.markRefForSave(ref);
    return true;
  };
  for (const page of pdf.getPages().slice(before)) {
    let parent = page.node.get(PDFName.of('Parent'));
    while (parent instanceof PDFRef && mark(parent)) {
      const node = context.lookup(parent);
      if (!(node instanceof PDFDict)) break;
      for (const key of ['Kids', 'Count']) {
        const entry = node.get(PDFName.of(key));
        if (entry instanceof PDFRef) mark(entry);
      }
      parent = node.get(PDFName.of('Parent'));
    }
  }
  return result;
}
