// The OpenAPI contract: generated from the route schemas, valid OpenAPI 3.1, committed as
// docs/openapi.json exactly as generated (run `npm run openapi` after changing a schema),
// served at GET /v1/openapi.json without a key and without touching a key's bucket, and
// naming every route of /v1 and every error code, no more and no less.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { buildOpenApiDocument } from '../../src/api/openapi.ts';
import { errorStatus } from '../../src/http/errors.ts';
import { renderToString } from '../../src/ui/html.ts';
import { signetVersion } from '../../src/version.ts';
import { markdown, markdownInline } from '../../src/web/reference-markdown.ts';
import { check, pointer } from '../support/contract.ts';
import { callApi, createTestWorkspace, describeEachDatabase, useHarness } from '../support/harness.ts';

const committedPath = join(import.meta.dirname, '..', '..', 'docs', 'openapi.json');
const committedServer = 'http://127.0.0.1:3000/v1';
const methods = ['get', 'post', 'patch', 'put', 'delete'] as const;

type Operation = { responses: Record<string, { content?: { 'application/json'?: { schema: unknown } } }> };
type Document = { paths: Record<string, Partial<Record<(typeof methods)[number], Operation>>> } & Record<
  string,
  unknown
>;

test('docs/openapi.json is the generated document (run npm run openapi after changing a schema)', () => {
  const committed = JSON.parse(readFileSync(committedPath, 'utf8'));
  assert.deepEqual(committed, buildOpenApiDocument({ serverUrl: committedServer, version: signetVersion }));
});

test('the document is valid OpenAPI 3.1', async () => {
  const validator = new Validator();
  const result = await validator.validate(
    buildOpenApiDocument({ serverUrl: committedServer, version: signetVersion }),
  );
  assert.ok(result.valid, JSON.stringify(result.errors, null, 2));
  assert.equal(validator.version, '3.1');
});

test('every error code of the error table is in the document with its status', () => {
  const document = buildOpenApiDocument({ serverUrl: committedServer, version: signetVersion }) as Document;
  assert.deepEqual(document['x-error-codes'], errorStatus);
  const documented = new Map<string, string>();
  for (const item of Object.values(document.paths)) {
    for (const method of methods) {
      for (const [status, response] of Object.entries(item[method]?.responses ?? {})) {
        const schema = response.content?.['application/json']?.schema as {
          properties?: { error?: { enum?: string[] } };
        };
        for (const code of schema?.properties?.error?.enum ?? []) documented.set(code, status);
      }
    }
  }
  for (const [code, status] of Object.entries(errorStatus)) {
    // Answered outside any operation (per path, or before routing), listed in x-error-codes.
    if (['method-not-allowed', 'malformed-request', 'request-timeout', 'header-too-large'].includes(code))
      continue;
    assert.equal(documented.get(code), String(status), `${code} is documented with ${status}`);
  }
});

