// The signers' field values drawn on the original pages (src/pdf/fields.ts, through the
// certificate's update in certificate.ts and incremental.ts), judged by poppler and qpdf:
// pdftotext -bbox finds each value inside its field's rectangle on every rotation and crop
// box, pdftoppm's pixels show drawings only inside their rectangles, the original text keeps
// its place, qpdf --check is clean, and an earlier signature and the seal stay valid.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  concatTransformationMatrix,
  type PDFArray,
  PDFDict,
  PDFDocument,
  PDFName,
  PDFNumber,
  StandardFonts,
} from '@cantoo/pdf-lib';
import { createCanvas } from '@napi-rs/canvas';
import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import {
  appendCertificate,
  type Certificate,
  type CertificateField,
  certify,
} from '../../src/pdf/certificate.ts';
import {
  drawFieldStamps,
  type FieldStamp,
  type PageView,
  pageViews,
  type Rect,
  toUserSpace,
  userPoint,
} from '../../src/pdf/fields.ts';
import { FontSet } from '../../src/pdf/fonts.ts';
import { loadForSealing, sealLoaded } from '../../src/pdf/seal.ts';
import { createSelfSignedSeal } from '../../src/pdf/seal-identity.ts';
import {
  assertSealedOver,
  assertWordsInside,
  type BboxPage,
  pdfImageList,
  pdfsig,
  pdftotext,
  pdftotextBbox,
  qpdfCheck,
} from '../support/pdf-tools.ts';

const box = { x: 10, y: 20, width: 400, height: 600 };
const viewOf = (rotation: PageView['rotation']): PageView => {
  const turned = rotation === 90 || rotation === 270;
  return { width: turned ? 600 : 400, height: turned ? 400 : 600, rotation, box };
};

test('a rectangle in view space is found in user space for each rotation', () => {
  const rect = { x: 30, y: 40, width: 100, height: 50 };
  // /Rotate 0: the crop box's corner is the origin. 90: the viewer turns the page clockwise,
  // so the displayed bottom-left is the box's bottom-right; view x runs up user y, view y
  // runs left along user x. 180: the top-right corner, both axes reversed. 270: the top-left.
  const expected = {
    0: { origin: { x: 10, y: 20 }, rect: { x: 40, y: 60, width: 100, height: 50 } },
    90: { origin: { x: 410, y: 20 }, rect: { x: 320, y: 50, width: 50, height: 100 } },
    180: { origin: { x: 410, y: 620 }, rect: { x: 280, y: 530, width: 100, height: 50 } },
    270: { origin: { x: 10, y: 620 }, rect: { x: 50, y: 490, width: 50, height: 100 } },
  } as const;
  for (const rotation of [0, 90, 180, 270] as const) {
    const view = viewOf(rotation);
    assert.deepEqual(userPoint(view, 0, 0), expected[rotation].origin, `origin at ${rotation}`);
    assert.deepEqual(
      toUserSpace(view, rect),
      { ...expected[rotation].rect, rotation },
      `rect at ${rotation}`,
    );
    // The displayed top-right corner is the box's opposite corner.
    const far = userPoint(view, view.width, view.height);
    assert.deepEqual(
      { x: box.x + box.width + box.x - far.x, y: box.y + box.height + box.y - far.y },
      expected[rotation].origin,
    );
  }
  // For /Rotate 90, as derived: user x = box.x + box.width − v, user y = box.y + u.
  assert.deepEqual(userPoint(viewOf(90), 7, 11), { x: 10 + 400 - 11, y: 20 + 7 });
});

