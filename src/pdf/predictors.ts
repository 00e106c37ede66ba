// **The** predictors of Flate and LZW data (ISO 32000-2 7.4.4.4, `/DecodeParms /Predictor`):
// undone after the filter, as readers undo them. pdf-lib's decoders apply the filter only, so
// a cross-reference stream written with a PNG predictor (qpdf, Ghostscript, MuPDF and most
// writers of object streams use `/Predictor 12`) reads as noise without this. Output is never
// larger than the input (a PNG row loses its tag byte; TIFF keeps the size).

export class PredictorError extends Error {}

export interface PredictorParameters {
  predictor: number;
  colors: number;
  bitsPerComponent: number;
  columns: number;
}

/** `data` with its predictor undone; the data itself when `predictor` is 1 (none). */
export function undoPredictor(data: Uint8Array, parameters: PredictorParameters): Uint8Array {
  const { predictor, colors, bitsPerComponent, columns } = parameters;
  if (predictor === 1) return data;
  if (
    !Number.isInteger(colors) ||
    colors < 1 ||
    colors > 32 ||
    ![1, 2, 4, 8, 16].includes(bitsPerComponent) ||
    !Number.isInteger(columns) ||
    columns < 1 ||
    columns > 1 << 24
  ) {
    throw new PredictorError('predictor parameters out of range');
  }
  const rowBytes = Math.ceil((columns * colors * bitsPerComponent) / 8);
  // Bytes per pixel, at least 1, for PNG's left neighbour (the PNG specification's "bpp").
  const pixelBytes = Math.max(1, Math.ceil((colors * bitsPerComponent) / 8));
  if (predictor === 2) return undoTiff(data, rowBytes, colors, bitsPerComponent);
  if (predictor >= 10 && predictor <= 15) return undoPng(data, rowBytes, pixelBytes);
  throw new PredictorError(`unknown predictor ${predictor}`);
}

function undoPng(data: Uint8Array, rowBytes: number, pixelBytes: number): Uint8Array {
  // Each row is one tag byte (its own algorithm: the /Predictor value only says "PNG") and
  // rowBytes of data; a last row cut short is kept as far as it goes, as readers keep it.
  const rows = Math.ceil(data.length / (rowBytes + 1));
  // Sized by the data, never by the declared columns (a hostile /Columns names gigabytes):
  // every row, the last one too, gives its bytes but its tag.
  const out = new Uint8Array(data.length - rows);
  for (let row = 0; row < rows; row++) {
    const from = row * (rowBytes + 1);
    const tag = data[from] as number;
    const length = Math.min(rowBytes, data.length - from - 1);
    const at = row * rowBytes;
    for (let n = 0; n < length; n++) {
      const raw = data[from + 1 + n] as number;
      const left = n >= pixelBytes ? (out[at + n - pixelBytes] as number) : 0;
      const up = row > 0 ? (out[at + n - rowBytes] as number) : 0;
      const upLeft = row > 0 && n >= pixelBytes ? (out[at + n - rowBytes - pixelBytes] as number) : 0;
      let value: number;
      switch (tag) {
        case 0:
          value = raw;
          break;
        case 1:
          value = raw + left;
          break;
        case 2:
          value = raw + up;
          break;
        case 3:
          value = raw + ((left + up) >> 1);
          break;
        case 4:
          value = raw + paeth(left, up, upLeft);
          break;
        default:
          throw new PredictorError(`unknown PNG row filter ${tag}`);
      }
      out[at + n] = value & 0xff;
    }
  }
  return out;
}

function paeth(left: number, up: number, upLeft: number): number {
  const estimate = left + up - upLeft;
  const toLeft = Math.abs(estimate - left);
  const toUp = Math.abs(estimate - up);
  const toUpLeft = Math.abs(estimate - upLeft);
  if (toLeft <= toUp && toLeft <= toUpLeft) return left;
  return toUp <= toUpLeft ? up : upLeft;
}

function undoTiff(data: Uint8Array, rowBytes: number, colors: number, bitsPerComponent: number): Uint8Array {
  // TIFF predictor 2 for whole bytes per component (8 bits: what any cross-reference or
  // object stream uses); smaller or 16-bit components occur only in images, which pdf.js and
  // the other readers decode themselves.
  if (bitsPerComponent !== 8) throw new PredictorError('TIFF predictor with components other than 8 bits');
  const out = new Uint8Array(data);
  for (let row = 0; row * rowBytes < out.length; row++) {
    const at = row * rowBytes;
    const end = Math.min(at + rowBytes, out.length);
    for (let n = at + colors; n < end; n++)
      out[n] = ((out[n] as number) + (out[n - colors] as number)) & 0xff;
  }
  return out;
}
