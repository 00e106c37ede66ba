// **The** rule for active content: what a PDF may not carry under Signet's seal. Signers see
// page images; a reader that runs a script, starts a program, submits a form or opens an
// attachment could do or show something else than what they signed. So a file holding any
// of these is refused at upload, with a sentence naming what it holds (the sender exports a
// clean copy), and a file stored before the rule is not sealed (`loadForSealing`). Ordinary
// form fields may stay; a form that asks readers to draw its fields themselves
// (/NeedAppearances true) may not, since each reader draws them its own way and not as the
// signing page showed them (one-look.ts holds the rest of what makes readers disagree).
//
// Actions (issue 48): what a reader does by itself, when the file opens or a page or field
// is shown, is never more than going to a page. `/OpenAction` and every `/AA` (the
// document's, a page's, an annotation's, a field's) may hold only a plain GoTo (or a
// destination array), its /Next chain included. Anywhere in the file, actions that change
// what is shown or reach out are refused: SetOCGState (turns layers on or off), Hide (shows
// hidden annotations), GoToR and GoToE (other files: a UNC path leaks a Windows reader's
// credentials), Launch, Rendition, Movie, Sound, GoTo3DView, Trans, and Named actions other
// than NextPage, PrevPage, FirstPage and LastPage (Print, and whatever else a reader names);
// so are 3D, Movie, Sound and Screen annotations. A URI (a web address) stays only where a
// person clicks it: the /A of a Link annotation or of an outline item (and their /Next
// chains); as an open-time or page action it tracks who opens the file, and it is refused.
import {
  PDFArray,
  PDFBool,
  PDFDict,
  type PDFDocument,
  PDFName,
  type PDFObject,
  PDFRawStream,
} from '@cantoo/pdf-lib';
import { translator } from '../i18n/messages.ts';
import { inEnglish, type KeyedSentence } from '../i18n/refusals.ts';

// Objects looked at in one file at most: far above a 500-page contract's, and a bound on a
// file built to make the walk long.
const maxVisited = 2_000_000;

const actionKinds: Record<string, string> = {
  JavaScript: 'javascript',
  Launch: 'launch',
  SubmitForm: 'submitForm',
  ImportData: 'importData',
  GoToE: 'embeddedFiles',
  RichMediaExecute: 'richMedia',
  SetOCGState: 'setLayers',
  Hide: 'hide',
  GoToR: 'remoteLink',
  Rendition: 'media',
  Movie: 'media',
  Sound: 'media',
  GoTo3DView: 'media',
  Trans: 'transition',
};

const keyKinds: Record<string, string> = {
  JS: 'javascript',
  JavaScript: 'javascript',
  EmbeddedFiles: 'embeddedFiles',
  EF: 'embeddedFiles',
  XFA: 'xfa',
  RichMediaContent: 'richMedia',
};

const subtypeKinds: Record<string, string> = {
  FileAttachment: 'fileAttachments',
  RichMedia: 'richMedia',
  EmbeddedFile: 'embeddedFiles',
  '3D': 'media',
  Movie: 'media',
  Sound: 'media',
  Screen: 'media',
};

// PDFName.of interns names, so a name is looked up by identity: no decoding of every key of
// every dictionary of a 500-page file.
const byName = (table: Record<string, string>) =>
  new Map(Object.entries(table).map(([name, kind]) => [PDFName.of(name), kind]));
const actions = byName(actionKinds);
const keys = byName(keyKinds);
const subtypes = byName(subtypeKinds);
const name = (text: string) => PDFName.of(text);
const [S, Subtype, Type, N, A, AA] = [
  name('S'),
  name('Subtype'),
  name('Type'),
  name('N'),
  name('A'),
  name('AA'),
];
const [OpenAction, Next, Title, Parent] = [name('OpenAction'), name('Next'), name('Title'), name('Parent')];
const [GoTo, Named, URI, Link] = [name('GoTo'), name('Named'), name('URI'), name('Link')];
// The Named actions that only turn pages, which every reader has as buttons of its own.
const pageTurns = new Set(['NextPage', 'PrevPage', 'FirstPage', 'LastPage'].map(name));
const onOpening = 'onOpening';
const webAddress = 'webAddress';
// Links in a /Next chain followed at most: far above any real chain, a bound on a loop.
const maxChain = 64;

/** What one walk collects: the kinds found, and the URI actions with those a click starts. */
interface Walk {
  found: Set<string>;
  uris: Set<PDFDict>;
  clicked: Set<PDFDict>;
}

