// Fields on the original pages: **the** coordinates a field is placed in, and the drawing
// primitives that put a value in a field's rectangle when the document is sealed (text in
// a box, an image, a check mark). Which field type is drawn with which primitive is not
// decided here: fields/field-types.ts says it, and sealing hands this module the stamps.
//
// View space, the one definition of where a field is, from the upload's page editor to the
// sealed file: a field rectangle { page, x, y, width, height } is in PDF points (1/72 inch),
// on the page *as displayed*: turned by its /Rotate (0, 90, 180 or 270 degrees clockwise,
// taken mod 360, so -90 is 270; inherited from the page tree; anything else counts as 0),
// within its crop box (/CropBox, inherited, intersected with the /MediaBox; the media box
// when there is none or the two do not meet), with the origin at the displayed page's
// bottom-left corner and y up. `page` is 1-based. A displayed page is therefore width ×
// height = the crop box's size, the two swapped for 90 and 270, and a field placed on a
// rotated or cropped page lands where the sender saw it. This is how pdf.js, which draws
// the pages the sender places fields on (render.ts), reads a page, odd cases included
// (poppler also draws /Rotate 45 unturned, but shows a crop box outside the media box as an
// empty page).
//
// Drawing happens on top of the original content, on the pages as they are: nothing of the
// original moves (pdf-lib wraps its content in q/Q first, see incremental.ts), each value
// stays inside its rectangle (clipped to it), and text is upright as the page is displayed,
// set in faces that encode it (fonts.ts).
import { createHash } from 'node:crypto';
import {
  clip,
  degrees,
  endPath,
  LineCapStyle,
  PDFArray,
  type PDFDocument,
  type PDFImage,
  PDFName,
  PDFNumber,
  type PDFPage,
  type PDFPageLeaf,
  popGraphicsState,
  pushGraphicsState,
  type Rotation,
  rectangle,
  rgb,
} from '@cantoo/pdf-lib';
import { type FontSet, paragraphDirection, type Shaped } from './fonts.ts';
import { pageToDrawOn } from './incremental.ts';
import { wrap } from './layout.ts';

/** A rectangle: in view space for a field, in the page's user space for `toUserSpace`. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export type QuarterTurn = 0 | 90 | 180 | 270;

/** A page as displayed: its size in view space, its rotation, and the box it shows. */
export interface PageView {
  width: number;
  height: number;
  /** /Rotate, clockwise, normalised. */
  rotation: QuarterTurn;
  /** The crop box in the page's default user space (what pdf-lib draws in). */
  box: Rect;
}

/**
 * The drawing primitives a field's value is drawn with, as plain data (stamps cross into
 * the seal's thread): text set in the box in a style, an image (PNG) fitted to the box, a
 * check mark. Which type draws which is the domain's (fields/field-types.ts), not pdf/'s.
 */
export type StampContent =
  | { kind: 'text'; text: string; style: TextStyle }
  | { kind: 'image'; png: Uint8Array }
  | { kind: 'check' };

/** What to draw in one field's rectangle (view space). */
export interface FieldStamp extends Rect {
  page: number;
  content: StampContent;
}

// US Letter, which pdf.js assumes for a page with no usable /MediaBox.
const letter: Rect = { x: 0, y: 0, width: 612, height: 792 };

// A box array [x1 y1 x2 y2], whose corners may come in any order, or undefined when the
// entry is missing or not four numbers.
function boxOf(node: PDFPageLeaf, key: PDFName): Rect | undefined {
  const array = node.context.lookup(node.getInheritableAttribute(key));
  if (!(array instanceof PDFArray) || array.size() !== 4) return undefined;
  const numbers = array.asArray().map((item) => node.context.lookup(item));
  if (!numbers.every((n) => n instanceof PDFNumber)) return undefined;
  const [x1, y1, x2, y2] = numbers.map((n) => (n as PDFNumber).asNumber()) as [
    number,
    number,
    number,
    number,
  ];
  return { x: Math.min(x1, x2), y: Math.min(y1, y2), width: Math.abs(x2 - x1), height: Math.abs(y2 - y1) };
}

