// The image shown in place of a page that could not be drawn (page-images.ts): light grey,
// of the page's proportions, so the signing page and the sender's thumbnails keep their
// layout and the fields drawn over a page stay where they belong, saying in words that the
// page could not be shown. Set in Noto Sans from npm (fonts.ts), never a system font: the
// words read the same on every machine.
//
// Drawing one costs a few milliseconds, and a failed page is asked for again at every visit
// (the image is not cached by browsers), so the last few sizes are kept, encoded.
import { createCanvas, GlobalFonts } from '@napi-rs/canvas';
import { fontFile } from '../pdf/font-faces.ts';
import type { PageSize } from '../pdf/render.ts';

export const placeholderText = 'This page could not be shown here. Download the PDF to read it.';

const family = 'Signet Placeholder Sans';
let registered: boolean | undefined;
function fontFamily(): string {
  registered ??= GlobalFonts.registerFromPath(fontFile('sans'), family) !== null;
  if (!registered) throw new Error(`The placeholder's face (${fontFile('sans')}) could not be loaded.`);
  return `"${family}"`;
}

const keptSizes = 16;
const kept = new Map<string, Promise<Buffer>>();

/** The placeholder PNG of exactly `size` pixels. */
export function placeholderPng(size: PageSize): Promise<Buffer> {
  const key = `${size.width}x${size.height}`;
  let png = kept.get(key);
  if (!png) {
    png = draw(size);
    png.catch(() => kept.delete(key));
    if (kept.size >= keptSizes) kept.delete(kept.keys().next().value as string);
    kept.set(key, png);
  }
  return png;
}

async function draw({ width, height }: PageSize): Promise<Buffer> {
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  context.fillStyle = '#e5e7eb';
  context.fillRect(0, 0, width, height);
  const border = Math.max(1, Math.round(width / 300));
  context.strokeStyle = '#9ca3af';
  context.lineWidth = border;
  context.strokeRect(border / 2, border / 2, width - border, height - border);

  // About 1/24 of the width (50 px on a 1200 px page, 10 px on a thumbnail), smaller when a
  // very wide, flat page leaves less height than that, and wrapped to 84 % of the width.
  const fontSize = Math.max(6, Math.min(Math.round(width / 24), Math.floor(height / 3)));
  context.font = `${fontSize}px ${fontFamily()}`;
  context.fillStyle = '#374151';
  context.textAlign = 'center';
  context.textBaseline = 'middle';
  const lines = wrap(placeholderText, (text) => context.measureText(text).width, width * 0.84);
  const lineHeight = fontSize * 1.3;
  const top = height / 2 - ((lines.length - 1) * lineHeight) / 2;
  lines.forEach((line, index) => {
    context.fillText(line, width / 2, top + index * lineHeight);
  });
  return canvas.encode('png');
}

function wrap(text: string, measure: (text: string) => number, maxWidth: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const longer = line ? `${line} ${word}` : word;
    if (line && measure(longer) > maxWidth) {
      lines.push(line);
      line = word;
    } else {
      line = longer;
    }
  }
  lines.push(line);
  return lines;
}
