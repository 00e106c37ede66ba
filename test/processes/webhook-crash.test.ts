// Crash safety: a worker process killed with SIGKILL while 1,000 events are in flight
// loses nothing. A new worker delivers every event at least once, and a delivery sent
// twice carries the same X-Service-Delivery-Id both times. PostgreSQL only: the
// workers are separate processes sharing one database.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { type Context, createContext, createLogger } from '../../src/context.ts';
import type { DatabaseHandle } from '../../src/db/connect.ts';
import { createDocument } from '../../src/sending/drafts.ts';
import { sendDocument } from '../../src/sending/send.ts';
import { createEndpoint } from '../../src/webhooks/endpoints.service.ts';
import {
  createTestDatabase,
  createTestWorkspace,
  databaseKinds,
  postgresAdminUrl,
  testSealKey,
} from '../support/harness.ts';
import { until } from '../support/processes.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';

const events = 1000;
const main = join(import.meta.dirname, '..', '..', 'src', 'main.ts');

describe('a worker killed mid-flight', {
  skip: !databaseKinds.includes('postgres') && 'needs PostgreSQL',
}, () => {
  let database: DatabaseHandle;
  let databaseUrl: string;
  let ctx: Context;
  let receiver: Receiver;
  const workers: ChildProcess[] = [];
  const env = {
    SIGNET_WEBHOOK_ALLOW_UNSAFE: '1',
    SIGNET_WEBHOOK_TIMEOUT: '2s',
    SIGNET_WEBHOOK_ENDPOINT_CONCURRENCY: '32',
    // The sweep is what retries deliveries whose worker died; 2 s instead of 10 minutes.
    SIGNET_WEBHOOK_SWEEP_INTERVAL: '2s',
    LOG_LEVEL: 'error',
    // A worker on PostgreSQL without a seal key does not start.
    SIGNET_SEAL_KEY: testSealKey,
  };

  function startWorker(): ChildProcess {
    const worker = spawn(process.execPath, [main, 'serve', '--role', 'worker'], {
      env: { ...process.env, ...env, DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    workers.push(worker);
    return worker;
  }

  before(async () => {
    database = await createTestDatabase('postgres');
    const name = (
      await database.db
        .selectNoFrom((eb) => eb.fn<string>('current_database', []).as('name'))
        .executeTakeFirstOrThrow()
    ).name;
    databaseUrl = Object.assign(new URL(postgresAdminUrl), { pathname: `/${name}` }).toString();
    ctx = await createContext(loadConfig(env), database.db, { log: createLogger('silent') });
    // Slow enough that many deliveries are in flight at any moment.
    receiver = await startReceiver(async (_request, response) => {
      await new Promise((resolve) => setTimeout(resolve, 25));
      response.end('ok');
    });
  });

  after(async () => {
    for (const worker of workers) if (worker.exitCode === null) worker.kill('SIGKILL');
    await receiver?.close();
    await ctx?.close();
    await database?.close();
  });

  test('every one of 1,000 events arrives at least once, duplicates with the same delivery id', async () => {
    const ws = await createTestWorkspace(ctx);
    await createEndpoint(ctx, ws.id, { url: `${receiver.url}/hooks`, events: ['document.sent'] });

    // 1,000 real events, committed while no worker runs: the outbox holds them all.
    const eventIds = new Set<string>();
    for (let start = 0; start < events; start += 20) {
      await Promise.all(
        Array.from({ length: Math.min(20, events - start) }, async (_, i) => {
          const { id } = await createDocument(ctx, {
            workspaceId: ws.id,
            title: `Agreement ${start + i}`,
            body: 'The parties agree.',
            recipients: [
              {
                email: `s${start + i}@x.example`,
                fullName: 'S S',
                role: 'signer',
                signingMethod: 'standard',
                signingOrder: 1,
              },
            ],
            pricing: null,
          });
          eventIds.add((await sendDocument(ctx, ws.id, id)).eventId);
        }),
      );
    }
    assert.equal(eventIds.size, events);

    const first = startWorker();
    await until(() => receiver.requests.length >= 300, 60_000, 'the first worker to deliver 300 events');
    first.kill('SIGKILL');
    await once(first, 'exit');
    const atKill = receiver.requests.length;
    assert.ok(atKill < events, `the first worker must die mid-flight (it had sent ${atKill})`);

    startWorker();
    const received = () => new Set(receiver.requests.map((r) => (JSON.parse(r.body) as { id: string }).id));
    await until(() => received().size === events, 90_000, 'every event to arrive');

    const eventOfDelivery = new Map<string, Set<string>>();
    for (const request of receiver.requests) {
      const deliveryId = request.headers['x-service-delivery-id'] as string;
      const eventId = (JSON.parse(request.body) as { id: string }).id;
      const set = eventOfDelivery.get(deliveryId) ?? new Set<string>();
      set.add(eventId);
      eventOfDelivery.set(deliveryId, set);
    }
    assert.deepEqual([...received()].sort(), [...eventIds].sort());
    assert.equal(eventOfDelivery.size, events, 'one delivery id per event');
    for (const [deliveryId, ids] of eventOfDelivery)
      assert.equal(ids.size, 1, `delivery ${deliveryId} carried one event`);
    const duplicates = receiver.requests.length - events;
    process.stdout.write(
      `# killed after ${atKill} requests; ${duplicates} duplicate deliveries afterwards\n`,
    );

    // Every delivery ends up recorded as delivered (the last outcomes may still be committing).
    const deadline = Date.now() + 20_000;
    let unsettled = -1;
    while (Date.now() < deadline) {
      const row = await ctx.db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('status', '<>', 'delivered')
        .executeTakeFirstOrThrow();
      unsettled = Number(row.count);
      if (unsettled === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(unsettled, 0, 'every delivery is recorded as delivered');
  });
});
