// **The** rule for active content: what a PDF may not carry under Signet's seal. Signers see
// page images; a reader that runs a script, starts a program, submits a form or opens an
// attachment could do or show something else than what they signed. So a file holding any
// of these is refused at upload, with a sentence naming what it holds (the sender exports a
// clean copy), and a file stored before the rule is not sealed (`loadForSealing`). Plain
// links (URI actions) and ordinary form fields may stay; a form that asks readers to draw
// its fields themselves (/NeedAppearances true) may not, since each reader draws them its own
// way and not as the signing page showed them.
import {
  PDFArray,
  PDFBool,
  PDFDict,
  type PDFDocument,
  PDFName,
  type PDFObject,
  PDFRawStream,
} from '@cantoo/pdf-lib';

// Objects looked at in one file at most: far above a 500-page contract's, and a bound on a
// file built to make the walk long.
const maxVisited = 2_000_000;

const actionKinds: Record<string, string> = {
  JavaScript: 'JavaScript',
  Launch: 'an action that starts a program',
  SubmitForm: 'a form that sends its data away',
  ImportData: 'an action that imports data',
  GoToE: 'embedded files',
  RichMediaExecute: 'RichMedia (embedded Flash or video)',
};

const keyKinds: Record<string, string> = {
  JS: 'JavaScript',
  JavaScript: 'JavaScript',
  EmbeddedFiles: 'embedded files',
  EF: 'embedded files',
  XFA: 'an XFA form',
  RichMediaContent: 'RichMedia (embedded Flash or video)',
};

const subtypeKinds: Record<string, string> = {
  FileAttachment: 'file attachments',
  RichMedia: 'RichMedia (embedded Flash or video)',
  EmbeddedFile: 'embedded files',
};

// PDFName.of interns names, so a name is looked up by identity: no decoding of every key of
// every dictionary of a 500-page file.
const byName = (table: Record<string, string>) =>
  new Map(Object.entries(table).map(([name, kind]) => [PDFName.of(name), kind]));
const actions = byName(actionKinds);
const keys = byName(keyKinds);
const subtypes = byName(subtypeKinds);
const [S, Subtype, Type] = [PDFName.of('S'), PDFName.of('Subtype'), PDFName.of('Type')];

function kindsOf(dict: PDFDict, found: Set<string>, stack: PDFObject[]): void {
  for (const [key, value] of dict.entries()) {
    const kind = keys.get(key);
    if (kind) found.add(kind);
    if (value instanceof PDFName) {
      const named =
        key === S ? actions.get(value) : key === Subtype || key === Type ? subtypes.get(value) : undefined;
      if (named) found.add(named);
    } else if (value instanceof PDFDict || value instanceof PDFArray) {
      // Direct objects only: indirect ones are on the stack already, each once.
      stack.push(value);
    }
  }
}

/** What active content `pdf` holds, in words for the sender; empty when none. */
export function activeContentOf(pdf: PDFDocument): string[] {
  const found = new Set<string>();
  const stack: PDFObject[] = pdf.context.enumerateIndirectObjects().map(([, object]) => object);
  let visited = 0;
  while (stack.length > 0) {
    if (++visited > maxVisited) {
      found.add('more objects than can be checked');
      break;
    }
    const object = stack.pop() as PDFObject;
    const dict = object instanceof PDFRawStream ? object.dict : object;
    if (dict instanceof PDFDict) {
      kindsOf(dict, found, stack);
    } else if (dict instanceof PDFArray) {
      for (const value of dict.asArray())
        if (value instanceof PDFDict || value instanceof PDFArray) stack.push(value);
    }
  }
  const acroForm = pdf.catalog.lookupMaybe(PDFName.of('AcroForm'), PDFDict);
  if (acroForm?.lookup(PDFName.of('NeedAppearances')) === PDFBool.True) {
    found.add('form fields that each reader draws its own way (NeedAppearances)');
  }
  return [...found].sort();
}

/** The upload rule's sentence for a file holding `kinds`. */
export function activeContentSentence(kinds: string[]): string {
  const list = kinds.length > 1 ? `${kinds.slice(0, -1).join(', ')} and ${kinds.at(-1)}` : kinds[0];
  return `This PDF contains ${list}, which Signet does not seal because a reader could run or show something other than what signers see; save or print it as a new PDF without them and upload that.`;
}
