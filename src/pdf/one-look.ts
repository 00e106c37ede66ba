// **The** one-look rules (issue 48): whatever makes two conforming readers, or one reader's
// screen and its print, or its drawing and its text, disagree. Signers are shown pdf.js's
// drawing of each page (render.ts); a sealed file is read afterwards in poppler, MuPDF,
// Acrobat, a browser's print or a form-data tool. A file that can look one way there and
// another way here is refused at upload, like an object defined twice (load.ts): Signet
// never rewrites an upload (the bytes shown are the bytes certified by SHA-256 and sealed by
// an incremental update), so there is no normalising; the sender prints or flattens the
// file to a new PDF, which every reader draws alike. Each refusal is one sentence naming
// what the file holds and what to do.
//
// The features and the decision for each (docs/web-app.md, "One look"):
// - Optional content (layers, ISO 32000-1 8.11): accepted only where it cannot make readers
//   differ: every group ON in the default configuration (/D: /BaseState ON or absent, no
//   /OFF list naming a group, no /AS usage events, no /Intent but /View), no alternate
//   /Configs, no group with /Usage or an /Intent but /View, no membership dictionary (OCMD)
//   that hides content while its groups are ON (/P /AllOff or /AnyOff, a /VE with /Not), and
//   every /OC (of an XObject, an annotation, or `/OC /name BDC` in a content stream through
//   the resources' /Properties) naming a group or an OCMD. Anything else is refused.
// - Annotations that paint (a normal appearance that draws something, or a subtype readers
//   draw without one: Text, FreeText, Square, Circle, Line, Polygon, PolyLine, Ink,
//   Highlight, Underline, Squiggly, StrikeOut, Stamp, Caret; Link borders and Popups do not
//   count): refused when visible on screen (not Hidden, not NoView, not Invisible with an
//   unknown subtype) and in print (Print set, not Hidden) differ, or ToggleNoView is set;
//   and every painting annotation other than a form field's widget is refused (comments,
//   stamps, drawings, highlights sit on top of the page, may cover its text or a field, and
//   readers differ in drawing them).
// - Form fields: a widget of a field with no appearance of its own for its state is refused
//   (poppler and MuPDF draw one, pdf.js draws none); a text or choice field whose /V is not
//   the text its appearance shows (decoded through its font's encoding or /ToUnicode, white
//   space ignored) is refused, and so is one whose appearance cannot be decoded; a check box
//   or radio button whose /AS differs from its field's /V is refused. A form that asks each
//   reader to draw its fields (/NeedAppearances true: hyperref's) stays refused
//   (active-content.ts): giving its fields one appearance would mean writing into the upload.
// - Text under a widget whose appearance fills an area (an opaque background): refused, since
//   nobody sees it on the page while readers extract it (text-boxes.ts finds where each
//   string is drawn); a line to write on (underscores, dots, dashes) under a field is not.
// - What stays: widgets that paint their own appearance alike everywhere. Their rectangles
//   are returned per page (`covered`, in view space as fields.ts defines it), and the field
//   rule (fields/field-rules.ts) refuses a Signet field placed under one, since the widget
//   would be drawn over the signer's value in every reader.
// Not here: open-time and page actions (active-content.ts), text whose extraction disagrees
// with its glyphs (ToUnicode).
import {
  PDFArray,
  PDFDict,
  type PDFDocument,
  PDFHexString,
  PDFName,
  PDFNumber,
  type PDFObject,
  type PDFPage,
  PDFStream,
  PDFString,
  pdfDocEncodingDecode,
  StandardFontEmbedder,
  StandardFonts,
} from '@cantoo/pdf-lib';
import type { KeyedSentence } from '../i18n/refusals.ts';
import { maxCMapCodes } from './cmap.ts';
import { arrayAt, contentBytes, contentOps, dictAt, type Operand } from './content-ops.ts';
import { pageView, type Rect, toViewSpace } from './fields.ts';
import { textBoxesOf } from './text-boxes.ts';

