// The requests of the fuzz test (test/fuzz/fuzz.test.ts), generated with fast-check as an
// attacker's fuzzer would send them: every route of /v1, the signing pages and the web
// application, with ids of this workspace, of another one and of nobody, broken and odd
// paths, methods, query strings, headers, bodies and credentials.
//
// A request is generated as plain data. Credentials that change while the test runs (the
// web session, its CSRF token) and the keys are placeholders (`{{key:A}}`, `{{session}}`,
// `{{csrf}}`...) that the sender fills in, so the same seed always generates the same
// requests. Paths and header values are put in the form Node's HTTP client can send
// unchanged: UTF-8 bytes as latin1 characters, control characters percent-encoded.
import {
  type Agent,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
} from 'node:http';
import fc from 'fast-check';
import { documentEventTypes } from '../../src/documents/events.ts';

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

const shortText = fc.string({ maxLength: 30 });
const unicodeText = fc.string({ unit: 'binary', maxLength: 40 });
const asciiText = fc.string({ unit: 'binary-ascii', maxLength: 40 });
const longText = fc
  .tuple(fc.constantFrom('a', 'é', '💥', '%', '/', 'x y', '\u0000'), fc.integer({ min: 200, max: 6000 }))
  .map(([unit, times]) => unit.repeat(times));
const anyText = fc.oneof(
  { arbitrary: shortText, weight: 4 },
  { arbitrary: unicodeText, weight: 3 },
  { arbitrary: asciiText, weight: 2 },
  { arbitrary: longText, weight: 1 },
);