// The action dictionaries of `value` (one, or an array) and of their /Next chains, each once.
function chainOf(pdf: PDFDocument, value: PDFObject | undefined): PDFDict[] {
  const chain: PDFDict[] = [];
  const queue: Array<PDFObject | undefined> = [value];
  while (queue.length > 0 && chain.length < maxChain) {
    const item = pdf.context.lookup(queue.shift());
    if (item instanceof PDFArray) queue.push(...item.asArray());
    else if (item instanceof PDFDict && !chain.includes(item)) {
      chain.push(item);
      queue.push(item.get(Next));
    }
  }
  return chain;
}

// An open-time or trigger action: a destination (an array, or a name), or GoTo actions only,
// down their /Next chain.
function isPlainGoTo(pdf: PDFDocument, value: PDFObject | undefined): boolean {
  const direct = pdf.context.lookup(value);
  if (!(direct instanceof PDFDict)) return true;
  return chainOf(pdf, direct).every((action) => action.get(S) === GoTo);
}

function kindsOf(pdf: PDFDocument, dict: PDFDict, walk: Walk, stack: PDFObject[]): void {
  const { found } = walk;
  for (const [key, value] of dict.entries()) {
    const kind = keys.get(key);
    if (kind) found.add(kind);
    if (key === OpenAction && !isPlainGoTo(pdf, value)) found.add(onOpening);
    if (key === AA) {
      const triggers = pdf.context.lookup(value);
      if (triggers instanceof PDFDict && !triggers.values().every((action) => isPlainGoTo(pdf, action)))
        found.add(onOpening);
    }
    if (value instanceof PDFName) {
      const named =
        key === S ? actions.get(value) : key === Subtype || key === Type ? subtypes.get(value) : undefined;
      if (named) found.add(named);
      if (key === S && value === Named) {
        const turn = pdf.context.lookup(dict.get(N));
        if (!(turn instanceof PDFName && pageTurns.has(turn))) found.add('namedAction');
      }
      if (key === S && value === URI) walk.uris.add(dict);
    } else if (value instanceof PDFDict || value instanceof PDFArray) {
      // Direct objects only: indirect ones are on the stack already, each once.
      stack.push(value);
    }
  }
  // A click: a Link annotation's action, or an outline item's (it has a title and a parent).
  if (dict.get(Subtype) === Link || (dict.has(Title) && dict.has(Parent) && dict.has(A)))
    for (const action of chainOf(pdf, dict.get(A))) walk.clicked.add(action);
}

/** What kinds of active content `pdf` holds (upload.activeKind's cases), in the order English names them; empty when none. */
export function activeContentOf(pdf: PDFDocument): string[] {
  const walk: Walk = { found: new Set(), uris: new Set(), clicked: new Set() };
  const { found } = walk;
  const stack: PDFObject[] = pdf.context.enumerateIndirectObjects().map(([, object]) => object);
  let visited = 0;
  while (stack.length > 0) {
    if (++visited > maxVisited) {
      found.add('tooManyObjects');
      break;
    }
    const object = stack.pop() as PDFObject;
    const dict = object instanceof PDFRawStream ? object.dict : object;
    if (dict instanceof PDFDict) {
      kindsOf(pdf, dict, walk, stack);
    } else if (dict instanceof PDFArray) {
      for (const value of dict.asArray())
        if (value instanceof PDFDict || value instanceof PDFArray) stack.push(value);
    }
  }
  for (const uri of walk.uris) if (!walk.clicked.has(uri)) found.add(webAddress);
  const acroForm = pdf.catalog.lookupMaybe(PDFName.of('AcroForm'), PDFDict);
  if (acroForm?.lookup(PDFName.of('NeedAppearances')) === PDFBool.True) {
    found.add('needAppearances');
  }
  const english = translator('en');
  const named = [...found].map((kind) => [english.t('upload.activeKind', { kind }), kind] as const);
  return named.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, kind]) => kind);
}

/** The upload rule's sentence for a file holding `kinds`, each named in the reader's language. */
export function activeContentRefusal(kinds: string[]): KeyedSentence {
  return {
    key: 'upload.activeContent',
    lists: { kinds: kinds.map((kind) => ({ key: 'upload.activeKind', values: { kind } })) },
  };
}

/** activeContentRefusal in English (the seal's own check). */
export function activeContentSentence(kinds: string[]): string {
  return inEnglish(activeContentRefusal(kinds));
}
