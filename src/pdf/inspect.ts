// **The** rule for what may be uploaded as a document: a whole, unencrypted PDF of at most
// `maxPages` pages and the configured size, checked by parsing it (never by its name or
// its declared type). A refusal is an InputError on the `file` field, one sentence saying
// what is wrong and what to do. The file is read as readers read it (load.ts), and may hold
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
import { InputError } from '../input-error.ts';
import { activeContentOf, activeContentSentence } from './active-content.ts';
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

function refuse(sentence: string): never {
  throw new InputError({ file: sentence });
}

export function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024
    ? `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`
    : `${Math.ceil(bytes / 1024)} KB`;
}

/** The size rule's sentence, for a file known to be over `maxBytes` (an upload cut off at it). */
export function tooLargeSentence(maxBytes: number): string {
  return `The file is larger than ${formatBytes(maxBytes)}; upload a smaller PDF.`;
}

export function refuseTooLarge(maxBytes: number): never {
  refuse(tooLargeSentence(maxBytes));
}

/** The size rule alone, checked before a file is read (the CLI) or whole. */
export function refuseOversized(bytes: number, maxBytes: number): void {
  if (bytes > maxBytes) refuseTooLarge(maxBytes);
}

const encryptedSentences: Record<EncryptionKind, string> = {
  'needs-password':
    'This PDF needs a password to open, so Signet cannot show it to signers or seal it; open it with its password, save or print it as a new PDF without one, and upload that.',
  'opens-without-password':
    'This PDF opens without a password, but it is encrypted with an owner password that restricts changes to it, and Signet must add its certificate of completion and seal to it; make an unencrypted copy (in a PDF reader, Print and choose Save as PDF, or run qpdf --decrypt in.pdf out.pdf) and upload that.',
};

/** What Signet needs to know of an uploaded PDF, or the InputError that refuses it. */
export async function inspectPdf(data: Uint8Array, options: { maxBytes: number }): Promise<PdfFacts> {
  if (data.byteLength === 0) refuse('The file is empty; choose a PDF.');
  refuseOversized(data.byteLength, options.maxBytes);
  // A PDF starts with its header (some writers put a few bytes before it) ...
  const head = Buffer.from(data.buffer, data.byteOffset, Math.min(1024, data.byteLength)).toString('latin1');
  if (!head.includes('%PDF-')) refuse('This file is not a PDF; choose a PDF file.');
  // ... and ends with the offset of its last cross-reference section and %%EOF: a file cut
  // off on its way here does not (even if something appended an %%EOF to it).
  const tailStart = Math.max(0, data.byteLength - 2048);
  const tail = Buffer.from(data.buffer, data.byteOffset + tailStart, data.byteLength - tailStart).toString(
    'latin1',
  );
  if (!/startxref\s+\d+\s+%%EOF/.test(tail))
    refuse('This PDF is incomplete (cut off or damaged); upload the whole file again.');
  // Before pdf-lib reads it (which inflates object streams as it loads): nothing unpacks
  // past the decode budget, and nothing nests deeper than readers can follow.
  const overBudget = checkDecodeBudget(data);
  if (overBudget !== null) refuse(overBudget);
  let pdf: PDFDocument;
  try {
    pdf = await loadPdf(data);
  } catch (error) {
    if (error instanceof EncryptedPdfError) refuse(encryptedSentences[encryptionKind(error.facts)]);
    if (error instanceof AmbiguousPdfError) refuse(error.message);
    refuse('This PDF is damaged and cannot be read; export it again from the program that made it.');
  }
  // A file with no catalog (the root of its pages) is no document, whatever its header says.
  if (!pdf.catalog) {
    refuse('This PDF is damaged and cannot be read; export it again from the program that made it.');
  }
  // A certifying signature (/Perms /DocMDP) forbids adding pages: the certificate of
  // completion Signet appends would break it, so such a file cannot be signed here as it is.
  if (pdf.catalog.lookupMaybe(PDFName.of('Perms'), PDFDict)?.has(PDFName.of('DocMDP'))) {
    refuse(
      'This PDF is certified by its author against changes, and Signet must add its certificate of completion to it; upload a copy without the certification.',
    );
  }
  const active = activeContentOf(pdf);
  if (active.length > 0) refuse(activeContentSentence(active));
  const contradiction = textContradictionsOf(pdf);
  if (contradiction !== null) refuse(contradiction);
  let pages: number;
  try {
    pages = pdf.getPageCount();
  } catch {
    refuse('This PDF is damaged and cannot be read; export it again from the program that made it.');
  }
  if (pages < 1) refuse('This PDF has no pages.');
  if (pages > maxPages) refuse(`This PDF has ${pages} pages; a document may have at most ${maxPages}.`);
  let look: OneLook;
  try {
    look = oneLookOf(pdf);
  } catch {
    // A structure pdf-lib cannot follow (an entry of the wrong kind where a dictionary must
    // be): readers would each repair it their own way.
    refuse('This PDF is damaged and cannot be read; export it again from the program that made it.');
  }
  if (look.refusals.length > 0) refuse(look.refusals.join(' '));
  return {
    pages,
    // `covered` only where a page has some: most files have no widgets, and their rows stay as before.
    pageSizes: pageViews(pdf).map(({ width, height }, i) => {
      const covered = look.covered[i] ?? [];
      return covered.length > 0 ? { width, height, covered } : { width, height };
    }),
  };
}