function intersection(a: Rect, b: Rect): Rect | undefined {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const width = Math.min(a.x + a.width, b.x + b.width) - x;
  const height = Math.min(a.y + a.height, b.y + b.height) - y;
  return width > 0 && height > 0 ? { x, y, width, height } : undefined;
}

function rotationOf(node: PDFPageLeaf): QuarterTurn {
  const rotate = node.context.lookup(node.getInheritableAttribute(PDFName.Rotate));
  const angle = rotate instanceof PDFNumber ? rotate.asNumber() : 0;
  const turn = ((angle % 360) + 360) % 360;
  return turn === 90 || turn === 180 || turn === 270 ? turn : 0;
}

/** How `page` is displayed (reads its boxes and rotation only, not its content). */
export function pageView(page: PDFPage): PageView {
  const media = boxOf(page.node, PDFName.MediaBox) ?? letter;
  const crop = boxOf(page.node, PDFName.CropBox);
  const box = (crop && intersection(crop, media)) ?? media;
  const rotation = rotationOf(page.node);
  const turned = rotation === 90 || rotation === 270;
  return {
    width: turned ? box.height : box.width,
    height: turned ? box.width : box.height,
    rotation,
    box,
  };
}

/** Every page of `doc` as displayed, in order. */
export function pageViews(doc: PDFDocument): PageView[] {
  return doc.getPages().map(pageView);
}

/** The point (u, v) of view space in the page's default user space. */
export function userPoint(view: PageView, u: number, v: number): { x: number; y: number } {
  const { box } = view;
  switch (view.rotation) {
    case 0:
      return { x: box.x + u, y: box.y + v };
    case 90:
      return { x: box.x + box.width - v, y: box.y + u };
    case 180:
      return { x: box.x + box.width - u, y: box.y + box.height - v };
    case 270:
      return { x: box.x + v, y: box.y + box.height - u };
  }
}

/**
 * `rect` (view space) in the page's default user space, and the counterclockwise rotation
 * that draws text and images upright as the page is displayed (the page's own /Rotate: the
 * viewer turns the page clockwise by as much as the drawing is turned back).
 */
export function toUserSpace(view: PageView, rect: Rect): Rect & { rotation: QuarterTurn } {
  const a = userPoint(view, rect.x, rect.y);
  const b = userPoint(view, rect.x + rect.width, rect.y + rect.height);
  return {
    x: Math.min(a.x, b.x),
    y: Math.min(a.y, b.y),
    width: Math.abs(b.x - a.x),
    height: Math.abs(b.y - a.y),
    rotation: view.rotation,
  };
}

/** The point (x, y) of the page's default user space in view space (userPoint undone). */
function viewPoint(view: PageView, x: number, y: number): { u: number; v: number } {
  const { box } = view;
  switch (view.rotation) {
    case 0:
      return { u: x - box.x, v: y - box.y };
    case 90:
      return { u: y - box.y, v: box.x + box.width - x };
    case 180:
      return { u: box.x + box.width - x, v: box.y + box.height - y };
    case 270:
      return { u: box.y + box.height - y, v: x - box.x };
  }
}

/**
 * `rect` (the page's default user space, an annotation's /Rect) in view space, cut to the
 * displayed page; undefined when none of it is shown.
 */
export function toViewSpace(view: PageView, rect: Rect): Rect | undefined {
  const a = viewPoint(view, rect.x, rect.y);
  const b = viewPoint(view, rect.x + rect.width, rect.y + rect.height);
  const shown = intersection(
    { x: Math.min(a.u, b.u), y: Math.min(a.v, b.v), width: Math.abs(b.u - a.u), height: Math.abs(b.v - a.v) },
    { x: 0, y: 0, width: view.width, height: view.height },
  );
  return (
    shown && {
      x: round2(shown.x),
      y: round2(shown.y),
      width: round2(shown.width),
      height: round2(shown.height),
    }
  );
}