/** Text with control characters and odd Unicode (lone surrogates, BOM, bidi), as JSON and forms can carry it. */
const oddUnits = [
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
const oddText = fc.oneof(
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

const weirdSegments = [
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
function idOf(pools: FuzzPools, pick: (pool: IdPool) => string[]): fc.Arbitrary<string> {
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

const tokenish = fc.oneof(
  fc
    .base64String({ maxLength: 60 })
    .map((s) => s.replaceAll('+', '-').replaceAll('/', '_').replaceAll('=', '')),
  fc.constantFrom(...weirdSegments),
  anyText,
);

function tokenOf(real: string[]): fc.Arbitrary<string> {
  return real.length ? fc.oneof({ arbitrary: fc.constantFrom(...real), weight: 3 }, tokenish) : tokenish;
}

// ---------------------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------------------

interface Template {
  target: Target;
  methods: string[];
  path: string;
  form?: FormKind;
  /** The write API's body this route takes. */
  body?: ApiBodyKind;
}

type FormKind =
  | 'login'
  | 'signup'
  | 'document'
  | 'endpoint'
  | 'sign'
  | 'member'
  | 'plan'
  | 'key'
  | 'account'
  | 'bulk'
  | 'publicLink';

type ApiBodyKind = 'document' | 'withdraw' | 'template' | 'use';

const templates: Template[] = [
  // /v1
  { target: 'api', methods: ['GET'], path: '/v1/documents' },
  { target: 'api', methods: ['GET'], path: '/v1/documents/{document}' },
  { target: 'api', methods: ['GET', 'POST'], path: '/v1/webhook-endpoints' },
  { target: 'api', methods: ['GET', 'PATCH', 'PATCH', 'DELETE'], path: '/v1/webhook-endpoints/{endpoint}' },
  { target: 'api', methods: ['GET'], path: '/v1/openapi.json' },
  { target: 'api', methods: ['GET'], path: '/v1' },
  { target: 'api', methods: ['GET'], path: '/v1/' },
  { target: 'api', methods: ['GET', 'POST'], path: '/v1/{any}' },
  { target: 'api', methods: ['GET'], path: '/v1/documents/{document}/{any}' },
  { target: 'api', methods: ['GET', 'POST'], path: '/v1/webhook-endpoints/{endpoint}/{any}' },
  { target: 'api', methods: ['GET', 'POST'], path: '/v1/keys' },
  // The write API (issue 49), with A's write key most of the time.
  { target: 'api', methods: ['POST'], path: '/v1/documents', body: 'document' },
  { target: 'api', methods: ['PUT', 'DELETE'], path: '/v1/documents/{document}', body: 'document' },
  { target: 'api', methods: ['POST'], path: '/v1/documents/{document}/send' },
  { target: 'api', methods: ['POST'], path: '/v1/documents/{document}/withdraw', body: 'withdraw' },
  { target: 'api', methods: ['POST'], path: '/v1/documents/{document}/recipients/{recipient}/remind' },
  { target: 'api', methods: ['GET', 'POST'], path: '/v1/templates', body: 'template' },
  { target: 'api', methods: ['GET', 'PUT', 'DELETE'], path: '/v1/templates/{template}', body: 'template' },
  { target: 'api', methods: ['POST'], path: '/v1/templates/{template}/documents', body: 'use' },
  // the recipients' pages
  { target: 'sign', methods: ['GET'], path: '/sign/{document}' },
  { target: 'sign', methods: ['GET', 'HEAD'], path: '/sign/{sign}' },
  { target: 'sign', methods: ['POST'], path: '/sign/{sign}/sign', form: 'sign' },
  { target: 'sign', methods: ['POST'], path: '/sign/{sign}/decline', form: 'sign' },
  { target: 'sign', methods: ['POST'], path: '/sign/{sign}/code', form: 'sign' },
  { target: 'sign', methods: ['GET'], path: '/sign' },
  { target: 'sign', methods: ['GET', 'POST'], path: '/sign/{sign}/{any}', form: 'sign' },
  // the web application
  { target: 'web', methods: ['GET'], path: '/' },
  { target: 'web', methods: ['GET', 'POST'], path: '/login', form: 'login' },
  { target: 'web', methods: ['POST'], path: '/logout' },
  { target: 'web', methods: ['GET', 'POST'], path: '/signup', form: 'signup' },
  { target: 'web', methods: ['GET', 'POST'], path: '/signup/confirm/{signup}' },
  { target: 'web', methods: ['GET'], path: '/settings/account' },
  { target: 'web', methods: ['POST'], path: '/settings/account/workspace', form: 'account' },
  { target: 'web', methods: ['POST'], path: '/settings/account/password', form: 'account' },
  { target: 'web', methods: ['GET'], path: '/documents' },
  { target: 'web', methods: ['GET'], path: '/documents/new' },
  { target: 'web', methods: ['POST'], path: '/documents', form: 'document' },
  { target: 'web', methods: ['POST'], path: '/documents/value', form: 'document' },
  { target: 'web', methods: ['GET'], path: '/documents/{document}' },
  { target: 'web', methods: ['GET', 'POST'], path: '/documents/{document}/send' },
  { target: 'web', methods: ['GET'], path: '/mails' },
  { target: 'web', methods: ['GET'], path: '/settings/integrations' },
  { target: 'web', methods: ['POST'], path: '/settings/integrations/keys', form: 'key' },
  { target: 'web', methods: ['GET', 'POST'], path: '/settings/integrations/keys/{key}/revoke' },
  { target: 'web', methods: ['POST'], path: '/settings/integrations/endpoints', form: 'endpoint' },
  {
    target: 'web',
    methods: ['GET', 'POST'],
    path: '/settings/integrations/endpoints/{endpoint}',
    form: 'endpoint',
  },
  {
    target: 'web',
    methods: ['POST'],
    path: '/settings/integrations/endpoints/{endpoint}/enabled',
    form: 'endpoint',
  },
  { target: 'web', methods: ['POST'], path: '/settings/integrations/endpoints/{endpoint}/test' },
  { target: 'web', methods: ['GET', 'POST'], path: '/settings/integrations/endpoints/{endpoint}/delete' },
  {
    target: 'web',
    methods: ['GET'],
    path: '/settings/integrations/endpoints/{endpoint}/deliveries/{delivery}',
  },
  { target: 'web', methods: ['GET'], path: '/settings/members' },
  { target: 'web', methods: ['POST'], path: '/settings/members/invitations', form: 'member' },
  { target: 'web', methods: ['POST'], path: '/settings/members/invitations/{invitation}/withdraw' },
  { target: 'web', methods: ['POST'], path: '/settings/members/{user}/role', form: 'member' },
  { target: 'web', methods: ['GET', 'POST'], path: '/settings/members/{user}/remove' },
  { target: 'web', methods: ['GET', 'POST'], path: '/invitations/{invitationToken}', form: 'signup' },
  { target: 'web', methods: ['GET'], path: '/settings/billing' },
  { target: 'web', methods: ['POST'], path: '/settings/billing/plan', form: 'plan' },
  { target: 'web', methods: ['GET'], path: '/docs' },
  { target: 'web', methods: ['GET', 'POST'], path: '/templates/{template}/bulk', form: 'bulk' },
  { target: 'web', methods: ['GET', 'POST'], path: '/t/{publicToken}', form: 'publicLink' },
  { target: 'web', methods: ['GET', 'POST'], path: '/t/{publicToken}/confirm/{any}', form: 'publicLink' },
  { target: 'web', methods: ['GET'], path: '/assets/app.css' },
  { target: 'web', methods: ['GET'], path: '/assets/app.js' },
  { target: 'web', methods: ['GET', 'POST'], path: '/{any}' },
  // outside all three
  { target: 'other', methods: ['GET'], path: '/healthz' },
  { target: 'other', methods: ['GET'], path: '/readyz' },
  { target: 'other', methods: ['GET'], path: '/metrics' },
  { target: 'other', methods: ['GET'], path: '/{any}/{any}' },
  { target: 'other', methods: ['GET'], path: '/V1/documents' },
  { target: 'other', methods: ['GET'], path: '//v1/documents' },
  { target: 'other', methods: ['GET'], path: '/v2/documents' },
  { target: 'other', methods: ['GET'], path: '/.env' },
  { target: 'other', methods: ['GET'], path: '/%2e%2e/%2e%2e/etc/passwd' },
];

export const routeLabels: string[] = templates.map((t) => `${t.target} ${t.path}`);

const oddMethods = [
  'PROPFIND',
  'MKCOL',
  'PURGE',
  'SEARCH',
  'QUERY',
  'TRACE',
  'LINK',
  'UNLINK',
  'REPORT',
  'LOCK',
  'COPY',
  'MOVE',
  'M-SEARCH',
  'NOTIFY',
  'SUBSCRIBE',
  'SOURCE',
  'FOO',
  'GETS',
  'PATCHY',
  'CONNECT',
];

const anyMethod = fc.oneof(
  { arbitrary: fc.constantFrom('GET', 'POST'), weight: 10 },
  { arbitrary: fc.constantFrom('HEAD', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'), weight: 8 },
  { arbitrary: fc.constantFrom(...oddMethods), weight: 2 },
  { arbitrary: fc.constantFrom('get', 'Post', 'delete'), weight: 1 },
);

// ---------------------------------------------------------------------------------------
// Paths
// ---------------------------------------------------------------------------------------

type SegmentEncoding = 'raw' | 'encoded' | 'double';
const segmentEncoding = fc.constantFrom<SegmentEncoding>('raw', 'raw', 'raw', 'encoded', 'double');

function encodeSegment(value: string, encoding: SegmentEncoding): string {
  if (encoding === 'raw') return value;
  if (encoding === 'encoded') return percentEncode(value);
  return percentEncode(percentEncode(value));
}

const pathMutation = fc.oneof(
  { arbitrary: fc.constant('none'), weight: 30 },
  {
    arbitrary: fc.constantFrom(
      'trailing-slash',
      'double-slash',
      'dot-segment',
      'dot-dot',
      'upper-case',
      'semicolon',
      'encoded-slash',
      'fragment',
      'very-long',
      'absolute-form',
    ),
    weight: 10,
  },
);

function mutatePath(path: string, mutation: string): string {
  switch (mutation) {
    case 'trailing-slash':
      return `${path}/`;
    case 'double-slash':
      return path.replace('/', '//');
    case 'dot-segment':
      return path.replace(/\/([^/]*)$/, '/./$1');
    case 'dot-dot':
      return `${path}/../${path.split('/').at(-1) ?? ''}`;
    case 'upper-case':
      return path.toUpperCase();
    case 'semicolon':
      return `${path};jsessionid=1`;
    case 'encoded-slash':
      return path.replace(/\/([^/]*)$/, '%2F$1');
    case 'fragment':
      return `${path}#top`;
    case 'very-long':
      return `${path}/${'x'.repeat(9000)}`;
    case 'absolute-form':
      return `http://sign.example.test${path}`;
    default:
      return path;
  }
}

function pathFor(template: Template, pools: FuzzPools): fc.Arbitrary<string> {
  const params = template.path.match(/\{[a-zA-Z]+\}/g) ?? [];
  const values = params.map((param): fc.Arbitrary<string> => {
    switch (param) {
      case '{document}':
        return idOf(pools, (p) => p.documents);
      case '{endpoint}':
        return idOf(pools, (p) => p.endpoints);
      case '{key}':
        return idOf(pools, (p) => p.keys);
      case '{user}':
        return idOf(pools, (p) => p.users);
      case '{delivery}':
        return idOf(pools, (p) => p.deliveries);
      case '{invitation}':
        return idOf(pools, (p) => p.invitations);
      case '{invitationToken}':
        return tokenOf(pools.invitationTokens);
      case '{signup}':
        return tokenOf(pools.signupTokens);
      case '{sign}':
        return signingPair(pools);
      case '{template}':
        return idOf(pools, (p) => p.templates);
      case '{recipient}':
        return idOf(pools, (p) => p.recipients);
      case '{publicToken}':
        return tokenOf(pools.publicTokens).chain((token) =>
          fc.oneof(
            { arbitrary: fc.constant(token), weight: 3 },
            { arbitrary: fc.constantFrom(...oddUnits).map((odd) => token + odd), weight: 1 },
          ),
        );
      default:
        return fc.oneof(
          fc.constantFrom(...weirdSegments),
          anyText,
          fc.constantFrom('documents', 'admin', 'x'),
        );
    }
  });
  return fc
    .tuple(fc.tuple(...values.map((v) => fc.tuple(v, segmentEncoding))), pathMutation)
    .map(([filled, mutation]) => {
      let i = 0;
      const path = template.path.replaceAll(/\{[a-zA-Z]+\}/g, () => {
        const [value, encoding] = filled[i++] as [string, SegmentEncoding];
        // A signing pair is two segments: keep its slash.
        return value
          .split('/')
          .map((part) => encodeSegment(part, encoding))
          .join('/');
      });
      return mutatePath(path, mutation);
    });
}

/** `documentId/token`: a real pair, a real document with another's token, or nonsense. */
function signingPair(pools: FuzzPools): fc.Arbitrary<string> {
  const documents = [...pools.own.documents, ...pools.other.documents, ...pools.freeDocuments];
  const tokens = pools.signing.map(([, token]) => token);
  return fc.oneof(
    { arbitrary: fc.constantFrom(...pools.signing).map(([id, token]) => `${id}/${token}`), weight: 6 },
    {
      arbitrary: fc
        .tuple(fc.constantFrom(...documents), fc.constantFrom(...tokens))
        .map(([id, t]) => `${id}/${t}`),
      weight: 2,
    },
    {
      arbitrary: fc
        .tuple(
          fc.constantFrom(...pools.signing),
          fc.integer({ min: 0, max: 42 }),
          fc.constantFrom('A', '_', '-'),
        )
        .map(([[id, token], at, char]) => `${id}/${token.slice(0, at)}${char}${token.slice(at + 1)}`),
      weight: 2,
    },
    {
      arbitrary: fc
        .tuple(
          idOf(pools, (p) => p.documents),
          tokenish,
        )
        .map(([id, t]) => `${id}/${t}`),
      weight: 2,
    },
  );
}

// ---------------------------------------------------------------------------------------
// Query strings
// ---------------------------------------------------------------------------------------

const queryKeys = fc.oneof(
  {
    arbitrary: fc.constantFrom('limit', 'cursor', 'status', 'done', 'next', 'page', 'offset', 'format', 'id'),
    weight: 6,
  },
  {
    arbitrary: fc.constantFrom(
      'limit[]',
      'limit[0]',
      'cursor[a]',
      '__proto__',
      'constructor',
      'constructor[prototype][x]',
      '',
      '%',
      'x'.repeat(300),
    ),
    weight: 2,
  },
  { arbitrary: anyText, weight: 1 },
);

function queryValues(pools: FuzzPools): fc.Arbitrary<string> {
  return fc.oneof(
    {
      arbitrary: fc.constantFrom(
        '1',
        '10',
        '100',
        '101',
        '0',
        '-1',
        '1.5',
        '1e3',
        '010',
        '+5',
        ' 5',
        '99999999999999999999999999',
        '18446744073709551617',
        'NaN',
        'Infinity',
        '',
        'true',
        'null',
        '[]',
        '{}',
      ),
      weight: 5,
    },
    {
      arbitrary: fc.constantFrom(
        'draft',
        'sent',
        'completed',
        'signed',
        'declined',
        'expired',
        'DRAFT',
        'pending',
        'password',
        'plan',
        'key-revoked',
        '/documents',
        '//evil.example',
        'https://evil.example/',
        'javascript:alert(1)',
      ),
      weight: 3,
    },
    { arbitrary: pools.cursors.length ? fc.constantFrom(...pools.cursors) : tokenish, weight: 3 },
    {
      arbitrary: fc
        .tuple(fc.constantFrom(...(pools.cursors.length ? pools.cursors : ['eyJ4IjoxfQ'])), fc.nat(60))
        .map(([cursor, at]) => `${cursor.slice(0, at)}A${cursor.slice(at + 1)}`),
      weight: 2,
    },
    { arbitrary: tokenish, weight: 2 },
    { arbitrary: fc.constantFrom('x'.repeat(201), 'y'.repeat(5000)), weight: 1 },
    { arbitrary: anyText, weight: 2 },
  );
}

function queryFor(pools: FuzzPools): fc.Arbitrary<string> {
  const pair = fc.tuple(
    queryKeys,
    queryValues(pools),
    fc.constantFrom('encoded', 'encoded', 'raw', 'no-value'),
  );
  return fc.oneof(
    { arbitrary: fc.constant(''), weight: 12 },
    { arbitrary: fc.constant('?'), weight: 1 },
    { arbitrary: fc.constant('?&&=&'), weight: 1 },
    {
      arbitrary: fc.array(pair, { minLength: 1, maxLength: 6 }).map(
        (pairs) =>
          `?${pairs
            .map(([key, value, how]) => {
              if (how === 'no-value') return percentEncode(key);
              if (how === 'raw') return `${key}=${value}`.replaceAll('#', '%23');
              return `${percentEncode(key)}=${percentEncode(value)}`;
            })
            .join('&')}`,
      ),
      weight: 8,
    },
  );
}

// ---------------------------------------------------------------------------------------
// Credentials and headers
// ---------------------------------------------------------------------------------------

const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const fakeKey = fc
  .array(fc.integer({ min: 0, max: 61 }), { minLength: 43, maxLength: 43 })
  .map((digits) => `sgn_${digits.map((d) => base62[d]).join('')}`);

/** Authorization values; `{{key:X}}` is the secret of key X, filled in when sent. */
const authorization = fc.oneof(
  { arbitrary: fc.constant('Bearer {{key:A}}'), weight: 18 },
  { arbitrary: fc.constant('Bearer {{key:W}}'), weight: 16 },
  {
    arbitrary: fc.constantFrom(
      'bearer {{key:A}}',
      'BEARER {{key:A}}',
      'Bearer   {{key:A}}',
      'Bearer {{key:A}}   ',
      '  Bearer {{key:A}}',
      'Bearer\t{{key:A}}',
      'Bearer {{key:A}} extra',
      'Bearer {{key:A}}x',
      'Bearer {{key:A-cut}}',
      'Bearer {{key:A}},Bearer {{key:B}}',
      'Token {{key:A}}',
      '{{key:A}}',
      'Basic {{key:A}}',
    ),
    weight: 6,
  },
  { arbitrary: fc.constant('Bearer {{key:B}}'), weight: 8 },
  { arbitrary: fc.constant('Bearer {{key:free}}'), weight: 5 },
  { arbitrary: fc.constant('Bearer {{key:revoked}}'), weight: 5 },
  {
    arbitrary: fc.constantFrom(
      '',
      'Bearer',
      'Bearer ',
      'Basic dXNlcjpwYXNz',
      'Bearer null',
      'Bearer undefined',
    ),
    weight: 3,
  },
  { arbitrary: fakeKey.map((key) => `Bearer ${key}`), weight: 3 },
  { arbitrary: anyText.map((text) => `Bearer ${text}`), weight: 3 },
  { arbitrary: anyText, weight: 1 },
);

/** Cookies of the web application; `{{session}}` and `{{csrfCookie}}` are A's live ones. */
function cookieFor(pools: FuzzPools): fc.Arbitrary<string | null> {
  return fc.oneof(
    { arbitrary: fc.constant('signet_session={{session}}; signet_csrf={{csrfCookie}}'), weight: 12 },
    { arbitrary: fc.constant('signet_csrf={{csrfCookie}}; signet_session={{session}}'), weight: 1 },
    { arbitrary: fc.constant('signet_session={{session}}'), weight: 3 },
    { arbitrary: fc.constant('signet_csrf={{csrfCookie}}'), weight: 2 },
    { arbitrary: fc.constant(`signet_session=${pools.staleSession}; signet_csrf={{csrfCookie}}`), weight: 2 },
    { arbitrary: fc.constant(null), weight: 5 },
    {
      arbitrary: fc
        .tuple(fc.constantFrom('signet_session', 'signet_csrf', 'x'), tokenish)
        .map(([name, value]) => `${name}=${value}`),
      weight: 2,
    },
    {
      arbitrary: fc.constantFrom('signet_session=; signet_session={{session}}', '===; ;;', 'a'.repeat(3000)),
      weight: 1,
    },
  );
}

const jsonTypes = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json;charset=UTF-8',
  'application/json; charset=latin1',
  'application/vnd.api+json',
  'application/jsonx',
  'application/json, text/plain',
];
const formTypes = [
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=utf-8',
  'Application/X-WWW-Form-Urlencoded',
];
const otherTypes = [
  'text/plain',
  'text/html',
  'multipart/form-data; boundary=----x',
  'application/xml',
  'application/octet-stream',
  '',
  ';;;',
  '*/*',
  'application/',
  'a'.repeat(500),
];

const acceptValues = [
  '*/*',
  'application/json',
  'text/html',
  'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'application/xml',
  'image/png',
  ';;q=x',
  '',
];

const extraHeader: fc.Arbitrary<Array<[string, string]>> = fc.oneof(
  { arbitrary: fc.constant<Array<[string, string]>>([]), weight: 30 },
  {
    arbitrary: fc.constantFrom<Array<[string, string]>>(
      [['x-forwarded-for', '10.0.0.1, 203.0.113.9']],
      [['x-forwarded-for', 'garbage']],
      [['x-forwarded-proto', 'https']],
      [['x-http-method-override', 'DELETE']],
      [['origin', 'https://evil.example']],
      [['referer', 'https://evil.example/page']],
      [['accept-encoding', 'gzip, deflate, br']],
      [['accept-language', 'de-CH, fr;q=0.5']],
      [['connection', 'close']],
      [['content-encoding', 'gzip']],
      [['content-encoding', 'identity']],
      [['content-encoding', 'br, gzip']],
      [['if-none-match', '*']],
      [['range', 'bytes=0-10']],
      [['upgrade-insecure-requests', '1']],
      [['x-request-id', '1'.repeat(100)]],
      [['host', 'evil.example']],
      [['host', '[::1]:1']],
      [
        ['host', 'a.example'],
        ['host', 'b.example'],
      ],
      [['x-big', 'v'.repeat(8000)]],
      [['x-too-big', 'v'.repeat(20_000)]],
      [
        ['transfer-encoding', 'chunked'],
        ['content-length', '5'],
      ],
    ),
    weight: 10,
  },
  {
    arbitrary: fc
      .tuple(fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9-]{0,20}$/), anyText)
      .map(([name, value]): Array<[string, string]> => [[`x-${name}`, value]]),
    weight: 3,
  },
);

// ---------------------------------------------------------------------------------------
// Bodies
// ---------------------------------------------------------------------------------------

const eventNames = [...documentEventTypes, 'ping', 'document.*', ''];

const urlValues = [
  'https://hooks.example.com/signet',
  'https://api.example.org/webhooks',
  'https://HOOKS.example.com./x',
  'http://hooks.example.com/signet',
  'https://hooks.example.com:8443/x',
  'https://user:pw@hooks.example.com/',
  'https://127.0.0.1/',
  'https://2130706433/',
  'https://0x7f.1/',
  'https://[::1]/',
  'https://[::ffff:127.0.0.1]/',
  'https://169.254.169.254/latest/meta-data',
  'https://10.0.0.8/',
  'https://localhost/',
  'https://metadata.google.internal/',
  'https://printer.local/',
  'https://unknown.example/',
  'ftp://hooks.example.com/',
  'javascript:alert(1)',
  'not a url',
  '',
  'https://',
  `https://${'a'.repeat(3000)}.com/`,
  'https://hooks.example.com/\u0000',
];

/** What a create (url and events, perhaps a description) or a change (any of the four) accepts. */
const endpointFields = {
  url: fc.constantFrom('https://hooks.example.com/fuzz', 'https://api.example.org/fuzz'),
  events: fc.uniqueArray(fc.constantFrom(...eventNames.slice(0, 6)), { minLength: 1, maxLength: 5 }),
  description: fc.oneof(fc.constant(null), fc.constantFrom('made by the fuzz', '')),
};
const validEndpointJson = fc
  .oneof(
    fc.record(endpointFields, { requiredKeys: ['url', 'events'] }),
    fc.record({ ...endpointFields, enabled: fc.boolean() }, { requiredKeys: [] }),
  )
  .map((value) => JSON.stringify(value));

const endpointJson = fc
  .record(
    {
      url: fc.oneof(fc.constantFrom(...urlValues), anyText, fc.integer(), fc.constant(null), fc.constant([])),
      events: fc.oneof(
        fc.uniqueArray(fc.constantFrom(...eventNames.slice(0, 6)), { minLength: 1, maxLength: 5 }),
        fc.array(fc.constantFrom(...eventNames), { maxLength: 8 }),
        fc.constant('document.sent'),
        fc.constant([]),
        fc.array(fc.anything(), { maxLength: 3 }),
      ),
      description: fc.oneof(
        shortText,
        fc.constant(null),
        fc.constant('d'.repeat(500)),
        fc.constant('d'.repeat(501)),
        fc.constant('\u0000'),
        fc.integer(),
      ),
      enabled: fc.oneof(fc.boolean(), fc.constantFrom('true', 0, 1, null)),
      secret: fc.constant('whsec_mine'),
      id: fc.uuid(),
    },
    { requiredKeys: [] },
  )
  .map((value) => JSON.stringify(value));

/** A recipient of the write API's bodies: mostly well formed, its strings odd. */
const recipientJson = fc.record(
  {
    email: fc.oneof(fc.constantFrom('ann@client.example', 'bob@client.example'), oddText),
    fullName: fc.oneof(fc.constantFrom('Ann Lee', 'Bob Ray'), oddText),
    role: fc.constantFrom('signer', 'signer', 'viewer', 'boss'),
    signingOrder: fc.oneof(fc.constant(1), fc.integer({ min: -1, max: 200 })),
  },
  { requiredKeys: ['email', 'fullName'] },
);

/** A document's create that passes, so the fuzz reaches the write API's services too. */
const validDocumentJson = fc
  .tuple(fc.constantFrom('Fuzzed draft', 'Tab\tand\nlines', 'é💥'), fc.boolean())
  .map(([title, withText]) =>
    JSON.stringify({
      title,
      ...(withText ? { text: 'Terms.' } : {}),
      recipients: [{ email: 'ann@client.example', fullName: 'Ann Lee' }],
    }),
  );

/** The bodies of the write API (issue 49): documents, a withdrawal, templates, a template's documents. */
function apiBodyJson(kind: ApiBodyKind, pools: FuzzPools): fc.Arbitrary<string> {
  const text = fc.oneof(fc.constantFrom('Terms.', 'Please sign.'), oddText);
  const documentJson = fc
    .record(
      {
        title: fc.oneof(fc.constant('Fuzzed'), oddText),
        text,
        recipients: fc.array(recipientJson, { maxLength: 3 }),
        // Rarely sent: a send makes the PDF from the text, the costliest thing here.
        send: fc.oneof(
          { arbitrary: fc.constant(false), weight: 9 },
          { arbitrary: fc.constant(true), weight: 1 },
        ),
        delivery: fc.constantFrom('email', 'none', 'fax'),
        expiresInSeconds: fc.integer({ min: -1, max: 400 * 24 * 3600 }),
        [oddUnits[0] as string]: fc.constant('x'),
      },
      { requiredKeys: ['title', 'recipients'] },
    )
    .map((value) => JSON.stringify(value));
  switch (kind) {
    case 'document':
      return fc.oneof({ arbitrary: validDocumentJson, weight: 1 }, { arbitrary: documentJson, weight: 4 });
    case 'withdraw':
      return fc.record({ reason: oddText }, { requiredKeys: [] }).map((value) => JSON.stringify(value));
    case 'template':
      return fc
        .record(
          {
            name: fc.oneof(fc.constant('Fuzz template'), oddText),
            title: fc.oneof(fc.constant('Fuzz template'), oddText),
            text,
            roles: fc.array(
              fc.record({
                name: fc.oneof(fc.constant('Client'), oddText),
                role: fc.constantFrom('signer', 'viewer'),
                signingOrder: fc.constant(1),
                signingMethod: fc.constantFrom('standard', 'email-code'),
              }),
              { minLength: 1, maxLength: 2 },
            ),
            fields: fc.constant([]),
            file: fc.oneof(fc.constant(pools.pdfBase64), fc.constantFrom('', 'bm90IGEgcGRm', '%%%')),
          },
          { requiredKeys: ['name', 'title', 'roles'] },
        )
        .map((value) => JSON.stringify(value));
    case 'use':
      return fc
        .record({
          items: fc.array(
            fc.record(
              {
                recipients: fc.oneof(
                  fc.record({ Client: recipientJson.map(({ email, fullName }) => ({ email, fullName })) }),
                  fc.dictionary(oddText, fc.record({ email: oddText, fullName: oddText }), { maxKeys: 2 }),
                ),
                values: fc.dictionary(
                  fc.oneof(fc.constant('Fee'), oddText),
                  fc.oneof(oddText, fc.boolean()),
                  {
                    maxKeys: 2,
                  },
                ),
                title: oddText,
                send: fc.oneof(
                  { arbitrary: fc.constant(false), weight: 9 },
                  { arbitrary: fc.constant(true), weight: 1 },
                ),
              },
              { requiredKeys: ['recipients'] },
            ),
            { maxLength: 3 },
          ),
        })
        .map((value) => JSON.stringify(value));
  }
}

/** A multipart body by hand: `parts` of [name, file name or null, content type or null, text]. */
function multipart(parts: Array<[string, string | null, string | null, string]>): {
  text: string;
  type: string;
} {
  const boundary = 'fuzzboundary7MA4YWxkTrZu0gW';
  const text = parts
    .map(
      ([name, fileName, type, value]) =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${fileName === null ? '' : `; filename="${fileName}"`}\r\n${type === null ? '' : `Content-Type: ${type}\r\n`}\r\n${value}\r\n`,
    )
    .join('');
  return { text: `${text}--${boundary}--\r\n`, type: `multipart/form-data; boundary=${boundary}` };
}

/** `POST /v1/documents` as multipart: the JSON as a field or as a Blob-like file part, a file that is no PDF. */
function documentMultipart(pools: FuzzPools): fc.Arbitrary<{ text: string; type: string }> {
  return fc
    .tuple(apiBodyJson('document', pools), fc.boolean(), fc.boolean())
    .map(([json, asBlob, withFile]) =>
      multipart([
        ['document', asBlob ? 'blob' : null, 'application/json', json],
        ...(withFile ? ([['file', 'a.pdf', 'application/pdf', '%PDF-1.4 not really']] as const) : []),
      ] as Array<[string, string | null, string | null, string]>),
    );
}

/** A bulk send's spreadsheet, its cells odd, after the form's CSRF token. */
const bulkMultipart = fc
  .array(fc.tuple(fc.oneof(fc.constant('ann@client.example'), oddText), oddText, oddText), { maxLength: 4 })
  .map((rows) =>
    multipart([
      ['_csrf', null, null, '{{csrf-raw}}'],
      [
        'file',
        'clients.csv',
        'text/csv',
        [
          'Client email,Client name,Fee',
          ...rows.map((cells) => cells.map((c) => `"${c.replaceAll('"', '""')}"`).join(',')),
        ].join('\r\n'),
      ],
    ]),
  );