test('pages are seen as displayed: rotation normalised and inherited, crop box inherited and intersected', async () => {
  const pdf = await PDFDocument.create();
  const pages = [0, 1, 2, 3].map(() => pdf.addPage([500, 700]));
  const root = pdf.catalog.Pages();
  root.set(PDFName.Rotate, PDFNumber.of(180));
  root.set(PDFName.CropBox, pdf.context.obj([10, 20, 310, 420]));
  const set = (i: number, key: PDFName, value: number | number[]) =>
    pages[i]?.node.set(key, typeof value === 'number' ? PDFNumber.of(value) : pdf.context.obj(value));
  set(0, PDFName.Rotate, -90); // the root's crop box
  set(1, PDFName.Rotate, 450);
  set(1, PDFName.CropBox, [400, 500, 60, 80]); // corners in any order
  set(2, PDFName.CropBox, [-50, -50, 100, 100]); // the root's rotation; the crop box cut by the media box
  set(3, PDFName.Rotate, 45); // not a quarter turn: none
  set(3, PDFName.CropBox, [600, 800, 700, 900]); // outside the media box: the media box
  const loaded = await PDFDocument.load(await pdf.save());
  assert.deepEqual(pageViews(loaded), [
    { width: 400, height: 300, rotation: 270, box: { x: 10, y: 20, width: 300, height: 400 } },
    { width: 420, height: 340, rotation: 90, box: { x: 60, y: 80, width: 340, height: 420 } },
    { width: 100, height: 100, rotation: 180, box: { x: 0, y: 0, width: 100, height: 100 } },
    { width: 500, height: 700, rotation: 0, box: { x: 0, y: 0, width: 500, height: 700 } },
  ]);
  // pdf.js, which draws the pages the sender places fields on, agrees on all four; poppler on
  // the first three (it shows a crop box outside the media box as an empty page, and prints
  // /Rotate 45 as it is, though it draws the page unturned).
  const bytes = await loaded.save();
  const task = pdfjs.getDocument({ data: bytes.slice(), verbosity: 0 });
  const viewer = await task.promise;
  for (const [i, view] of pageViews(loaded).entries()) {
    const page = await viewer.getPage(i + 1);
    const { x, y, width, height } = view.box;
    assert.deepEqual(
      [page.view, page.rotate],
      [[x, y, x + width, y + height], view.rotation],
      `page ${i + 1}`,
    );
  }
  await task.destroy();
  const info = withTemporaryFile(bytes, (file) =>
    execFileSync('pdfinfo', ['-f', '1', '-l', '3', file]).toString(),
  );
  const sizes = [...info.matchAll(/Page\s+\d+ size:\s+([\d.]+) x ([\d.]+)/g)].map(([, w, h]) => [
    Number(w),
    Number(h),
  ]);
  const rotations = [...info.matchAll(/Page\s+\d+ rot:\s+(\d+)/g)].map(([, r]) => Number(r));
  assert.deepEqual(rotations, [270, 90, 180]);
  assert.deepEqual(sizes, [
    [300, 400],
    [340, 420],
    [100, 100],
  ]);
});

// --- Inputs -------------------------------------------------------------------------------

/** A signature as the pad draws it: a dark stroke on a transparent 300 × 100 PNG. */
function drawnSignature(): Uint8Array {
  const canvas = createCanvas(300, 100);
  const context = canvas.getContext('2d');
  context.strokeStyle = '#101820';
  context.lineWidth = 5;
  context.beginPath();
  context.moveTo(12, 70);
  context.bezierCurveTo(80, -20, 150, 140, 288, 25);
  context.stroke();
  return canvas.toBuffer('image/png');
}

type PageSpec = { rotate: number; crop?: [number, number, number, number] };

/**
 * Pages of 500 × 700 points, as given, each with two words of its own at the middle of
 * its crop box, and content that leaves the graphics state changed (scaled and moved by a
 * `cm` with no q/Q around it), as careless producers do: drawing after it must not follow.
 */
async function pagesOf(specs: PageSpec[]): Promise<Uint8Array> {
  const pdf = await PDFDocument.create({ updateMetadata: false });
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const [i, spec] of specs.entries()) {
    const page = pdf.addPage([500, 700]);
    page.node.set(PDFName.Rotate, PDFNumber.of(spec.rotate));
    const [x1, y1, x2, y2] = spec.crop ?? [0, 0, 500, 700];
    if (spec.crop) page.node.set(PDFName.CropBox, pdf.context.obj(spec.crop));
    page.drawText(`Original${i + 1} words`, { x: (x1 + x2) / 2 - 40, y: (y1 + y2) / 2, size: 11, font });
    page.pushOperators(concatTransformationMatrix(2, 0, 0, 2, 30, 40));
  }
  return pdf.save({ useObjectStreams: false });
}

