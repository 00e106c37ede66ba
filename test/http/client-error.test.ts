// HTTP that Node's parser refuses before any route: the envelope with a stable code, the
// rate-limit headers of the client's address, and the connection closed, as an attacker's
// fuzzer or a broken client would meet it. Every answer is also held to docs/openapi.json
// (contract.ts): a code answered before routing must be in x-error-codes with its status.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import { assertContract, headersOf } from '../support/contract.ts';
import { describeEachDatabase, useHarness } from '../support/harness.ts';

/** Sends raw bytes and returns everything the server answers until it closes. */
function raw(baseUrl: string, request: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(request));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      answer += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
  });
}

/** The answer to `request` (raw HTTP) parsed, after it is held to docs/openapi.json (contract.ts). */
async function parse(request: string, answer: string) {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = new Map(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  const status = Number(statusLine.split(' ')[1]);
  // The request line as sent (a broken one is judged as a request to no operation).
  const [method = 'GET', target = '/v1'] = request.split('\r\n')[0]?.split(' ') ?? [];
  const path = target.replace(/^[a-z]+:\/\/[^/]*/i, '');
  await assertContract(path.startsWith('/') ? method : 'GET', path.startsWith('/') ? path : '/v1', {
    status,
    headers: headersOf(headers),
    text: body,
  });
  return { status, headers, body: JSON.parse(body) as unknown };
}

describeEachDatabase('malformed HTTP', (kind) => {
  const h = useHarness(kind);
  const cases: Array<[string, string, number, string]> = [
    [
      'a body framed by both Content-Length and Transfer-Encoding',
      'POST /v1/documents HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      400,
      'malformed-request',
    ],
    ['a broken request line', 'GARBAGE\r\n\r\n', 400, 'malformed-request'],
    [
      'CONNECT, which nothing here serves',
      'CONNECT /v1/documents HTTP/1.1\r\nHost: x\r\n\r\n',
      405,
      'method-not-allowed',
    ],
    [
      'headers over 16 KB',
      `GET /v1/documents HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
      'header-too-large',
    ],
  ];
  for (const [name, request, status, code] of cases) {
    test(`${name}: ${status} ${code} in the envelope, with the rate-limit headers`, async () => {
      const answer = await parse(request, await raw(h.baseUrl, request));
      assert.equal(answer.status, status);
      assert.deepEqual(answer.body, { ok: false, error: code });
      assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(answer.headers.get('x-ratelimit-limit'), String(h.rateLimiter.burst));
      assert.match(answer.headers.get('x-ratelimit-remaining') ?? '', /^\d+$/);
      assert.match(answer.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
      assert.equal(answer.headers.get('connection'), 'close');
      assert.equal(answer.headers.get('x-content-type-options'), 'nosniff');
    });
  }

  test('a URL that cannot be decoded is answered with nosniff too, under /v1 and outside it', async () => {
    for (const target of ['/v1/webhook-endpoints/%zz/-1', '/v1/%', '/documents/%zz/x', '/%']) {
      const answer = await raw(h.baseUrl, `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      const head = answer.split('\r\n\r\n')[0] ?? '';
      assert.match(head, /^HTTP\/1\.1 4\d\d /, target);
      assert.match(head, /\r\nx-content-type-options: nosniff\r\n/i, `${target}: ${head}`);
    }
  });

  test('HEAD refused by the parser gets the headers and no body', async () => {
    const answer = await raw(
      h.baseUrl,
      'HEAD /v1/documents HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n',
    );
    const [head = '', body] = answer.split('\r\n\r\n');
    const [statusLine = '', ...lines] = head.split('\r\n');
    await assertContract('HEAD', '/v1/documents', {
      status: Number(statusLine.split(' ')[1]),
      headers: headersOf(
        new Map(lines.map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()])),
      ),
      text: body ?? '',
    });
    assert.match(head, /^HTTP\/1\.1 400 /);
    assert.match(head, /X-RateLimit-Remaining: \d+/);
    assert.equal(body, '', 'no body after the headers of a HEAD answer');
  });

  test('a /v1 request without Host (HTTP/1.1 requires it): 400 malformed-request with the rate-limit headers', async () => {
    const request = 'GET /v1/documents HTTP/1.1\r\nConnection: close\r\n\r\n';
    const answer = await parse(request, await raw(h.baseUrl, request));
    assert.equal(answer.status, 400);
    assert.deepEqual(answer.body, { ok: false, error: 'malformed-request' });
    assert.match(answer.headers.get('x-ratelimit-remaining') ?? '', /^\d+$/);
  });

  test('the absolute form of a /v1 URL is the same request: guarded, rate limited, in the envelope', async () => {
    const { hostname, port } = new URL(h.baseUrl);
    const request = `GET http://${hostname}:${port}/v1/documents HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`;
    const answer = await parse(request, await raw(h.baseUrl, request));
    assert.equal(answer.status, 401);
    assert.deepEqual(answer.body, { ok: false, error: 'invalid-api-key' });
    assert.match(answer.headers.get('x-ratelimit-remaining') ?? '', /^\d+$/);
  });
});
