// Issue 48 §1, the ToUnicode lie: a page that draws "Total price: 100 EUR / 30 days" while
// its text layer reads "999 EUR / 39 days" (what a search, a copy or a screen reader gets) is
// refused at upload, through the new-document form on both databases, in three kinds of font
// (an embedded TrueType font, the standard Helvetica, a Type 0 font with Identity-H); poppler's
// pdftotext shows the lie is real. The same files with honest maps, and every real file of
// test/fixtures/pdf/ (pdfTeX, Chromium, a signed file, Ghostscript's rewrites), are accepted.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import fontkit, { type Font } from '@cantoo/fontkit';
import { PDFArray, PDFDict, PDFDocument, PDFName, StandardFonts } from '@cantoo/pdf-lib';
import { InputError } from '../../src/input-error.ts';
import { matters } from '../../src/pdf/cmap.ts';
import { glyphNameText } from '../../src/pdf/glyph-names.ts';
import { inspectPdf } from '../../src/pdf/inspect.ts';
import { loadPdf } from '../../src/pdf/load.ts';
import { judgeText, textTruthSentences } from '../../src/pdf/text-truth.ts';
import { countRows, describeEachDatabase, useHarness } from '../support/harness.ts';
import { pdftotext } from '../support/pdf-tools.ts';
import { assertPage, newDocumentFields, pdfFile, webPeople } from '../support/web-client.ts';

const shown = 'Total price: 100 EUR / 30 days';
const fixtures = join(import.meta.dirname, '..', 'fixtures', 'pdf');
const notoPath = createRequire(import.meta.url).resolve(
  '@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf',
);
const notoBytes = readFileSync(notoPath);
const noto = fontkit.create(notoBytes) as Font;

const hex = (value: number, bytes: number) =>
  value
    .toString(16)
    .toUpperCase()
    .padStart(bytes * 2, '0');
const utf16 = (text: string) => [...text].map((char) => hex(char.codePointAt(0) as number, 2)).join('');

/** A ToUnicode CMap of codes `width` bytes wide: its bfrange and bfchar lines, in that order. */
function cmap(width: 1 | 2, ranges: string[], chars: Array<[number, string]>): string {
  const space = width === 1 ? '<00> <FF>' : '<0000> <FFFF>';
  const rangeBlock =
    ranges.length > 0 ? `${ranges.length} beginbfrange\n${ranges.join('\n')}\nendbfrange\n` : '';
  const charBlock =
    chars.length > 0
      ? `${chars.length} beginbfchar\n${chars.map(([code, text]) => `<${hex(code, width)}> <${utf16(text)}>`).join('\n')}\nendbfchar\n`
      : '';
  return `/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n1 begincodespacerange\n${space}\nendcodespacerange\n${rangeBlock}${charBlock}endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n`;
}

const byteCodes = (lie: boolean) =>
  cmap(
    1,
    ['<20> <7E> <0020>'],
    lie
      ? [
          ['1'.charCodeAt(0), '9'],
          ['0'.charCodeAt(0), '9'],
        ]
      : [],
  );

/**
 * `data` with every font of its first page given the ToUnicode map `cmapOf` writes, and
 * whatever else `change` does to the font.
 */
async function withToUnicode(
  data: Uint8Array,
  cmapOf: () => string,
  change?: (pdf: PDFDocument, font: PDFDict) => void,
): Promise<Uint8Array> {
  const pdf = await PDFDocument.load(data);
  const fonts = pdf.getPage(0).node.Resources()?.lookup(PDFName.of('Font'), PDFDict);
  assert.ok(fonts, 'the page has fonts');
  for (const key of fonts.keys()) {
    const font = fonts.lookup(key, PDFDict);
    font.set(PDFName.of('ToUnicode'), pdf.context.register(pdf.context.flateStream(cmapOf())));
    change?.(pdf, font);
  }
  return pdf.save();
}

