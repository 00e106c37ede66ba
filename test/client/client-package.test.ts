// @signet/client as a stranger gets it: `npm run client:pack` builds the release tarball,
// which is installed with npm into a fresh folder outside the repository (so nothing of
// the workspace can be found), then used as published: imported from ES modules and
// required from CommonJS, each verifying a delivery signed here the way Signet signs
// (src/webhooks/signature.ts), under Node's default conditions and under `development`
// (which bundlers set, and which must reach the built files in the tarball); and type-checked
// from a .ts (ESM) and a .cts (CommonJS) file under nodenext and bundler resolution, with
// and without `customConditions: ["development"]` (and with Node's types instead of the
// DOM library), where a deliberate type error must be reported so the check cannot pass on
// types that resolved to nothing.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { repositoryFromRemote } from '../../packages/client/scripts/pack.ts';
import { signatureHeader } from '../../src/webhooks/signature.ts';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
// realpath: os.tmpdir() may be a symbolic link, and Node reports resolved paths.
const work = realpathSync(mkdtempSync(join(tmpdir(), 'signet-client-package-')));
const consumer = join(work, 'consumer');
after(() => rmSync(work, { recursive: true, force: true }));

const secret = 'whsec_package-test';
let tarball = '';
/** What `npm run client:pack` said of `repository`: stamped from origin, or left out. */
let repositoryLine = '';

before(async () => {
  const pack = ['run', '--silent', 'client:pack', '--', '--out-dir', join(work, 'release')];
  const { stdout } = await run('npm', pack, { cwd: root });
  const [path = '', sha = '', repository = ''] = stdout.trim().split('\n');
  tarball = path;
  repositoryLine = repository;
  assert.equal(sha, `sha256 ${createHash('sha256').update(readFileSync(tarball)).digest('hex')}`);
  mkdirSync(consumer);
  writeFileSync(
    join(consumer, 'package.json'),
    `${JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2)}\n`,
  );
  await run('npm', ['install', tarball, '--no-audit', '--no-fund'], { cwd: consumer });
});

test('the tarball holds the built ESM and CommonJS with their types, the README and the LICENSE, and no source', async () => {
  assert.ok(relative(root, consumer).startsWith('..'), 'the consumer is outside the repository');
  const { stdout } = await run('tar', ['-tzf', tarball]);
  const files = stdout.trim().split('\n').sort();
  assert.deepEqual(files, [
    'package/LICENSE',
    'package/README.md',
    'package/dist/cjs/event-stream.d.ts',
    'package/dist/cjs/event-stream.js',
    'package/dist/cjs/index.d.ts',
    'package/dist/cjs/index.js',
    'package/dist/cjs/package.json',
    'package/dist/cjs/sha256.d.ts',
    'package/dist/cjs/sha256.js',
    'package/dist/cjs/types.d.ts',
    'package/dist/cjs/types.js',
    'package/dist/event-stream.d.ts',
    'package/dist/event-stream.js',
    'package/dist/index.d.ts',
    'package/dist/index.js',
    'package/dist/sha256.d.ts',
    'package/dist/sha256.js',
    'package/dist/types.d.ts',
    'package/dist/types.js',
    'package/package.json',
  ]);
  const installed = join(consumer, 'node_modules', '@signet', 'client');
  const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
  assert.equal(manifest.name, '@signet/client');
  assert.equal(manifest.scripts, undefined, 'nothing runs on install or pack');
  assert.deepEqual(
    [manifest.license, manifest.sideEffects, manifest.engines],
    ['MIT', false, { node: '>=20' }],
  );
  assert.doesNotMatch(JSON.stringify(manifest.exports), /src|@signet\/source/);
  if (repositoryLine.startsWith('repository left out: ')) assert.equal(manifest.repository, undefined);
  else
    assert.deepEqual(manifest.repository, {
      type: 'git',
      url: repositoryLine.replace(/^repository /, ''),
      directory: 'packages/client',
    });
  assert.match(
    readFileSync(join(installed, 'LICENSE'), 'utf8'),
    /^MIT License\n\nCopyright \(c\) 2026 Signet/,
  );
  assert.ok(
    readFileSync(join(installed, 'README.md'), 'utf8').includes(
      `npm install ./signet-client-${manifest.version}.tgz`,
    ),
    'the README says how to install this very tarball',
  );
});

/** A ping as Signet sends it, signed now with the server's own signing function. */
function signedPing(): { body: string; header: string } {
  const createdAt = new Date().toISOString();
  const body = JSON.stringify({ id: 'evt_package', type: 'ping', createdAt, data: { message: 'hello' } });
  return { body, header: signatureHeader(secret, createdAt, body) };
}

