// @signet/client as it is shipped: src/types.ts is what the generator writes from
// docs/openapi.json; the package builds to ES modules and CommonJS that need no TypeScript and
// no Node-only API; and the built files work on the machine's own Node 20 (the project runs on
// 24): a signature verified, a download streamed and its SHA-256 checked with the key kept to
// /v1, a PDF sent from a path and a timeout. The Node 20 tests run the build this file makes
// first, so they stay in this file with it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { buildClient } from '../../packages/client/scripts/build.ts';
import { contractPath, generateTypes, typesPath } from '../../packages/client/scripts/generate-types.ts';

test('src/types.ts is what the generator writes from docs/openapi.json (run npm run client:types)', () => {
  const contract = JSON.parse(readFileSync(contractPath, 'utf8'));
  assert.equal(readFileSync(typesPath, 'utf8'), generateTypes(contract));
});

test('the package builds to ES modules and CommonJS that need no TypeScript and no Node-only API', () => {
  buildClient();
  const dist = join(import.meta.dirname, '..', '..', 'packages', 'client', 'dist');
  const esm = readFileSync(join(dist, 'index.js'), 'utf8');
  assert.match(esm, /export async function verifyWebhook/);
  const cjs = readFileSync(join(dist, 'cjs', 'index.js'), 'utf8');
  assert.match(cjs, /exports\.verifyWebhook = verifyWebhook/);
  for (const built of [esm, cjs]) assert.doesNotMatch(built, /from ['"]node:|require\(['"]node:/);
});

// The machine's own Node is 20 (the project runs on 24): the built package must work there.
const systemNode = '/usr/bin/node';
test('the built package, ESM and CommonJS, verifies a signature on Node 20', {
  skip: !existsSync(systemNode) && 'no /usr/bin/node here',
}, () => {
  const dist = pathToFileURL(
    join(import.meta.dirname, '..', '..', 'packages', 'client', 'dist', 'index.js'),
  ).href;
  const script = `
    import { createHmac } from 'node:crypto';
    import { createClient, verifyWebhook } from '${dist}';
    createClient({ apiKey: 'sgn_x', baseUrl: 'http://127.0.0.1:9/v1' });
    const t = new Date().toISOString();
    const body = JSON.stringify({ id: 'e', type: 'ping', createdAt: t, data: { message: 'hi' } });
    const header = 't=' + t + ',v1=' + createHmac('sha256', 'whsec_s').update(t + '.' + body).digest('hex');
    const event = await verifyWebhook(body, header, 'whsec_s');
    console.log(process.versions.node.split('.')[0], event.type);`;
  const out = execFileSync(systemNode, ['--input-type=module', '-e', script]).toString().trim();
  assert.match(out, /^\d+ ping$/);
  // The CommonJS build likewise, required.
  const cjs = join(import.meta.dirname, '..', '..', 'packages', 'client', 'dist', 'cjs', 'index.js');
  const required = `
    const { createHmac } = require('node:crypto');
    const { createClient, verifyWebhook } = require(${JSON.stringify(cjs)});
    createClient({ apiKey: 'sgn_x', baseUrl: 'http://127.0.0.1:9/v1' });
    const t = new Date().toISOString();
    const body = JSON.stringify({ id: 'e', type: 'ping', createdAt: t, data: { message: 'hi' } });
    const header = 't=' + t + ',v1=' + createHmac('sha256', 'whsec_s').update(t + '.' + body).digest('hex');
    verifyWebhook(body, header, 'whsec_s').then((event) =>
      console.log(process.versions.node.split('.')[0], event.type));`;
  const outCjs = execFileSync(systemNode, ['--input-type=commonjs', '-e', required]).toString().trim();
  assert.match(outCjs, /^\d+ ping$/);
});

test('the built package streams a download and checks its SHA-256 on Node 20, the key kept to /v1', {
  skip: !existsSync(systemNode) && 'no /usr/bin/node here',
}, () => {
  const dist = pathToFileURL(
    join(import.meta.dirname, '..', '..', 'packages', 'client', 'dist', 'index.js'),
  ).href;
  // One stand-in server plays the API and the download link; it records who sent a key.
  const script = `
    import { createHash } from 'node:crypto';
    import { createServer } from 'node:http';
    import { createClient, verifySha256 } from '${dist}';
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\\n'), Buffer.alloc(300000, 7)]);
    const sha256 = createHash('sha256').update(pdf).digest('hex');
    const seen = [];
    const server = createServer((req, res) => {
      seen.push([req.url.split('?')[0], req.headers.authorization ?? null]);
      if (req.url.startsWith('/v1/')) {
        const downloadUrl = 'http://127.0.0.1:' + server.address().port + '/files/d/sealed.pdf?sig=x';
        res.setHeader('content-type', 'application/json');
        const files = [{ kind: 'sealed', sha256, bytes: pdf.length, pages: 1, downloadUrl }];
        res.end(JSON.stringify({ ok: true, data: { id: 'd', status: 'signed', files } }));
      } else {
        res.writeHead(200, {
          'content-type': 'application/pdf',
          'content-disposition': "attachment; filename=\\"M_ller.pdf\\"; filename*=UTF-8''M%C3%BCller.pdf",
        });
        res.end(pdf);
      }
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    const signet = createClient({ apiKey: 'sgn_k', baseUrl: 'http://127.0.0.1:' + server.address().port + '/v1' });
    const file = await signet.documents.download('d', 'sealed');
    let bytes = 0;
    const reader = file.stream.pipeThrough(verifySha256(file.sha256)).getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) bytes += r.value.length;
    server.close();
    console.log(JSON.stringify({ node: process.versions.node, whole: bytes === pdf.length, name: file.fileName, seen }));`;
  const out = JSON.parse(execFileSync(systemNode, ['--input-type=module', '-e', script]).toString()) as {
    node: string;
    whole: boolean;
    name: string;
    seen: Array<[string, string | null]>;
  };
  assert.equal(out.whole, true, `on Node ${out.node}`);
  assert.equal(out.name, 'Müller.pdf');
  assert.deepEqual(out.seen, [
    ['/v1/documents/d', 'Bearer sgn_k'],
    ['/files/d/sealed.pdf', null],
  ]);
});

test('the built package, ESM and CommonJS, sends a PDF from a path on Node 20 (node:fs loaded then) and times out', {
  skip: !existsSync(systemNode) && 'no /usr/bin/node here',
}, () => {
  const dist = join(import.meta.dirname, '..', '..', 'packages', 'client', 'dist');
  const folder = mkdtempSync(join(tmpdir(), 'signet-client-node20-'));
  const pdfPath = join(folder, 'sla.pdf');
  writeFileSync(pdfPath, '%PDF-1.7 from a path');
  // A stand-in server that says what arrived, and stays silent on /slow.
  const body = (load: string) => `
    const { createServer } = require('node:http');
    (async () => {
      const { createClient } = await ${load};
      const server = createServer((req, res) => {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          if (req.url.endsWith('/slow')) return;
          res.setHeader('content-type', 'application/json');
          const type = req.headers['content-type'].split(';')[0];
          res.end(JSON.stringify({ ok: true, data: { type, pdf: body.includes('%PDF-1.7 from a path') } }));
        });
      });
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      const signet = createClient({ apiKey: 'sgn_k', baseUrl: 'http://127.0.0.1:' + server.address().port + '/v1' });
      const sent = await signet.documents.create({ title: 'T', recipients: [], file: ${JSON.stringify(pdfPath)} });
      const late = await signet.documents.get('slow', { timeoutMs: 100 }).catch((e) => e.name);
      server.closeAllConnections();
      server.close();
      console.log(JSON.stringify({ ...sent, late }));
    })();`;
  try {
    const esm = pathToFileURL(join(dist, 'index.js')).href;
    for (const [flavour, load] of [
      ['ESM', `import(${JSON.stringify(esm)})`],
      ['CommonJS', `Promise.resolve(require(${JSON.stringify(join(dist, 'cjs', 'index.js'))}))`],
    ] as const) {
      const out = execFileSync(systemNode, ['--input-type=commonjs', '-e', body(load)]).toString();
      assert.deepEqual(
        JSON.parse(out),
        { type: 'multipart/form-data', pdf: true, late: 'SignetNetworkError' },
        flavour,
      );
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