const brokenJson = fc.constantFrom(
  '{',
  '}',
  '{"url":',
  "{'url':'x'}",
  '{"url":"x",}',
  '[1,2,]',
  'NaN',
  '{"a":NaN}',
  'undefined',
  '\uFEFF{"url":"https://hooks.example.com/","events":["document.sent"]}',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '{"url":"https://hooks.example.com/","url":"https://127.0.0.1/","events":["document.sent"]}',
  '"just a string"',
  'null',
  '0',
  '[]',
  '{"a":"\\ud800"}',
  '{"a":"\\u0000"}',
  '\u0000',
  '{"a":1e999999}',
);

const deepJson = fc
  .tuple(fc.integer({ min: 50, max: 100_000 }), fc.constantFrom('array', 'object'))
  .map(
    ([depth, kind]): Body =>
      kind === 'array'
        ? { prefix: '', repeat: '[', times: depth, suffix: ']'.repeat(depth) }
        : { prefix: '', repeat: '{"a":', times: depth, suffix: `1${'}'.repeat(depth)}` },
  );

const hugeBody = fc
  .tuple(fc.integer({ min: 100_000, max: 1_100_000 }), fc.constantFrom('json-string', 'raw', 'form'))
  .map(([size, kind]): Body => {
    if (kind === 'json-string')
      return { prefix: '{"url":"', repeat: 'a', times: size, suffix: '","events":[]}' };
    if (kind === 'form')
      return { prefix: '_csrf={{csrf}}&description=', repeat: 'a', times: size, suffix: '' };
    return { prefix: '', repeat: 'x', times: size, suffix: '' };
  });