type TextField = Rect & { page: number; text: string; style: 'text' | 'handwriting' };

/** The text fields of one page, placed along its displayed edges. */
function textFieldsOn(page: number, view: { width: number; height: number }): TextField[] {
  const { width: w, height: h } = view;
  const field = (
    x: number,
    y: number,
    width: number,
    height: number,
    text: string,
    style = 'text' as const,
  ) => ({
    page,
    x,
    y,
    width,
    height,
    text,
    style,
  });
  return [
    field(30, h - 60, 220, 24, 'Zoë Łukasiewicz'),
    field(30, h - 100, 200, 18, 'zoe@example.com'),
    field(w - 140, 30, 110, 18, '2026-11-25'),
    field(30, 30, 170, 20, 'ACME Sp. z o.o., Warszawa'),
    field(30, 70, 120, 24, '山田太郎'),
    { ...field(30, 110, 200, 40, 'Zoë Łukasiewicz'), style: 'handwriting' as const },
  ];
}

const stampOf = (field: TextField): FieldStamp => ({
  ...field,
  content: { kind: 'text', text: field.text, style: field.style },
});

// --- What poppler sees ----------------------------------------------------------------------

/** Asserts that every word of the original's first `count` pages is still there, where it was. */
async function assertOriginalUnmoved(original: Uint8Array, after: BboxPage[], count: number): Promise<void> {
  const before = await pdftotextBbox(original);
  for (const page of before.slice(0, count)) {
    assert.ok(page.words.length > 0, `page ${page.page} of the original has words`);
    for (const word of page.words) {
      const same = after[page.page - 1]?.words.some(
        (w) =>
          w.text === word.text &&
          Math.abs(w.xMin - word.xMin) < 0.01 &&
          Math.abs(w.yMin - word.yMin) < 0.01 &&
          Math.abs(w.xMax - word.xMax) < 0.01 &&
          Math.abs(w.yMax - word.yMax) < 0.01,
      );
      assert.ok(same, `“${word.text}” of page ${page.page} kept its place: ${JSON.stringify(word)}`);
    }
  }
}

async function assertQpdfClean(pdf: Uint8Array): Promise<void> {
  const check = await qpdfCheck(pdf);
  assert.ok(!check.errors && !check.warnings, check.output);
}

// 2 pixels a point: text at the smallest size a field sets it (2 pt) still leaves ink.
const scale = 2;

/** A rendered page in points: its displayed size, and whether there is ink at a pixel. */
type Gray = {
  width: number;
  height: number;
  pixels: [number, number];
  dark: (x: number, y: number) => boolean;
};

