// Page images (src/pdf/render.ts): sizes as pdf.js's viewport sees a page (after /Rotate and
// the crop box), PNGs of the asked width on white with the page's ink where it was drawn,
// and every kind of bad input rejected with a RenderError: corrupt, encrypted, too slow,
// too big for the parser's memory. The PDFs are made here with pdf-lib (and qpdf for the
// encrypted ones), so each test knows exactly where the ink is.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { PDFDocument, PDFName, rgb, StandardFonts } from '@cantoo/pdf-lib';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import {
  fitRenderSize,
  MAX_RENDER_WIDTH,
  openForRendering,
  RenderError,
  type RenderSession,
} from '../../src/pdf/render.ts';

const run = promisify(execFile);
const fixtures = join(import.meta.dirname, '..', 'fixtures', 'pdf');

// The pages of the document most tests share, in order.
const letter = 1; // 612 x 792, "Signet" in Helvetica (not embedded: pdf.js loads its own)
const rotated = 2; // 612 x 792 with /Rotate 90, a black square on the PDF's origin
const cropped = 3; // 612 x 792 cropped to 300 x 300 at (100, 200), a square in and a bar out
const landscape = 4; // 842 x 595, "Landscape"
const tall = 5; // 100 x 1000
const wide = 6; // 1000 x 1

async function makeDocument(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const helvetica = await doc.embedFont(StandardFonts.Helvetica);
  const black = rgb(0, 0, 0);

  doc.addPage([612, 792]).drawText('Signet', { x: 72, y: 650, size: 72, font: helvetica, color: black });

  const turned = doc.addPage([612, 792]);
  turned.node.set(PDFName.of('Rotate'), doc.context.obj(90));
  turned.drawRectangle({ x: 0, y: 0, width: 100, height: 100, color: black });

  const crop = doc.addPage([612, 792]);
  crop.setCropBox(100, 200, 300, 300);
  crop.drawRectangle({ x: 100, y: 200, width: 50, height: 50, color: black });
  crop.drawRectangle({ x: 0, y: 0, width: 90, height: 792, color: black });

  doc.addPage([842, 595]).drawText('Landscape', { x: 60, y: 450, size: 90, font: helvetica, color: black });
  doc.addPage([100, 1000]).drawRectangle({ x: 0, y: 0, width: 100, height: 1000, color: black });
  doc.addPage([1000, 1]);
  return doc.save();
}

// A page with `operations` short strokes, which takes pdf.js seconds to parse and draw.
async function makeSlowDocument(operations: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  const parts: string[] = [];
  for (let i = 0; i < operations; i++) {
    const x = (i * 7) % 600;
    const y = (i * 13) % 780;
    parts.push(`${x} ${y} m ${x + 5} ${y + 9} l S`);
  }
  page.node.set(PDFName.of('Contents'), doc.context.register(doc.context.flateStream(parts.join('\n'))));
  return doc.save();
}

