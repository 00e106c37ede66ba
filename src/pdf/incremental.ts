// Changing a PDF as an incremental update, without pdf-lib's change tracking. A document
// loaded `forIncrementalUpdate` records every change to a dictionary or array by searching
// all of the file's objects for the one that holds it: a search per change, each as long as
// the file, which made laying out a certificate after a 500-page contract cost more than
// loading and saving the contract. So tracking is paused for the whole of Signet's update
// (the certificate's pages appended, the signers' field values drawn on the original
// pages), and the old objects that changed are marked for the update after. They are few,
// and known here:
// - the pages appended, and everything drawn on any page (content streams, fonts, images),
//   are new objects, which the update writes anyway;
// - appending a page changes the page-tree nodes that take it in (with their /Kids and
//   /Count where those are objects of their own);
// - drawing on an existing page changes that page's own object and nothing else, because
//   `pageToDrawOn` first gives the page its own copies of what pdf-lib would otherwise change
//   in place (see there).
import {
  PDFArray,
  PDFDict,
  type PDFDocument,
  PDFName,
  type PDFPage,
  type PDFPageLeaf,
  PDFRef,
} from '@cantoo/pdf-lib';

// The existing pages drawn on in each document's untracked update, by object number.
const drawnOn = new WeakMap<PDFDocument, Map<number, PDFRef>>();
// Pages already given their own resources (a page drawn on twice is prepared once).
const prepared = new WeakSet<PDFPageLeaf>();

/**
 * Runs `change`, which may add pages at the end of `pdf`, draw on its existing pages through
 * `pageToDrawOn`, and add objects of its own, with change tracking paused; then marks the
 * page-tree nodes above every page added and every existing page drawn on.
 */
export async function updateUntracked<T>(pdf: PDFDocument, change: () => Promise<T>): Promise<T> {
  const context = pdf.context;
  const snapshot = context.snapshot;
  if (!snapshot) throw new Error('updateUntracked needs a document loaded forIncrementalUpdate');
  const before = pdf.getPageCount();
  const pages = new Map<number, PDFRef>();
  context.snapshot = undefined;
  drawnOn.set(pdf, pages);
  let result: T;
  try {
    result = await change();
    await pdf.flush(); // fonts and images are written now, as new objects, still untracked
  } finally {
    context.snapshot = snapshot;
    drawnOn.delete(pdf);
  }
  const marked = new Set<number>();
  const mark = (ref: PDFRef) => {
    if (marked.has(ref.objectNumber)) return false;
    marked.add(ref.objectNumber);
    snapshot.markRefForSave(ref);
    return true;
  };
  for (const page of pdf.getPages().slice(before)) markParents(pdf, page, mark);
  for (const ref of pages.values()) mark(ref);
  return result;
}

function markParents(pdf: PDFDocument, page: PDFPage, mark: (ref: PDFRef) => boolean): void {
  let parent = page.node.get(PDFName.of('Parent'));
  while (parent instanceof PDFRef && mark(parent)) {
    const node = pdf.context.lookup(parent);
    if (!(node instanceof PDFDict)) break;
    for (const key of ['Kids', 'Count']) {
      const entry = node.get(PDFName.of(key));
      if (entry instanceof PDFRef) mark(entry);
    }
    parent = node.get(PDFName.of('Parent'));
  }
}

/**
 * The page at `index` (0-based), ready to be drawn on with pdf-lib's drawing methods so
 * that drawing changes the page's own object only; inside `updateUntracked`, the page is
 * marked for the update.
 *
 * pdf-lib, on a page's first drawing (PDFPageLeaf.normalize and addContentStream), wraps
 * the page's content streams in q/Q, so the original content's graphics state (a `cm` left
 * in force, say) cannot shift what is drawn after it, and adds the new stream to /Contents;
 * each drawing adds its font, image or graphics state to /Resources' /Font, /XObject or
 * /ExtGState. It changes those arrays and dictionaries in place and then holds them in the
 * page object itself (an indirect /Contents or /Resources, or the /Resources inherited from
 * the page tree, becomes the page's own entry), so the page's object is all the update needs
 * to write. But the objects changed in place may be shared: a /Contents array or /Resources
 * that another page refers to as well, or the /Resources every page under a page-tree node
 * inherits. A second page sharing the first's /Contents would then be drawn with the first
 * page's values and the first with the second's, and the page-tree node (written anew when
 * the certificate's pages join it) would carry this page's fonts. So the page first gets its
 * own copies of the /Contents array, of /Resources and of those three dictionaries (of
 * their entries: the streams, fonts and images they name stay shared). normalize also moves
 * an indirect /Annots array into the page (or adds an empty one); nothing here draws
 * annotations, so /Annots is put back as it was, and the seal's widget, added later to an
 * indirect /Annots, goes into the array the page refers to.
 */
export function pageToDrawOn(pdf: PDFDocument, index: number): PDFPage {
  const page = pdf.getPage(index);
  const node = page.node;
  if (!prepared.has(node)) {
    const annots = node.get(PDFName.Annots);
    ownContentsAndResources(node);
    node.normalize();
    if (annots) node.set(PDFName.Annots, annots);
    else node.delete(PDFName.Annots);
    prepared.add(node);
  }
  drawnOn.get(pdf)?.set(page.ref.objectNumber, page.ref);
  return page;
}

function ownContentsAndResources(node: PDFPageLeaf): void {
  const context = node.context;
  const contents = node.Contents();
  if (contents instanceof PDFArray) node.set(PDFName.Contents, context.obj(contents.asArray()));
  const resources = node.Resources()?.clone() ?? context.obj({});
  for (const key of [PDFName.Font, PDFName.XObject, PDFName.ExtGState]) {
    const entries = resources.lookupMaybe(key, PDFDict);
    if (entries) resources.set(key, entries.clone());
  }
  node.set(PDFName.Resources, resources);
}
