// A seal's lease, with real processes on PostgreSQL: a worker that is sealing renews its
// claim while it works (a seal held up by a slow time-stamp authority keeps it past the
// lease's length), and a worker killed mid-seal leaves the seal to another within seconds,
// not minutes. The same rule on both databases, with the test clock, is in sealing.test.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { type Context, createContext, createLogger } from '../../src/context.ts';
import { type DatabaseHandle, openDatabase } from '../../src/db/connect.ts';
import { sealLeaseMs } from '../../src/sealing/sealing.service.ts';
import { signDocument } from '../../src/signing/signing.service.ts';
import {
  createSentDocument,
  createTestDatabase,
  createTestWorkspace,
  databaseKinds,
  recipient,
  testSealKey,
} from '../support/harness.ts';
import { startTestTsa } from '../support/pdf-tools.ts';
import { databaseUrlOf, type SignetProcess, startSignet, until } from '../support/processes.ts';

describe('a seal whose worker is killed is taken over within seconds', {
  skip: !databaseKinds.includes('postgres') && 'needs PostgreSQL',
}, () => {
  let database: DatabaseHandle;
  let pool: DatabaseHandle;
  let ctx: Context;
  let stalling: Server;
  const processes: SignetProcess[] = [];
  const common = { LOG_LEVEL: 'warn', SIGNET_DB_POOL_SIZE: '3', SIGNET_SEAL_KEY: testSealKey };

  before(async () => {
    database = await createTestDatabase('postgres');
    pool = await openDatabase({ url: await databaseUrlOf(database), dataDir: null, poolSize: 3 });
    ctx = await createContext(loadConfig(common), pool.db, { log: createLogger('silent') });
    // A time-stamp authority that takes every request and never answers: the seal waits on
    // it (up to its 10 s timeout) with its claim held.
    stalling = createServer(() => {});
    await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve));
  });

  after(async () => {
    await Promise.all(processes.map((p) => p.stop(1_000)));
    stalling?.closeAllConnections();
    await new Promise((resolve) => stalling?.close(resolve));
    await ctx?.close();
    await pool?.close();
    await database?.close();
  });

  test('the holder renews its lease while it works; killed, its seal is finished by another worker', async () => {
    const databaseUrl = await databaseUrlOf(database);
    const folder = mkdtempSync(join(tmpdir(), 'signet-takeover-'));
    const certFile = join(folder, 'tsa.pem');
    const tsa = await startTestTsa(new Date());
    writeFileSync(certFile, tsa.certificatePem);
    await tsa.close();
    const first = await startSignet('worker 1', 'worker', {
      ...common,
      DATABASE_URL: databaseUrl,
      SIGNET_SEAL_TSA_URL: `http://127.0.0.1:${(stalling.address() as AddressInfo).port}/tsa`,
      SIGNET_SEAL_TSA_CERT_FILE: certFile,
    });
    processes.push(first);

    const workspace = await createTestWorkspace(ctx);
    const { id, links } = await createSentDocument(ctx, workspace.id, {
      title: 'Taken over',
      recipients: [recipient('ann@client.example', 'Ann Lee')],
    });
    const ann = links.get('ann@client.example')?.session;
    assert.ok(ann);
    const signed = await signDocument(ctx, ann, {
      fullName: 'Ann Lee',
      consent: true,
      client: { ip: '203.0.113.7', userAgent: 'Test' },
    });
    assert.equal(signed.completed, true);

    const sealRow = () =>
      ctx.db
        .selectFrom('documents')
        .select(['seal_due_at', 'seal_attempts', 'sealed_sha256'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
    await until(async () => (await sealRow()).seal_attempts === 1, 10_000, 'the first worker to claim');
    const claimed = await sealRow();
    const firstLease = claimed.seal_due_at?.getTime() ?? 0;
    assert.ok(firstLease - Date.now() <= sealLeaseMs, 'a lease of seconds');
    // Its heartbeat moves the lease on while the time-stamp authority keeps it waiting.
    await until(
      async () => ((await sealRow()).seal_due_at?.getTime() ?? 0) > firstLease,
      sealLeaseMs,
      'the lease to be renewed',
    );
    assert.equal((await sealRow()).sealed_sha256, null);

    first.child.kill('SIGKILL');
    const killedAt = Date.now();
    const second = await startSignet('worker 2', 'worker', { ...common, DATABASE_URL: databaseUrl });
    processes.push(second);
    await until(async () => (await sealRow()).sealed_sha256 !== null, 60_000, 'the seal to be finished');
    const waited = Date.now() - killedAt;
    process.stdout.write(`# sealed ${waited} ms after the first worker was killed\n`);
    // The lease still held (at most sealLeaseMs), the second worker's next look (2 s) and the
    // seal itself: seconds, where the old lease made a signer wait five minutes.
    assert.ok(waited < sealLeaseMs + 15_000, `sealed ${waited} ms after the kill`);
    const done = await sealRow();
    assert.equal(done.seal_attempts, 2);
    assert.equal(done.seal_due_at, null);
    assert.deepEqual(second.problems(), []);
  });
});