// Both scripts: resolve the package, build a client, verify the signed body, refuse it
// tampered, and print what they found.
const esm = `
import { createClient, verifyWebhook, WebhookVerificationError } from '@signet/client';
const client = createClient({ apiKey: 'sgn_x', baseUrl: 'http://127.0.0.1:9/v1' });
const event = await verifyWebhook(process.env.BODY, process.env.HEADER, process.env.SECRET);
const refused = await verifyWebhook(process.env.BODY.replace('hello', 'hullo'), process.env.HEADER, process.env.SECRET)
  .catch((error) => error instanceof WebhookVerificationError && error.reason);
console.log(JSON.stringify({
  resolved: import.meta.resolve('@signet/client'),
  methods: typeof client.webhookEndpoints.deliveries.resend,
  type: event.type,
  refused,
}));
`;
const cjs = `
const { createClient, verifyWebhook, WebhookVerificationError } = require('@signet/client');
(async () => {
  const client = createClient({ apiKey: 'sgn_x', baseUrl: 'http://127.0.0.1:9/v1' });
  const event = await verifyWebhook(process.env.BODY, process.env.HEADER, process.env.SECRET);
  const refused = await verifyWebhook(process.env.BODY.replace('hello', 'hullo'), process.env.HEADER, process.env.SECRET)
    .catch((error) => error instanceof WebhookVerificationError && error.reason);
  console.log(JSON.stringify({
    resolved: require.resolve('@signet/client'),
    methods: typeof client.webhookEndpoints.deliveries.resend,
    type: event.type,
    refused,
  }));
})();
`;

for (const conditions of [[], ['--conditions=development']]) {
  const under = conditions.length ? 'the development condition' : 'the default conditions';
  for (const [kind, file, source, built] of [
    ['ESM import', 'verify.mjs', esm, 'dist/index.js'],
    ['CommonJS require', 'verify.cjs', cjs, 'dist/cjs/index.js'],
  ] as const) {
    test(`${kind} under ${under} loads the built ${built} and verifies a signed delivery`, async () => {
      writeFileSync(join(consumer, file), source);
      const { body, header } = signedPing();
      // The pinned Node 24 that runs the tests, from the consumer's folder and nowhere else.
      const { stdout } = await run(process.execPath, [...conditions, file], {
        cwd: consumer,
        env: { PATH: process.env.PATH, BODY: body, HEADER: header, SECRET: secret },
      });
      const { resolved, ...found } = JSON.parse(stdout) as { resolved: string };
      assert.equal(
        resolved.startsWith('file:') ? fileURLToPath(resolved) : resolved,
        join(consumer, 'node_modules', '@signet', 'client', built),
      );
      assert.deepEqual(found, { methods: 'function', type: 'ping', refused: 'wrong-signature' });
    });
  }
}

// What a TypeScript user writes, ESM and CommonJS: the package's public types in use.
const usesEsm = `import {
  createClient,
  type ResendResult,
  SignetApiError,
  verifySha256,
  verifyWebhook,
  type WebhookDelivery,
  type WebhookEvent,
} from '@signet/client';

const signet = createClient({ apiKey: 'sgn_x', baseUrl: 'https://sign.example.com/v1' });
export async function received(rawBody: string, header: string | string[] | undefined): Promise<WebhookEvent['type']> {
  return (await verifyWebhook(rawBody, header, 'whsec_x')).type;
}
export async function dropped(endpointId: string): Promise<WebhookDelivery[]> {
  const found: WebhookDelivery[] = [];
  for await (const delivery of signet.webhookEndpoints.deliveries.list(endpointId)) {
    if (delivery.status === 'dropped') found.push(delivery);
  }
  return found;
}
export const resend = (endpointId: string, id: string): Promise<ResendResult> =>
  signet.webhookEndpoints.deliveries.resend(endpointId, id);
export async function sealed(documentId: string): Promise<ReadableStream<Uint8Array>> {
  const file = await signet.documents.download(documentId, 'sealed');
  return file.stream.pipeThrough(verifySha256(file.sha256));
}
export const isGone = (error: unknown): boolean => error instanceof SignetApiError && error.code === 'not-found';
`;
const usesCjs = `import signet = require('@signet/client');

const client = signet.createClient({ apiKey: 'sgn_x', baseUrl: 'https://sign.example.com/v1' });
export async function received(rawBody: string, header: string): Promise<signet.WebhookEvent> {
  return signet.verifyWebhook(rawBody, header, 'whsec_x');
}
export const created = client.webhookEndpoints.create(
  { url: 'https://hooks.example.com/x', events: ['document.completed'] },
  { idempotencyKey: 'a-key' },
);
export const status: number = signet.errorStatus['not-found'];
`;
// The deliberate mistake: an event's type is one of the event types, not just any string.
const wrong = `import { verifyWebhook } from '@signet/client';
export const kind: 'document.signed' = (await verifyWebhook('', '', '')).type;
`;

