// `signet webhook test` and `signet webhook deliveries`: a ping on demand, its outcome in
// the exit code, and the endpoint's delivery log, through the real command.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { loadConfig } from '../../src/config.ts';
import { createContext, createLogger } from '../../src/context.ts';
import { openDatabase } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { createEndpoint } from '../../src/webhooks/endpoints.service.ts';
import { createWorkspace } from '../../src/workspaces/workspaces.service.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';

const run = promisify(execFile);
const main = join(import.meta.dirname, '..', '..', 'src', 'main.ts');

describe('signet webhook commands', () => {
  let dir: string;
  let receiver: Receiver;
  let endpointId: string;
  let secret: string;
  const env = (allowUnsafe: boolean) => {
    const e: NodeJS.ProcessEnv = {
      ...process.env,
      SIGNET_DATA_DIR: dir,
      LOG_LEVEL: 'warn',
      SIGNET_WEBHOOK_ALLOW_UNSAFE: allowUnsafe ? '1' : '0',
    };
    delete e.DATABASE_URL;
    return e;
  };
  const signetWith = async (allowUnsafe: boolean, args: string[]) => {
    try {
      const { stdout, stderr } = await run(process.execPath, [main, ...args], { env: env(allowUnsafe) });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };
  const signet = (...args: string[]) => signetWith(true, args);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'signet-cli-webhooks-'));
    receiver = await startReceiver();
    // Set up in-process, then close: a PGlite data folder belongs to one process at a time.
    const database = await openDatabase({ url: null, dataDir: dir });
    await migrateToLatest(database.db);
    const config = loadConfig({ SIGNET_DATA_DIR: dir, SIGNET_WEBHOOK_ALLOW_UNSAFE: '1' });
    const ctx = await createContext(config, database.db, { log: createLogger('silent') });
    const workspace = await createWorkspace(ctx, { name: 'Hooks', plan: 'max' });
    const endpoint = await createEndpoint(ctx, workspace.id, {
      url: `${receiver.url}/ping-me`,
      events: ['document.sent'],
    });
    endpointId = endpoint.id;
    secret = endpoint.secret;
    await ctx.close();
    await database.close();
  });
  after(async () => {
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('webhook test sends one signed ping and prints its outcome', async () => {
    const result = await signet('webhook', 'test', endpointId, '--json');
    assert.equal(result.code, 0, result.stderr);
    const ping = JSON.parse(result.stdout) as { ok: boolean; statusCode: number; deliveryId: string };
    assert.equal(ping.ok, true);
    assert.equal(ping.statusCode, 200);
    assert.equal(receiver.requests.length, 1);
    const request = receiver.requests[0];
    assert.equal(request?.url, '/ping-me');
    assert.equal(request?.headers['x-service-event'], 'ping');
    assert.equal(request?.headers['x-service-delivery-id'], ping.deliveryId);
    const body = JSON.parse(request?.body ?? '{}') as { type: string; data: { message: string } };
    assert.equal(body.type, 'ping');
    assert.equal(typeof body.data.message, 'string');
    assert.match(String(request?.headers['x-service-signature']), /^t=\S+,v1=[0-9a-f]{64}$/);
    assert.ok(secret.startsWith('whsec_'));
  });

  test('a failing ping exits 1 and says why', async () => {
    receiver.setHandler((_request, response) => {
      response.statusCode = 503;
      response.end('down');
    });
    const result = await signet('webhook', 'test', endpointId);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /failed: http-status \(HTTP 503\)/);
  });

  test('a ping the destination rules block says which rule refused it, and where the setting applies', async () => {
    const before = receiver.requests.length;
    const result = await signetWith(false, ['webhook', 'test', endpointId]);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /failed: blocked after \d+ ms: only https URLs are allowed\n$/);
    assert.match(result.stderr, /SIGNET_WEBHOOK_ALLOW_UNSAFE=1 in the environment of the process that sends/);
    assert.match(result.stderr, /this command sends the ping itself \(it is not set here\)/);
    assert.equal(receiver.requests.length, before, 'nothing was sent');
  });

  test('webhook deliveries lists the pings with their status codes', async () => {
    const result = await signet('webhook', 'deliveries', endpointId, '--json');
    assert.equal(result.code, 0, result.stderr);
    const deliveries = JSON.parse(result.stdout) as Array<{
      eventType: string;
      status: string;
      attemptLog: Array<{ statusCode: number }>;
    }>;
    assert.deepEqual(
      deliveries.map((d) => [d.eventType, d.status, d.attemptLog.map((a) => a.statusCode)]).sort(),
      [
        ['ping', 'delivered', [200]],
        ['ping', 'dropped', [null]],
        ['ping', 'dropped', [503]],
      ],
    );
  });

  test('an unknown endpoint is one line and exit 1; a malformed id is exit 2', async () => {
    const unknown = await signet('webhook', 'test', '0b8e9c52-7c1f-4e1d-9a6b-3f1e2d4c5b6a');
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stderr.trim(), 'signet: no such record');
    const malformed = await signet('webhook', 'test', 'nope');
    assert.equal(malformed.code, 2);
  });
});
