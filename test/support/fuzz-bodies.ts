// The fuzz test's bodies (see fuzz-values.ts for the whole): JSON for each write of /v1
// (endpoints, documents, withdrawals, templates and their use), valid, near-valid and broken;
// multipart documents and bulk spreadsheets; deep, huge and broken JSON; and the web
// application's forms, field by field, for each route's form.
import fc from 'fast-check';
import { documentEventTypes } from '../../src/documents/events.ts';
import {
  type ApiBodyKind,
  type FormKind,
  formTypes,
  jsonTypes,
  otherTypes,
  type Template,
} from './fuzz-routes.ts';
import {
  anyText,
  type Body,
  type FuzzPools,
  oddText,
  oddUnits,
  percentEncode,
  shortText,
  tokenish,
} from './fuzz-values.ts';

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

export function bodyFor(template: Template, method: string, pools: FuzzPools): fc.Arbitrary<BodyAndType> {
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
