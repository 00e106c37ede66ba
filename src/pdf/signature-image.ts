// **The** rule for a drawn signature: a PNG (as the signature pad sends it) of sane size
// that the PDF library can decode, checked when the signer signs, so that sealing never
// meets an image it cannot draw.
import { PDFDocument } from '@cantoo/pdf-lib';
import { InputError } from '../input-error.ts';

export const maxSignatureImageBytes = 512 * 1024;
const pngMagic = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function refuse(sentence: string): never {
  throw new InputError({ signature: sentence });
}

export async function checkSignatureImage(png: Buffer): Promise<void> {
  if (png.byteLength === 0) refuse('Draw your signature, or type it instead.');
  if (png.byteLength > maxSignatureImageBytes) refuse('The drawn signature is too large; draw it again.');
  if (!png.subarray(0, 8).equals(pngMagic) || png.byteLength < 24)
    refuse('The drawn signature is not a PNG image.');
  // IHDR: width and height, big-endian, at bytes 16 and 20.
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  if (width < 2 || height < 2 || width > 4000 || height > 2000) {
    refuse('The drawn signature has an unusable size; draw it again.');
  }
  try {
    await (await PDFDocument.create()).embedPng(png);
  } catch {
    refuse('The drawn signature could not be read; draw it again.');
  }
}
