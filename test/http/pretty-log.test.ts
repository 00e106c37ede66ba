// What `npm start` prints while it serves (issue 36 §6): with SIGNET_LOG_FORMAT=pretty (the
// default of `serve --demo`) one readable line a request, its URL redacted like the JSON
// log's, no secret header shown, no JSON; without it `signet serve` writes JSON lines, as a
// log collector in production expects. Real `signet serve` processes, their stdout read.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { serveConfig } from '../../src/cli/serve.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { prettyLogDestination } from '../../src/http/pretty-log.ts';
import { createEmptyPostgresDatabase, describeEachDatabase } from '../support/harness.ts';
import { type SignetProcess, startSignet, until } from '../support/processes.ts';

const signingPath = '/sign/01958f00-aaaa-7bbb-8ccc-000000000001/SeCrEtToKeN1234567890abcdef';
const apiSecret = `sgn_${'Q'.repeat(43)}`;
const requestLine = /^\d\d:\d\d:\d\d (GET|POST|HEAD) (\S+) (\d{3}) \d+ ms$/;

describeEachDatabase('npm start’s log', (kind) => {
  const processes: SignetProcess[] = [];
  let databaseEnv: Record<string, string> = {};
  let cleanUp = async () => {};

  before(async () => {
    if (kind === 'postgres') {
      const database = await createEmptyPostgresDatabase();
      databaseEnv = { DATABASE_URL: database.url };
      cleanUp = database.drop;
    } else {
      const dir = mkdtempSync(join(tmpdir(), 'signet-pretty-log-'));
      databaseEnv = { SIGNET_DATA_DIR: dir };
      cleanUp = async () => rmSync(dir, { recursive: true, force: true });
    }
  });

  after(async () => {
    for (const signet of processes) await signet.stop(5000);
    await cleanUp();
  });

  async function serve(name: string, env: Record<string, string>): Promise<SignetProcess> {
    const signet = await startSignet(name, 'all', { ...databaseEnv, SIGNET_METRICS: '0', ...env }, 180_000);
    processes.push(signet);
    return signet;
  }

  /** The requests every test makes: a page, a signing link (a capability URL), the API with a key. */
  async function browse(url: string): Promise<void> {
    assert.equal((await fetch(`${url}/login`)).status, 200);
    await (await fetch(`${url}${signingPath}`)).arrayBuffer();
    await (
      await fetch(`${url}/v1/documents?limit=2`, { headers: { authorization: `Bearer ${apiSecret}` } })
    ).arrayBuffer();
  }

  test('SIGNET_LOG_FORMAT=pretty: one readable line a request, no JSON, the signing link and the key redacted', async () => {
    const signet = await serve('pretty', { SIGNET_LOG_FORMAT: 'pretty' });
    await browse(signet.url as string);
    await until(
      () => signet.lines.some((line) => line.includes('/v1/documents')),
      10_000,
      'the API request’s line',
    );
    await signet.stop();
    const lines = signet.lines.filter((line) => line.trim() !== '');
    assert.deepEqual(
      lines.filter((line) => line.startsWith('{')),
      [],
      'no JSON line',
    );
    const requests = lines.filter((line) => requestLine.test(line));
    assert.deepEqual(
      requests.map((line) => (requestLine.exec(line) as RegExpExecArray).slice(1, 4)),
      [
        ['GET', '/login', '200'],
        ['GET', '/sign/01958f00-aaaa-7bbb-8ccc-000000000001/[redacted]', '404'],
        ['GET', '/v1/documents?limit=2', '401'],
      ],
      lines.join('\n'),
    );
    assert.ok(
      lines.some((line) => /^\d\d:\d\d:\d\d signet started role=all/.test(line)),
      lines.join('\n'),
    );
    assert.ok(!lines.join('\n').includes('SeCrEtToKeN'), 'the signing link’s secret is never printed');
    assert.ok(!lines.join('\n').includes(apiSecret), 'nor the API key');
    assert.ok(!lines.some((line) => line.includes('incoming request')), 'a request is one line');
  });

  test('without SIGNET_LOG_FORMAT, `signet serve` writes JSON lines, one object each, redacted alike', async () => {
    const signet = await serve('json', {});
    await browse(signet.url as string);
    await until(
      () => signet.lines.some((line) => line.includes('/v1/documents')),
      10_000,
      'the API request’s line',
    );
    await signet.stop();
    const json = signet.lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
    const completed = json.filter((entry) => entry.msg === 'request completed');
    assert.equal(completed.length, 3, signet.lines.join('\n'));
    assert.ok(json.some((entry) => entry.msg === 'signet started'));
    const urls = json.filter((entry) => entry.msg === 'incoming request').map((entry) => entry.req.url);
    assert.deepEqual(urls, [
      '/login',
      '/sign/01958f00-aaaa-7bbb-8ccc-000000000001/[redacted]',
      '/v1/documents?limit=2',
    ]);
    assert.ok(!signet.lines.join('\n').includes('SeCrEtToKeN'));
  });

  test('`serve --demo` (npm start) prints pretty unless SIGNET_LOG_FORMAT says otherwise; `serve` prints JSON; other values are refused', () => {
    assert.equal(serveConfig(loadConfig({}), true).logFormat, 'pretty');
    assert.equal(serveConfig(loadConfig({}), false).logFormat, 'json');
    assert.equal(serveConfig(loadConfig({ SIGNET_LOG_FORMAT: 'json' }), true).logFormat, 'json');
    assert.equal(serveConfig(loadConfig({ SIGNET_LOG_FORMAT: 'pretty' }), false).logFormat, 'pretty');
    assert.throws(() => loadConfig({ SIGNET_LOG_FORMAT: 'yaml' }), ConfigError);
  });

  test('the pretty form of other entries: level, message, fields, the error’s stack indented', () => {
    const written: string[] = [];
    const out = prettyLogDestination({ write: (text: string) => written.push(text) });
    const time = new Date(2026, 10, 26, 14, 3, 7).getTime();
    out.write(
      `${JSON.stringify({ level: 40, time, pid: 1, hostname: 'h', msg: 'mail is logged', to: 'a b' })}\n`,
    );
    out.write(
      `${JSON.stringify({ level: 50, time, msg: 'failed', err: { message: 'boom', stack: 'Error: boom\n    at x' } })}\n`,
    );
    out.write('not json\n');
    assert.deepEqual(written, [
      '14:03:07 WARN mail is logged to="a b"\n',
      '14:03:07 ERROR failed\n  Error: boom\n      at x\n',
      'not json\n',
    ]);
  });
});