describeEachDatabase('the contract served', (kind) => {
  const h = useHarness(kind);

  test('GET /v1/openapi.json answers without a key, with the rate-limit headers', async () => {
    const response = await fetch(`${h.baseUrl}/v1/openapi.json`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    assert.ok(response.headers.get('x-ratelimit-limit'));
    assert.ok(response.headers.get('x-ratelimit-remaining'));
    const served = await response.json();
    assert.deepEqual(
      served,
      buildOpenApiDocument({ serverUrl: `${h.config.publicUrl}/v1`, version: signetVersion }),
    );
  });

  test('fetching the contract with a key never draws from that key’s bucket', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const first = await callApi(h, 'GET', '/v1/documents', { key: ws.apiKey });
    const before = Number(first.headers.get('x-ratelimit-remaining'));
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${h.baseUrl}/v1/openapi.json`, {
        headers: { authorization: `Bearer ${ws.apiKey}` },
      });
      assert.equal(res.status, 200);
    }
    const after = await callApi(h, 'GET', '/v1/documents', { key: ws.apiKey });
    assert.equal(Number(after.headers.get('x-ratelimit-remaining')), before - 1);
  });

  test('GET /docs, without a session, is the reference rendered from the same document', async () => {
    const response = await fetch(`${h.baseUrl}/docs`);
    assert.equal(response.status, 200);
    const page = await response.text();
    const document = buildOpenApiDocument({ serverUrl: '', version: signetVersion }) as Document;
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of methods)
        if (item[method]) assert.ok(page.includes(`${method.toUpperCase()} ${path}`), path);
    }
    for (const code of Object.keys(errorStatus)) assert.ok(page.includes(`<code>${code}</code>`), code);
    // Nested objects: the fields of an operation's body are listed down to array items of
    // named objects, with their enumerations and formats.
    assert.ok(page.includes('<code>data.recipients[].fields[].type</code>'), 'nested array items');
    assert.ok(page.includes('<code>data.events[].createdAt</code>'), 'nested fields');
    assert.ok(page.includes('string <span class="muted">(uuid)</span>'), 'formats');
    assert.ok(
      page.includes('one of <code>&quot;signer&quot;</code>, <code>&quot;viewer&quot;</code>'),
      'enums',
    );
    // Examples, folded (no script needed), and every webhook has its section with its example.
    assert.ok(page.includes('<details class="example">'), 'examples');
    assert.ok(page.includes('Consulting agreement — Northwind Traders'), 'the example document');
    for (const hook of Object.values(document.webhooks as Record<string, { post: { operationId: string } }>))
      assert.ok(page.includes(`id="${hook.post.operationId}"`), hook.post.operationId);
    // Markdown of the descriptions, rendered.
    assert.ok(page.includes('<strong>Authentication</strong>'), 'Markdown emphasis');
    assert.ok(page.includes('<li><strong>Envelope</strong>'), 'Markdown lists');
  });

  test('the document names every route of /v1, and every route it names exists', () => {
    const document = buildOpenApiDocument({ serverUrl: '', version: signetVersion }) as Document;
    const documented = new Set<string>();
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of methods) {
        if (item[method]) documented.add(`${method.toUpperCase()} /v1${path.replace(/\{(\w+)\}/g, ':$1')}`);
      }
    }
    for (const route of documented) {
      const [method, url] = route.split(' ') as [string, string];
      assert.ok(h.app.hasRoute({ method: method as 'GET', url }), `${route} exists`);
    }
    const served = [
      'GET /v1/documents',
      'POST /v1/documents',
      'GET /v1/documents/:id',
      'DELETE /v1/documents/:id',
      'PUT /v1/documents/:id',
      'POST /v1/documents/:id/send',
      'POST /v1/documents/:id/withdraw',
      'POST /v1/documents/:id/recipients/:recipientId/remind',
      'POST /v1/documents/:id/recipients/:recipientId/signing-url',
      'GET /v1/templates',
      'POST /v1/templates',
      'GET /v1/templates/:id',
      'PUT /v1/templates/:id',
      'DELETE /v1/templates/:id',
      'POST /v1/templates/:id/documents',
      'GET /v1/webhook-endpoints',
      'POST /v1/webhook-endpoints',
      'GET /v1/webhook-endpoints/:id',
      'PATCH /v1/webhook-endpoints/:id',
      'DELETE /v1/webhook-endpoints/:id',
      'POST /v1/webhook-endpoints/:id/rotate-secret',
      'GET /v1/webhook-endpoints/:id/deliveries',
      'POST /v1/webhook-endpoints/:id/deliveries/:deliveryId/resend',
      'GET /v1/events/stream',
    ];
    assert.deepEqual([...documented].sort(), served.sort());
  });
});

type Examples = Record<string, { value: unknown }>;
type Media = { schema: unknown; examples?: Examples };
type Described = {
  operationId?: string;
  parameters?: Array<{ name: string; example?: unknown; schema: unknown }>;
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
};

/** Every operation and webhook of the committed document, with where it is. */
function describedOperations(): Array<{ name: string; at: string[]; op: Described }> {
  const committed = JSON.parse(readFileSync(committedPath, 'utf8')) as {
    paths: Record<string, Record<string, Described>>;
    webhooks: Record<string, Record<string, Described>>;
  };
  return (['paths', 'webhooks'] as const).flatMap((section) =>
    Object.entries(committed[section]).flatMap(([key, item]) =>
      Object.entries(item).map(([method, op]) => ({
        name: `${op.operationId ?? '(no operationId)'} (${section} ${method.toUpperCase()} ${key})`,
        at: [section, key, method],
        op,
      })),
    ),
  );
}

test('every operation and webhook has an example of its request body and of each response with a body', () => {
  const missing: string[] = [];
  for (const { name, op } of describedOperations()) {
    for (const [type, media] of Object.entries(op.requestBody?.content ?? {}))
      if (Object.keys(media.examples ?? {}).length === 0) missing.push(`${name}: request body ${type}`);
    for (const [status, response] of Object.entries(op.responses))
      for (const [type, media] of Object.entries(response.content ?? {}))
        if (Object.keys(media.examples ?? {}).length === 0) missing.push(`${name}: ${status} ${type}`);
  }
  assert.deepEqual(missing, []);
});

test('every example of the document matches its own schema (checked by the independent validator)', async () => {
  const problems: string[] = [];
  let examples = 0;
  for (const { name, at, op } of describedOperations()) {
    const media: Array<[string, string[], Media]> = [
      ...Object.entries(op.requestBody?.content ?? {}).map(
        ([type, m]) =>
          [`request body ${type}`, [...at, 'requestBody', 'content', type], m] as [string, string[], Media],
      ),
      ...Object.entries(op.responses).flatMap(([status, response]) =>
        Object.entries(response.content ?? {}).map(
          ([type, m]) =>
            [`${status} ${type}`, [...at, 'responses', status, 'content', type], m] as [
              string,
              string[],
              Media,
            ],
        ),
      ),
    ];
    for (const [what, location, m] of media) {
      for (const [exampleName, example] of Object.entries(m.examples ?? {})) {
        examples++;
        const problem = await check(pointer(...location, 'schema'), example.value);
        if (problem) problems.push(`${name}, ${what}, example ${exampleName}:\n${problem}`);
      }
    }
    for (const [index, parameter] of (op.parameters ?? []).entries()) {
      if (parameter.example === undefined) continue;
      examples++;
      const problem = await check(pointer(...at, 'parameters', String(index), 'schema'), parameter.example);
      if (problem) problems.push(`${name}, parameter ${parameter.name}:\n${problem}`);
    }
  }
  assert.deepEqual(problems, []);
  assert.ok(examples > 50, `${examples} examples checked`);
});

test('descriptions are Markdown, with raw HTML shown as text and only safe links kept', () => {
  const block = renderToString(
    markdown(
      '**Keep** the `<secret>`.\n\n- one\n- [two](https://example.com/a?b=1&c=2)\n\n<script>alert(1)</script>',
    ),
  );
  assert.match(block, /<p><strong>Keep<\/strong> the <code>&lt;secret&gt;<\/code>.<\/p>/);
  assert.match(block, /<li><a href="https:\/\/example.com\/a\?b=1&amp;c=2">two<\/a><\/li>/);
  assert.ok(!block.includes('<script'), block);
  assert.ok(block.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), block);
  const inline = renderToString(
    markdownInline(
      '[x](javascript:alert(1)) <img src=x onerror=alert(1)> ![i](https://example.com/i.png) [y](/docs#errors) "q"',
    ),
  );
  assert.ok(!inline.includes('javascript:'), inline);
  assert.ok(!inline.includes('<img'), inline);
  assert.ok(inline.includes('<a href="/docs#errors">y</a>'), inline);
  assert.ok(inline.includes('&quot;q&quot;'), inline);
});

test('every operation, those added later included, keeps the rules of the contract', () => {
  const document = buildOpenApiDocument({ serverUrl: committedServer, version: signetVersion }) as {
    tags: Array<{ name: string }>;
    paths: Record<string, Record<string, Record<string, unknown>>>;
    webhooks: Record<string, Record<string, Record<string, unknown>>>;
    components: { headers: Record<string, { required?: boolean }> };
    'x-error-codes': Record<string, number>;
  };
  const tags = new Set(document.tags.map((tag) => tag.name));
  const broken: string[] = [];
  const operationIds = new Set<string>();
  const entries = [
    ...Object.entries(document.paths).map(([path, item]) => ({ path, item, webhook: false })),
    ...Object.entries(document.webhooks).map(([path, item]) => ({ path, item, webhook: true })),
  ];
  for (const { path, item, webhook } of entries) {
    for (const [method, op] of Object.entries(item)) {
      const name = `${method.toUpperCase()} ${path}`;
      const id = op.operationId as string | undefined;
      if (!id || operationIds.has(id)) broken.push(`${name}: a unique operationId`);
      operationIds.add(id ?? '');
      const opTags = (op.tags as string[] | undefined) ?? [];
      if (!opTags.length || !opTags.every((tag) => tags.has(tag))) broken.push(`${name}: declared tags`);
      if (!op.summary || !op.description) broken.push(`${name}: a summary and a description`);
      if (webhook) continue;
      for (const parameter of (op.parameters as Array<Record<string, unknown>>) ?? []) {
        const schema = parameter.schema as { format?: string };
        if (parameter.in === 'path' && schema.format !== 'uuid')
          broken.push(`${name}: path parameter ${parameter.name} is a uuid`);
      }
      const responses = op.responses as Record<
        string,
        {
          headers?: Record<string, { $ref?: string }>;
          content?: Record<string, { schema?: { properties?: { error?: { enum?: string[] } } } }>;
        }
      >;
      for (const [status, response] of Object.entries(responses)) {
        const headers = response.headers ?? {};
        const needed = [
          'X-RateLimit-Limit',
          'X-RateLimit-Remaining',
          ...(status === '429' || status === '503' ? ['Retry-After'] : []),
        ];
        for (const header of needed) {
          const ref = headers[header]?.$ref?.split('/').at(-1);
          if (!ref || !document.components.headers[ref]?.required)
            broken.push(`${name} ${status}: the required header ${header}`);
        }
        for (const code of response.content?.['application/json']?.schema?.properties?.error?.enum ?? []) {
          if (String(document['x-error-codes'][code]) !== status)
            broken.push(`${name} ${status}: ${code} has the status of x-error-codes`);
        }
      }
      for (const status of ['401', '403', '429', '500', '503'])
        if (!responses[status]) broken.push(`${name}: answers ${status} like every operation`);
    }
  }
  assert.deepEqual(broken, []);
});
