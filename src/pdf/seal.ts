// Seals a PDF with a PAdES baseline B-B signature (/SubFilter /ETSI.CAdES.detached).
// The signature is added as an incremental update: the original bytes stay exactly as they
// were, so signatures already in the file keep verifying, and the update uses the same kind of
// cross-reference section (table or stream) as the file's last one, which every reader accepts.
// The field is invisible (zero rectangle on the first page): the visible record of signing is
// the certificate of completion; the seal is what makes the file tamper-evident. The seal also
// says what may change after it, for readers that judge permissions (Acrobat-class readers
// treat a form fill or a comment after an approval signature as allowed): it certifies the
// document with no changes permitted (DocMDP, P = 1) when it is the file's first signature,
// and, after someone else's signature (a certification can only be the first), locks every
// field and the document with its own field (FieldMDP and a /Lock with P = 1); docs/deployment.md
// ("What the seal permits, and what readers show") says why.
import { randomBytes } from 'node:crypto';
import {
  PDFArray,
  PDFDict,
  type PDFDocument,
  PDFHexString,
  PDFInvalidObject,
  PDFName,
  PDFNumber,
  PDFRef,
  PDFString,
} from '@cantoo/pdf-lib';
import { inEnglish } from '../i18n/refusals.ts';
import { activeContentOf, activeContentSentence } from './active-content.ts';
import { createCadesSignature, digestParts, maxCadesSignatureBytes, type Timestamper } from './cms.ts';
import { checkDecodeBudget } from './decode-budget.ts';
import { loadPdf } from './load.ts';
import { oneLookOf } from './one-look.ts';
import type { SealIdentity } from './seal-identity.ts';
import { textContradictionsOf } from './text-truth.ts';

export type SealInfo = {
  signedAt: Date; // written as the signature dictionary's /M (PAdES B-B keeps the time there)
  name: string; // /Name, e.g. 'Signet'
  reason: string;
  location?: string;
  contactInfo?: string;
  fieldName: string; // e.g. 'Signet seal <documentId>'; made unique among the form's fields
};

export type SealOptions = {
  timestamp?: Timestamper; // RFC 3161 signature time-stamp (B-T)
  timestampReserveBytes?: number; // room for the token in /Contents; TSA tokens with chains run 3–8 KB
};

/**
 * What the seal permits after it (ISO 32000-2 12.8.2.2, 12.8.2.4, Table 236): `certify` when
 * no signature comes before it (`hasEarlierSignature`), `lock` after one.
 */
type SealPermissions = 'certify' | 'lock';

const defaultTimestampReserveBytes = 16 * 1024;
// '[0 ' + three 10-digit numbers separated by spaces + ']': offsets up to 9,999,999,999 bytes.
const byteRangeWidth = 36;
// /F: print (4) + locked (128), so viewers print the (empty) widget and nobody moves or deletes it.
const widgetFlags = 132;