const formKeys = [
  'email',
  'password',
  'next',
  'url',
  'events',
  'description',
  'enabled',
  'name',
  'plan',
  'role',
  'workspaceId',
  'workspaceName',
  'title',
  'body',
  'currency',
  'vatMode',
  'more',
  'preview',
  'recipientRows',
  'priceRows',
  'r0_email',
  'r0_name',
  'r0_role',
  'r0_method',
  'r0_order',
  'r1_email',
  'p0_name',
  'p0_price',
  'p0_qty',
  'p0_vat',
  'p0_billing',
  'p0_periods',
  'fullName',
  'consent',
  'code',
  'reason',
  'currentPassword',
  'newPassword',
  '__proto__',
  'constructor',
  '_csrf',
];

const formValues = fc.oneof(
  {
    arbitrary: fc.constantFrom(
      'ann@client.example',
      'new-owner@example.com',
      'not-an-email',
      'a@b',
      `${'x'.repeat(250)}@example.com`,
      'correct horse battery staple',
      'short',
      'p'.repeat(201),
      '/documents',
      '//evil.example',
      'https://evil.example',
      '/settings/integrations',
      'max',
      'free',
      'enterprise',
      'owner',
      'member',
      'admin',
      'signer',
      'viewer',
      'standard',
      'email-code',
      'yes',
      'no',
      'on',
      'true',
      'false',
      'EUR',
      'CHF',
      'XXX',
      'eur',
      'included',
      'excluded',
      'recipients',
      'prices',
      'monthly',
      'yearly',
      'one-off',
      '0',
      '1',
      '-1',
      '100',
      '1000000',
      '1e9',
      '0.1',
      '19.99',
      '12,5',
      'NaN',
      '123456',
      '000000',
      'Ann Lee',
      '',
      ...eventNames,
      ...urlValues,
    ),
    weight: 8,
  },
  { arbitrary: anyText, weight: 3 },
);

