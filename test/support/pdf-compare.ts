// The cross-renderer check of issue 48 §1: "if a file is accepted, pdf.js's display and print
// intents, poppler and MuPDF must show its pages alike". `comparePageRenderings` draws one
// page four ways at the same pixel size:
// - pdf.js, display intent: what the signing page shows, drawn by src/pdf/render.ts itself;
// - pdf.js, print intent (the legacy build, `intent: 'print'`, annotations as printed);
// - poppler (`pdftoppm -png -cropbox`, scaled to the size);
// - MuPDF (`mutool draw`, fitted to the size);
// and compares every pair as grayscale images after a 3 × 3 box blur: the share of pixels
// whose gray differs by more than `pixelThreshold` (of 255). `worst` is the largest share.
//
// Tolerance (`renderingTolerance`, the share a caller asserts `worst` under): renderers
// anti-alias edges and hint glyphs each their own way, so the same text lands up to a pixel
// apart and its edges take other grays. The blur spreads a one-pixel shift over three
// pixels, so it stays under the threshold on all but the sharpest edges; what is left is a
// thin seam along some glyphs, well under 1% of a text page (measured on the corpus of
// test/pdf/pdf-corpus.test.ts: see docs/performance.md's corpus table). A paragraph one reader
// shows and another does not, a field value drawn by only one, a page drawn in another place
// or colour, or a missing image covers far more than that.
//
// The helper knows nothing of the corpus, so other tests (hostile files) can use it as it is.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import { openForRendering } from '../../src/pdf/render.ts';

export type Renderer = 'pdf.js display' | 'pdf.js print' | 'poppler' | 'MuPDF';

export interface RenderingPair {
  a: Renderer;
  b: Renderer;
  /** The share of the page's pixels (0 to 1) that differ by more than `pixelThreshold`. */
  differing: number;
}

export interface PageComparison {
  width: number;
  height: number;
  pairs: RenderingPair[];
  /** The largest `differing` of the pairs. */
  worst: number;
}

/** A gray difference (of 255) that counts a pixel as differing, after the blur. */
export const pixelThreshold = 64;
/** The largest share of differing pixels between two renderings of a page that is "alike". */
export const renderingTolerance = 0.01;

const defaultWidth = 700;

/**
 * Page `page` (1-based) of `pdfBytes` drawn by the four renderers `width` pixels wide, and each
 * pair's share of differing pixels. A renderer that fails throws: a page one of them cannot
 * draw is not "alike".
 */
export async function comparePageRenderings(
  pdfBytes: Uint8Array,
  page: number,
  options: { width?: number } = {},
): Promise<PageComparison> {
  const width = options.width ?? defaultWidth;
  const folder = await mkdtemp(join(tmpdir(), 'signet-compare-'));
  try {
    const file = join(folder, 'page.pdf');
    await writeFile(file, pdfBytes);
    const display = await drawDisplay(pdfBytes, page, width);
    const size = { width: display.width, height: display.height };
    const images: Array<[Renderer, Gray]> = [
      ['pdf.js display', display],
      ['pdf.js print', await drawPrint(pdfBytes, page, size)],
      ['poppler', await drawPoppler(file, folder, page, size)],
      ['MuPDF', await drawMupdf(file, folder, page, size)],
    ];
    const pairs: RenderingPair[] = [];
    for (let i = 0; i < images.length; i++) {
      for (let j = i + 1; j < images.length; j++) {
        const [[a, first], [b, second]] = [images[i], images[j]] as [[Renderer, Gray], [Renderer, Gray]];
        pairs.push({ a, b, differing: differingShare(first, second) });
      }
    }
    return { ...size, pairs, worst: Math.max(...pairs.map((pair) => pair.differing)) };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

interface Gray {
  width: number;
  height: number;
  /** One value a pixel, 0 (black) to 255 (white), row by row. */
  pixels: Float32Array;
}

/** A PNG as gray on white, at exactly `size` (a renderer that rounds a side otherwise is scaled). */
async function grayOf(png: Uint8Array, size?: { width: number; height: number }): Promise<Gray> {
  const image = await loadImage(Buffer.from(png));
  const width = size?.width ?? image.width;
  const height = size?.height ?? image.height;
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  context.fillStyle = 'white';
  context.fillRect(0, 0, width, height);
  context.drawImage(image, 0, 0, width, height);
  const { data } = context.getImageData(0, 0, width, height);
  const pixels = new Float32Array(width * height);
  for (let n = 0; n < pixels.length; n++) {
    pixels[n] =
      0.299 * (data[n * 4] as number) +
      0.587 * (data[n * 4 + 1] as number) +
      0.114 * (data[n * 4 + 2] as number);
  }
  return { width, height, pixels: blur({ width, height, pixels }) };
}

/** A 3 × 3 box blur (edges averaged over the pixels there are). */
function blur({ width, height, pixels }: Gray): Float32Array {
  const out = new Float32Array(pixels.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let sum = 0;
      let count = 0;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const [nx, ny] = [x + dx, y + dy];
          if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
          sum += pixels[ny * width + nx] as number;
          count++;
        }
      }
      out[y * width + x] = sum / count;
    }
  }
  return out;
}

