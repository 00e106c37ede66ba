// The fuzz test's data (test/fuzz/fuzz.test.ts; the generators are split by what they make:
// fuzz-values.ts, fuzz-routes.ts, fuzz-bodies.ts, and fuzz-requests.ts, which puts a request
// together and sends it): what a generated request is (plain data, its credentials as
// placeholders the sender fills in, so the same seed always generates the same requests), the
// ids the test seeded, the bytes on the wire (paths and header values in the form Node's HTTP
// client sends unchanged: UTF-8 bytes as latin1 characters, control characters
// percent-encoded), and the text values, ids and tokens every other generator draws from.
import fc from 'fast-check';

export type Target = 'api' | 'sign' | 'web' | 'other';

export interface FuzzRequest {
  target: Target;
  /** The route template it was made from (target and path), for the statistics: `api /v1/documents/{document}`. */
  route: string;
  method: string;
  /** As sent on the request line (placeholders never appear here). */
  path: string;
  /** Header names and values in order, duplicates allowed; values may hold placeholders. */
  headers: Array<[string, string]>;
  body: Body | null;
  /** Leave out the Host header (HTTP/1.1 requires one). */
  noHost: boolean;
}

/** A body as text, or a long one built when sent (never held in the generated value). */
export type Body = { text: string } | { prefix: string; repeat: string; times: number; suffix: string };

/** Ids and tokens the test seeded, by kind: of workspace A (own), of B (other), and more. */
export interface FuzzPools {
  own: IdPool;
  other: IdPool;
  /** Documents of the Free-plan workspace. */
  freeDocuments: string[];
  /** Personal signing links: [documentId, token]. */
  signing: Array<[string, string]>;
  invitationTokens: string[];
  signupTokens: string[];
  /** Real list cursors of A and of B. */
  cursors: string[];
  /** A session token that was logged out. */
  staleSession: string;
  /** Public links' tokens (templates of A and B). */
  publicTokens: string[];
  /** A small PDF in base64, for the write API's bodies. */
  pdfBase64: string;
}

export interface IdPool {
  documents: string[];
  endpoints: string[];
  keys: string[];
  users: string[];
  deliveries: string[];
  invitations: string[];
  templates: string[];
  recipients: string[];
  workspace: string;
}

// ---------------------------------------------------------------------------------------
// Bytes on the wire
// ---------------------------------------------------------------------------------------

const unreserved = /[A-Za-z0-9\-._~]/;

/** Percent-encodes every byte of the UTF-8 form but the unreserved ones. */
export function percentEncode(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += unreserved.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** What Node's client refuses in a path (controls, space) percent-encoded; UTF-8 sent raw. */
export function wirePath(path: string): string {
  let out = '';
  for (const char of path) {
    const code = char.codePointAt(0) as number;
    out += code <= 0x20 || code === 0x7f ? percentEncode(char) : char;
  }
  return Buffer.from(out, 'utf8').toString('latin1');
}

/** A header value Node's client sends: UTF-8 as latin1, control characters dropped. */
export function wireHeaderValue(value: string): string {
  return Buffer.from(value, 'utf8')
    .toString('latin1')
    .replaceAll(/[^\t\x20-\x7e\x80-\xff]/g, '');
}

// ---------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------

export const shortText = fc.string({ maxLength: 30 });
const unicodeText = fc.string({ unit: 'binary', maxLength: 40 });
const asciiText = fc.string({ unit: 'binary-ascii', maxLength: 40 });
const longText = fc
  .tuple(fc.constantFrom('a', 'é', '💥', '%', '/', 'x y', '\u0000'), fc.integer({ min: 200, max: 6000 }))
  .map(([unit, times]) => unit.repeat(times));
export const anyText = fc.oneof(
  { arbitrary: shortText, weight: 4 },
  { arbitrary: unicodeText, weight: 3 },
  { arbitrary: asciiText, weight: 2 },
  { arbitrary: longText, weight: 1 },
);

/** Text with control characters and odd Unicode (lone surrogates, BOM, bidi), as JSON and forms can carry it. */
export const oddUnits = [
  '\u0000',
  '\u0001',
  '\u0008',
  '\u000b',
  '\u001f',
  '\t',
  '\n',
  '\r',
  '\ud800',
  '\udfff',
  '\ufeff',
  '\u202e',
  '\u0301',
  '💥',
  'é',
  '\u007f',
  '\u0085',
];
export const oddText = fc.oneof(
  { arbitrary: anyText, weight: 2 },
  {
    arbitrary: fc
      .tuple(shortText, fc.constantFrom(...oddUnits), shortText)
      .map(([before, odd, after]) => `${before}${odd}${after}`),
    weight: 3,
  },
  {
    arbitrary: fc
      .array(fc.constantFrom(...oddUnits, 'a', ' '), { maxLength: 12 })
      .map((units) => units.join('')),
    weight: 1,
  },
);

export const weirdSegments = [
  '',
  '.',
  '..',
  '%2e',
  '%2e%2e',
  '%2E%2E%2F',
  '%2f',
  '%00',
  '%',
  '%zz',
  '%C0%AE',
  '%E2%80%AE',
  '%F0%9F%92%A5',
  'null',
  'undefined',
  'NaN',
  '0',
  '-1',
  '1e309',
  '[object Object]',
  '{id}',
  ':id',
  '*',
  '~',
  'ÿ',
  'é',
  '💥',
  '𝕊𝕚𝕘𝕟𝕖𝕥',
  '\u202e',
  'documents',
  'v1',
  'a'.repeat(300),
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '00000000-0000-0000-0000-00000000000',
  '00000000-0000-0000-0000-0000000000000',
  '00000000000000000000000000000000',
  '{00000000-0000-0000-0000-000000000000}',
  'g0000000-0000-0000-0000-000000000000',
];

/** One id of `kind`: A's, B's, nobody's, or something that is no id at all. */
export function idOf(pools: FuzzPools, pick: (pool: IdPool) => string[]): fc.Arbitrary<string> {
  const own = pick(pools.own);
  const other = pick(pools.other);
  const options: Array<fc.WeightedArbitrary<string>> = [
    { arbitrary: fc.uuid(), weight: 2 },
    { arbitrary: fc.constantFrom(...weirdSegments), weight: 2 },
    { arbitrary: anyText, weight: 1 },
  ];
  if (own.length) {
    options.push({ arbitrary: fc.constantFrom(...own), weight: 5 });
    options.push({ arbitrary: fc.constantFrom(...own).map((id) => id.toUpperCase()), weight: 1 });
    options.push({
      arbitrary: fc
        .tuple(fc.constantFrom(...own), fc.constantFrom('x', '0', '-', ' ', '%20', '.json', '/'))
        .map(([id, tail]) => id + tail),
      weight: 1,
    });
    options.push({ arbitrary: fc.constantFrom(...own).map((id) => id.slice(0, 35)), weight: 1 });
  }
  if (other.length) options.push({ arbitrary: fc.constantFrom(...other), weight: 3 });
  return fc.oneof(...options);
}

export const tokenish = fc.oneof(
  fc
    .base64String({ maxLength: 60 })
    .map((s) => s.replaceAll('+', '-').replaceAll('/', '_').replaceAll('=', '')),
  fc.constantFrom(...weirdSegments),
  anyText,
);

export function tokenOf(real: string[]): fc.Arbitrary<string> {
  return real.length ? fc.oneof({ arbitrary: fc.constantFrom(...real), weight: 3 }, tokenish) : tokenish;
}