function pngSize(png: Uint8Array): { width: number; height: number } {
  const bytes = Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  assert.deepEqual(
    [...bytes.subarray(0, 8)],
    [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
    'PNG signature',
  );
  assert.equal(bytes.toString('latin1', 12, 16), 'IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

interface Picture {
  width: number;
  height: number;
  /** The share of dark pixels (luminance under 128) in a box given as fractions of the picture. */
  darkShare(left: number, top: number, right: number, bottom: number): number;
  /** Whether every pixel in the box is white or nearly (each channel 250 or more). */
  isWhite(left: number, top: number, right: number, bottom: number): boolean;
}

async function decode(png: Uint8Array): Promise<Picture> {
  const image = await loadImage(png);
  const canvas = createCanvas(image.width, image.height);
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  const { data, width, height } = context.getImageData(0, 0, image.width, image.height);
  function* pixels(left: number, top: number, right: number, bottom: number) {
    for (let y = Math.floor(top * height); y < Math.ceil(bottom * height); y++) {
      for (let x = Math.floor(left * width); x < Math.ceil(right * width); x++) {
        const i = (y * width + x) * 4;
        yield [data[i] ?? 0, data[i + 1] ?? 0, data[i + 2] ?? 0] as const;
      }
    }
  }
  return {
    width,
    height,
    darkShare(left, top, right, bottom) {
      let dark = 0;
      let all = 0;
      for (const [r, g, b] of pixels(left, top, right, bottom)) {
        all++;
        if (0.299 * r + 0.587 * g + 0.114 * b < 128) dark++;
      }
      return dark / all;
    },
    isWhite(left, top, right, bottom) {
      for (const [r, g, b] of pixels(left, top, right, bottom)) {
        if (r < 250 || g < 250 || b < 250) return false;
      }
      return true;
    },
  };
}

let documentBytes: Uint8Array;
let session: RenderSession;
let scratch: string;

before(async () => {
  documentBytes = await makeDocument();
  session = await openForRendering(documentBytes);
  scratch = mkdtempSync(join(tmpdir(), 'signet-render-'));
});

after(async () => {
  await session.close();
  rmSync(scratch, { recursive: true, force: true });
});

test('a page in a standard font renders its text dark on a white page, at the asked width', async () => {
  assert.equal(session.pageCount, 6);
  assert.deepEqual(await session.pageSize(letter), { width: 612, height: 792 });
  const png = await session.renderPng(letter, { width: 1200 });
  // 792 * 1200 / 612 = 1552.9
  assert.deepEqual(pngSize(png), { width: 1200, height: 1553 });
  const picture = await decode(png);
  // "Signet" at 72 pt: from x = 72 to about 290, its baseline at y = 650 and its capitals
  // 52 pt high, so from 90 to 142 points down from the top edge.
  const [left, right, top, bottom] = [72 / 612, 290 / 612, 90 / 792, 142 / 792];
  assert.ok(picture.darkShare(left, top, right, bottom) > 0.15, 'the text is drawn');
  assert.ok(picture.isWhite(0, 0, 1, top - 0.03), 'above the text is white');
  assert.ok(picture.isWhite(0, 0.25, 1, 1), 'below the text is white');
  assert.ok(picture.isWhite(right + 0.02, 0, 1, 1), 'right of the text is white');
});

test('a thumbnail is the same page at 240 pixels', async () => {
  const png = await session.renderPng(letter, { width: 240 });
  assert.deepEqual(pngSize(png), { width: 240, height: 311 });
  const picture = await decode(png);
  assert.ok(picture.darkShare(72 / 612, 90 / 792, 290 / 612, 142 / 792) > 0.1);
  assert.ok(picture.isWhite(0, 0.25, 1, 1));
});

test('a page with /Rotate 90 is as wide as it was tall, and turned clockwise', async () => {
  assert.deepEqual(await session.pageSize(rotated), { width: 792, height: 612 });
  const png = await session.renderPng(rotated, { width: 792 });
  assert.deepEqual(pngSize(png), { width: 792, height: 612 });
  const picture = await decode(png);
  // Turned clockwise, the PDF's origin (the bottom-left corner) is at the top left.
  const [square, across, down] = [0.9 * (100 / 792), 100 / 792, 100 / 612];
  assert.ok(picture.darkShare(0, 0, square, 0.9 * down) > 0.99, 'the square is at the top left');
  assert.ok(picture.isWhite(across + 0.01, 0, 1, 1), 'nothing right of it');
  assert.ok(picture.isWhite(0, down + 0.01, 1, 1), 'nothing below it');
});

test('the crop box is the page: its size, and only what is inside it', async () => {
  assert.deepEqual(await session.pageSize(cropped), { width: 300, height: 300 });
  const png = await session.renderPng(cropped, { width: 600 });
  assert.deepEqual(pngSize(png), { width: 600, height: 600 });
  const picture = await decode(png);
  // The 50-point square at the crop box's bottom-left corner; the bar left of the crop box
  // is cut off.
  assert.ok(picture.darkShare(0, 1 - 0.9 / 6, 0.9 / 6, 1) > 0.99, 'the square inside the crop box');
  assert.ok(picture.isWhite(0, 0, 1, 1 - 1.1 / 6), 'above the square is white');
  assert.ok(picture.isWhite(1.1 / 6, 0, 1, 1), 'right of the square is white');
});

test('a landscape page is wider than tall', async () => {
  assert.deepEqual(await session.pageSize(landscape), { width: 842, height: 595 });
  const png = await session.renderPng(landscape, { width: 1200 });
  // 595 * 1200 / 842 = 848.0
  assert.deepEqual(pngSize(png), { width: 1200, height: 848 });
  const picture = await decode(png);
  assert.ok(picture.darkShare(60 / 842, 80 / 595, 480 / 842, 145 / 595) > 0.15, 'the text is drawn');
  assert.ok(picture.isWhite(0, 0.3, 1, 1), 'below it is white');
});

test('a page over four times as tall as wide is scaled down whole; a flat one is a pixel high', async () => {
  // 1000 / 100 = 10 > 4: the height is capped at 4 * 200 = 800, the width follows (80).
  assert.deepEqual(await session.renderSize(tall, { width: 200 }), { width: 80, height: 800 });
  const tallPng = await session.renderPng(tall, { width: 200 });
  assert.deepEqual(pngSize(tallPng), { width: 80, height: 800 });
  assert.ok((await decode(tallPng)).darkShare(0.05, 0.05, 0.95, 0.95) > 0.99, 'the whole page, black');

  // 1 * 100 / 1000 = 0.1 pixel: one.
  assert.deepEqual(await session.renderSize(wide, { width: 100 }), { width: 100, height: 1 });
  assert.deepEqual(pngSize(await session.renderPng(wide, { width: 100 })), { width: 100, height: 1 });
});

test('fitRenderSize keeps every image within the width asked and four times it', () => {
  const cases: [{ width: number; height: number }, number, { width: number; height: number }][] = [
    [{ width: 612, height: 792 }, 1200, { width: 1200, height: 1553 }],
    [{ width: 100, height: 400 }, 1600, { width: 1600, height: 6400 }], // exactly 1:4
    [{ width: 1, height: 100_000 }, 1600, { width: 1, height: 6400 }], // 0.064 px wide: one
    [{ width: 100_000, height: 1 }, 1600, { width: 1600, height: 1 }],
    [{ width: 14_400, height: 14_400 }, 240, { width: 240, height: 240 }],
  ];
  for (const [page, width, expected] of cases) assert.deepEqual(fitRenderSize(page, width), expected);
});

test('a width or page out of range is the caller’s mistake: a RangeError', async () => {
  for (const width of [0, -1, 1.5, MAX_RENDER_WIDTH + 1, Number.NaN]) {
    await assert.rejects(session.renderPng(letter, { width }), RangeError, `width ${width}`);
  }
  for (const page of [0, 7, 1.5]) {
    await assert.rejects(session.renderPng(page, { width: 100 }), RangeError, `page ${page}`);
    await assert.rejects(session.pageSize(page), RangeError, `page ${page}`);
  }
  // The session is still good.
  assert.deepEqual(pngSize(await session.renderPng(letter, { width: MAX_RENDER_WIDTH })).width, 1600);
});

test('renders asked for at once come out right, one after another', async () => {
  const pages = [letter, rotated, cropped, landscape, letter, rotated];
  const pngs = await Promise.all(pages.map((page) => session.renderPng(page, { width: 240 })));
  assert.deepEqual(
    pngs.map((png) => pngSize(png)),
    [
      { width: 240, height: 311 },
      { width: 240, height: 185 },
      { width: 240, height: 240 },
      { width: 240, height: 170 },
      { width: 240, height: 311 },
      { width: 240, height: 185 },
    ],
  );
  assert.deepEqual(pngs[4], pngs[0], 'the same page twice is the same image');
});

test('the caller’s bytes are left alone, a Buffer too', async () => {
  const buffer = Buffer.from(documentBytes);
  const copy = Buffer.from(buffer);
  await using own = await openForRendering(buffer);
  assert.equal(own.pageCount, 6);
  assert.equal(buffer.byteLength, copy.byteLength, 'not detached');
  assert.ok(buffer.equals(copy), 'not changed');
});

test('a closed session rejects with closed', async () => {
  const own = await openForRendering(documentBytes);
  const pending = own.renderPng(letter, { width: 240 });
  await own.close();
  await own.close(); // twice is fine
  pngSize(await pending); // what was asked before close still comes
  await assert.rejects(own.renderPng(letter, { width: 240 }), (error: unknown) => {
    assert.ok(error instanceof RenderError);
    assert.equal(error.code, 'closed');
    return true;
  });
});

function hasCode(code: string) {
  return (error: unknown) => {
    assert.ok(error instanceof RenderError, `a RenderError, not ${String(error)}`);
    assert.equal(error.code, code, error.message);
    return true;
  };
}

test('bytes that are not a PDF reject with invalid-pdf', async () => {
  const inputs: [string, Uint8Array][] = [
    ['empty', new Uint8Array()],
    ['text', new TextEncoder().encode('This is not a PDF.\n')],
    ['a header alone', new TextEncoder().encode('%PDF-1.7\n%%EOF\n')],
    ['a PNG', await session.renderPng(letter, { width: 40 })],
    ['noise', new Uint8Array(4096).map((_, i) => (i * 7919 + 13) % 251)],
  ];
  for (const [name, bytes] of inputs) {
    await assert.rejects(openForRendering(bytes), hasCode('invalid-pdf'), name);
  }
});

// Each broken copy must either still render (pdf.js repairs what it can) or reject with a
// RenderError; nothing else, and nothing hangs.
test('damaged copies of a PDF render or reject with a RenderError', async () => {
  let seed = 42;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const damaged: Uint8Array[] = [];
  for (const share of [0.1, 0.3, 0.5, 0.7, 0.9, 0.99]) {
    damaged.push(documentBytes.slice(0, Math.floor(documentBytes.length * share)));
  }
  for (let i = 0; i < 14; i++) {
    const copy = documentBytes.slice();
    const start = Math.floor(random() * copy.length);
    for (let j = start; j < Math.min(copy.length, start + 1 + Math.floor(random() * 64)); j++) {
      copy[j] = Math.floor(random() * 256);
    }
    damaged.push(copy);
  }
  let rendered = 0;
  for (const bytes of damaged) {
    try {
      await using broken = await openForRendering(bytes, { timeoutMs: 10_000 });
      for (let page = 1; page <= broken.pageCount; page++) {
        const png = await broken.renderPng(page, { width: 120 });
        assert.equal(pngSize(png).width <= 120, true);
      }
      rendered++;
    } catch (error) {
      assert.ok(error instanceof RenderError, `a RenderError, not ${String(error)}`);
    }
  }
  assert.ok(rendered > 0 && rendered < damaged.length, `some render and some reject (${rendered})`);
});

function requireQpdf(): void {
  try {
    execFileSync('qpdf', ['--version'], { stdio: 'ignore' });
  } catch {
    assert.fail('qpdf is not installed, and the encrypted-PDF tests need it (Debian: apt-get install qpdf).');
  }
}

test('an encrypted PDF rejects with encrypted, with a user password or without one', async () => {
  requireQpdf();
  const plain = join(scratch, 'plain.pdf');
  writeFileSync(plain, documentBytes);
  const cases: [string, string[]][] = [
    ['no user password (opens without asking)', ['--encrypt', '', 'owner-secret', '256', '--']],
    ['a user password', ['--encrypt', 'user-secret', 'owner-secret', '256', '--']],
    [
      'RC4, 128 bits',
      ['--allow-weak-crypto', '--encrypt', 'user-secret', 'owner-secret', '128', '--use-aes=n', '--'],
    ],
  ];
  for (const [name, args] of cases) {
    const encrypted = join(scratch, 'encrypted.pdf');
    await run('qpdf', [...args, plain, encrypted]);
    await assert.rejects(openForRendering(readFileSync(encrypted)), hasCode('encrypted'), name);
  }
});

test('a page that takes too long rejects with timeout, and the session is over', async () => {
  const slow = await makeSlowDocument(300_000);
  let own: RenderSession;
  try {
    own = await openForRendering(slow, { timeoutMs: 100 });
  } catch (error) {
    // Opening is quick, but on a very slow machine it may be what runs out of time.
    hasCode('timeout')(error);
    return;
  }
  const started = performance.now();
  await assert.rejects(own.renderPng(1, { width: 1200 }), hasCode('timeout'));
  assert.ok(performance.now() - started < 2000, 'given up soon after the time ran out');
  await assert.rejects(own.renderPng(1, { width: 100 }), hasCode('timeout'));
  await own.close();
});

test('a parser that runs out of memory rejects with out-of-memory, not a crash', async () => {
  // 8 MB cannot even hold pdf.js; it stands for any file that needs more than the cap.
  await assert.rejects(openForRendering(documentBytes, { parserHeapMb: 8 }), hasCode('out-of-memory'));
  await assert.rejects(openForRendering(documentBytes, { parserHeapMb: 2 }), RangeError);
});

test('pdf.js says nothing on the console, even about a broken file', async () => {
  // A wrong cross-reference offset: pdf.js repairs it, and would warn "Indexing all PDF
  // objects"; half a file: pdf.js gives up, and would warn first.
  const misplaced = join(scratch, 'misplaced-xref.pdf');
  const text = Buffer.from(documentBytes).toString('latin1');
  writeFileSync(misplaced, Buffer.from(text.replace(/startxref\s+\d+/, 'startxref\n12'), 'latin1'));
  const truncated = join(scratch, 'truncated.pdf');
  writeFileSync(truncated, documentBytes.slice(0, Math.floor(documentBytes.length * 0.5)));
  const script = `
    import { readFileSync } from 'node:fs';
    import { openForRendering } from ${JSON.stringify(join(import.meta.dirname, '..', '..', 'src', 'pdf', 'render.ts'))};
    for (const file of process.argv.slice(1)) {
      try {
        await using s = await openForRendering(readFileSync(file));
        for (let page = 1; page <= s.pageCount; page++) await s.renderPng(page, { width: 100 });
        process.stdout.write('rendered ');
      } catch (error) {
        if (error.name !== 'RenderError(invalid-pdf)') throw error;
        process.stdout.write('refused ');
      }
    }`;
  const args = ['--input-type=module', '-e', script, misplaced, truncated];
  const { stdout, stderr } = await run(process.execPath, args);
  assert.equal(stdout, 'rendered refused ');
  assert.equal(stderr, '');
});

test('the first page of each real-world fixture renders', async () => {
  const files = readdirSync(fixtures).filter((name) => name.endsWith('.pdf'));
  if (files.length === 0) return;
  for (const name of files) {
    const bytes = readFileSync(join(fixtures, name));
    if (name === 'encrypted.pdf') {
      await assert.rejects(openForRendering(bytes), hasCode('encrypted'), name);
      continue;
    }
    await using own = await openForRendering(bytes);
    const size = await own.renderSize(1, { width: 600 });
    const png = await own.renderPng(1, { width: 600 });
    assert.deepEqual(pngSize(png), size, name);
    const picture = await decode(png);
    assert.ok(picture.darkShare(0, 0, 1, 1) > 0.0001, `${name}: some ink`);
    assert.ok(!picture.isWhite(0, 0, 1, 1), `${name}: not blank`);
  }
});