/** PDF date (ISO 32000 7.9.4) in UTC: D:YYYYMMDDHHmmSSZ. */
export function pdfDate(date: Date): string {
  const iso = date.toISOString(); // 2025-03-14T09:26:53.589Z
  return `D:${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
}

/** A PDF text string: a literal for printable ASCII, UTF-16BE with a byte order mark otherwise. */
export function pdfTextString(text: string): string {
  if (/^[\x20-\x7e]*$/.test(text)) return `(${text.replace(/[\\()]/g, (c) => `\\${c}`)})`;
  return `<FEFF${Buffer.from(text, 'utf16le').swap16().toString('hex').toUpperCase()}>`;
}

/**
 * `pdf` loaded for incremental updates: the certificate (certificate.ts) and then the seal
 * are appended to the one loaded document, so a large file is parsed once.
 */
export async function loadForSealing(pdf: Uint8Array): Promise<PDFDocument> {
  // Files stored before the upload rule checked the decode budget are checked here, before
  // pdf-lib inflates anything: a bomb fails its seal attempt instead of exhausting memory.
  const overBudget = checkDecodeBudget(pdf);
  if (overBudget !== null) throw new Error(`The PDF cannot be sealed: ${inEnglish(overBudget)}`);
  let doc: PDFDocument;
  try {
    // The one reading (load.ts): what signers were shown is what gets stamped and sealed. The
    // Info dictionary stays as the author left it; encryption is checked below.
    doc = await loadPdf(pdf, {
      forIncrementalUpdate: true,
      parseSpeed: 1500, // objects parsed between yields to the event loop, which the server shares
    });
  } catch (error) {
    throw new Error(`The file is not a PDF that can be sealed (${(error as Error).message}).`);
  }
  if (doc.isEncrypted) throw new Error('The PDF is encrypted or password-protected, so it cannot be sealed.');
  if (doc.getPageCount() === 0) throw new Error('The PDF has no pages, so it cannot be sealed.');
  // Files stored before the upload rule refused active content are not sealed with it.
  const active = activeContentOf(doc);
  if (active.length > 0) throw new Error(`The PDF cannot be sealed: ${activeContentSentence(active)}`);
  // And those stored before the one-look and text-truth rules (issue 48): a file that readers
  // show differently, or whose text reads otherwise than it is drawn, is not sealed as if
  // everyone saw the same.
  const look = oneLookOf(doc);
  if (look.refusals.length > 0)
    throw new Error(
      `The PDF cannot be sealed: ${look.refusals.map((refusal) => inEnglish(refusal)).join(' ')}`,
    );
  const contradiction = textContradictionsOf(doc);
  if (contradiction !== null) throw new Error(`The PDF cannot be sealed: ${inEnglish(contradiction)}`);
  return doc;
}

// An update's cross-reference section takes the form of the file's last one, a table after a
// table and a stream after a stream, so any reader that reads the original reads the update
// (a stream after a table would lock out pre-1.5 readers; qpdf and poppler accept both here).
function lastSectionIsStream(pdf: Uint8Array, startXref: number, anyXrefStream: boolean): boolean {
  if (startXref <= 0 || startXref + 4 > pdf.length) return anyXrefStream;
  const head = Buffer.from(pdf.buffer, pdf.byteOffset + startXref, 4).toString('latin1');
  return head !== 'xref';
}

/**
 * Readies `doc` (loaded by `loadForSealing`) for its next incremental update, the
 * certificate's or the seal's, and returns how the update is written: its cross-reference
 * section in the form of the file's last one; and the trailer's /ID renewed, its first
 * element kept and its second new, as ISO 32000 (14.4) asks of every update, so two revisions
 * of a file are never taken for the same one.
 */
export function prepareUpdate(doc: PDFDocument): { useObjectStreams: boolean } {
  const { context } = doc;
  const details = context.pdfFileDetails;
  const pdf = details.originalBytes;
  if (!pdf) throw new Error('prepareUpdate needs a document loaded by loadForSealing');
  const id = context.lookup(context.trailerInfo.ID);
  const first = id instanceof PDFArray ? id.lookup(0) : undefined;
  const fresh = PDFHexString.of(randomBytes(16).toString('hex').toUpperCase());
  context.trailerInfo.ID = context.obj([
    first instanceof PDFHexString || first instanceof PDFString ? first : fresh,
    fresh,
  ]);
  return { useObjectStreams: lastSectionIsStream(pdf, details.prevStartXRef, details.useObjectStreams) };
}

/**
 * Appends `doc`'s changes as one incremental update (the certificate's), prepared as above,
 * and returns the file so far; `doc` stays loaded for the next update (the seal's).
 */
export async function commitUpdate(doc: PDFDocument): Promise<Uint8Array> {
  const before = doc.context.pdfFileDetails.originalBytes?.length ?? 0;
  const data = await doc.commit(prepareUpdate(doc));
  // pdf-lib numbers the object and cross-reference streams of an update it writes with object
  // streams without counting them in the context, so the next update would reuse their numbers
  // and overwrite them (the seal's objects replacing the certificate's object stream). The
  // update's own /Size says which numbers it took.
  const update = Buffer.from(data.buffer, data.byteOffset + before, data.length - before).toString('latin1');
  const size = [...update.matchAll(/\/Size\s+(\d+)/g)].at(-1)?.[1];
  if (size) doc.context.largestObjectNumber = Math.max(doc.context.largestObjectNumber, Number(size) - 1);
  return data;
}

function fieldNamesOf(fields: PDFArray): Set<string> {
  const names = new Set<string>();
  for (let index = 0; index < fields.size(); index++) {
    const field = fields.lookup(index);
    const name = field instanceof PDFDict ? field.lookup(PDFName.of('T')) : undefined;
    if (name && 'decodeText' in name && typeof name.decodeText === 'function') names.add(name.decodeText());
  }
  return names;
}

// Partial field names may not contain periods (ISO 32000 12.7.3.2), and two fields of the
// same name would be one field: a second seal with the same name gets ' (2)'.
function uniqueFieldName(wanted: string, taken: Set<string>): string {
  const base = wanted.replaceAll('.', '_');
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base} (${n})`;
  return name;
}

