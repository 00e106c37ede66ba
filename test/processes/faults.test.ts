// Faults: the database server or Redis goes away in the middle of a delivery run and an API
// load, then comes back, and Signet (separate API and worker processes) recovers by itself.
// The servers are the test's own (test/support/throwaway-services.ts): a PostgreSQL cluster on
// another port and a Redis server, never the machine's shared ones.
//
// PostgreSQL stopped for 3 s: every API answer is 200 or 503 `unavailable` with the
// envelope, Retry-After and the rate-limit headers; pages answer a plain 503 page; the API
// answers 200 again within 10 s of the server's return; every event committed before,
// during (none can be) and after the outage reaches the receiver; each process logs the
// outage once and its end once, and nothing else at error level.
// Redis killed: no 5xx, limits continue per process (120, then 429), said once in the log
// and in signet_rate_limit_local_fallback; shared again when Redis returns.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { type Context, createContext, createLogger } from '../../src/context.ts';
import { type DatabaseHandle, openDatabase } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { createDocument } from '../../src/sending/drafts.ts';
import { sendDocument } from '../../src/sending/send.ts';
import { createEndpoint } from '../../src/webhooks/endpoints.service.ts';
import { contractFetch } from '../support/contract.ts';
import { createTestWorkspace, recipient, type TestWorkspace } from '../support/harness.ts';
import { type SignetProcess, sleep, startSignet, until } from '../support/processes.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';
import {
  postgresAvailable,
  redisAvailable,
  startThrowawayPostgres,
  startThrowawayRedis,
  type ThrowawayPostgres,
  type ThrowawayRedis,
} from '../support/throwaway-services.ts';

type LogLine = { level: number; msg: string } & Record<string, unknown>;

/** The process's log (pino JSON lines), parsed. */
function logsOf(signet: SignetProcess): LogLine[] {
  return signet.lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as LogLine);
}

interface Answer {
  at: number;
  status: number;
  body: string;
  headers: Headers;
}

/** `concurrency` loops of GET `path` until `stop()`; every answer kept. */
function load(url: string, key: string, concurrency: number, stop: () => boolean): Promise<Answer[]> {
  const answers: Answer[] = [];
  const loop = async () => {
    while (!stop()) {
      try {
        const res = await contractFetch(`${url}/v1/documents?limit=5`, {
          headers: { authorization: `Bearer ${key}` },
        });
        answers.push({ at: Date.now(), status: res.status, body: await res.text(), headers: res.headers });
      } catch (error) {
        answers.push({ at: Date.now(), status: 0, body: String(error), headers: new Headers() });
      }
    }
  };
  return Promise.all(Array.from({ length: concurrency }, loop)).then(() => answers);
}

async function metric(url: string, line: RegExp): Promise<number | null> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const found = text.split('\n').find((l) => line.test(l));
  return found ? Number(found.split(' ').at(-1)) : null;
}

const running: SignetProcess[] = [];
after(async () => {
  for (const signet of running) await signet.stop(1000);
});

/** A migrated database named signet on the throwaway server, opened with a pool of `poolSize`. */
async function openSignetDatabase(server: ThrowawayPostgres, poolSize: number) {
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query('create database signet');
  await admin.end();
  const databaseUrl = server.databaseUrl('signet');
  const database = await openDatabase({ url: databaseUrl, dataDir: null, poolSize });
  await migrateToLatest(database.db);
  return { databaseUrl, database };
}

async function startSignetFor(role: 'api' | 'worker', env: Record<string, string>): Promise<SignetProcess> {
  const signet = await startSignet(role, role, { LOG_LEVEL: 'info', ...env });
  running.push(signet);
  return signet;
}