/** Fields a form of this kind would plausibly carry, so that forms also get through. */
function formFieldsFor(kind: FormKind | undefined, pools: FuzzPools): fc.Arbitrary<Array<[string, string]>> {
  const mine = fc.constantFrom(pools.own.workspace, pools.other.workspace);
  switch (kind) {
    case 'document':
      return fc
        .record({
          title: fc.oneof(fc.constantFrom('Consulting agreement', 'NDA', '', 't'.repeat(201)), shortText),
          body: fc.oneof(fc.constantFrom('The parties agree.', 'The parties agree.', ''), shortText),
          r0_email: fc.constantFrom(
            'ann@client.example',
            'bob@client.example',
            'ann@client.example',
            'bad',
            '',
          ),
          r0_name: fc.constantFrom('Ann Lee', 'Bob Ray', '', 'n'.repeat(300)),
          r0_role: fc.constantFrom('signer', 'signer', 'viewer', 'boss'),
          r0_method: fc.constantFrom('standard', 'standard', 'email-code', 'x'),
          r0_order: fc.constantFrom('1', '1', '2', '0', '101', 'x'),
          currency: fc.constantFrom('EUR', 'EUR', 'usd', 'XXX', ''),
          p0_name: fc.constantFrom('', '', 'Setup', 'Retainer'),
          p0_price: fc.constantFrom('', '', '100', '19.99', '-5', '1e12', 'abc'),
          p0_billing: fc.constantFrom('one-off', 'monthly', 'yearly', 'weekly'),
          p0_periods: fc.constantFrom('0', '12', '-1', 'x'),
          vatMode: fc.constantFrom('included', 'excluded'),
          more: fc.constantFrom('recipients', 'prices', ''),
        })
        .chain((fields) =>
          fc.oneof(
            // All of them, or some: a whole form gets through as often as a broken one is refused.
            fc.constant(Object.entries(fields)),
            fc.subarray(Object.entries(fields)),
          ),
        )
        .map((entries) => entries.filter(([name, value]) => name !== 'more' || value !== ''));
    case 'endpoint':
      return fc
        .tuple(
          fc.constantFrom(...urlValues),
          fc.subarray(eventNames),
          fc.oneof(shortText, fc.constant('d'.repeat(501))),
          fc.constantFrom('on', 'true', ''),
        )
        .map(([url, events, description, enabled]) => [
          ['url', url],
          ...events.map((e): [string, string] => ['events', e]),
          ['description', description],
          ['enabled', enabled],
        ]);
    case 'sign':
      return fc.oneof(
        fc.constantFrom<Array<[string, string]>>(
          [
            ['fullName', 'Ann Lee'],
            ['consent', 'yes'],
          ],
          [
            ['fullName', 'Bob Ray'],
            ['consent', 'yes'],
          ],
        ),
        fc.subarray([
          ['fullName', 'Ann Lee'],
          ['consent', 'yes'],
          ['code', '123456'],
          ['reason', 'No, thank you.'],
          ['fullName', 'Bob Ray'],
        ] as Array<[string, string]>),
      );
    case 'login':
    case 'signup':
      return fc
        .tuple(
          fc.constantFrom('owner-a@fuzz.example', 'new-owner@example.com', 'NOT AN EMAIL', ''),
          fc.constantFrom('correct horse battery staple', 'wrong password', 'short', ''),
          fc.constantFrom('Fuzz works', '', 'w'.repeat(101)),
          fc.constantFrom('/documents', '//evil.example', 'https://evil.example', ''),
          // Half the time the right credentials of A's owner: the sign-in limit (10 per
          // address) leaves the fuzz ten tries, and some must get in.
          fc.boolean(),
        )
        .map(([email, password, workspaceName, next, right]) => [
          ['email', right ? 'owner-a@fuzz.example' : email],
          ['password', right ? 'correct horse battery staple' : password],
          ['workspaceName', workspaceName],
          ['next', next],
        ]);
    case 'member':
      return fc
        .tuple(
          fc.constantFrom('invitee@example.com', 'bad', ''),
          fc.constantFrom('owner', 'member', 'admin', ''),
        )
        .map(([email, role]) => [
          ['email', email],
          ['role', role],
        ]);
    case 'plan':
      return fc.constantFrom('max', 'free', 'enterprise', '').map((plan) => [['plan', plan]]);
    case 'key':
      return fc.oneof(shortText, fc.constant('k'.repeat(300))).map((name) => [['name', name]]);
    case 'publicLink':
      return fc
        .tuple(
          oddText,
          fc.oneof(fc.constant('visitor@client.example'), oddText),
          fc.oneof(fc.constant('123456'), oddText),
        )
        .map(([fullName, email, code]) => [
          ['fullName', fullName],
          ['email', email],
          ['code', code],
        ]);
    case 'account':
      return fc
        .tuple(
          mine,
          fc.constantFrom('wrong password here', 'short'),
          fc.constantFrom('another long password', ''),
        )
        .map(([workspaceId, currentPassword, newPassword]) => [
          ['workspaceId', workspaceId],
          ['currentPassword', currentPassword],
          ['newPassword', newPassword],
        ]);
    default:
      return fc.constant([]);
  }
}

