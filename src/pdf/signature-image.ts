// **The** rule for a drawn signature: a PNG (as the signature pad sends it) of sane size
// that the PDF library can decode, checked when the signer signs, so that sealing never
// meets an image it cannot draw.
// A PNG's header says how many pixels it has, and its data may inflate to far more than
// that (510 KB posted can hold 500 MB of zeros): the data is inflated off the event loop
// (node:zlib's async inflate runs on libuv's thread pool) and cut off at the exact size the
// header implies, before the PDF library ever decodes it. The signing service
// (signing/signing.service.ts) runs this before it takes the document's lock, so a hostile
// image holds nothing while it is read.
import { promisify } from 'node:util';
import { inflate } from 'node:zlib';
import { PDFDocument } from '@cantoo/pdf-lib';
import { InputError } from '../input-error.ts';

/** The pad (signing-page.ts) is a 900 × 300 canvas; its PNG is some tens of kilobytes. */
export const maxSignatureImageBytes = 512 * 1024;
/**
 * A third more than the pad each way. The PDF library decodes the image on the event loop
 * when it is checked and again when it is sealed: at 1200 × 400 that is about 0.1 s (a busy
 * drawing; 1800 × 600 took 0.14 s to check and 0.28 s to embed and save).
 */
export const maxSignatureWidth = 1200;
export const maxSignatureHeight = 400;

const pngMagic = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const inflateAsync = promisify(inflate);

/** Samples per pixel, and the bit depths PNG allows, by colour type. */
const colourTypes: Record<number, { channels: number; depths: number[] }> = {
  0: { channels: 1, depths: [1, 2, 4, 8, 16] }, // grey
  2: { channels: 3, depths: [8, 16] }, // RGB
  3: { channels: 1, depths: [1, 2, 4, 8] }, // palette
  4: { channels: 2, depths: [8, 16] }, // grey and alpha
  6: { channels: 4, depths: [8, 16] }, // RGBA (what a canvas exports)
};

function refuse(sentence: string): never {
  throw new InputError({ signature: sentence });
}

const unreadable = 'The drawn signature could not be read; draw it again.';

interface Header {
  width: number;
  height: number;
  /** The image's data once inflated: one filter byte and the packed samples per row. */
  rawBytes: number;
}

/** The IHDR chunk (always first): the size the data must inflate to, or a refusal. */
function readHeader(png: Buffer): Header {
  if (
    !png.subarray(0, 8).equals(pngMagic) ||
    png.byteLength < 33 ||
    png.toString('latin1', 12, 16) !== 'IHDR'
  )
    refuse('The drawn signature is not a PNG image.');
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  if (width < 2 || height < 2 || width > maxSignatureWidth || height > maxSignatureHeight)
    refuse('The drawn signature has an unusable size; draw it again.');
  const depth = png[24] as number;
  const type = colourTypes[png[25] as number];
  // Interlaced images (Adam7) are refused: no pad draws one, and their size is another sum.
  if (!type?.depths.includes(depth) || png[26] !== 0 || png[27] !== 0 || png[28] !== 0) refuse(unreadable);
  const rowBytes = 1 + Math.ceil((width * type.channels * depth) / 8);
  return { width, height, rawBytes: height * rowBytes };
}

/** The IDAT chunks' data joined: the compressed image. */
function imageData(png: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 8;
  while (at + 8 <= png.byteLength) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const end = at + 12 + length;
    if (end > png.byteLength) refuse(unreadable);
    if (type === 'IDAT') parts.push(png.subarray(at + 8, at + 8 + length));
    if (type === 'IEND') break;
    at = end;
  }
  if (parts.length === 0) refuse(unreadable);
  return Buffer.concat(parts);
}

/**
 * Refuses (InputError on `signature`) an image that is empty, too large in bytes or pixels,
 * not a PNG, or whose data does not inflate to exactly the size its header declares; else
 * the image, to be stored as it was checked.
 */
export async function checkSignatureImage(png: Buffer): Promise<Buffer> {
  if (png.byteLength === 0) refuse('Draw your signature, or type it instead.');
  if (png.byteLength > maxSignatureImageBytes) refuse('The drawn signature is too large; draw it again.');
  const header = readHeader(png);
  let raw: Buffer;
  try {
    // Past the declared size the inflate stops and fails: at most 1.9 MB is ever made.
    raw = await inflateAsync(imageData(png), { maxOutputLength: header.rawBytes });
  } catch (error) {
    if (error instanceof InputError) throw error;
    refuse(unreadable);
  }
  if (raw.byteLength !== header.rawBytes) refuse(unreadable);
  try {
    await (await PDFDocument.create()).embedPng(png);
  } catch {
    refuse(unreadable);
  }
  return png;
}