const round2 = (n: number) => Math.round(n * 100) / 100;

// A field's own frame: (u, v) from its displayed bottom-left corner, drawn upright.
interface Frame {
  width: number;
  height: number;
  rotate: Rotation;
  at(u: number, v: number): { x: number; y: number };
}

function frameOf(view: PageView, rect: Rect): Frame {
  return {
    width: rect.width,
    height: rect.height,
    rotate: degrees(view.rotation),
    at: (u, v) => userPoint(view, rect.x + u, rect.y + v),
  };
}

const ink = rgb(0.1, 0.12, 0.16);
// A typed signature is set in the ink of the certificate's signature blocks (layout.ts).
const pen = rgb(0.05, 0.15, 0.45);

/**
 * Draws each stamp in its rectangle on its page of `doc` (1-based, an existing page),
 * upright as the page is displayed, clipped to the rectangle.
 */
export async function drawFieldStamps(doc: PDFDocument, fonts: FontSet, stamps: FieldStamp[]): Promise<void> {
  const images = new Map<string, PDFImage>();
  for (const stamp of stamps) {
    if (!Number.isInteger(stamp.page) || stamp.page < 1 || stamp.page > doc.getPageCount()) {
      throw new Error(`A field is on page ${stamp.page}, which the document does not have.`);
    }
    const page = pageToDrawOn(doc, stamp.page - 1);
    const view = pageView(page);
    const clipTo = toUserSpace(view, stamp);
    page.pushOperators(
      pushGraphicsState(),
      rectangle(clipTo.x, clipTo.y, clipTo.width, clipTo.height),
      clip(),
      endPath(),
    );
    const frame = frameOf(view, stamp);
    const { content } = stamp;
    switch (content.kind) {
      case 'text':
        await drawText(page, fonts, frame, content.text, content.style);
        break;
      case 'image':
        drawImage(page, frame, await imageOf(doc, images, content.png));
        break;
      case 'check':
        drawCheck(page, frame);
        break;
      default:
        throw new Error(`no drawing for ${JSON.stringify(content satisfies never)}`);
    }
    page.pushOperators(popGraphicsState());
  }
}

// A signer's drawn signature goes in each of their signature fields: embedded once.
async function imageOf(doc: PDFDocument, images: Map<string, PDFImage>, png: Uint8Array): Promise<PDFImage> {
  const key = createHash('sha256').update(png).digest('hex');
  let image = images.get(key);
  if (!image) {
    image = await doc.embedPng(png);
    images.set(key, image);
  }
  return image;
}

/** Scaled to fit the rectangle, its proportions kept, centred. */
function drawImage(page: PDFPage, frame: Frame, image: PDFImage): void {
  const scale = Math.min(frame.width / image.width, frame.height / image.height);
  const width = image.width * scale;
  const height = image.height * scale;
  page.drawImage(image, {
    ...frame.at((frame.width - width) / 2, (frame.height - height) / 2),
    width,
    height,
    rotate: frame.rotate,
  });
}

/** A tick of two strokes in a square centred in the rectangle: lines, which every reader draws. */
function drawCheck(page: PDFPage, frame: Frame): void {
  const side = Math.min(frame.width, frame.height) * 0.8;
  const left = (frame.width - side) / 2;
  const bottom = (frame.height - side) / 2;
  const point = (u: number, v: number) => frame.at(left + u * side, bottom + v * side);
  const stroke = { thickness: Math.max(0.5, side * 0.12), color: ink, lineCap: LineCapStyle.Round };
  page.drawLine({ start: point(0.15, 0.5), end: point(0.4, 0.22), ...stroke });
  page.drawLine({ start: point(0.4, 0.22), end: point(0.85, 0.8), ...stroke });
}

export type TextStyle = 'text' | 'handwriting';