/** What the one-look rules found: the sentences refusing the file, and each page's covered rectangles. */
export interface OneLook {
  refusals: KeyedSentence[];
  /** Per page (0-based), the view-space rectangles of the annotations kept that paint. */
  covered: Rect[][];
}

// The refusals, each a sentence of the catalogues (upload.*), as inspect.ts's are.
const layers: KeyedSentence = { key: 'upload.layers' };
const screenAndPrint: KeyedSentence = { key: 'upload.screenAndPrint' };
const markup: KeyedSentence = { key: 'upload.markup' };
const noAppearance: KeyedSentence = { key: 'upload.noAppearance' };
const hiddenText: KeyedSentence = { key: 'upload.hiddenText' };
/** A form field's (`field`: its full name, '' when it has none) value and look disagree. */
const valueDiffers = (field: string): KeyedSentence => ({
  key: 'upload.valueDiffers',
  values: { named: field ? 'yes' : 'no', field },
});
const unreadable = (field: string): KeyedSentence => ({
  key: 'upload.unreadable',
  values: { named: field ? 'yes' : 'no', field },
});

const name = (text: string) => PDFName.of(text);
const K = {
  OCProperties: name('OCProperties'),
  D: name('D'),
  BaseState: name('BaseState'),
  OFF: name('OFF'),
  AS: name('AS'),
  Intent: name('Intent'),
  Configs: name('Configs'),
  OCGs: name('OCGs'),
  Usage: name('Usage'),
  Type: name('Type'),
  OC: name('OC'),
  OCG: name('OCG'),
  OCMD: name('OCMD'),
  P: name('P'),
  VE: name('VE'),
  View: name('View'),
  ON: name('ON'),
  Properties: name('Properties'),
  Resources: name('Resources'),
  XObject: name('XObject'),
  Subtype: name('Subtype'),
  Form: name('Form'),
  Annots: name('Annots'),
  AP: name('AP'),
  N: name('N'),
  F: name('F'),
  Widget: name('Widget'),
  Link: name('Link'),
  Popup: name('Popup'),
  Parent: name('Parent'),
  FT: name('FT'),
  Ff: name('Ff'),
  V: name('V'),
  T: name('T'),
  Tx: name('Tx'),
  Ch: name('Ch'),
  Btn: name('Btn'),
  Off: name('Off'),
  Font: name('Font'),
  DR: name('DR'),
  AcroForm: name('AcroForm'),
  Encoding: name('Encoding'),
  BaseEncoding: name('BaseEncoding'),
  Differences: name('Differences'),
  ToUnicode: name('ToUnicode'),
  Type0: name('Type0'),
  Rect: name('Rect'),
};
const hiding = new Set([name('AllOff'), name('AnyOff')]);
const Not = name('Not');

// Subtypes readers draw without an appearance stream (ISO 32000-1 12.5.6).
const drawnWithout = new Set(
  [
    'Text',
    'FreeText',
    'Square',
    'Circle',
    'Line',
    'Polygon',
    'PolyLine',
    'Ink',
    'Highlight',
    'Underline',
    'Squiggly',
    'StrikeOut',
    'Stamp',
    'Caret',
  ].map(name),
);
// Subtypes ISO 32000 defines: the Invisible flag applies to the others only.
const knownSubtypes = new Set(
  [
    ...drawnWithout,
    ...[
      'Link',
      'Popup',
      'FileAttachment',
      'Sound',
      'Movie',
      'Widget',
      'Screen',
      'PrinterMark',
      'TrapNet',
      'Watermark',
      '3D',
      'Redact',
      'RichMedia',
      'Projection',
    ].map(name),
  ].map((n) => n.asString()),
);
const flag = { invisible: 1, hidden: 2, print: 4, noView: 32, toggleNoView: 256 };
// Levels of /Parent followed at most, and XObjects nested at most: far above any real file's.
const maxDepth = 32;
// Operators that fill an area (an appearance's background), and those that draw at all.
const fills = new Set(['f', 'F', 'f*', 'B', 'B*', 'b', 'b*', 'sh', 'EI']);
const painting = new Set([...fills, 'S', 's', 'Tj', 'TJ', "'", '"', 'Do']);

