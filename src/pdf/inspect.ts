// **The** rule for what may be uploaded as a document: a whole, unencrypted PDF of at most
// `maxPages` pages and the configured size, checked by parsing it (never by its name or
// its declared type). A refusal is an InputError on the `file` field, one sentence saying
// what is wrong and what to do, a key of the catalogues (upload.*) said in the uploader's
// language. The file is read as readers read it (load.ts), and may hold
// no active content (active-content.ts) and nothing that readers show differently
// (one-look.ts), and unpacks within the decode budget
// (decode-budget.ts). The server runs this in a thread of its own (inspect-thread.ts).
//
// Encrypted files are refused, each kind with its own sentence (encryption.ts tells them
// apart): one that needs a password to open, and one that opens without a password but
// carries an owner password over changes. Readers open the second kind by decrypting with the
// empty password and, by convention, honour its permissions; following them would be safe
// for reading, but not for what Signet does next: the certificate and the seal are an
// incremental update appended to the original bytes, which would have to be encrypted under
// the file's key (pdf-lib writes no encryption) and would make the changes its author's
// owner password withholds. So the sender is told how to make an unencrypted copy instead
// (docs/web-app.md, "What a PDF must be").
import { PDFDict, type PDFDocument, PDFName } from '@cantoo/pdf-lib';
import type { PageSize } from '../db/schema.ts';
import { type KeyedSentence, refusalOf } from '../i18n/refusals.ts';
import { activeContentOf, activeContentRefusal } from './active-content.ts';
import { checkDecodeBudget } from './decode-budget.ts';
import { type EncryptionKind, encryptionKind } from './encryption.ts';
import { pageViews } from './fields.ts';
import { AmbiguousPdfError, EncryptedPdfError, loadPdf } from './load.ts';
import { type OneLook, oneLookOf } from './one-look.ts';
import { textContradictionsOf } from './text-truth.ts';

export const maxPages = 500;

export interface PdfFacts {
  pages: number;
  /**
   * Each page's size as displayed (fields.ts): what fields are placed on; and where the
   * upload's widgets paint, which fields must keep clear of (one-look.ts).
   */
  pageSizes: PageSize[];
}

function refuse(sentence: KeyedSentence): never {
  throw refusalOf({ file: sentence });
}

export function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024
    ? `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`
    : `${Math.ceil(bytes / 1024)} KB`;
}

/** The size rule's sentence, for a file known to be over `maxBytes` (an upload cut off at it). */
export function tooLargeRefusal(maxBytes: number): KeyedSentence {
  return { key: 'upload.tooLarge', values: { size: formatBytes(maxBytes) } };
}

export function refuseTooLarge(maxBytes: number): never {
  refuse(tooLargeRefusal(maxBytes));
}

/** The size rule alone, checked before a file is read (the CLI) or whole. */
export function refuseOversized(bytes: number, maxBytes: number): void {
  if (bytes > maxBytes) refuseTooLarge(maxBytes);
}

const encryptedRefusals: Record<EncryptionKind, KeyedSentence> = {
  'needs-password': { key: 'upload.needsPassword' },
  'opens-without-password': { key: 'upload.ownerPassword' },
};

/** The file cannot be read as a PDF (or its structure cannot be followed). */
const damaged: KeyedSentence = { key: 'upload.damaged' };

/** What Signet needs to know of an uploaded PDF, or the InputError that refuses it. */
export async function inspectPdf(data: Uint8Array, options: { maxBytes: number }): Promise<PdfFacts> {
  if (data.byteLength === 0) refuse({ key: 'upload.empty' });
  refuseOversized(data.byteLength, options.maxBytes);
  // A PDF starts with its header (some writers put a few bytes before it) ...
  const head = Buffer.from(data.buffer, data.byteOffset, Math.min(1024, data.byteLength)).toString('latin1');
  if (!head.includes('%PDF-')) refuse({ key: 'upload.notPdf' });
  // ... and ends with the offset of its last cross-reference section and %%EOF: a file cut
  // off on its way here does not (even if something appended an %%EOF to it).
  const tailStart = Math.max(0, data.byteLength - 2048);
  const tail = Buffer.from(data.buffer, data.byteOffset + tailStart, data.byteLength - tailStart).toString(
    'latin1',
  );
  if (!/startxref\s+\d+\s+%%EOF/.test(tail)) refuse({ key: 'upload.incomplete' });
  // Before pdf-lib reads it (which inflates object streams as it loads): nothing unpacks
  // past the decode budget, and nothing nests deeper than readers can follow.
  const overBudget = checkDecodeBudget(data);
  if (overBudget !== null) refuse(overBudget);
  let pdf: PDFDocument;
  try {
    pdf = await loadPdf(data);
  } catch (error) {
    if (error instanceof EncryptedPdfError) refuse(encryptedRefusals[encryptionKind(error.facts)]);
    if (error instanceof AmbiguousPdfError) refuse(error.refusal);
    refuse(damaged);
  }
  // A file with no catalog (the root of its pages) is no document, whatever its header says.
  if (!pdf.catalog) refuse(damaged);
  // A certifying signature (/Perms /DocMDP) forbids adding pages: the certificate of
  // completion Signet appends would break it, so such a file cannot be signed here as it is.
  if (pdf.catalog.lookupMaybe(PDFName.of('Perms'), PDFDict)?.has(PDFName.of('DocMDP'))) {
    refuse({ key: 'upload.certified' });
  }
  const active = activeContentOf(pdf);
  if (active.length > 0) refuse(activeContentRefusal(active));
  const contradiction = textContradictionsOf(pdf);
  if (contradiction !== null) refuse(contradiction);
  let pages: number;
  try {
    pages = pdf.getPageCount();
  } catch {
    refuse(damaged);
  }
  if (pages < 1) refuse({ key: 'upload.noPages' });
  if (pages > maxPages) refuse({ key: 'upload.tooManyPages', values: { pages, max: maxPages } });
  let look: OneLook;
  try {
    look = oneLookOf(pdf);
  } catch {
    // A structure pdf-lib cannot follow (an entry of the wrong kind where a dictionary must
    // be): readers would each repair it their own way.
    refuse(damaged);
  }
  const [first, ...more] = look.refusals;
  if (first) refuse(more.length > 0 ? { ...first, and: more } : first);
  return {
    pages,
    // `covered` only where a page has some: most files have no widgets, and their rows stay as before.
    pageSizes: pageViews(pdf).map(({ width, height }, i) => {
      const covered = look.covered[i] ?? [];
      return covered.length > 0 ? { width, height, covered } : { width, height };
    }),
  };
}