describe('PostgreSQL stopped and started under load', {
  skip: !postgresAvailable() && 'needs PostgreSQL 15 binaries to run a cluster of its own',
}, () => {
  let server: ThrowawayPostgres;
  let database: DatabaseHandle;
  let ctx: Context;
  let receiver: Receiver;
  let ws: TestWorkspace;
  let databaseUrl: string;
  const env = {
    SIGNET_WEBHOOK_ALLOW_UNSAFE: '1',
    SIGNET_WEBHOOK_TIMEOUT: '2s',
    SIGNET_RATE_LIMIT_BURST: '1000000',
  };

  before(async () => {
    server = await startThrowawayPostgres();
    ({ databaseUrl, database } = await openSignetDatabase(server, 4));
    ctx = await createContext(loadConfig(env), database.db, { log: createLogger('silent') });
    // Slow enough that attempts are in flight when the server stops: their outcomes must
    // wait for its return and be recorded then.
    receiver = await startReceiver(async (_request, response) => {
      await sleep(150);
      response.end('ok');
    });
    ws = await createTestWorkspace(ctx);
    await createEndpoint(ctx, ws.id, { url: `${receiver.url}/hooks`, events: ['document.sent'] });
  });

  after(async () => {
    await ctx?.close();
    await database?.close();
    await receiver?.close();
    server?.destroy();
  });

  test('503 unavailable during the outage, recovery within 10 s of its end, no event lost', async () => {
    const api = await startSignetFor('api', { ...env, DATABASE_URL: databaseUrl });
    const worker = await startSignetFor('worker', { ...env, DATABASE_URL: databaseUrl });
    const apiUrl = api.url as string;

    // Events are committed from this process all along; those whose commit was confirmed
    // must all arrive. (During the outage none can be committed.)
    let stopping = false;
    const committed = new Set<string>();
    let refusedCommits = 0;
    const produce = (async () => {
      let n = 0;
      while (!stopping) {
        try {
          const { id } = await createDocument(ctx, {
            workspaceId: ws.id,
            title: `Fault ${n++}`,
            body: 'The parties agree.',
            recipients: [recipient(`f${n}@x.example`, 'F F')],
            pricing: null,
          });
          committed.add((await sendDocument(ctx, ws.id, id)).eventId);
        } catch {
          refusedCommits++;
          await sleep(50);
        }
        await sleep(10);
      }
    })();
    const answers = load(apiUrl, ws.apiKey, 4, () => stopping);

    await until(() => receiver.requests.length >= 20, 20_000, 'deliveries before the outage');
    const stoppedAt = Date.now();
    server.stop();
    await sleep(1000);
    // Pages and metrics during the outage.
    const page = await fetch(`${apiUrl}/sign/${randomUUID()}/${'t'.repeat(43)}`);
    const pageText = await page.text();
    const signedIn = await fetch(`${apiUrl}/documents`, { headers: { cookie: 'signet_session=abc' } });
    const databaseUpDuring = await metric(apiUrl, /^signet_database_up /);
    await sleep(2000);
    server.start();
    const returnedAt = Date.now();
    // Recovery: a request sent after the server's return answers 200.
    let recoveredAt = 0;
    await until(
      async () => {
        const res = await contractFetch(`${apiUrl}/v1/documents?limit=1`, {
          headers: { authorization: `Bearer ${ws.apiKey}` },
        });
        if (res.status === 200) recoveredAt = Date.now();
        return res.status === 200;
      },
      10_000,
      'the API to answer 200 within 10 s of the database’s return',
    );
    await sleep(1500);
    stopping = true;
    const all = await answers;
    await produce;

    // Every committed event arrives.
    const received = () => new Set(receiver.requests.map((r) => (JSON.parse(r.body) as { id: string }).id));
    await until(
      () => [...committed].every((id) => received().has(id)),
      30_000,
      'every committed event to arrive',
    );

    // And every delivery is recorded as delivered: no outcome was lost with the connection.
    await until(
      async () => {
        const row = await ctx.db
          .selectFrom('webhook_deliveries')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('status', '<>', 'delivered')
          .executeTakeFirstOrThrow();
        return Number(row.n) === 0;
      },
      20_000,
      'every delivery to be recorded as delivered',
    );
    process.stdout.write(
      `# outage ${returnedAt - stoppedAt} ms; API answered 200 again ${recoveredAt - returnedAt} ms after the return; ` +
        `${all.length} API answers (${all.filter((a) => a.status === 503).length} × 503); ${committed.size} events committed, ` +
        `${refusedCommits} commits refused during the outage; ${receiver.requests.length} deliveries received\n`,
    );
    assert.ok(recoveredAt - returnedAt < 10_000);
    assert.ok(
      all.some((a) => a.status === 503),
      'the outage was seen by the API load',
    );
    assert.ok(refusedCommits > 0, 'the outage was seen by the event producer');
    for (const answer of all) {
      assert.ok(
        answer.status === 200 || answer.status === 503,
        `only 200 or 503 during and around the outage, got ${answer.status} ${answer.body.slice(0, 200)}`,
      );
      assert.ok(answer.headers.get('x-ratelimit-limit'), 'every answer has the rate-limit headers');
      assert.ok(answer.headers.get('x-ratelimit-remaining'));
      if (answer.status === 503) {
        assert.deepEqual(JSON.parse(answer.body), { ok: false, error: 'unavailable' });
        assert.equal(answer.headers.get('retry-after'), '5');
      }
    }
    assert.equal(page.status, 503);
    assert.match(pageText, /Temporarily unavailable/);
    assert.equal(page.headers.get('retry-after'), '5');
    assert.equal(signedIn.status, 503, 'a page whose session cannot be read is a 503 page');
    assert.equal(databaseUpDuring, 0, 'signet_database_up is 0 during the outage');
    await until(
      async () => (await metric(apiUrl, /^signet_database_up /)) === 1,
      5000,
      'database_up back to 1',
    );

    // Each process logged the outage once and its end once; nothing else at error level.
    for (const [name, signet] of [
      ['api', api],
      ['worker', worker],
    ] as const) {
      const outages = logsOf(signet).filter((l) => l.msg.startsWith('database unreachable'));
      const recoveries = logsOf(signet).filter((l) => l.msg === 'database reachable again');
      // The API met the outage for sure; the worker only if it touched the database meanwhile.
      if (name === 'api') assert.equal(outages.length, 1, 'api logs the outage once');
      else assert.ok(outages.length <= 1, 'worker logs the outage at most once');
      assert.equal(recoveries.length, outages.length, `${name} logs the end of each outage it logged`);
      const errors = logsOf(signet).filter((l) => l.level >= 50 && !l.msg.startsWith('database unreachable'));
      assert.deepEqual(
        errors.map((l) => l.msg),
        [],
        `${name} logs nothing else at error level`,
      );
    }
    assert.equal(await api.stop(), 0);
    assert.equal(await worker.stop(), 0);
  });
});