function isView(intent: PDFObject | undefined, pdf: PDFDocument): boolean {
  const value = pdf.context.lookup(intent);
  if (value === undefined) return true;
  if (value instanceof PDFName) return value === K.View;
  if (value instanceof PDFArray)
    return value.asArray().every((item) => pdf.context.lookup(item) === K.View) && value.size() > 0;
  return false;
}

function nonEmptyArray(pdf: PDFDocument, value: PDFObject | undefined): boolean {
  const array = pdf.context.lookup(value);
  return array instanceof PDFArray && array.size() > 0;
}

// Whether a /VE expression holds /Not anywhere (bounded by depth).
function hasNot(pdf: PDFDocument, value: PDFObject | undefined, depth = 0): boolean {
  const item = pdf.context.lookup(value);
  if (!(item instanceof PDFArray) || depth > maxDepth) return false;
  return item.asArray().some((part) => part === Not || hasNot(pdf, part, depth + 1));
}

/** Why an optional content group or membership dictionary could hide content or differ; null when it cannot. */
function ocProblem(pdf: PDFDocument, value: PDFObject | undefined): boolean {
  const dict = pdf.context.lookup(value);
  if (!(dict instanceof PDFDict)) return true;
  const type = dict.get(K.Type);
  if (type === K.OCG) return dict.has(K.Usage) || !isView(dict.get(K.Intent), pdf);
  if (type === K.OCMD) {
    const policy = pdf.context.lookup(dict.get(K.P));
    if (policy instanceof PDFName && hiding.has(policy)) return true;
    if (hasNot(pdf, dict.get(K.VE))) return true;
    const groups = pdf.context.lookup(dict.get(K.OCGs));
    const list = groups instanceof PDFArray ? groups.asArray() : groups ? [groups] : [];
    return list.some((group) => ocProblem(pdf, group));
  }
  return true;
}

// The catalog's optional content properties: every group ON, one configuration, no usage.
function layersDiffer(pdf: PDFDocument, properties: PDFDict): boolean {
  if (nonEmptyArray(pdf, properties.get(K.Configs))) return true;
  const config = dictAt(properties, K.D);
  if (config) {
    const base = config.lookup(K.BaseState);
    if (base !== undefined && base !== K.ON) return true;
    if (nonEmptyArray(pdf, config.get(K.OFF)) || nonEmptyArray(pdf, config.get(K.AS))) return true;
    if (!isView(config.get(K.Intent), pdf)) return true;
  }
  const groups = arrayAt(properties, K.OCGs);
  return groups?.asArray().some((group) => ocProblem(pdf, group)) ?? false;
}

/** A content stream with the resources it is drawn with. */
interface Content {
  stream: PDFStream;
  resources: PDFDict | undefined;
}

// Every stream that draws on the pages (their contents, the form XObjects they use, the
// annotations' appearances), each once: where `/OC /name BDC` can name a layer.
function* contentsOf(pdf: PDFDocument, pages: PDFPage[]): Generator<Content> {
  const seen = new Set<PDFStream>();
  const queue: Array<Content & { depth: number }> = [];
  const push = (stream: PDFObject | undefined, resources: PDFDict | undefined, depth: number) => {
    const found = pdf.context.lookup(stream);
    if (found instanceof PDFStream && !seen.has(found) && depth <= maxDepth) {
      seen.add(found);
      queue.push({ stream: found, resources, depth });
    }
  };
  for (const page of pages) {
    const contents = pdf.context.lookup(page.node.get(name('Contents')));
    const resources = page.node.Resources();
    for (const part of contents instanceof PDFArray ? contents.asArray() : [contents])
      push(part, resources, 0);
    for (const annotation of annotationsOf(pdf, page)) {
      for (const stream of appearanceStreams(pdf, annotation))
        push(stream, dictAt(stream.dict, K.Resources), 1);
    }
  }
  while (queue.length > 0) {
    const item = queue.shift() as Content & { depth: number };
    yield item;
    const xobjects = dictAt(item.resources, K.XObject);
    for (const value of xobjects?.values() ?? []) {
      const xobject = pdf.context.lookup(value);
      if (xobject instanceof PDFStream && xobject.dict.get(K.Subtype) === K.Form)
        push(xobject, dictAt(xobject.dict, K.Resources) ?? item.resources, item.depth + 1);
    }
  }
}