function formBody(template: Template, pools: FuzzPools): fc.Arbitrary<string> {
  const randomFields = fc.array(fc.tuple(fc.constantFrom(...formKeys), formValues), { maxLength: 6 });
  const csrf = fc.oneof(
    { arbitrary: fc.constant([['_csrf', '{{csrf}}']] as Array<[string, string]>), weight: 6 },
    { arbitrary: fc.constant([] as Array<[string, string]>), weight: 3 },
    { arbitrary: tokenish.map((t): Array<[string, string]> => [['_csrf', t]]), weight: 1 },
    {
      arbitrary: fc.constant([
        ['_csrf', '{{csrf}}'],
        ['_csrf', 'other'],
      ] as Array<[string, string]>),
      weight: 1,
    },
  );
  return fc
    .tuple(
      csrf,
      formFieldsFor(template.form, pools),
      randomFields,
      fc.constantFrom('encoded', 'encoded', 'raw'),
    )
    .map(([token, fields, extra, how]) =>
      [...token, ...fields, ...extra]
        .map(([k, v]) =>
          how === 'raw' || v === '{{csrf}}' ? `${k}=${v}` : `${percentEncode(k)}=${percentEncode(v)}`,
        )
        .join('&'),
    );
}

interface BodyAndType {
  body: Body | null;
  contentType: string | null;
}