/** Helvetica, WinAnsiEncoding, as pdf-lib writes a standard font (no program, no map). */
async function helvetica(lie: boolean): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  pdf.addPage([612, 792]).drawText(shown, { x: 72, y: 700, size: 24, font });
  return withToUnicode(await pdf.save(), () => byteCodes(lie));
}

/**
 * A simple TrueType font with Noto Sans embedded whole (/FontFile2) and no /Encoding: each
 * code's glyph is the one the program's cmap gives it, so only the program says what it is.
 */
async function trueType(lie: boolean): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const page = pdf.addPage([612, 792]);
  const scale = 1000 / noto.unitsPerEm;
  const widths = Array.from({ length: 95 }, (_, k) =>
    Math.round((noto.glyphForCodePoint(0x20 + k)?.advanceWidth ?? 0) * scale),
  );
  const { context } = pdf;
  const program = context.register(context.flateStream(notoBytes, { Length1: notoBytes.length }));
  const descriptor = context.register(
    context.obj({
      Type: 'FontDescriptor',
      FontName: 'NotoSans-Regular',
      Flags: 4,
      FontBBox: [noto.bbox.minX, noto.bbox.minY, noto.bbox.maxX, noto.bbox.maxY].map((v) =>
        Math.round(v * scale),
      ),
      ItalicAngle: 0,
      Ascent: Math.round(noto.ascent * scale),
      Descent: Math.round(noto.descent * scale),
      CapHeight: Math.round(noto.capHeight * scale),
      StemV: 80,
      FontFile2: program,
    }),
  );
  const font = context.register(
    context.obj({
      Type: 'Font',
      Subtype: 'TrueType',
      BaseFont: 'NotoSans-Regular',
      FirstChar: 32,
      LastChar: 126,
      Widths: widths,
      FontDescriptor: descriptor,
    }),
  );
  page.node.setFontDictionary(PDFName.of('F1'), font);
  const contents = context.flateStream(`BT /F1 24 Tf 72 700 Td (${shown}) Tj ET`);
  page.node.set(PDFName.of('Contents'), context.register(contents));
  return withToUnicode(await pdf.save(), () => byteCodes(lie));
}

/**
 * A Type 0 font, Identity-H, Noto Sans embedded whole by pdf-lib (codes are glyph numbers);
 * with `streams`, the encoding an embedded CMap and the CIDToGIDMap a stream, saying the same.
 */
async function type0(lie: boolean, streams = false): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  pdf.registerFontkit(fontkit);
  const font = await pdf.embedFont(notoBytes, { subset: false });
  pdf.addPage([612, 792]).drawText(shown, { x: 72, y: 700, size: 24, font });
  const chars: Array<[number, string]> = [...new Set(shown)].map((char) => {
    const gid = noto.glyphForCodePoint(char.codePointAt(0) as number)?.id as number;
    return [gid, lie && (char === '1' || char === '0') ? '9' : char];
  });
  return withToUnicode(
    await pdf.save(),
    () => cmap(2, [], chars),
    streams ? (pdf, type0Font) => embedEncodingStreams(pdf, type0Font) : undefined,
  );
}

function embedEncodingStreams(pdf: PDFDocument, font: PDFDict): void {
  const encoding = `/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n/CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> def\n/CMapName /Signet-Test-H def\n/CMapType 1 def\n1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n2 begincidrange\n<0000> <7FFF> 0\n<8000> <FFFF> 32768\nendcidrange\nendcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n`;
  font.set(
    PDFName.of('Encoding'),
    pdf.context.register(pdf.context.flateStream(encoding, { Type: 'CMap', CMapName: 'Signet-Test-H' })),
  );
  const identity = new Uint8Array(2 * noto.numGlyphs);
  for (let gid = 0; gid < noto.numGlyphs; gid++) {
    identity[2 * gid] = gid >> 8;
    identity[2 * gid + 1] = gid & 0xff;
  }
  const descendants = font.lookup(PDFName.of('DescendantFonts'));
  assert.ok(descendants instanceof PDFArray);
  const cidFont = descendants.lookup(0, PDFDict);
  cidFont.set(PDFName.of('CIDToGIDMap'), pdf.context.register(pdf.context.flateStream(identity)));
}

