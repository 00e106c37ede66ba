// A small flowing layout for the pages Signet writes (a text document, the certificate of
// completion): headings, wrapped paragraphs, label/value rows and tables, each line set in
// a face that encodes it (fonts.ts), new A4 pages as the text runs over, and a footer on
// every page once the pages are known. A right-to-left flow (a certificate in Arabic or
// Hebrew) mirrors the page: lines set against the right margin, a table's first column on
// the right, the signature block on the right; each line keeps its own direction (UAX #9).
import { type PDFDocument, type PDFImage, type PDFPage, rgb } from '@cantoo/pdf-lib';
import type { Style } from './font-faces.ts';
import { FontSet, paragraphDirection } from './fonts.ts';

export const a4: [number, number] = [595.28, 841.89];
const margin = 56;
const ink = rgb(0.1, 0.12, 0.16);
const muted = rgb(0.38, 0.42, 0.48);
const rule = rgb(0.82, 0.85, 0.89);
/** A letter of a right-to-left script (Hebrew, Arabic, Syriac, Thaana, N'Ko and their presentation forms). */
const rightToLeftLetter = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]|\p{Script=Adlam}/u;

export interface TableColumn {
  title: string;
  /** Share of the text width, 0 to 1; the shares add up to 1. */
  share: number;
}

/**
 * Splits `text` into lines no wider than `width`; a word wider than a line breaks anywhere.
 * A line's width is the sum of its words' and spaces' widths (each measured once by
 * `measure`), so wrapping is linear in the text, not in the square of each line.
 */
export function wrap(text: string, measure: (text: string) => number, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split(/\r?\n/)) {
    let line = '';
    let lineWidth = 0;
    const add = (piece: string, pieceWidth: number) => {
      line += piece;
      lineWidth += pieceWidth;
    };
    const breakLine = () => {
      if (line.trim()) lines.push(line.trimEnd());
      line = '';
      lineWidth = 0;
    };
    for (const word of paragraph.split(/(\s+)/)) {
      if (!word) continue;
      const wordWidth = measure(word);
      if (lineWidth + wordWidth <= width) {
        add(word, wordWidth);
        continue;
      }
      breakLine();
      if (/^\s+$/.test(word)) continue;
      if (wordWidth <= width) {
        add(word, wordWidth);
        continue;
      }
      // A word alone wider than the line (a long address, CJK text without spaces).
      for (const char of word) {
        const charWidth = measure(char);
        if (lineWidth + charWidth > width && line) breakLine();
        add(char, charWidth);
      }
    }
    lines.push(line.trimEnd());
  }
  return lines;
}

export class PageFlow {
  readonly pdf: PDFDocument;
  readonly fonts: FontSet;
  readonly pages: PDFPage[] = [];
  /** The page's direction: `rtl` mirrors the layout. */
  readonly dir: 'ltr' | 'rtl';
  #page: PDFPage | null = null;
  #y = 0;

  constructor(pdf: PDFDocument, fonts = new FontSet(pdf), dir: 'ltr' | 'rtl' = 'ltr') {
    this.pdf = pdf;
    this.fonts = fonts;
    this.dir = dir;
  }