function differingShare(a: Gray, b: Gray): number {
  let differing = 0;
  for (let n = 0; n < a.pixels.length; n++) {
    if (Math.abs((a.pixels[n] as number) - (b.pixels[n] as number)) > pixelThreshold) differing++;
  }
  return differing / a.pixels.length;
}

async function drawDisplay(pdfBytes: Uint8Array, page: number, width: number): Promise<Gray> {
  const session = await openForRendering(pdfBytes);
  try {
    return await grayOf(await session.renderPng(page, { width }));
  } finally {
    await session.close();
  }
}

// The same data folders render.ts gives pdf.js: the standard fonts, CMaps and image decoders.
const pdfjsFolder = dirname(fileURLToPath(import.meta.resolve('pdfjs-dist/package.json')));

async function drawPrint(pdfBytes: Uint8Array, page: number, size: { width: number; height: number }) {
  const task = pdfjs.getDocument({
    data: new Uint8Array(pdfBytes),
    standardFontDataUrl: `${pdfjsFolder}/standard_fonts/`,
    cMapUrl: `${pdfjsFolder}/cmaps/`,
    cMapPacked: true,
    wasmUrl: `${pdfjsFolder}/wasm/`,
    verbosity: pdfjs.VerbosityLevel.ERRORS,
  });
  try {
    const document = await task.promise;
    const proxy = await document.getPage(page);
    const viewport = proxy.getViewport({ scale: 1 });
    const canvas = createCanvas(size.width, size.height);
    await proxy.render({
      canvas: canvas as unknown as Parameters<typeof proxy.render>[0]['canvas'],
      viewport: proxy.getViewport({
        scale: Math.min(size.width / viewport.width, size.height / viewport.height),
      }),
      background: 'white',
      intent: 'print',
      // What printing draws: annotations marked for print, forms with their stored values.
      annotationMode: pdfjs.AnnotationMode.ENABLE_STORAGE,
    }).promise;
    return await grayOf(await canvas.encode('png'), size);
  } finally {
    await task.destroy();
  }
}

async function drawPoppler(
  file: string,
  folder: string,
  page: number,
  size: { width: number; height: number },
) {
  const out = join(folder, 'poppler');
  const [first, last] = [String(page), String(page)];
  await run('pdftoppm', [
    '-png',
    '-cropbox',
    '-f',
    first,
    '-l',
    last,
    '-singlefile',
    '-scale-to-x',
    String(size.width),
    '-scale-to-y',
    String(size.height),
    file,
    out,
  ]);
  return grayOf(await readFile(`${out}.png`), size);
}

async function drawMupdf(
  file: string,
  folder: string,
  page: number,
  size: { width: number; height: number },
) {
  const out = join(folder, 'mupdf.png');
  await run('mutool', [
    'draw',
    '-q',
    '-F',
    'png',
    '-o',
    out,
    '-w',
    String(size.width),
    '-h',
    String(size.height),
    file,
    String(page),
  ]);
  return grayOf(await readFile(out), size);
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'ENOENT'
          ? new Error(
              `${command} is not installed (apt-get install ${command === 'mutool' ? 'mupdf-tools' : 'poppler-utils'}).`,
            )
          : error,
      ),
    );
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} failed (${code}): ${stderr}`)),
    );
  });
}