const kinds: Array<[string, (lie: boolean) => Promise<Uint8Array>]> = [
  ['an embedded TrueType font', trueType],
  ['the standard Helvetica (WinAnsiEncoding)', helvetica],
  ['a Type 0 font (Identity-H)', (lie) => type0(lie)],
  ['a Type 0 font (an embedded CMap and a CIDToGIDMap stream)', (lie) => type0(lie, true)],
];

async function refusal(data: Uint8Array): Promise<string | null> {
  try {
    await inspectPdf(data, { maxBytes: 25 * 1024 * 1024 });
    return null;
  } catch (error) {
    if (error instanceof InputError) return error.fields.file ?? error.message;
    throw error;
  }
}

test('the lying files really read 999 and 39 where 100 and 30 are drawn, and the honest ones do not', async () => {
  for (const [kind, make] of kinds) {
    const lying = await pdftotext(await make(true));
    assert.match(lying, /Total price: 999 EUR \/ 39 days/, `${kind}: the lie is real for poppler`);
    const honest = await pdftotext(await make(false));
    assert.match(honest, /Total price: 100 EUR \/ 30 days/, `${kind}: the honest map reads what is drawn`);
  }
});

test('a ToUnicode map reading a letter or a space as a digit is refused; one spelling out a ligature or a space is not', async () => {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  pdf.addPage([612, 792]).drawText('Sum: lOO EUR, office', { x: 72, y: 700, size: 24, font });
  const saved = await pdf.save();
  const letters = await withToUnicode(saved, () =>
    cmap(
      1,
      ['<20> <7E> <0020>'],
      [
        ['l'.charCodeAt(0), '1'],
        ['O'.charCodeAt(0), '0'],
      ],
    ),
  );
  assert.match(await pdftotext(letters), /Sum: 100 EUR/);
  assert.equal(await refusal(letters), textTruthSentences.contradiction);
  const space = await withToUnicode(saved, () => cmap(1, ['<21> <7E> <0021>'], [[0x20, '5']]));
  assert.equal(await refusal(space), textTruthSentences.contradiction);
  // The array form of bfrange, with "ffi" for a code and a no-break space for the space: no
  // character that matters is read otherwise than drawn.
  const honest = await withToUnicode(saved, () =>
    cmap(1, ['<21> <7E> <0021>', `<20> <20> [<00A0>]`, `<AE> <AF> [<006600660069> <00660066>]`], []),
  );
  assert.equal(await refusal(honest), null);
});

test('what matters is compared as readers would spell it: digits by value, dashes and slashes alike, glyph names by the AGL rules', () => {
  assert.equal(matters('Total 1,000.50 € / 30 days'), '1,000.50€/30');
  assert.equal(matters('٣'), matters('3'), 'an Arabic-Indic three is a three');
  assert.equal(matters('¹'), '1', 'NFKC: a superscript one');
  assert.equal(matters('−'), matters('-'), 'a minus sign as a hyphen-minus');
  assert.equal(matters('⁄'), '/', 'the fraction slash');
  assert.equal(matters('ffi office'), '', 'letters do not matter');
  assert.equal(glyphNameText('one'), '1');
  assert.equal(glyphNameText('one.tnum'), '1', 'a suffix is stripped');
  assert.equal(glyphNameText('uni0033'), '3');
  assert.equal(glyphNameText('u1D7CE'), '𝟎');
  assert.equal(glyphNameText('f_f_i'), 'ffi', 'a ligature');
  assert.equal(glyphNameText('eacute'), 'e', 'an accented letter is a letter');
  assert.equal(glyphNameText('g17'), null, 'a made-up name says nothing');
  assert.equal(glyphNameText('uniD800'), null, 'a surrogate is no character');
});

