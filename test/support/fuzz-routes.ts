// The fuzz test's routes and what rides on them (see fuzz-values.ts for the whole): every route
// of /v1, the signing pages and the web application as a template, with the methods an
// attacker tries; its paths (ids of this workspace, of another one and of nobody, segments
// encoded once, twice or not, broken and odd paths), query strings, and the credentials and
// headers (keys real and fake, sessions, content types, odd and repeated headers).
import fc from 'fast-check';
import {
  anyText,
  type FuzzPools,
  idOf,
  oddUnits,
  percentEncode,
  type Target,
  tokenish,
  tokenOf,
  weirdSegments,
} from './fuzz-values.ts';

// ---------------------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------------------

export interface Template {
  target: Target;
  methods: string[];
  path: string;
  form?: FormKind;
  /** The write API's body this route takes. */
  body?: ApiBodyKind;
}

export type FormKind =
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

export type ApiBodyKind = 'document' | 'withdraw' | 'template' | 'use';

export const templates: Template[] = [
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

export const anyMethod = fc.oneof(
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

export function pathFor(template: Template, pools: FuzzPools): fc.Arbitrary<string> {
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

export function queryFor(pools: FuzzPools): fc.Arbitrary<string> {
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
export const authorization = fc.oneof(
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
export function cookieFor(pools: FuzzPools): fc.Arbitrary<string | null> {
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

export const jsonTypes = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json;charset=UTF-8',
  'application/json; charset=latin1',
  'application/vnd.api+json',
  'application/jsonx',
  'application/json, text/plain',
];
export const formTypes = [
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=utf-8',
  'Application/X-WWW-Form-Urlencoded',
];
export const otherTypes = [
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

export const acceptValues = [
  '*/*',
  'application/json',
  'text/html',
  'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'application/xml',
  'image/png',
  ';;q=x',
  '',
];

export const extraHeader: fc.Arbitrary<Array<[string, string]>> = fc.oneof(
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