function withTemporaryFile<T>(pdf: Uint8Array, use: (file: string) => T): T {
  const folder = mkdtempSync(join(tmpdir(), 'signet-fields-'));
  try {
    writeFileSync(join(folder, 'in.pdf'), pdf);
    return use(join(folder, 'in.pdf'));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** One page as pdftoppm renders it in gray, as displayed. */
function rendered(pdf: Uint8Array, page: number): Gray {
  const pgm = withTemporaryFile(pdf, (file) => {
    const args = [
      '-gray',
      '-r',
      `${72 * scale}`,
      '-cropbox',
      '-singlefile',
      '-f',
      `${page}`,
      '-l',
      `${page}`,
    ];
    execFileSync('pdftoppm', [...args, file, `${file}.out`]);
    return readFileSync(`${file}.out.pgm`);
  });
  const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.subarray(0, 40).toString('latin1'));
  assert.ok(header, 'a binary PGM');
  const [width, height] = [Number(header[1]), Number(header[2])];
  const start = header[0].length;
  return {
    width: width / scale,
    height: height / scale,
    pixels: [width, height],
    dark: (x, y) => (pgm[start + y * width + x] ?? 255) < 160,
  };
}

/** The dark pixels of `gray` in `rect` (view space). */
function inkIn(gray: Gray, rect: Rect): number {
  let ink = 0;
  for (
    let y = Math.ceil((gray.height - rect.y - rect.height) * scale);
    y < (gray.height - rect.y) * scale;
    y++
  ) {
    for (let x = Math.ceil(rect.x * scale); x < (rect.x + rect.width) * scale; x++)
      if (gray.dark(x, y)) ink++;
  }
  return ink;
}

/**
 * Asserts that the rendered page has ink in each rectangle (view space) and nowhere else
 * (a pixel's width of anti-aliasing allowed at their edges).
 */
function assertInkOnlyIn(gray: Gray, rects: Rect[]): void {
  const [columns, rows] = gray.pixels;
  const near = (x: number, y: number, r: Rect) => {
    // The pixel spans view x from x / scale to (x + 1) / scale, and view y downwards from v.
    const u = x / scale;
    const v = gray.height - y / scale;
    const slack = 1 / scale;
    return (
      u + slack >= r.x - slack &&
      u <= r.x + r.width + slack &&
      v >= r.y - slack &&
      v - slack <= r.y + r.height + slack
    );
  };
  for (let y = 0; y < rows; y++) {
    for (let x = 0; x < columns; x++) {
      if (gray.dark(x, y) && !rects.some((r) => near(x, y, r))) {
        assert.fail(`ink at (${x / scale}, ${gray.height - y / scale}) outside every field`);
      }
    }
  }
  for (const rect of rects) assert.ok(inkIn(gray, rect) > 10, `ink in ${JSON.stringify(rect)}`);
}

// --- The certificate -----------------------------------------------------------------------

const at = (minute: number) => new Date(Date.UTC(2026, 10, 25, 9, minute));

function certificateOf(fields: CertificateField[]): Certificate {
  const recipient = (fullName: string, email: string, own: CertificateField[]) => ({
    fullName,
    email,
    role: 'signer',
    signingMethod: 'standard',
    sent: null,
    openedAt: at(1),
    signedAt: at(2),
    declinedAt: null,
    clientIp: '203.0.113.7',
    userAgent: 'Test browser',
    signature: { kind: 'typed' as const, name: fullName },
    fields: own,
  });
  return {
    documentId: '6f1c2b8e-0000-4000-8000-000000000024',
    title: 'Fields agreement',
    workspaceName: 'Acme GmbH',
    originalSha256: 'cd'.repeat(32),
    originalPages: 1,
    sentAt: at(0),
    completedAt: at(3),
    verifyUrl: 'https://sign.example.com/verify',
    language: 'en' as const,
    recipients: [
      recipient('Zoë Łukasiewicz', 'zoe@example.com', fields),
      recipient('Otto Nofields', 'otto@example.com', []),
    ],
    events: [{ at: at(0), label: 'Sent', recipientEmail: null, clientIp: null, userAgent: null }],
  };
}

const seal = await createSelfSignedSeal({ commonName: 'Signet test seal', now: new Date() });
const sealInfo = { signedAt: new Date(), name: 'Signet', reason: 'test', fieldName: 'Signet seal fields' };

/** What completion does: stamps and certificate as one update, then the seal as another. */
async function stampCertifyAndSeal(original: Uint8Array, stamps: FieldStamp[], certificate: Certificate) {
  const doc = await loadForSealing(original);
  await certify(doc, certificate, stamps);
  return sealLoaded(doc, seal.identity, sealInfo);
}

// --- Drawn, and where ------------------------------------------------------------------------

const rotationsAndCrops: PageSpec[] = [
  { rotate: 0 },
  { rotate: 90 },
  { rotate: 180 },
  { rotate: -90 },
  { rotate: 0, crop: [60, 80, 400, 500] },
  { rotate: 270, crop: [50, 100, 450, 620] },
  { rotate: 90, crop: [40, 30, 480, 600] },
];

test('text values are drawn inside their fields on every rotation and crop box, and nothing else moves', async () => {
  const original = await pagesOf(rotationsAndCrops);
  const views = pageViews(await PDFDocument.load(original));
  const fields = views.flatMap((view, i) => textFieldsOn(i + 1, view));
  const { data, pages } = await appendCertificate(original, certificateOf([]), fields.map(stampOf));
  assert.ok(Buffer.from(data.subarray(0, original.byteLength)).equals(original), 'an incremental update');
  assert.ok(pages > rotationsAndCrops.length, 'the certificate follows');
  await assertQpdfClean(data);
  const words = await pdftotextBbox(data);
  for (const [i, view] of views.entries()) {
    const page = words[i] as BboxPage;
    assert.deepEqual([page.width, page.height], [view.width, view.height], `page ${i + 1}'s displayed size`);
  }
  for (const field of fields) assertWordsInside(words, field, field.text);
  await assertOriginalUnmoved(original, words, rotationsAndCrops.length);
});

test('a drawn signature and a tick are drawn inside their fields, and a text too long for its field is cut at its edges', async () => {
  const specs: PageSpec[] = [
    { rotate: 0 },
    { rotate: 90, crop: [40, 30, 480, 600] },
    { rotate: 180 },
    { rotate: 270 },
  ];
  const blank = await PDFDocument.create();
  for (const spec of specs) {
    const page = blank.addPage([500, 700]);
    page.node.set(PDFName.Rotate, PDFNumber.of(spec.rotate));
    if (spec.crop) page.node.set(PDFName.CropBox, blank.context.obj(spec.crop));
  }
  const original = await blank.save();
  const png = drawnSignature();
  const fieldsOn = (page: number) => ({
    signature: { page, x: 40, y: 60, width: 150, height: 40 },
    initials: { page, x: 220, y: 60, width: 30, height: 40 }, // the same image, far narrower
    check: { page, x: 40, y: 150, width: 16, height: 16 },
    overflow: { page, x: 100, y: 150, width: 60, height: 10 },
  });
  const stamps = specs.flatMap((_, i) => {
    const f = fieldsOn(i + 1);
    return [
      { ...f.signature, content: { kind: 'image', png } },
      { ...f.initials, content: { kind: 'image', png } },
      { ...f.check, content: { kind: 'check' } },
      { ...f.overflow, content: { kind: 'text', text: 'Wide words '.repeat(80), style: 'text' } },
    ] satisfies FieldStamp[];
  });
  const { data } = await appendCertificate(original, certificateOf([]), stamps);
  await assertQpdfClean(data);
  const images = await pdfImageList(data);
  for (const page of [1, 2, 3, 4]) {
    assert.match(images, new RegExp(`^\\s*${page}\\s+\\d+\\s+image\\s+300\\s+100\\s`, 'm'), `page ${page}`);
  }
  for (const page of [1, 2, 3, 4]) {
    const f = fieldsOn(page);
    assertInkOnlyIn(rendered(data, page), [f.signature, f.initials, f.check, f.overflow]);
  }
});

test('wrapped text stays inside its field, and every word of it is there', async () => {
  const original = await pagesOf([{ rotate: 90 }]);
  const text = 'Delivery to the loading dock at the rear of building C, weekdays between 8 and 16 only';
  const field = { page: 1, x: 300, y: 40, width: 150, height: 60 };
  const { data } = await appendCertificate(original, certificateOf([]), [
    { ...field, content: { kind: 'text', text, style: 'text' } },
  ]);
  const words = await pdftotextBbox(data);
  assertWordsInside(words, field, text);
  const lines = new Set(words[0]?.words.filter((w) => text.includes(w.text)).map((w) => Math.round(w.yMin)));
  assert.ok(lines.size > 1, `on more than one line: ${[...lines]}`);
});

test('a field on a page the document does not have is refused', async () => {
  const doc = await PDFDocument.load(await pagesOf([{ rotate: 0 }]));
  await assert.rejects(
    drawFieldStamps(doc, new FontSet(doc), [
      { page: 2, x: 0, y: 0, width: 10, height: 10, content: { kind: 'check' } },
    ]),
    /page 2, which the document does not have/,
  );
});

// Pages whose /Contents array and /Resources (with its /Font) are indirect objects shared by
// two pages, the first with an indirect /Annots array, and a page whose /Resources it inherits
// from the page tree: each page's stamps must show on that page (an unmarked change would be
// lost in the update), and only there (not on the page sharing its objects).
async function sharedObjects(): Promise<Uint8Array> {
  const pdf = await PDFDocument.create({ updateMetadata: false });
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const [first, second, third] = [0, 1, 2].map(() => pdf.addPage([500, 700]));
  assert.ok(first && second && third);
  first.drawText('Shared first', { x: 200, y: 400, size: 12, font });
  third.drawText('Inheriting third', { x: 200, y: 400, size: 12, font });
  const context = pdf.context;
  const resources = first.node.Resources() as PDFDict;
  resources.set(PDFName.Font, context.register(resources.lookup(PDFName.Font, PDFDict)));
  const resourcesRef = context.register(resources);
  const contentsRef = context.register(context.obj((first.node.Contents() as PDFArray).asArray()));
  const link = context.obj({ Type: 'Annot', Subtype: 'Link', Rect: [200, 390, 300, 415], Border: [0, 0, 0] });
  const annotsRef = context.register(context.obj([context.register(link)]));
  for (const page of [first, second]) {
    page.node.set(PDFName.Resources, resourcesRef);
    page.node.set(PDFName.Contents, contentsRef);
  }
  first.node.set(PDFName.Annots, annotsRef);
  pdf.catalog.Pages().set(PDFName.Resources, third.node.get(PDFName.Resources) as PDFDict);
  third.node.delete(PDFName.Resources);
  return pdf.save({ useObjectStreams: false });
}

test('stamps on pages with shared, indirect and inherited objects show on their own pages only; the seal still finds page 1', async () => {
  const original = await sharedObjects();
  const text = (page: number, y: number, value: string) => ({
    page,
    x: 40,
    y,
    width: 200,
    height: 20,
    text: value,
    style: 'text' as const,
  });
  const texts = [text(1, 40, 'Zoë Łukasiewicz'), text(2, 80, 'otto@example.com'), text(3, 40, '2026-11-25')];
  const signature = { page: 3, x: 40, y: 100, width: 150, height: 40 };
  const sealed = await stampCertifyAndSeal(
    original,
    [...texts.map(stampOf), { ...signature, content: { kind: 'image', png: drawnSignature() } }],
    certificateOf([]),
  );
  const words = await pdftotextBbox(sealed);
  for (const field of texts) assertWordsInside(words, field, field.text);
  assert.deepEqual(
    words.slice(0, 3).map((page) => page.words.map((w) => w.text).sort()),
    [
      ['Shared', 'Zoë', 'first', 'Łukasiewicz'],
      ['Shared', 'first', 'otto@example.com'],
      ['2026-11-25', 'Inheriting', 'third'],
    ],
    'each page has its own values only',
  );
  await assertOriginalUnmoved(original, words, 3);
  assert.match(await pdfImageList(sealed), /^\s*3\s+\d+\s+image\s+300\s+100\s/m);
  await assertQpdfClean(sealed);
  const { signatures } = await pdfsig(sealed);
  assert.equal(signatures.length, 1);
  assert.equal(signatures[0]?.validation, 'Signature is Valid.', signatures[0]?.text);
  // The seal's widget joined the link in the first page's annotations.
  const reread = await PDFDocument.load(sealed);
  const annots = reread.getPage(0).node.Annots();
  const subtypes = annots
    ?.asArray()
    .map((ref) => reread.context.lookup(ref, PDFDict).get(PDFName.of('Subtype')));
  assert.deepEqual(subtypes?.map(String), ['/Link', '/Widget']);
});

test('the certificate lists the fields each signer filled, under the signer', async () => {
  const original = await pagesOf([{ rotate: 0 }, { rotate: 0 }]);
  const fields: CertificateField[] = [
    { name: 'Signature', label: null, page: 2, value: null },
    { name: 'Text', label: 'Company', page: 2, value: 'ACME Ltd' },
    { name: 'Checkbox', label: 'I agree', page: 1, value: 'checked' },
    { name: 'Date signed', label: null, page: 2, value: '2026-11-25' },
    { name: 'Full name', label: null, page: 1, value: 'Zoë Łukasiewicz' },
  ];
  const { data } = await appendCertificate(original, certificateOf(fields));
  const text = await pdftotext(data);
  const rows = [
    'Field, page 2 Signature',
    'Field, page 2 Text “Company”: ACME Ltd',
    'Field, page 1 Checkbox “I agree”: checked',
    'Field, page 2 Date signed: 2026-11-25',
    'Field, page 1 Full name: Zoë Łukasiewicz',
  ];
  let from = text.indexOf('Zoë Łukasiewicz <zoe@example.com> Role');
  assert.ok(from >= 0, text);
  for (const row of rows) {
    const found = text.indexOf(row, from);
    assert.ok(found > from, `${row} after the row before it in ${text.slice(from, from + 600)}`);
    from = found;
  }
  const otto = text.slice(
    text.indexOf('Otto Nofields <otto@example.com> Role'),
    text.indexOf('Event history'),
  );
  assert.doesNotMatch(otto, /Field, page/, 'a signer with no fields has no field rows');
});

// The real-world files of test/fixtures/pdf: values drawn on page 1 of each, the certificate
// appended and the whole sealed as completion does it. Every signature stays valid (the
// earlier one of openssl-signed.pdf too), qpdf finds no errors, the values are where their
// fields are and the original text where it was.
const fixtures = join(import.meta.dirname, '..', 'fixtures', 'pdf');
for (const name of [
  'latex-xref-table.pdf',
  'latex-object-streams.pdf',
  'chromium-print.pdf',
  'latex-form-appearances.pdf',
  'openssl-signed.pdf',
]) {
  test(`${name}: values drawn on its page, certified and sealed; every signature stays valid`, async () => {
    const original = new Uint8Array(readFileSync(join(fixtures, name)));
    const texts: TextField[] = [
      { page: 1, x: 72, y: 300, width: 220, height: 24, text: 'Zoë Łukasiewicz', style: 'handwriting' },
      { page: 1, x: 320, y: 300, width: 120, height: 20, text: '2026-11-25', style: 'text' },
      { page: 1, x: 72, y: 180, width: 200, height: 18, text: '山田太郎 zoe@example.com', style: 'text' },
    ];
    const signature = { page: 1, x: 72, y: 220, width: 180, height: 60 };
    const check = { page: 1, x: 320, y: 240, width: 18, height: 18 };
    const stamps: FieldStamp[] = [
      ...texts.map(stampOf),
      { ...signature, content: { kind: 'image', png: drawnSignature() } },
      { ...check, content: { kind: 'check' } },
    ];
    const certificate = certificateOf([
      { name: 'Signature', label: null, page: 1, value: null },
      { name: 'Checkbox', label: 'I agree', page: 1, value: 'checked' },
    ]);
    const sealed = await stampCertifyAndSeal(original, stamps, certificate);
    await assertSealedOver(original, sealed, name === 'openssl-signed.pdf' ? 2 : 1, name);
    const words = await pdftotextBbox(sealed);
    for (const field of texts) assertWordsInside(words, field, field.text);
    await assertOriginalUnmoved(original, words, 1);
    assert.match(await pdfImageList(sealed), /^\s*1\s+\d+\s+image\s+300\s+100\s/m);
    assert.ok(inkIn(rendered(sealed, 1), check) > 10, 'the tick is drawn');
    assert.match(await pdftotext(sealed), /Field, page 1 Checkbox “I agree”: checked/);
  });
}