  /**
   * A paragraph's direction: its first strong letter's, except that on a right-to-left page a
   * paragraph with any right-to-left letter is right to left ("SHA-256 للملف الأصلي" reads
   * from the right there, its first word an English one).
   */
  #direction(paragraph: string): 'ltr' | 'rtl' {
    if (this.dir === 'rtl' && rightToLeftLetter.test(paragraph)) return 'rtl';
    return paragraphDirection(paragraph);
  }

  /** Where a line `lineWidth` wide starts in the box from `left`, `width` wide: its start edge. */
  #start(left: number, width: number, lineWidth: number): number {
    return this.dir === 'rtl' ? left + width - lineWidth : left;
  }

  get width(): number {
    return a4[0] - 2 * margin;
  }

  /** The current page, with at least `height` points left on it (else a new one). */
  room(height: number): PDFPage {
    if (!this.#page || this.#y - height < margin + 24) {
      this.#page = this.pdf.addPage(a4);
      this.pages.push(this.#page);
      this.#y = a4[1] - margin;
    }
    return this.#page;
  }

  space(points: number): void {
    this.#y -= points;
  }

  /**
   * Paragraphs, wrapped. Each one's direction is its first strong letter's (an Arabic title
   * is a right-to-left paragraph), unless `direction` says otherwise: a line Signet composes in
   * English around a name ("name <address>") is left to right whatever the name's script.
   */
  async text(
    text: string,
    options: { size?: number; style?: Style; color?: 'ink' | 'muted'; direction?: 'ltr' | 'rtl' } = {},
  ) {
    const size = options.size ?? 10;
    const style = options.style ?? 'text';
    await this.fonts.prepare(style, text);
    const leading = size * 1.35;
    // Each paragraph of a text has its own direction (an Arabic paragraph, then a Hindi one).
    for (const paragraph of text.split(/\r?\n/)) {
      const direction = options.direction ?? this.#direction(paragraph);
      for (const line of wrap(paragraph, this.#measure(style, size), this.width)) {
        const page = this.room(leading);
        this.#y -= leading;
        const shaped = this.fonts.shape(style, line, direction);
        shaped.draw(page, {
          x: this.#start(margin, this.width, shaped.width(size)),
          y: this.#y + size * 0.3,
          size,
          color: this.#color(options.color),
        });
      }
    }
  }

  async heading(text: string, size = 14): Promise<void> {
    // A heading never ends a page: it keeps room for a few lines of what it heads.
    this.room(size * 3 + 40);
    this.space(size * 0.6);
    await this.text(text, { size, style: 'bold' });
    this.space(size * 0.3);
  }

  /** Label and value side by side, the value wrapped in the wider column. */
  async rows(rows: Array<[string, string]>, size = 9): Promise<void> {
    await this.table(
      [
        { title: '', share: 0.28 },
        { title: '', share: 0.72 },
      ],
      rows,
      { size, header: false },
    );
  }

  async table(
    columns: TableColumn[],
    rows: string[][],
    options: { size?: number; header?: boolean } = {},
  ): Promise<void> {
    const size = options.size ?? 8.5;
    const leading = size * 1.3;
    const header = options.header ?? true;
    const lay = async (cells: string[], style: Style) => {
      for (const cell of cells) await this.fonts.prepare(style, cell);
      const set = cells.map((cell, i) => {
        const width = (columns[i]?.share ?? 0) * this.width - 6;
        return { lines: wrap(cell, this.#measure(style, size), width), direction: this.#direction(cell) };
      });
      const height = Math.max(...set.map((c) => c.lines.length)) * leading + 4;
      const page = this.room(height);
      // Each column's box, from the start edge: the first column on the left, or on the right.
      let before = 0;
      for (const [i, cell] of set.entries()) {
        const width = (columns[i]?.share ?? 0) * this.width;
        const left = this.dir === 'rtl' ? margin + this.width - before - width : margin;
        cell.lines.forEach((line, n) => {
          const shaped = this.fonts.shape(style, line, cell.direction);
          shaped.draw(page, {
            x: this.dir === 'rtl' ? this.#start(left, width, shaped.width(size)) : margin + before,
            y: this.#y - (n + 1) * leading + size * 0.3,
            size,
            color: style === 'bold' ? ink : this.#color(header || i > 0 ? 'ink' : 'muted'),
          });
        });
        before += width;
      }
      this.#y -= height;
      page.drawLine({
        start: { x: margin, y: this.#y + 1 },
        end: { x: margin + this.width, y: this.#y + 1 },
        thickness: 0.4,
        color: rule,
      });
    };
    if (header)
      await lay(
        columns.map((c) => c.title),
        'bold',
      );
    for (const row of rows) await lay(row, 'text');
  }

  /**
   * A signature block: the signature (an image, or the name in a handwriting face) above a
   * line, and the lines of `caption` below it.
   */
  async signatureBlock(signature: { image: PDFImage } | { typed: string }, caption: string[]): Promise<void> {
    const height = 64 + caption.length * 12;
    const page = this.room(height + 12);
    const boxWidth = Math.min(260, this.width);
    const boxLeft = this.#start(margin, this.width, boxWidth);
    const top = this.#y - 4;
    if ('image' in signature) {
      const scale = Math.min(boxWidth / signature.image.width, 48 / signature.image.height, 1);
      const width = signature.image.width * scale;
      const drawnHeight = signature.image.height * scale;
      page.drawImage(signature.image, {
        x: this.#start(boxLeft, boxWidth, width),
        y: top - 50 + (48 - drawnHeight) / 2,
        width,
        height: drawnHeight,
      });
    } else {
      await this.fonts.prepare('handwriting', signature.typed);
      const shaped = this.fonts.shape('handwriting', signature.typed);
      const size = Math.min(30, (30 * boxWidth) / Math.max(1, shaped.width(30)));
      shaped.draw(page, {
        x: this.#start(boxLeft, boxWidth, shaped.width(size)),
        y: top - 40,
        size,
        color: rgb(0.05, 0.15, 0.45),
      });
    }
    page.drawLine({
      start: { x: boxLeft, y: top - 54 },
      end: { x: boxLeft + boxWidth, y: top - 54 },
      thickness: 0.6,
      color: muted,
    });
    this.#y = top - 56;
    for (const line of caption) await this.text(line, { size: 8.5, color: 'muted', direction: this.dir });
    this.space(12);
  }

  /** Writes `label(page, of)` at the foot of every page this flow added. */
  async footers(label: (page: number, of: number) => string): Promise<void> {
    for (const [i, page] of this.pages.entries()) {
      const text = label(i + 1, this.pages.length);
      await this.fonts.prepare('text', text);
      const shaped = this.fonts.shape('text', text, this.dir);
      shaped.draw(page, {
        x: this.#start(margin, this.width, shaped.width(7.5)),
        y: margin / 2,
        size: 7.5,
        color: muted,
      });
    }
  }

  // Widths of words and spaces, per style and size: a document repeats most of its words.
  readonly #widths = new Map<string, number>();

  #measure(style: Style, size: number): (text: string) => number {
    return (text) => {
      const key = `${style}\u0000${size}\u0000${text}`;
      let width = this.#widths.get(key);
      if (width === undefined) {
        width = this.fonts.shape(style, text).width(size);
        this.#widths.set(key, width);
      }
      return width;
    };
  }

  #color(tone: 'ink' | 'muted' | undefined) {
    return tone === 'muted' ? muted : ink;
  }
}