// A browser-minded project has the DOM library; a Node one often has @types/node instead
// (the repository's, by path: the consumer installs nothing else).
const domLib = { lib: ['es2022', 'dom'], types: [] };
const nodeTypes = { lib: ['es2022'], types: ['node'], typeRoots: [join(root, 'node_modules', '@types')] };
const nodenext = { module: 'nodenext', moduleResolution: 'nodenext' };
const bundler = { module: 'preserve', moduleResolution: 'bundler' };
const development = { customConditions: ['development'] };
const configs: Array<[string, Record<string, unknown>]> = [
  ['nodenext', { ...nodenext, ...domLib }],
  ['nodenext with customConditions ["development"]', { ...nodenext, ...domLib, ...development }],
  ['bundler', { ...bundler, ...domLib }],
  ['bundler with customConditions ["development"]', { ...bundler, ...domLib, ...development }],
  ["nodenext with Node's types instead of the DOM library", { ...nodenext, ...nodeTypes }],
];
configs.forEach(([name, options], index) => {
  test(`the types check from .ts (ESM) and .cts (CommonJS) under ${name}; a type error is reported`, async () => {
    writeFileSync(join(consumer, 'uses.ts'), usesEsm);
    writeFileSync(join(consumer, 'uses.cts'), usesCjs);
    writeFileSync(join(consumer, 'wrong.ts'), wrong);
    const config = `tsconfig.${index}.json`;
    writeFileSync(
      join(consumer, config),
      JSON.stringify({
        compilerOptions: { target: 'es2022', ...options, strict: true, noEmit: true, skipLibCheck: false },
        files: ['uses.ts', 'uses.cts', 'wrong.ts'],
      }),
    );
    const result = await run(process.execPath, [tsc, '-p', config, '--pretty', 'false', '--listFiles'], {
      cwd: consumer,
    }).then(
      () => assert.fail('the deliberate type error was not reported'),
      (error: { code: number; stdout: string }) => error,
    );
    assert.notEqual(result.code, 0);
    // The ESM file read the ESM declarations and the CommonJS file the CommonJS ones.
    const installed = join(consumer, 'node_modules', '@signet', 'client', 'dist');
    const read = result.stdout.split('\n').filter((line) => line.startsWith(installed));
    assert.deepEqual(read.map((file) => relative(installed, file)).sort(), [
      'cjs/index.d.ts',
      'cjs/types.d.ts',
      'index.d.ts',
      'types.d.ts',
    ]);
    // One error (its first line; TypeScript explains it on indented lines below), naming
    // the event types: the package's own types were read, not something looser.
    const errors = result.stdout.split('\n').filter((line) => /^\S.*error TS/.test(line));
    assert.equal(errors.length, 1, result.stdout);
    assert.match(
      errors[0] ?? '',
      /^wrong\.ts\(2,14\): error TS2322: Type '"document\.completed" \| .*"ping"' is not assignable to type '"document\.signed"'/,
    );
  });
});

test('repository is stamped from a public origin without its credentials, and left out for a local one', () => {
  const cases: Array<[string | null, { url: string } | { omitted: string }]> = [
    ['https://github.com/example/signet.git', { url: 'git+https://github.com/example/signet.git' }],
    [
      'https://x-access-token:ghs_secret@github.com/example/signet.git',
      { url: 'git+https://github.com/example/signet.git' },
    ],
    ['git@github.com:example/signet.git', { url: 'git+ssh://git@github.com/example/signet.git' }],
    ['ssh://git@git.example.com:2222/signet.git', { url: 'git+ssh://git@git.example.com:2222/signet.git' }],
    [null, { omitted: 'this clone has no git remote "origin"' }],
    ['/work/main', { omitted: 'origin (/work/main) is a local path, not a public address' }],
    ['../signet', { omitted: 'origin (../signet) is a local path, not a public address' }],
    ['file:///srv/git/signet.git', { omitted: 'origin is a file address, not a public one' }],
  ];
  for (const [remote, expected] of cases)
    assert.deepEqual(repositoryFromRemote(remote), expected, String(remote));
});