describe('Redis stopped and started under load', {
  skip: (!redisAvailable() || !postgresAvailable()) && 'needs redis-server and PostgreSQL 15 binaries',
}, () => {
  let redis: ThrowawayRedis;
  let server: ThrowawayPostgres;
  let database: DatabaseHandle;
  let ctx: Context;
  let databaseUrl: string;

  before(async () => {
    [redis, server] = await Promise.all([startThrowawayRedis(), startThrowawayPostgres()]);
    ({ databaseUrl, database } = await openSignetDatabase(server, 2));
    ctx = await createContext(loadConfig({}), database.db, { log: createLogger('silent') });
  });

  after(async () => {
    await ctx?.close();
    await database?.close();
    await redis?.stop();
    server?.destroy();
  });

  /** `count` requests with `key`, 10 at a time; their statuses. */
  async function burst(url: string, key: string, count: number): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < count; i += 10) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(10, count - i) }, () =>
          contractFetch(`${url}/v1/documents?limit=1`, { headers: { authorization: `Bearer ${key}` } }).then(
            async (res) => {
              await res.arrayBuffer();
              return res.status;
            },
          ),
        ),
      );
      statuses.push(...batch);
    }
    return statuses;
  }

  test('no 5xx; limits continue per process, said once; shared again when Redis returns', async () => {
    const api = await startSignetFor('api', { DATABASE_URL: databaseUrl, REDIS_URL: redis.url });
    const url = api.url as string;
    const shared = await createTestWorkspace(ctx);
    const before = await burst(url, shared.apiKey, 125);
    // The bucket refills while the burst runs: on a loaded machine the 125 requests take long
    // enough for a token or two (the same allowance as the process's own bucket below).
    const sharedOk = before.filter((s) => s === 200).length;
    assert.ok(sharedOk >= 120 && sharedOk <= 122, `shared bucket: 120 then 429 (got ${sharedOk} successes)`);
    assert.ok(before.slice(-3).includes(429), 'the burst ends refused');
    assert.equal(await metric(url, /^signet_rate_limit_local_fallback\{limiter="api"\}/), 0);

    await redis.stop();
    const local = await createTestWorkspace(ctx);
    const during = await burst(url, local.apiKey, 130);
    assert.deepEqual(
      during.filter((s) => s !== 200 && s !== 429),
      [],
      'no 5xx (nor anything else) while Redis is down',
    );
    const ok = during.filter((s) => s === 200).length;
    assert.ok(ok >= 120 && ok <= 122, `the process's own bucket: 120 then 429 (got ${ok} successes)`);
    assert.equal(await metric(url, /^signet_rate_limit_local_fallback\{limiter="api"\}/), 1);
    assert.ok(((await metric(url, /^signet_rate_limit_local_decisions_total\{limiter="api"\}/)) ?? 0) >= 130);
    const warned = logsOf(api).filter((l) => l.msg.startsWith('Redis unreachable') && l.limiter === 'api');
    assert.equal(warned.length, 1, 'the fallback is logged once, not per request');

    await redis.start();
    await until(
      async () => {
        await burst(url, local.apiKey, 1);
        return (await metric(url, /^signet_rate_limit_local_fallback\{limiter="api"\}/)) === 0;
      },
      10_000,
      'limits to be shared again',
    );
    // The metric is set as the line is logged; the line reaches this process's pipe a moment later.
    const reachable = () =>
      logsOf(api).filter((l) => l.msg.startsWith('Redis reachable again') && l.limiter === 'api').length;
    await until(() => reachable() > 0, 5_000, 'the return to be logged');
    assert.equal(reachable(), 1);
    assert.deepEqual(
      logsOf(api)
        .filter((l) => l.level >= 50)
        .map((l) => l.msg),
      [],
      'nothing at error level',
    );
    assert.equal(await api.stop(), 0);
  });
});