function bodyFor(template: Template, method: string, pools: FuzzPools): fc.Arbitrary<BodyAndType> {
  const wantsBody = !['GET', 'HEAD', 'OPTIONS', 'DELETE'].includes(method.toUpperCase());
  const json = fc.oneof(
    { arbitrary: validEndpointJson, weight: 3 },
    { arbitrary: endpointJson, weight: 5 },
    { arbitrary: fc.json({ maxDepth: 4 }), weight: 3 },
    { arbitrary: brokenJson, weight: 2 },
    { arbitrary: fc.constant(''), weight: 1 },
  );
  const form = formBody(template, pools);
  const ownJson = template.body ? apiBodyJson(template.body, pools) : null;
  const natural =
    template.target === 'api' ? (ownJson ? fc.oneof({ arbitrary: ownJson, weight: 3 }, json) : json) : form;
  const naturalType = template.target === 'api' ? jsonTypes : formTypes;
  const text = fc.oneof(
    {
      arbitrary: fc.tuple(natural, fc.constantFrom(...naturalType)).map(([t, type]) => ({ text: t, type })),
      weight: 12,
    },
    {
      arbitrary: fc
        .tuple(template.target === 'api' ? form : json, fc.constantFrom(...naturalType))
        .map(([t, type]) => ({ text: t, type })),
      weight: 2,
    },
    {
      arbitrary: fc
        .tuple(fc.oneof(json, form), fc.constantFrom(...jsonTypes, ...formTypes, ...otherTypes))
        .map(([t, type]) => ({ text: t, type })),
      weight: 3,
    },
    { arbitrary: fc.tuple(natural).map(([t]) => ({ text: t, type: null as string | null })), weight: 1 },
    ...(template.body === 'document'
      ? [
          {
            arbitrary: documentMultipart(pools) as fc.Arbitrary<{ text: string; type: string | null }>,
            weight: 4,
          },
        ]
      : []),
    ...(template.form === 'bulk'
      ? [{ arbitrary: bulkMultipart as fc.Arbitrary<{ text: string; type: string | null }>, weight: 12 }]
      : []),
  );
  const withBody = fc.oneof(
    {
      arbitrary: text.map(({ text, type }): BodyAndType => ({ body: { text }, contentType: type })),
      weight: 20,
    },
    {
      arbitrary: fc
        .tuple(deepJson, fc.constantFrom(...jsonTypes))
        .map(([body, contentType]) => ({ body, contentType })),
      weight: 1,
    },
    {
      arbitrary: fc
        .tuple(hugeBody, fc.constantFrom(...jsonTypes, ...formTypes))
        .map(([body, contentType]) => ({ body, contentType })),
      weight: 1,
    },
  );
  const none = fc.oneof(
    { arbitrary: fc.constant<BodyAndType>({ body: null, contentType: null }), weight: 6 },
    {
      arbitrary: fc
        .constantFrom(...jsonTypes, ...formTypes)
        .map((contentType) => ({ body: null, contentType })),
      weight: 1,
    },
  );
  return wantsBody
    ? fc.oneof({ arbitrary: withBody, weight: 9 }, { arbitrary: none, weight: 1 })
    : fc.oneof({ arbitrary: none, weight: 9 }, { arbitrary: withBody, weight: 1 });
}

// ---------------------------------------------------------------------------------------
// The request
// ---------------------------------------------------------------------------------------

const templatesByTarget = {
  api: templates.filter((t) => t.target === 'api'),
  sign: templates.filter((t) => t.target === 'sign'),
  web: templates.filter((t) => t.target === 'web'),
  other: templates.filter((t) => t.target === 'other'),
};

const template = fc.oneof(
  { arbitrary: fc.constantFrom(...templatesByTarget.api), weight: 45 },
  { arbitrary: fc.constantFrom(...templatesByTarget.sign), weight: 15 },
  { arbitrary: fc.constantFrom(...templatesByTarget.web), weight: 36 },
  { arbitrary: fc.constantFrom(...templatesByTarget.other), weight: 4 },
);

/** `arbitrary` `weight` times in `weight + nullWeight`, null otherwise. */
function sometimes<T>(
  arbitrary: fc.Arbitrary<T>,
  weight: number,
  nullWeight: number,
): fc.Arbitrary<T | null> {
  return fc.oneof({ arbitrary, weight }, { arbitrary: fc.constant(null), weight: nullWeight });
}