test('every real file is accepted, and its digits were judged where its fonts say what their glyphs are', async () => {
  const files: Array<[string, boolean]> = [
    ['latex-xref-table.pdf', true],
    ['latex-object-streams.pdf', true],
    ['latex-form-appearances.pdf', true],
    ['chromium-print.pdf', true],
    ['openssl-signed.pdf', true],
    ['ghostscript-latex.pdf', false],
    ['ghostscript-chromium.pdf', false],
  ];
  const rows = [
    ...files.map(([file, judged]): [string, Uint8Array, boolean] => [
      file,
      readFileSync(join(fixtures, file)),
      judged,
    ]),
    [
      'the demo statement of work (pdfTeX)',
      readFileSync(join(import.meta.dirname, '..', '..', 'src', 'demo', 'statement-of-work.pdf')),
      true,
    ] as [string, Uint8Array, boolean],
  ];
  for (const [what, data, judged] of rows) {
    assert.equal(await refusal(data), null, what);
    const { sentence, figures } = judgeText(await loadPdf(data));
    assert.equal(sentence, null, what);
    if (judged)
      assert.ok(figures.judged > 0, `${what}: some digits were checked (${JSON.stringify(figures)})`);
    else
      assert.equal(figures.judged, 0, `${what}: its subset fonts name nothing (${JSON.stringify(figures)})`);
  }
});

test('a subset font that names none of its glyphs is not refused, lie or not: the documented limit', async () => {
  const pdf = await PDFDocument.create();
  pdf.registerFontkit(fontkit);
  const font = await pdf.embedFont(notoBytes, { subset: true });
  pdf.addPage([612, 792]).drawText(shown, { x: 72, y: 700, size: 24, font });
  const saved = await pdf.save();
  // pdf-lib numbers a subset's glyphs from 1 in the order first drawn: every one read as "9".
  const nines = Array.from({ length: 40 }, (_, k): [number, string] => [k + 1, '9']);
  const lying = await withToUnicode(saved, () => cmap(2, [], nines));
  assert.match(await pdftotext(lying), /999/);
  const { sentence, figures } = judgeText(await loadPdf(lying));
  assert.equal(sentence, null);
  assert.ok(figures.mapped > 0 && figures.judged === 0, JSON.stringify(figures));
});

test('a ToUnicode map defining more codes than can be checked is refused as too large', async () => {
  const huge = await withToUnicode(await helvetica(false), () =>
    cmap(2, ['<00000000> <FFFFFFFF> <0030>'], []),
  );
  assert.equal(await refusal(huge), textTruthSentences.tooLarge);
});

describeEachDatabase('uploading a PDF whose text says other digits than its pages show', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: 'true' } });
  const people = webPeople(h, '10.48');
  const fields = newDocumentFields('Supply agreement');

  for (const [fontKind, make] of kinds) {
    test(`${fontKind}: the lie is refused beside the file field and nothing is stored; the honest file is accepted`, async () => {
      const client = await people.signedIn(await people.newOwner());
      assertPage(await client.get('/documents/new'), 200);
      const [files, documents] = [await countRows(h.ctx, 'files'), await countRows(h.ctx, 'documents')];
      const refused = await client.post('/documents', { ...fields, file: pdfFile(await make(true)) });
      assertPage(refused, 400, fontKind);
      assert.ok(
        refused.text.includes(textTruthSentences.contradiction.replaceAll("'", '&#39;')),
        `${fontKind}: the sentence is shown`,
      );
      assert.match(refused.text, /<span class="field-error" id="file-error">/);
      assert.equal(await countRows(h.ctx, 'files'), files, 'no file stored');
      assert.equal(await countRows(h.ctx, 'documents'), documents, 'no document stored');
      const accepted = await client.post('/documents', { ...fields, file: pdfFile(await make(false)) });
      assert.equal(accepted.status, 303, accepted.text);
      assert.equal(await countRows(h.ctx, 'files'), files + 1);
    });
  }
});