// Whether a content stream marks content with a layer Signet cannot resolve or that could
// hide it: `/OC /name BDC` whose name is not a group or OCMD in its /Properties.
function marksUnresolved(pdf: PDFDocument, { stream, resources }: Content): boolean {
  const data = contentBytes(stream);
  if (data === null) return false;
  // Most streams name no layer: only those holding "/OC" are read operator by operator.
  if (!Buffer.from(data.buffer, data.byteOffset, data.byteLength).includes('/OC')) return false;
  const properties = dictAt(resources, K.Properties);
  for (const { op, operands } of contentOps(data)) {
    if (op !== 'BDC') continue;
    const [tag, value] = operands;
    if (!(tag && typeof tag === 'object' && 'name' in tag && tag.name === 'OC')) continue;
    if (!(value && typeof value === 'object' && 'name' in value)) return true;
    if (ocProblem(pdf, properties?.get(name(value.name)))) return true;
  }
  return false;
}

function annotationsOf(pdf: PDFDocument, page: PDFPage): PDFDict[] {
  const annots = pdf.context.lookup(page.node.get(K.Annots));
  if (!(annots instanceof PDFArray)) return [];
  return annots
    .asArray()
    .map((item) => pdf.context.lookup(item))
    .filter((item): item is PDFDict => item instanceof PDFDict);
}

// The normal appearance shown: /AP /N itself, or its entry for the annotation's /AS state.
function normalAppearance(annotation: PDFDict): PDFStream | undefined {
  const normal = dictAt(annotation, K.AP)?.lookup(K.N);
  if (normal instanceof PDFStream) return normal;
  if (!(normal instanceof PDFDict)) return undefined;
  const state = annotation.lookup(K.AS);
  const chosen = state instanceof PDFName ? normal.lookup(state) : undefined;
  return chosen instanceof PDFStream ? chosen : undefined;
}

function appearanceStreams(pdf: PDFDocument, annotation: PDFDict): PDFStream[] {
  const out: PDFStream[] = [];
  const appearances = dictAt(annotation, K.AP);
  for (const value of appearances?.values() ?? []) {
    const item = pdf.context.lookup(value);
    if (item instanceof PDFStream) out.push(item);
    else if (item instanceof PDFDict)
      for (const state of item.values()) {
        const stream = pdf.context.lookup(state);
        if (stream instanceof PDFStream) out.push(stream);
      }
  }
  return out;
}

/** Whether an appearance draws anything, and whether it fills an area (an opaque background). */
function whatItDraws(stream: PDFStream): { paints: boolean; fills: boolean } {
  const data = contentBytes(stream);
  if (data === null) return { paints: true, fills: true };
  let paints = false;
  for (const { op } of contentOps(data)) {
    if (fills.has(op)) return { paints: true, fills: true };
    if (painting.has(op)) paints = true;
  }
  return { paints, fills: false };
}

// Text that only draws a line to write on (underscores, dots, dashes): a field over it hides nothing.
const fillInLine = /^[\s_.\u2026\u00b7\u2013\u2014-]*$/;