function rawObject(doc: PDFDocument, text: string): PDFRef {
  return doc.context.register(PDFInvalidObject.of(new Uint8Array(Buffer.from(text, 'latin1'))));
}

type Placeholder = { token: string; contentsHexLength: number };

// How deep and how many fields are looked at for an earlier signature: forms nest a few levels
// (ISO 32000 12.7.3.1); a file that hides one deeper is locked rather than certified, which
// never breaks the earlier signature.
const maxFieldDepth = 16;
const maxFieldsSearched = 10_000;

/**
 * Whether the file already carries a signature: a signature field (its /FT inherited as
 * ISO 32000 12.7.3.1 says) whose /V is a signature dictionary, or a certification in the
 * catalog's /Perms. A DocMDP certification may only be the first signature (ISO 32000-1
 * 12.8.2.2.1), so after any of these the seal locks instead of certifying.
 */
function hasEarlierSignature(catalog: PDFDict, fields: PDFArray): boolean {
  const perms = catalog.lookup(PDFName.of('Perms'));
  if (perms instanceof PDFDict && perms.has(PDFName.of('DocMDP'))) return true;
  let searched = 0;
  const signed = (list: PDFArray, inheritedType: PDFName | undefined, depth: number): boolean => {
    for (let index = 0; index < list.size(); index++) {
      if (++searched > maxFieldsSearched || depth > maxFieldDepth) return true;
      const field = list.lookup(index);
      if (!(field instanceof PDFDict)) continue;
      const own = field.lookup(PDFName.of('FT'));
      const type = own instanceof PDFName ? own : inheritedType;
      if (type === PDFName.of('Sig') && field.lookup(PDFName.of('V')) instanceof PDFDict) return true;
      const kids = field.lookup(PDFName.of('Kids'));
      if (kids instanceof PDFArray && signed(kids, type, depth + 1)) return true;
    }
    return false;
  };
  return signed(fields, undefined, 0);
}

// The signature reference (ISO 32000-2 Table 256) and the field's lock (Table 236) of each
// case. /DigestMethod is required by ISO 32000-2:2020 (no default is defined); /Data, required
// for FieldMDP only, names the catalog, the root of every field the lock covers. The lock's
// /P 1 (PDF 2.0) makes any later change invalidate the seal, as the certification's does.
function referenceOf(permissions: SealPermissions, catalog: PDFRef): string {
  if (permissions === 'certify') {
    return '/Reference [<< /Type /SigRef /TransformMethod /DocMDP /DigestMethod /SHA256 /TransformParams << /Type /TransformParams /P 1 /V /1.2 >> >>]';
  }
  return `/Reference [<< /Type /SigRef /TransformMethod /FieldMDP /DigestMethod /SHA256 /Data ${catalog} /TransformParams << /Type /TransformParams /Action /All /V /1.2 >> >>]`;
}
const fieldLock = '/Lock << /Type /SigFieldLock /Action /All /P 1 >>';