export function fuzzRequest(pools: FuzzPools): fc.Arbitrary<FuzzRequest> {
  const query = queryFor(pools);
  const cookie = cookieFor(pools);
  return template.chain((t) =>
    fc
      .tuple(
        fc.oneof(
          { arbitrary: fc.constantFrom(...t.methods), weight: 7 },
          { arbitrary: anyMethod, weight: 3 },
        ),
        pathFor(t, pools),
        query,
      )
      .chain(([method, path, search]) =>
        fc
          .record({
            body: bodyFor(t, method, pools),
            authorization: sometimes(authorization, t.target === 'api' ? 9 : 1, 1),
            secondAuthorization: sometimes(authorization, 1, 40),
            cookie: t.target === 'api' ? sometimes(cookie, 1, 8).map((c) => c ?? null) : cookie,
            accept: sometimes(fc.constantFrom(...acceptValues), 1, 1),
            forwardedFor: sometimes(
              fc.tuple(fc.nat(255), fc.nat(255)).map(([x, y]) => `10.77.${x}.${y}`),
              t.target === 'api' ? 1 : 3,
              1,
            ),
            extra: extraHeader,
            framing: fc.constantFrom(
              'content-length',
              'content-length',
              'content-length',
              'content-length',
              'chunked',
            ),
            noHost: fc.integer({ min: 0, max: 150 }).map((n) => n === 0),
          })
          .map(
            ({
              body,
              authorization,
              secondAuthorization,
              cookie,
              accept,
              forwardedFor,
              extra,
              framing,
              noHost,
            }) => {
              const headers: Array<[string, string]> = [];
              if (body.contentType !== null) headers.push(['content-type', body.contentType]);
              if (authorization !== null) headers.push(['authorization', authorization]);
              if (secondAuthorization !== null) headers.push(['authorization', secondAuthorization]);
              if (cookie !== null) headers.push(['cookie', cookie]);
              if (accept !== null) headers.push(['accept', accept]);
              if (forwardedFor !== null) headers.push(['x-forwarded-for', forwardedFor]);
              if (body.body !== null && framing === 'chunked') headers.push(['transfer-encoding', 'chunked']);
              headers.push(...extra);
              return {
                target: t.target,
                route: `${t.target} ${t.path}`,
                method,
                path: wirePath(path + search),
                // Placeholders are plain ASCII: they pass through unchanged.
                headers: headers.map(([name, value]): [string, string] => [name, wireHeaderValue(value)]),
                body: body.body,
                noHost,
              };
            },
          ),
      ),
  );
}

// ---------------------------------------------------------------------------------------
// Sending
// ---------------------------------------------------------------------------------------

/** The live values behind the placeholders. */
export interface Credentials {
  /** W: A's write key (the document and template writes). */
  keys: Record<'A' | 'W' | 'B' | 'free' | 'revoked', string>;
  session: string;
  csrfCookie: string;
  csrf: string;
}

export function fill(text: string, credentials: Credentials): string {
  if (!text.includes('{{')) return text;
  return text
    .replaceAll('{{key:A-cut}}', credentials.keys.A.slice(0, -1))
    .replaceAll('{{key:A}}', credentials.keys.A)
    .replaceAll('{{key:W}}', credentials.keys.W)
    .replaceAll('{{key:B}}', credentials.keys.B)
    .replaceAll('{{key:free}}', credentials.keys.free)
    .replaceAll('{{key:revoked}}', credentials.keys.revoked)
    .replaceAll('{{session}}', credentials.session)
    .replaceAll('{{csrfCookie}}', credentials.csrfCookie)
    .replaceAll('{{csrf-raw}}', credentials.csrf)
    .replaceAll('{{csrf}}', encodeURIComponent(credentials.csrf));
}

export function bodyText(body: Body, credentials: Credentials): string {
  if ('text' in body) return fill(body.text, credentials);
  return fill(body.prefix, credentials) + body.repeat.repeat(body.times) + body.suffix;
}

export interface FuzzResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The size of the header block as received. */
  headerBytes: number;
  body: Buffer;
}

export type SendResult = { ok: true; response: FuzzResponse } | { ok: false; error: string };

/** A complete answer: its status, headers (and their size as received) and body. */
function answer(res: IncomingMessage, chunks: Buffer[]): SendResult {
  return {
    ok: true,
    response: {
      status: res.statusCode ?? 0,
      headers: res.headers,
      headerBytes: res.rawHeaders.reduce((sum, part) => sum + part.length + 2, 0),
      body: Buffer.concat(chunks),
    },
  };
}

/** Sends one request over a real socket and reads the whole answer (or the error). */
export function send(
  origin: { host: string; port: number },
  agent: Agent,
  req: FuzzRequest,
  credentials: Credentials,
  timeoutMs: number,
): Promise<SendResult> {
  const headers = req.headers.map(([name, value]): [string, string] => [name, fill(value, credentials)]);
  const body = req.body === null ? null : Buffer.from(bodyText(req.body, credentials), 'utf8');
  const chunked = headers.some(([name, value]) => name === 'transfer-encoding' && value === 'chunked');
  if (body !== null && !headers.some(([name]) => name === 'content-length') && !chunked)
    headers.push(['content-length', String(body.length)]);
  // Given its headers as a list, Node's client adds no Host header of its own.
  if (!req.noHost && !headers.some(([name]) => name === 'host'))
    headers.unshift(['host', `${origin.host}:${origin.port}`]);
  return new Promise((resolve) => {
    let settled = false;
    // Whatever happens to the socket (or if none is ever free), the request ends by then.
    const deadline = setTimeout(() => {
      outgoing?.destroy();
      done({ ok: false, error: `no answer within ${timeoutMs} ms` });
    }, timeoutMs + 1000);
    const done = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(result);
    };
    let outgoing: ReturnType<typeof httpRequest> | undefined;
    let answered = false;
    try {
      outgoing = httpRequest(
        {
          host: origin.host,
          port: origin.port,
          agent,
          method: req.method,
          path: req.path,
          headers: headers.flat(),
          setHost: false,
          // Like a browser's (Node's default is 16 KB): a long redirect is still an answer.
          maxHeaderSize: 256 * 1024,
        },
        (res) => {
          answered = true;
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => done(answer(res, chunks)));
          res.on('error', (error) => done({ ok: false, error: `response: ${error.message}` }));
          res.on('close', () => {
            if (!res.complete)
              done({ ok: false, error: 'the connection closed in the middle of the answer' });
          });
        },
      );
    } catch (error) {
      // Node's client refused to send it (a header it considers invalid): not a server answer.
      done({ ok: false, error: `client refused: ${(error as Error).message}` });
      return;
    }
    const sending = outgoing;
    // Node's client hands the answer to a CONNECT to 'connect' (as a tunnel), never to the
    // response callback: read it from the socket, which the server closes after it.
    sending.on('connect', (res, socket, head) => {
      answered = true;
      const chunks: Buffer[] = [head];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('error', () => {});
      socket.on('close', () => done(answer(res, chunks)));
    });
    sending.setTimeout(timeoutMs, () => sending.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    sending.on('error', (error) => done({ ok: false, error: error.message }));
    sending.on('close', () => {
      if (!answered) done({ ok: false, error: 'the connection closed without an answer' });
    });
    if (body !== null) sending.end(body);
    else sending.end();
  });
}

/** The request in a form a person can replay (long parts cut). */
export function describeRequest(req: FuzzRequest): string {
  const cut = (s: string, n = 300) => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s);
  const body =
    req.body === null
      ? ''
      : 'text' in req.body
        ? `\n\n${cut(req.body.text, 600)}`
        : `\n\n${cut(req.body.prefix)}${req.body.repeat}×${req.body.times}${cut(req.body.suffix, 40)}`;
  const headers = req.headers.map(([name, value]) => `\n${name}: ${cut(value, 200)}`).join('');
  return `${req.method} ${cut(req.path, 500)}${req.noHost ? ' (no Host header)' : ''}${headers}${body}`;
}