// Whether any of the page's text lies under one of `opaque` (default user space): the widget
// hides it on the page, and readers still extract it.
function textUnder(pdf: PDFDocument, page: PDFPage, opaque: Rect[]): boolean {
  const contents = pdf.context.lookup(page.node.get(name('Contents')));
  const streams = (contents instanceof PDFArray ? contents.asArray() : [contents])
    .map((item) => pdf.context.lookup(item))
    .filter((item): item is PDFStream => item instanceof PDFStream);
  const decoders = new Map<PDFDict, FontDecoder | undefined>();
  for (const box of textBoxesOf(pdf, streams, page.node.Resources())) {
    if (box.width <= 0 || box.height <= 0) continue;
    const under = opaque.some((area) => {
      const width = Math.min(box.x + box.width, area.x + area.width) - Math.max(box.x, area.x);
      const height = Math.min(box.y + box.height, area.y + area.height) - Math.max(box.y, area.y);
      return width > 1 && height > 0.3 * box.height;
    });
    if (!under) continue;
    if (box.font && !decoders.has(box.font)) decoders.set(box.font, fontDecoder(pdf, box.font));
    const text = box.font ? decoders.get(box.font)?.(box.bytes) : undefined;
    if (text === undefined || !fillInLine.test(text)) return true;
  }
  return false;
}

// A field's entry, inherited through /Parent (ISO 32000-1 12.7.3.1).
function inherited(pdf: PDFDocument, widget: PDFDict, key: PDFName): PDFObject | undefined {
  let node: PDFDict | undefined = widget;
  for (let depth = 0; node && depth < maxDepth; depth++) {
    const value = node.get(key);
    if (value !== undefined) return pdf.context.lookup(value);
    const parent: PDFObject | undefined = pdf.context.lookup(node.get(K.Parent));
    node = parent instanceof PDFDict ? parent : undefined;
  }
  return undefined;
}

function textOf(value: PDFObject | undefined): string | undefined {
  return value instanceof PDFString || value instanceof PDFHexString ? value.decodeText() : undefined;
}

// "customer", a field's full name for the sentence (its parts joined by dots); '' when it has none.
function fieldName(pdf: PDFDocument, widget: PDFDict): string {
  const parts: string[] = [];
  let node: PDFDict | undefined = widget;
  for (let depth = 0; node && depth < maxDepth; depth++) {
    const part = textOf(pdf.context.lookup(node.get(K.T)));
    if (part) parts.unshift(part);
    const parent: PDFObject | undefined = pdf.context.lookup(node.get(K.Parent));
    node = parent instanceof PDFDict ? parent : undefined;
  }
  return parts.join('.').slice(0, 60);
}

// --- The text an appearance shows ------------------------------------------------------

// Glyph names of the WinAnsi characters (pdf-lib's table), for /Differences.
let glyphNames: Map<string, number> | undefined;
function glyphCode(glyph: string): number | undefined {
  if (!glyphNames) {
    glyphNames = new Map();
    const mappings = (
      StandardFontEmbedder.for(
        StandardFonts.Helvetica as unknown as Parameters<typeof StandardFontEmbedder.for>[0],
      ).encoding as unknown as {
        unicodeMappings: Record<string, [number, string]>;
      }
    ).unicodeMappings;
    for (const [point, [, glyphName]] of Object.entries(mappings)) glyphNames.set(glyphName, Number(point));
    glyphNames.set('space', 0x20);
  }
  const known = glyphNames.get(glyph);
  if (known !== undefined) return known;
  const uni = /^uni([0-9A-F]{4})$/.exec(glyph) ?? /^u([0-9A-F]{4,6})$/.exec(glyph);
  return uni ? Number.parseInt(uni[1] as string, 16) : undefined;
}

const decoders = {
  win: new TextDecoder('windows-1252'),
  mac: new TextDecoder('macintosh'),
};

type FontDecoder = (bytes: Uint8Array) => string | undefined;

