// Graceful shutdown (SIGTERM), as an orchestrator stops a process during a rolling deploy:
// - an API process under load stops accepting, answers every request it had taken (one
//   whose body was still arriving included), and exits 0; the only failed requests are
//   connections refused or closed unanswered after its listener closed (Node closes idle
//   keep-alive connections when its server closes: a request written into one at that
//   moment is reset, never read, and safe to retry);
// - a worker with webhook attempts in flight finishes them, records them, hands back what
//   it had claimed but not sent, and exits 0: the next worker delivers the rest at once
//   (not after the 10-minute sweep) and nothing is sent twice.
// PostgreSQL only: the processes share one database.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { type Context, createContext, createLogger } from '../../src/context.ts';
import type { DatabaseHandle } from '../../src/db/connect.ts';
import { createDocument } from '../../src/sending/drafts.ts';
import { sendDocument } from '../../src/sending/send.ts';
import { createEndpoint } from '../../src/webhooks/endpoints.service.ts';
import { contractFetch } from '../support/contract.ts';
import {
  createTestDatabase,
  createTestWorkspace,
  databaseKinds,
  type TestWorkspace,
} from '../support/harness.ts';
import { databaseUrlOf, type SignetProcess, sleep, startSignet, until } from '../support/processes.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';

/**
 * A POST whose body arrives in two halves, `gapMs` apart; resolves with status and body.
 * It asks for 100 Continue, so `sent` is called once the server has read its headers
 * (the request is in flight, not a connection it could still close as idle).
 */
function slowPost(url: string, key: string, body: string, sent: () => void, gapMs: number) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(
      `${url}/v1/webhook-endpoints`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          expect: '100-continue',
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    const half = Math.floor(body.length / 2);
    req.on('continue', () => {
      req.write(body.slice(0, half), () => {
        sent();
        setTimeout(() => req.end(body.slice(half)), gapMs);
      });
    });
    req.flushHeaders();
  });
}

