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
//
// This module puts a request together (`fuzzRequest`) and sends it (`send`); what it is made
// of is generated beside it: fuzz-values.ts (the request's data, the bytes on the wire, text
// values, ids), fuzz-routes.ts (routes, paths, query strings, credentials and headers) and
// fuzz-bodies.ts (bodies).
import {
  type Agent,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
} from 'node:http';
import fc from 'fast-check';
import { bodyFor } from './fuzz-bodies.ts';
import {
  acceptValues,
  anyMethod,
  authorization,
  cookieFor,
  extraHeader,
  pathFor,
  queryFor,
  templates,
} from './fuzz-routes.ts';
import { type Body, type FuzzPools, type FuzzRequest, wireHeaderValue, wirePath } from './fuzz-values.ts';

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