// A /ToUnicode CMap's bfchar and bfrange entries, for codes of `width` bytes.
function toUnicodeDecoder(stream: PDFStream, width: number): FontDecoder | undefined {
  const data = contentBytes(stream);
  if (data === null) return undefined;
  const text = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('latin1');
  const map = new Map<number, string>();
  let codes = 0;
  const hex = (h: string) => Number.parseInt(h, 16);
  const unicode = (h: string) => {
    const units: number[] = [];
    for (let i = 0; i + 4 <= h.length; i += 4) units.push(hex(h.slice(i, i + 4)));
    return String.fromCharCode(...units);
  };
  for (const block of text.matchAll(/beginbfchar([\s\S]*?)endbfchar/g))
    for (const [, code, to] of (block[1] as string).matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]*)>/g))
      map.set(hex(code as string), unicode(to as string));
  for (const block of text.matchAll(/beginbfrange([\s\S]*?)endbfrange/g))
    for (const [, from, to, dest] of (block[1] as string).matchAll(
      /<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>\s*(<[0-9a-fA-F]*>|\[[^\]]*\])/g,
    )) {
      const [start, end] = [hex(from as string), hex(to as string)];
      if (end - start > 65_536) continue;
      // The same bound as text-truth.ts's reading of these maps: past it, nothing is decoded.
      codes += end - start + 1;
      if (codes > maxCMapCodes) return undefined;
      const targets = (dest as string).startsWith('[')
        ? [...(dest as string).matchAll(/<([0-9a-fA-F]*)>/g)]
        : [];
      for (let code = start; code <= end; code++) {
        if (targets.length > 0) {
          const target = targets[code - start];
          if (target) map.set(code, unicode(target[1] as string));
        } else {
          const base = (dest as string).slice(1, -1);
          const first = unicode(base);
          map.set(
            code,
            first.slice(0, -1) +
              String.fromCharCode((first.charCodeAt(first.length - 1) || 0) + code - start),
          );
        }
      }
    }
  return (bytes) => {
    let out = '';
    for (let i = 0; i + width <= bytes.length; i += width) {
      let code = 0;
      for (let k = 0; k < width; k++) code = code * 256 + (bytes[i + k] as number);
      const mapped = map.get(code);
      if (mapped === undefined) return undefined;
      out += mapped;
    }
    return out;
  };
}

// A simple font's codes: its base encoding and /Differences.
function simpleDecoder(pdf: PDFDocument, font: PDFDict): FontDecoder | undefined {
  const encoding = pdf.context.lookup(font.get(K.Encoding));
  const baseName =
    encoding instanceof PDFName
      ? encoding
      : encoding instanceof PDFDict
        ? encoding.lookup(K.BaseEncoding)
        : undefined;
  const base = baseName instanceof PDFName ? baseName.asString() : '/StandardEncoding';
  const differences = new Map<number, number | undefined>();
  const list = encoding instanceof PDFDict ? arrayAt(encoding, K.Differences) : undefined;
  let code = 0;
  for (const item of list?.asArray() ?? []) {
    if (item instanceof PDFNumber) code = item.asNumber();
    else if (item instanceof PDFName) differences.set(code++, glyphCode(item.decodeText()));
  }
  return (bytes) => {
    let out = '';
    for (const byte of bytes) {
      if (differences.has(byte)) {
        const point = differences.get(byte);
        if (point === undefined) return undefined;
        out += String.fromCodePoint(point);
      } else if (base === '/WinAnsiEncoding') out += decoders.win.decode(Uint8Array.of(byte));
      else if (base === '/MacRomanEncoding') out += decoders.mac.decode(Uint8Array.of(byte));
      else if (base === '/PDFDocEncoding') out += pdfDocEncodingDecode(Uint8Array.of(byte));
      else if (byte >= 0x20 && byte < 0x7f)
        // StandardEncoding: ASCII but for its two quotes.
        out += byte === 0x27 ? '’' : byte === 0x60 ? '‘' : String.fromCharCode(byte);
      else return undefined;
    }
    return out;
  };
}

