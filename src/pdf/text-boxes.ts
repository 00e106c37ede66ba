// Where a page's text is drawn: each text-showing operator's box (ISO 32000-1 9.4) in the
// page's default user space, for the one-look rule on text under an opaque widget
// (one-look.ts). A small interpreter of the graphics and text state a position depends on:
// q/Q and cm, BT/ET, Tm, Td, TD, T*, TL, Tf, Tc, Tw, Tz, Ts, the showing operators (Tj, TJ,
// ', "), and form XObjects drawn with Do (their /Matrix, their own resources), nested a
// bounded number of times. A string's width comes from its font's /Widths (simple fonts) or
// /W and /DW (composite fonts); a font without them (the standard 14 unembedded) counts
// 0.6 em per code, wide enough that text running under a widget is not missed. Clipping and
// the rendering mode are not followed: a box is where the text would be, seen or not.
import {
  PDFArray,
  PDFDict,
  type PDFDocument,
  PDFName,
  PDFNumber,
  type PDFObject,
  PDFStream,
} from '@cantoo/pdf-lib';
import { arrayAt, contentBytes, contentOps, dictAt, type Operand } from './content-ops.ts';
import type { Rect } from './fields.ts';

/** One string shown: its box in default user space, and its bytes and font (to read it). */
export interface TextBox extends Rect {
  bytes: Uint8Array;
  font: PDFDict | undefined;
}

type Matrix = [number, number, number, number, number, number];
const identity: Matrix = [1, 0, 0, 1, 0, 0];

// m × n, as ISO 32000 writes matrices (row vectors).
function multiply(m: Matrix, n: Matrix): Matrix {
  return [
    m[0] * n[0] + m[1] * n[2],
    m[0] * n[1] + m[1] * n[3],
    m[2] * n[0] + m[3] * n[2],
    m[2] * n[1] + m[3] * n[3],
    m[4] * n[0] + m[5] * n[2] + n[4],
    m[4] * n[1] + m[5] * n[3] + n[5],
  ];
}

const numbersOf = (operands: Operand[], count: number): number[] | undefined => {
  const numbers = operands.slice(-count);
  return numbers.length === count && numbers.every((n) => typeof n === 'number')
    ? (numbers as number[])
    : undefined;
};

// Form XObjects nested at most, and boxes collected from one page at most.
const maxDepth = 12;
const maxBoxes = 200_000;

/** A font's width of one code, in thousandths of an em, and how many bytes a code takes. */
interface Metrics {
  width(code: number): number;
  bytes: number;
}

function metricsOf(pdf: PDFDocument, font: PDFDict | undefined): Metrics {
  const fallback = 600;
  if (!font) return { width: () => fallback, bytes: 1 };
  const number = (value: PDFObject | undefined) => {
    const item = pdf.context.lookup(value);
    return item instanceof PDFNumber ? item.asNumber() : undefined;
  };
  if (font.get(PDFName.of('Subtype')) === PDFName.of('Type0')) {
    const descendants = arrayAt(font, PDFName.of('DescendantFonts'));
    const cid = pdf.context.lookup(descendants?.get(0));
    const widths = new Map<number, number>();
    let standard = 1000;
    if (cid instanceof PDFDict) {
      standard = number(cid.get(PDFName.of('DW'))) ?? 1000;
      const w = arrayAt(cid, PDFName.of('W'))?.asArray() ?? [];
      for (let i = 0; i < w.length && widths.size < 65_536; ) {
        const first = number(w[i]);
        const next = pdf.context.lookup(w[i + 1]);
        if (first === undefined) break;
        if (next instanceof PDFArray) {
          for (const [k, item] of next.asArray().entries()) widths.set(first + k, number(item) ?? standard);
          i += 2;
        } else {
          const last = number(next) ?? first;
          const value = number(w[i + 2]) ?? standard;
          for (let code = first; code <= last && widths.size < 65_536; code++) widths.set(code, value);
          i += 3;
        }
      }
    }
    return { width: (code) => widths.get(code) ?? standard, bytes: 2 };
  }
  const first = number(font.get(PDFName.of('FirstChar'))) ?? 0;
  const widths = arrayAt(font, PDFName.of('Widths'));
  if (!widths) return { width: () => fallback, bytes: 1 };
  const missing = number(dictAt(font, PDFName.of('FontDescriptor'))?.get(PDFName.of('MissingWidth'))) ?? 0;
  const list = widths.asArray().map((item) => number(item) ?? missing);
  return { width: (code) => list[code - first] ?? missing, bytes: 1 };
}

interface State {
  ctm: Matrix;
  font: PDFDict | undefined;
  metrics: Metrics;
  size: number;
  charSpacing: number;
  wordSpacing: number;
  scale: number;
  leading: number;
  rise: number;
}

