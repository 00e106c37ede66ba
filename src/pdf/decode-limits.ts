// **The** limits of the decode budget (decode-budget.ts) and the sentence that refuses a file
// over each: how much a PDF may unpack to, per stream, per file, by expansion ratio, image
// pixels and nesting depth, and what decoders may read in all. Refusal is how the scan, the
// decoders' counters and the nesting counter stop the walk at the first limit passed.
//
// The limits. The real files (test/fixtures/pdf/, src/demo/statement-of-work.pdf: LaTeX,
// Chromium, pdf-lib, a signed file) are text documents far below all of them (largest
// stream 23 KB decoded, largest file 67 KB decoded, deepest nesting 4: `measureDecoding`),
// so the limits are set by what real files of other kinds need:
// - MAX_STREAM_DECODED_BYTES, 160 MB per stream, at every stage of its filter chain: the
//   largest image render.ts draws (MAX_IMAGE_PIXELS, 40 million pixels) in CMYK at 8 bits.
//   Nothing a page shows needs more.
// - MAX_FILE_DECODED_BYTES, 512 MB for the whole file: 20 times the default upload limit
//   (25 MB), far above what text, fonts and scans compress by (2 to 20 times).
// - MAX_EXPANSION_RATIO, 3,000 times a stream's encoded size, once it decodes past
//   EXPANSION_FLOOR_BYTES (1 MB). One Flate stage can expand at most 1,032 times (a white
//   scan gets close, and passes), LZW about 2,700 times; stacked filters multiply, which is
//   how chained bombs make gigabytes from a few hundred bytes. Such a stream is refused after
//   decoding a few megabytes instead of 160.
// - images: declared /Width x /Height (and a JPEG's own size) at most MAX_IMAGE_PIXELS, the
//   bound render.ts already draws by.
// - a /Filter given by a reference that cannot be followed here (into an object stream, or
//   to nothing) is refused: its stream's size cannot be known. Writers name filters directly.
// - what decoders read in all: 4 times the file's size and 64 MB. Streams without a usable
//   /Length are read to the end of the file (above), so many of them, with decoders that
//   never reach their end marker, would read the file once each.
// - MAX_NESTING_DEPTH, 256 arrays and dictionaries inside one another, outside strings and
//   streams and in object streams: the real files above reach 4; pdf-lib and pdf.js read nested
//   structures recursively and fail (100,000 nested arrays answered "no pages").
import { inEnglish, type KeyedSentence } from '../i18n/refusals.ts';
import { MAX_IMAGE_PIXELS } from './render.ts';

export const MAX_STREAM_DECODED_BYTES = MAX_IMAGE_PIXELS * 4;
export const MAX_FILE_DECODED_BYTES = 512 * 1024 * 1024;
export const MAX_EXPANSION_RATIO = 3000;
export const EXPANSION_FLOOR_BYTES = 1024 * 1024;
export const MAX_NESTING_DEPTH = 256;
// Encoded bytes all decoders together may read: each stream once is at most the file's size.
export const READ_BYTES_PER_FILE_BYTE = 4;
export const EXTRA_READ_BYTES = 64 * 1024 * 1024;

export { MAX_IMAGE_PIXELS };

const megabytes = (bytes: number) => Math.round(bytes / 1e6);

/** The refusals, one sentence each, as the other upload rules (inspect.ts) are written. */
export const decodeBudgetRefusals = {
  stream: { key: 'upload.budget.stream', values: { megabytes: megabytes(MAX_STREAM_DECODED_BYTES) } },
  ratio: { key: 'upload.budget.ratio' },
  file: { key: 'upload.budget.file', values: { megabytes: megabytes(MAX_FILE_DECODED_BYTES) } },
  image: { key: 'upload.budget.image', values: { millions: MAX_IMAGE_PIXELS / 1e6 } },
  nesting: { key: 'upload.budget.nesting' },
  work: { key: 'upload.budget.work' },
  hidden: { key: 'upload.budget.hidden' },
} as const satisfies Record<string, KeyedSentence>;

/** Each refusal's English (the logs, the tests). */
export const decodeBudgetSentences = Object.fromEntries(
  Object.entries(decodeBudgetRefusals).map(([rule, refusal]) => [rule, inEnglish(refusal)]),
) as Record<keyof typeof decodeBudgetRefusals, string>;

export type DecodeBudgetRule = keyof typeof decodeBudgetRefusals;

export class Refusal extends Error {
  readonly rule: DecodeBudgetRule;
  constructor(rule: DecodeBudgetRule) {
    super(decodeBudgetSentences[rule]);
    this.rule = rule;
  }
}

/** The byte limits, smaller in tests that need not decode 160 MB to show a rule holds. */
export interface ByteLimits {
  streamBytes: number;
  fileBytes: number;
}

export const byteLimits: ByteLimits = {
  streamBytes: MAX_STREAM_DECODED_BYTES,
  fileBytes: MAX_FILE_DECODED_BYTES,
};