function fontDecoder(pdf: PDFDocument, font: PDFDict): FontDecoder | undefined {
  const toUnicode = pdf.context.lookup(font.get(K.ToUnicode));
  const composite = font.get(K.Subtype) === K.Type0;
  if (toUnicode instanceof PDFStream) return toUnicodeDecoder(toUnicode, composite ? 2 : 1);
  return composite ? undefined : simpleDecoder(pdf, font);
}

// The text `stream` shows, in order (white space aside), or undefined when a string is in a
// font Signet cannot decode.
function shownText(
  pdf: PDFDocument,
  stream: PDFStream,
  fallbackFonts: PDFDict | undefined,
): string | undefined {
  const data = contentBytes(stream);
  if (data === null) return undefined;
  const fonts = dictAt(dictAt(stream.dict, K.Resources), K.Font) ?? fallbackFonts;
  let decode: FontDecoder | undefined;
  let text = '';
  const show = (value: Operand | undefined): boolean => {
    if (value instanceof Uint8Array) {
      const part = decode?.(value);
      if (part === undefined) return false;
      text += part;
    } else if (Array.isArray(value)) {
      for (const item of value) if (item instanceof Uint8Array && !show(item)) return false;
    }
    return true;
  };
  for (const { op, operands } of contentOps(data)) {
    if (op === 'Tf') {
      const fontName = operands[0];
      const font =
        fontName && typeof fontName === 'object' && 'name' in fontName
          ? fonts?.lookup(name(fontName.name))
          : undefined;
      decode = font instanceof PDFDict ? fontDecoder(pdf, font) : undefined;
    } else if (op === 'Tj' || op === 'TJ' || op === "'") {
      if (!show(operands[0])) return undefined;
    } else if (op === '"') {
      if (!show(operands[2])) return undefined;
    }
  }
  return text;
}

const folded = (text: string) => text.replace(/\s+/g, '');

// The problem of one form field's widget, or null.
function fieldProblem(
  pdf: PDFDocument,
  widget: PDFDict,
  appearance: PDFStream | undefined,
): KeyedSentence | null {
  const type = inherited(pdf, widget, K.FT);
  if (type !== K.Tx && type !== K.Ch && type !== K.Btn) return null; // signatures, or no field
  const flags = inherited(pdf, widget, K.Ff);
  const ff = flags instanceof PDFNumber ? flags.asNumber() : 0;
  const value = inherited(pdf, widget, K.V);
  if (type === K.Btn) {
    if (ff & (1 << 16)) return appearance ? null : noAppearance; // a push button has no value
    const states = dictAt(widget, K.AP)?.lookup(K.N);
    const expected =
      value instanceof PDFName && states instanceof PDFDict && states.has(value) ? value : K.Off;
    const shown = widget.lookup(K.AS);
    if ((shown instanceof PDFName ? shown : K.Off) !== expected) return valueDiffers(fieldName(pdf, widget));
    // An Off state without its own appearance is drawn by readers that make one, not by pdf.js.
    return appearance ? null : noAppearance;
  }
  if (!appearance) return noAppearance;
  const values =
    value instanceof PDFArray
      ? value.asArray().map((item) => textOf(pdf.context.lookup(item)))
      : [textOf(value)];
  if (value !== undefined && values.some((item) => item === undefined))
    return unreadable(fieldName(pdf, widget));
  const fallback = dictAt(dictAt(dictAt(pdf.catalog, K.AcroForm), K.DR), K.Font);
  const shown = shownText(pdf, appearance, fallback);
  if (shown === undefined) return unreadable(fieldName(pdf, widget));
  const isList = type === K.Ch && !(ff & (1 << 17));
  const want = values.map((item) => folded(item ?? ''));
  // A list box shows its options and marks the chosen: each chosen one must be among them.
  const agrees = isList
    ? want.every((item) => folded(shown).includes(item))
    : folded(shown) === want.join('');
  return agrees ? null : valueDiffers(fieldName(pdf, widget));
}

function flagsOf(annotation: PDFDict): number {
  const value = annotation.lookup(K.F);
  return value instanceof PDFNumber ? value.asNumber() : 0;
}

