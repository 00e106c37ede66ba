// The predictors of Flate data (src/pdf/predictors.ts): each PNG row filter and TIFF's, encoded
// here as the PNG specification and ISO 32000-2 7.4.4.4 define them, undone to the original.
// qpdf's cross-reference streams use only PNG "Up" (the corpus and pdf-reading tests read
// those); other writers use the rest.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PredictorError, undoPredictor } from '../../src/pdf/predictors.ts';

function paeth(left: number, up: number, upLeft: number): number {
  const p = left + up - upLeft;
  const [a, b, c] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
  return a <= b && a <= c ? left : b <= c ? up : upLeft;
}

/** `data` (whole rows of `rowBytes`) encoded row by row with PNG filter `tag`. */
function encodePng(data: Uint8Array, rowBytes: number, pixelBytes: number, tag: number): Uint8Array {
  const rows = data.length / rowBytes;
  const out = new Uint8Array(rows * (rowBytes + 1));
  for (let row = 0; row < rows; row++) {
    out[row * (rowBytes + 1)] = tag;
    for (let n = 0; n < rowBytes; n++) {
      const at = row * rowBytes + n;
      const left = n >= pixelBytes ? (data[at - pixelBytes] as number) : 0;
      const up = row > 0 ? (data[at - rowBytes] as number) : 0;
      const upLeft = row > 0 && n >= pixelBytes ? (data[at - rowBytes - pixelBytes] as number) : 0;
      const predicted = [0, left, up, (left + up) >> 1, paeth(left, up, upLeft)][tag] as number;
      out[row * (rowBytes + 1) + 1 + n] = ((data[at] as number) - predicted) & 0xff;
    }
  }
  return out;
}

const sample = (length: number) => Uint8Array.from({ length }, (_, n) => (n * 37 + (n >> 3) * 11) & 0xff);

test('each PNG row filter is undone to the original rows', () => {
  for (const [columns, colors] of [
    [5, 1],
    [4, 3],
    [7, 2],
  ] as const) {
    const data = sample(columns * colors * 6);
    for (let tag = 0; tag <= 4; tag++) {
      const encoded = encodePng(data, columns * colors, colors, tag);
      assert.deepEqual(
        undoPredictor(encoded, { predictor: 12, colors, bitsPerComponent: 8, columns }),
        data,
        `filter ${tag}, ${columns} columns of ${colors}`,
      );
    }
  }
});

test('rows of different filters in one stream, and a last row cut short, read as readers read them', () => {
  const data = sample(5 * 4);
  const mixed = new Uint8Array(4 * 6);
  for (let row = 0; row < 4; row++) {
    // Each row encoded against the rows before it, as an encoder choosing per row does.
    mixed.set(
      encodePng(data.subarray(0, (row + 1) * 5), 5, 1, row % 5).subarray(row * 6, row * 6 + 6),
      row * 6,
    );
  }
  const parameters = { predictor: 15, colors: 1, bitsPerComponent: 8, columns: 5 };
  assert.deepEqual(undoPredictor(mixed, parameters), data);
  assert.deepEqual(undoPredictor(mixed.subarray(0, 6 * 3 + 3), parameters), data.subarray(0, 5 * 3 + 2));
});

test('TIFF predictor 2 adds each byte to the one a pixel before it in its row', () => {
  const data = sample(3 * 4 * 2);
  const encoded = new Uint8Array(data);
  for (let n = data.length - 1; n >= 0; n--) {
    if (n % 12 >= 3) encoded[n] = ((data[n] as number) - (data[n - 3] as number)) & 0xff;
  }
  assert.deepEqual(
    undoPredictor(encoded, { predictor: 2, colors: 3, bitsPerComponent: 8, columns: 4 }),
    data,
  );
});

test('a row wider than the data is read as far as the data goes, without allocating the width', () => {
  const data = Uint8Array.of(2, 7, 8, 9);
  const wide = { predictor: 12, colors: 32, bitsPerComponent: 16, columns: 1 << 24 };
  assert.deepEqual(undoPredictor(data, wide), Uint8Array.of(7, 8, 9));
});

test('no predictor leaves the data as it is; an unknown one or a bad row tag is an error', () => {
  const data = sample(10);
  assert.equal(undoPredictor(data, { predictor: 1, colors: 1, bitsPerComponent: 8, columns: 1 }), data);
  assert.throws(
    () => undoPredictor(data, { predictor: 7, colors: 1, bitsPerComponent: 8, columns: 1 }),
    PredictorError,
  );
  assert.throws(
    () =>
      undoPredictor(Uint8Array.of(9, 1, 2), { predictor: 12, colors: 1, bitsPerComponent: 8, columns: 2 }),
    PredictorError,
  );
  assert.throws(
    () => undoPredictor(data, { predictor: 12, colors: 1, bitsPerComponent: 8, columns: 0 }),
    PredictorError,
  );
});