/** The boxes of the text drawn by `content` (a page's streams), with `resources`. */
export function textBoxesOf(
  pdf: PDFDocument,
  contents: PDFStream[],
  resources: PDFDict | undefined,
): TextBox[] {
  const boxes: TextBox[] = [];
  const fontMetrics = new Map<PDFDict, Metrics>();
  const draw = (streams: PDFStream[], resources: PDFDict | undefined, start: Matrix, depth: number) => {
    const fonts = dictAt(resources, PDFName.of('Font'));
    const xobjects = dictAt(resources, PDFName.of('XObject'));
    let state: State = {
      ctm: start,
      font: undefined,
      metrics: metricsOf(pdf, undefined),
      size: 0,
      charSpacing: 0,
      wordSpacing: 0,
      scale: 1,
      leading: 0,
      rise: 0,
    };
    const stack: State[] = [];
    let tm: Matrix = identity;
    let tlm: Matrix = identity;
    const moveTo = (tx: number, ty: number) => {
      tlm = multiply([1, 0, 0, 1, tx, ty], tlm);
      tm = tlm;
    };
    const show = (item: Operand | undefined) => {
      const parts = Array.isArray(item) ? item : [item];
      for (const part of parts) {
        if (typeof part === 'number') {
          tm = multiply([1, 0, 0, 1, (-part / 1000) * state.size * state.scale, 0], tm);
        } else if (part instanceof Uint8Array && boxes.length < maxBoxes) {
          const { metrics } = state;
          let advance = 0;
          for (let i = 0; i + metrics.bytes <= part.length; i += metrics.bytes) {
            const code =
              metrics.bytes === 2 ? (part[i] as number) * 256 + (part[i + 1] as number) : (part[i] as number);
            advance +=
              ((metrics.width(code) / 1000) * state.size +
                state.charSpacing +
                (metrics.bytes === 1 && code === 32 ? state.wordSpacing : 0)) *
              state.scale;
          }
          const space = multiply(tm, state.ctm);
          const low = state.rise - 0.25 * state.size;
          const high = state.rise + state.size;
          const corners = [
            [0, low],
            [advance, low],
            [0, high],
            [advance, high],
          ].map(([x, y]) => [
            (x as number) * space[0] + (y as number) * space[2] + space[4],
            (x as number) * space[1] + (y as number) * space[3] + space[5],
          ]);
          const xs = corners.map((c) => c[0] as number);
          const ys = corners.map((c) => c[1] as number);
          const x = Math.min(...xs);
          const y = Math.min(...ys);
          boxes.push({
            x,
            y,
            width: Math.max(...xs) - x,
            height: Math.max(...ys) - y,
            bytes: part,
            font: state.font,
          });
          tm = multiply([1, 0, 0, 1, advance, 0], tm);
        }
      }
    };
    for (const stream of streams) {
      const data = contentBytes(stream);
      if (data === null) continue;
      for (const { op, operands } of contentOps(data)) {
        switch (op) {
          case 'q':
            stack.push({ ...state });
            break;
          case 'Q':
            state = stack.pop() ?? state;
            break;
          case 'cm': {
            const m = numbersOf(operands, 6);
            if (m) state.ctm = multiply(m as Matrix, state.ctm);
            break;
          }
          case 'BT':
            tm = identity;
            tlm = identity;
            break;
          case 'Tf': {
            const [name, size] = operands.slice(-2);
            const font =
              name && typeof name === 'object' && 'name' in name
                ? fonts?.lookup(PDFName.of(name.name))
                : undefined;
            state.font = font instanceof PDFDict ? font : undefined;
            if (state.font && !fontMetrics.has(state.font))
              fontMetrics.set(state.font, metricsOf(pdf, state.font));
            state.metrics = state.font ? (fontMetrics.get(state.font) as Metrics) : metricsOf(pdf, undefined);
            state.size = typeof size === 'number' ? size : state.size;
            break;
          }
          case 'Tc':
            state.charSpacing = numbersOf(operands, 1)?.[0] ?? state.charSpacing;
            break;
          case 'Tw':
            state.wordSpacing = numbersOf(operands, 1)?.[0] ?? state.wordSpacing;
            break;
          case 'Tz':
            state.scale = (numbersOf(operands, 1)?.[0] ?? state.scale * 100) / 100;
            break;
          case 'TL':
            state.leading = numbersOf(operands, 1)?.[0] ?? state.leading;
            break;
          case 'Ts':
            state.rise = numbersOf(operands, 1)?.[0] ?? state.rise;
            break;
          case 'Td': {
            const [tx, ty] = numbersOf(operands, 2) ?? [0, 0];
            moveTo(tx as number, ty as number);
            break;
          }
          case 'TD': {
            const [tx, ty] = numbersOf(operands, 2) ?? [0, 0];
            state.leading = -(ty as number);
            moveTo(tx as number, ty as number);
            break;
          }
          case 'Tm': {
            const m = numbersOf(operands, 6);
            if (m) {
              tlm = m as Matrix;
              tm = tlm;
            }
            break;
          }
          case 'T*':
            moveTo(0, -state.leading);
            break;
          case 'Tj':
          case 'TJ':
            show(operands.at(-1));
            break;
          case "'":
            moveTo(0, -state.leading);
            show(operands.at(-1));
            break;
          case '"': {
            const [w, c] = numbersOf(operands.slice(0, 2), 2) ?? [state.wordSpacing, state.charSpacing];
            state.wordSpacing = w as number;
            state.charSpacing = c as number;
            moveTo(0, -state.leading);
            show(operands.at(-1));
            break;
          }
          case 'Do': {
            const name = operands.at(-1);
            const xobject =
              name && typeof name === 'object' && 'name' in name
                ? xobjects?.lookup(PDFName.of(name.name))
                : undefined;
            if (
              depth < maxDepth &&
              xobject instanceof PDFStream &&
              xobject.dict.get(PDFName.of('Subtype')) === PDFName.of('Form')
            ) {
              const matrix = arrayAt(xobject.dict, PDFName.of('Matrix'));
              const values = matrix?.asArray().map((item) => pdf.context.lookup(item));
              const m =
                values?.length === 6 && values.every((v) => v instanceof PDFNumber)
                  ? (values.map((v) => (v as PDFNumber).asNumber()) as Matrix)
                  : identity;
              draw(
                [xobject],
                dictAt(xobject.dict, PDFName.of('Resources')) ?? resources,
                multiply(m, state.ctm),
                depth + 1,
              );
            }
            break;
          }
        }
      }
    }
  };
  draw(contents, resources, identity, 0);
  return boxes;
}