/** The one-look rules over a loaded file (inspect.ts), with the rectangles later fields must keep clear of. */
export function oneLookOf(pdf: PDFDocument): OneLook {
  const refusals = new Set<KeyedSentence>();
  const pages = pdf.getPages();
  const properties = dictAt(pdf.catalog, K.OCProperties);
  if (properties && layersDiffer(pdf, properties)) refusals.add(layers);
  // Groups and membership dictionaries wherever they are used (XObjects, annotations),
  // listed in /OCGs or not.
  if (!refusals.has(layers))
    for (const [, object] of pdf.context.enumerateIndirectObjects()) {
      const dict = object instanceof PDFStream ? object.dict : object;
      if (!(dict instanceof PDFDict)) continue;
      const type = dict.get(K.Type);
      if ((type === K.OCG || type === K.OCMD) && ocProblem(pdf, dict)) refusals.add(layers);
      else if (dict.has(K.OC) && type !== K.OCG && ocProblem(pdf, dict.get(K.OC))) refusals.add(layers);
      if (refusals.has(layers)) break;
    }
  // Marked content naming a layer: only a file with layers has any that readers heed.
  if (properties && !refusals.has(layers))
    for (const content of contentsOf(pdf, pages))
      if (marksUnresolved(pdf, content)) {
        refusals.add(layers);
        break;
      }
  const covered: Rect[][] = [];
  for (const page of pages) {
    const view = pageView(page);
    const rects: Rect[] = [];
    // The widgets that fill an area (default user space): text under them is hidden.
    const opaque: Rect[] = [];
    for (const annotation of annotationsOf(pdf, page)) {
      const subtype = annotation.lookup(K.Subtype);
      if (subtype === K.Link || subtype === K.Popup) continue;
      const appearance = normalAppearance(annotation);
      if (subtype === K.Widget) {
        const problem = fieldProblem(pdf, annotation, appearance);
        if (problem) refusals.add(problem);
      }
      const drawn = appearance ? whatItDraws(appearance) : { paints: false, fills: false };
      const paints = appearance ? drawn.paints : subtype instanceof PDFName && drawnWithout.has(subtype);
      if (!paints) continue;
      const f = flagsOf(annotation);
      const unknown = !(subtype instanceof PDFName && knownSubtypes.has(subtype.asString()));
      const onScreen = !(f & flag.hidden) && !(f & flag.noView) && !(f & flag.invisible && unknown);
      const inPrint = Boolean(f & flag.print) && !(f & flag.hidden);
      if (onScreen !== inPrint || f & flag.toggleNoView) {
        refusals.add(screenAndPrint);
        continue;
      }
      if (!onScreen) continue;
      if (subtype !== K.Widget) {
        refusals.add(markup);
        continue;
      }
      const rect = arrayAt(annotation, K.Rect);
      const numbers = rect?.asArray().map((item) => pdf.context.lookup(item));
      if (numbers?.length === 4 && numbers.every((item) => item instanceof PDFNumber)) {
        const [x1, y1, x2, y2] = numbers.map((item) => (item as PDFNumber).asNumber()) as number[];
        const area = {
          x: Math.min(x1 as number, x2 as number),
          y: Math.min(y1 as number, y2 as number),
          width: Math.abs((x2 as number) - (x1 as number)),
          height: Math.abs((y2 as number) - (y1 as number)),
        };
        if (drawn.fills) opaque.push(area);
        const shown = toViewSpace(view, area);
        if (shown) rects.push(shown);
      }
    }
    if (opaque.length > 0 && !refusals.has(hiddenText) && textUnder(pdf, page, opaque))
      refusals.add(hiddenText);
    covered.push(rects);
  }
  // One sentence per field: two widgets of a field that both disagree make one refusal.
  const unique = new Map([...refusals].map((refusal) => [JSON.stringify(refusal), refusal]));
  return { refusals: [...unique.values()], covered };
}