// The largest size a style is set in, and its share of the rectangle's height: a name in a
// tall box stays a name, not a headline; handwriting (Caveat's letters are small for their
// size) may be larger.
const largest: Record<TextStyle, number> = { text: 14, handwriting: 32 };
const shareOfHeight: Record<TextStyle, number> = { text: 0.7, handwriting: 0.8 };
// Below this a single line is shrunk no further: the text wraps instead.
const smallestLine = 6;
// Wrapped text shrinks in steps of this ratio until it fits, down to `smallest`; a text that
// does not fit even then (a paragraph in a checkbox-sized field) is drawn at that size, clipped.
const step = 0.92;
const smallest = 2;

// A line's extent above and below the baseline, per point of size: the highest ascent and
// the deepest descent of its faces (pdf-lib's heights are from the faces' hhea metrics, the
// /Ascent and /Descent readers such as poppler place text by). All of Signet's faces have
// 1000 units per em, which pdf-lib's ascent-only height assumes.
function extent(shaped: Shaped): { ascent: number; descent: number } {
  let ascent = 0;
  let descent = 0;
  for (const { font } of shaped.runs) {
    const above = font.heightAtSize(1, { descender: false });
    ascent = Math.max(ascent, above);
    descent = Math.max(descent, font.heightAtSize(1) - above);
  }
  return { ascent, descent };
}

interface SetText {
  size: number;
  lines: string[];
}

/**
 * The size and lines of `text` in a box: one line at the style's size for the box's height,
 * shrunk to fit its width; when that would be under 6 pt (or the text has line breaks), the
 * text wraps at the largest size whose lines fit the box.
 */
function setText(
  fonts: FontSet,
  style: TextStyle,
  text: string,
  box: { width: number; height: number },
): SetText {
  const lineHeight = (size: number, line: string) => {
    const { ascent, descent } = extent(fonts.shape(style, line));
    return (ascent + descent) * size;
  };
  const first = Math.min(largest[style], shareOfHeight[style] * box.height, box.height / lineHeight(1, text));
  if (!/[\r\n]/.test(text)) {
    const width = fonts.shape(style, text).width(first);
    const size = width > box.width ? (first * box.width) / width : first;
    if (size >= smallestLine) return { size, lines: [text] };
  }
  const measure = (size: number) => (part: string) => fonts.shape(style, part).width(size);
  let size = first;
  let lines = wrap(text, measure(size), box.width);
  const fits = () =>
    lines.reduce((sum, line) => sum + lineHeight(size, line), 0) <= box.height &&
    lines.every((line) => measure(size)(line) <= box.width);
  while (!fits() && size * step >= smallest) {
    size *= step;
    lines = wrap(text, measure(size), box.width);
  }
  return { size, lines };
}

/** One line, or wrapped lines, left-aligned and centred vertically in the rectangle. */
async function drawText(page: PDFPage, fonts: FontSet, frame: Frame, text: string, style: TextStyle) {
  await fonts.prepare(style, text);
  // A little room at the sides, as a form field's value has: no letter touches the edge.
  const inset = Math.min(2, frame.width * 0.05);
  const { size, lines } = setText(fonts, style, text, {
    width: frame.width - 2 * inset,
    height: frame.height,
  });
  // One direction for all the lines: the value's, by its first strong letter.
  const direction = paragraphDirection(text);
  const shaped = lines.map((line) => fonts.shape(style, line, direction));
  const extents = shaped.map(extent);
  const total = extents.reduce((sum, e) => sum + (e.ascent + e.descent) * size, 0);
  let top = (frame.height + total) / 2;
  for (const [i, line] of shaped.entries()) {
    const { ascent, descent } = extents[i] as { ascent: number; descent: number };
    const baseline = top - ascent * size;
    line.draw(page, {
      ...frame.at(inset, baseline),
      size,
      color: style === 'handwriting' ? pen : ink,
      rotate: frame.rotate,
    });
    top = baseline - descent * size;
  }
}