describe('SIGTERM', { skip: !databaseKinds.includes('postgres') && 'needs PostgreSQL' }, () => {
  let database: DatabaseHandle;
  let databaseUrl: string;
  let ctx: Context;
  let ws: TestWorkspace;
  const processes: SignetProcess[] = [];
  const env = {
    SIGNET_WEBHOOK_ALLOW_UNSAFE: '1',
    SIGNET_RATE_LIMIT_BURST: '1000000',
    SIGNET_SHUTDOWN_TIMEOUT: '10s',
    LOG_LEVEL: 'warn',
  };

  before(async () => {
    database = await createTestDatabase('postgres');
    databaseUrl = await databaseUrlOf(database);
    ctx = await createContext(loadConfig(env), database.db, { log: createLogger('silent') });
    ws = await createTestWorkspace(ctx);
  });

  after(async () => {
    for (const signet of processes) await signet.stop(1000);
    await ctx?.close();
    await database?.close();
  });

  test('an API process under load answers what it took, then exits 0', async () => {
    const api = await startSignet('api', 'api', { ...env, DATABASE_URL: databaseUrl });
    processes.push(api);
    const url = api.url as string;
    let sigtermAt = 0;
    const answered: Array<{ at: number; status: number }> = [];
    const failed: Array<{ at: number; code: string }> = [];
    const loop = async () => {
      for (;;) {
        try {
          const res = await contractFetch(`${url}/v1/documents?limit=10`, {
            headers: { authorization: `Bearer ${ws.apiKey}` },
          });
          await res.arrayBuffer();
          answered.push({ at: Date.now(), status: res.status });
        } catch (error) {
          const cause = (error as { cause?: { code?: string } }).cause;
          failed.push({ at: Date.now(), code: cause?.code ?? String(error) });
          // Refused: the listener is gone, and so is the process soon.
          if (cause?.code === 'ECONNREFUSED') return;
        }
      }
    };
    const loops = Promise.all(Array.from({ length: 8 }, loop));
    // Under load: a hundred answers first, however long this machine (and the contract
    // check of each answer) takes to give them.
    await until(() => answered.length > 100, 30_000, 'a hundred answers before SIGTERM');

    // A request whose body is still arriving when SIGTERM comes.
    let halfSent: () => void = () => {};
    const bodyStarted = new Promise<void>((resolve) => {
      halfSent = resolve;
    });
    const slow = slowPost(
      url,
      ws.apiKey,
      JSON.stringify({ url: 'http://127.0.0.1:9/in-flight', events: ['document.sent'] }),
      () => halfSent(),
      500,
    );
    await bodyStarted;
    await sleep(50);
    sigtermAt = Date.now();
    api.child.kill('SIGTERM');
    // Orchestrators repeat the signal: the second arrives mid-shutdown and changes nothing
    // (it used to find no listener left and kill the process with its requests unanswered).
    await sleep(200);
    const [slowAnswer, code] = await Promise.all([slow, api.stop(15_000)]);
    const exitedMs = Date.now() - sigtermAt;
    await loops;

    process.stdout.write(
      `# exited ${exitedMs} ms after SIGTERM; ${answered.length} answers, ${answered.filter((a) => a.at > sigtermAt).length} after SIGTERM; ` +
        `failures after SIGTERM: ${JSON.stringify(failed.map((f) => f.code))}\n`,
    );
    assert.equal(code, 0, 'exit code 0');
    // Keep-alive connections do not hold it open until the bound: the bound never fired
    // (it logs when it closes what is still open), whatever this machine's speed.
    assert.ok(
      !api.lines.some((line) => line.includes('closing connections still open')),
      `the shutdown bound fired (exited ${exitedMs} ms after SIGTERM)`,
    );
    assert.equal(slowAnswer.status, 201, `the request in flight was answered: ${slowAnswer.body}`);
    assert.equal(JSON.parse(slowAnswer.body).ok, true);
    assert.deepEqual(
      answered.filter((a) => a.status !== 200),
      [],
      'every answer is 200: none is a 5xx or Fastify’s closing 503',
    );
    for (const failure of failed) {
      assert.ok(failure.at >= sigtermAt, 'no request failed before SIGTERM');
      assert.ok(
        ['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET'].includes(failure.code),
        `only refused or closed-unanswered connections after the listener closed, got ${failure.code}`,
      );
    }
    assert.deepEqual(api.problems(), []);
  });

  test('a worker with attempts in flight finishes and records them, hands back the rest, exits 0', async () => {
    const receiver: Receiver = await startReceiver(async (_request, response) => {
      await sleep(300);
      response.end('ok');
    });
    try {
      await createEndpoint(ctx, ws.id, { url: `${receiver.url}/hooks`, events: ['document.sent'] });
      const events = new Set<string>();
      for (let i = 0; i < 120; i += 20) {
        await Promise.all(
          Array.from({ length: 20 }, async (_, j) => {
            const { id } = await createDocument(ctx, {
              workspaceId: ws.id,
              title: `Shutdown ${i + j}`,
              body: 'The parties agree.',
              recipients: [
                {
                  email: `s${i + j}@x.example`,
                  fullName: 'S S',
                  role: 'signer',
                  signingMethod: 'standard',
                  signingOrder: 1,
                },
              ],
              pricing: null,
            });
            events.add((await sendDocument(ctx, ws.id, id)).eventId);
          }),
        );
      }
      // The default sweep (10 minutes): only a hand-back lets the next worker see at once
      // what the first one had claimed.
      const workerEnv = { ...env, DATABASE_URL: databaseUrl, SIGNET_WEBHOOK_CONCURRENCY: '16' };
      const first = await startSignet('worker-1', 'worker', workerEnv);
      processes.push(first);
      await until(() => receiver.requests.length >= 20, 20_000, 'the first worker to be sending');
      const receivedAtSigterm = receiver.requests.length;
      const startedAt = Date.now();
      const code = await first.stop(15_000);
      const stoppedMs = Date.now() - startedAt;
      assert.equal(code, 0, 'exit code 0');
      assert.ok(receivedAtSigterm < events.size, 'it was stopped mid-run');

      // What the first worker answered for is recorded, not left leased.
      const leased = await ctx.db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('locked_until', 'is not', null)
        .executeTakeFirstOrThrow();
      assert.equal(Number(leased.n), 0, 'no delivery is left leased by the stopped worker');

      const second = await startSignet('worker-2', 'worker', workerEnv);
      processes.push(second);
      const ids = () => receiver.requests.map((r) => (JSON.parse(r.body) as { id: string }).id);
      await until(() => new Set(ids()).size === events.size, 30_000, 'every event to arrive');
      process.stdout.write(
        `# worker stopped in ${stoppedMs} ms with ${receivedAtSigterm} requests received; ` +
          `${receiver.requests.length} requests for ${events.size} events in all\n`,
      );
      assert.deepEqual(new Set(ids()), events);
      assert.equal(receiver.requests.length, events.size, 'nothing was sent twice');
      assert.deepEqual([...first.problems(), ...second.problems()], []);
      await second.stop();
    } finally {
      await receiver.close();
    }
  });
});
