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

function nameOf(object: PDFObject | undefined): string | undefined {
  return object instanceof PDFName ? object.decodeText() : undefined;
}

function kindsOf(dict: PDFDict, found: Set<string>): void {
  const action = nameOf(dict.get(PDFName.of('S')));
  if (action && actionKinds[action]) found.add(actionKinds[action]);
  for (const key of ['Subtype', 'Type']) {
    const subtype = nameOf(dict.get(PDFName.of(key)));
    if (subtype && subtypeKinds[subtype]) found.add(subtypeKinds[subtype]);
  }
  for (const key of dict.keys()) {
    const kind = keyKinds[key.decodeText()];
    if (kind) found.add(kind);
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
      kindsOf(dict, found);
      // Direct objects only: indirect ones are on the stack already, each once.
      for (const value of dict.values())
        if (value instanceof PDFDict || value instanceof PDFArray) stack.push(value);
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