// The signature dictionary, the widget and its appearance are written as raw bytes: pdf-lib
// leaves such objects uncompressed (never in an object stream), where /ByteRange and /Contents
// can be filled in place and where a verifier finds them without inflating anything.
function addSignatureField(doc: PDFDocument, info: SealInfo, placeholder: Placeholder): void {
  const page = doc.getPage(0);
  const catalog = doc.catalog;
  let acroForm = catalog.lookup(PDFName.of('AcroForm'));
  if (!(acroForm instanceof PDFDict)) {
    acroForm = doc.context.obj({ Fields: [] });
    catalog.set(PDFName.of('AcroForm'), doc.context.register(acroForm));
  }
  const form = acroForm as PDFDict;
  let fields = form.lookup(PDFName.of('Fields'));
  if (!(fields instanceof PDFArray)) {
    fields = doc.context.obj([]);
    form.set(PDFName.of('Fields'), fields);
  }
  const fieldName = uniqueFieldName(info.fieldName, fieldNamesOf(fields as PDFArray));
  // Decided before the seal's own field joins the form, which is not yet signed.
  const permissions: SealPermissions = hasEarlierSignature(catalog, fields as PDFArray) ? 'lock' : 'certify';
  const catalogRef = doc.context.trailerInfo.Root;
  if (!(catalogRef instanceof PDFRef)) throw new Error('The PDF has no catalog reference in its trailer.');

  const entries = [
    '/Type /Sig',
    '/Filter /Adobe.PPKLite',
    '/SubFilter /ETSI.CAdES.detached',
    `/M ${pdfTextString(pdfDate(info.signedAt))}`,
    `/Name ${pdfTextString(info.name)}`,
    referenceOf(permissions, catalogRef),
    `/Reason ${pdfTextString(info.reason)}`,
    info.location === undefined ? '' : `/Location ${pdfTextString(info.location)}`,
    info.contactInfo === undefined ? '' : `/ContactInfo ${pdfTextString(info.contactInfo)}`,
    `/ByteRange ${`[/${placeholder.token}`.padEnd(byteRangeWidth - 1)}]`,
    `/Contents <${'0'.repeat(placeholder.contentsHexLength)}>`,
  ];
  const signatureRef = rawObject(doc, `<<\n${entries.filter(Boolean).join('\n')}\n>>`);
  // An empty appearance: PDF/A wants one on every widget, even an invisible one.
  const appearanceRef = rawObject(
    doc,
    '<<\n/Type /XObject\n/Subtype /Form\n/BBox [0 0 0 0]\n/Resources << >>\n/Length 0\n>>\nstream\n\nendstream',
  );
  const widgetRef = rawObject(
    doc,
    `<<\n/Type /Annot\n/Subtype /Widget\n/FT /Sig\n/Rect [0 0 0 0]\n/F ${widgetFlags}\n` +
      `/T ${pdfTextString(fieldName)}\n/V ${signatureRef}\n/P ${page.ref}\n/AP << /N ${appearanceRef} >>\n` +
      `${permissions === 'lock' ? `${fieldLock}\n` : ''}>>`,
  );
  // The certification's other half (ISO 32000-2 12.8.6): the catalog's /Perms names the seal,
  // and nothing else (a usage-rights /UR3 signed by someone else would no longer hold anyway).
  if (permissions === 'certify') catalog.set(PDFName.of('Perms'), doc.context.obj({ DocMDP: signatureRef }));

  (fields as PDFArray).push(widgetRef);
  const sigFlags = form.lookup(PDFName.of('SigFlags'));
  // SignaturesExist (1) and AppendOnly (2): viewers must save further changes incrementally.
  form.set(
    PDFName.of('SigFlags'),
    PDFNumber.of((sigFlags instanceof PDFNumber ? sigFlags.asNumber() : 0) | 3),
  );
  const annots = page.node.lookup(PDFName.of('Annots'));
  if (annots instanceof PDFArray) annots.push(widgetRef);
  else page.node.set(PDFName.of('Annots'), doc.context.obj([widgetRef]));
}

// Room for the CMS in /Contents: its exact maximum (certificates and chain included, the
// signature at its longest), plus the time-stamp token's reserve when one is asked for.
class ContentsTooSmall extends Error {
  readonly needed: number;
  constructor(needed: number, capacity: number) {
    super(`The seal signature (${needed} bytes) does not fit its placeholder (${capacity} bytes).`);
    this.needed = needed;
  }
}

/**
 * Seals `pdf` as `identity` and returns the sealed file: the original bytes followed by one
 * incremental update holding the signature field, its /Sig dictionary and the CMS.
 */
export async function sealPdf(
  pdf: Uint8Array,
  identity: SealIdentity,
  info: SealInfo,
  options: SealOptions = {},
): Promise<Uint8Array> {
  return sealLoaded(await loadForSealing(pdf), identity, info, options);
}

/**
 * Seals a document loaded by `loadForSealing` (and perhaps updated since, through
 * `PDFDocument.commit`): its bytes so far, followed by the seal's incremental update.
 */
export async function sealLoaded(
  doc: PDFDocument,
  identity: SealIdentity,
  info: SealInfo,
  options: SealOptions = {},
): Promise<Uint8Array> {
  // Room for the CMS in /Contents: its exact maximum (certificates and chain included, the
  // signature at its longest), plus a reserve for the time-stamp token when one is asked for.
  const base = maxCadesSignatureBytes(identity);
  const reserve = options.timestamp ? (options.timestampReserveBytes ?? defaultTimestampReserveBytes) : 0;
  const pdf = doc.context.pdfFileDetails.originalBytes;
  if (!pdf) throw new Error('sealLoaded needs a document loaded by loadForSealing');
  try {
    return await sealOnce(doc, pdf, identity, info, options.timestamp, base + reserve);
  } catch (error) {
    // A token larger than the reserve is only known once the TSA answers; seal again with room
    // for it (one more time-stamp request, in a case that should not happen with the default).
    if (!(error instanceof ContentsTooSmall)) throw error;
    return sealOnce(await loadForSealing(pdf), pdf, identity, info, options.timestamp, error.needed + 1024);
  }
}

async function sealOnce(
  doc: PDFDocument,
  pdf: Uint8Array,
  identity: SealIdentity,
  info: SealInfo,
  timestamp: Timestamper | undefined,
  capacity: number,
): Promise<Uint8Array> {
  const token = `Signet${randomBytes(12).toString('hex')}`;
  addSignatureField(doc, info, { token, contentsHexLength: capacity * 2 });

  const sealed = await doc.save({
    ...prepareUpdate(doc),
    addDefaultPage: false,
    updateFieldAppearances: false,
  });
  if (sealed.length <= pdf.length) throw new Error('The PDF library did not append an incremental update.');

  // The token is random and searched only in the appended update, so nothing in the original
  // file can be mistaken for the placeholder.
  const view = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
  const byteRangeAt = view.indexOf(`[/${token}`, pdf.length, 'latin1');
  const contentsAt = byteRangeAt + byteRangeWidth + '\n/Contents '.length;
  const contentsEnd = contentsAt + capacity * 2 + 2;
  if (byteRangeAt < 0 || view[contentsAt] !== 0x3c || view[contentsEnd - 1] !== 0x3e) {
    throw new Error('The signature placeholder was not found where it was written.');
  }
  const byteRange = `[0 ${contentsAt} ${contentsEnd} ${sealed.length - contentsEnd}`;
  view.write(`${byteRange.padEnd(byteRangeWidth - 1)}]`, byteRangeAt, 'latin1');

  const digest = digestParts([sealed.subarray(0, contentsAt), sealed.subarray(contentsEnd)]);
  const cms = await createCadesSignature(identity, digest, timestamp);
  if (cms.length > capacity) throw new ContentsTooSmall(cms.length, capacity);
  view.write(Buffer.from(cms).toString('hex').toUpperCase(), contentsAt + 1, 'latin1');
  return sealed;
}
