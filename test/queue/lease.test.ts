// The claim-and-lease module itself (src/queue/lease.ts, heartbeat.ts), over tables of the
// test's own on both databases: a claim takes free due rows in the queue's order and counts
// the attempt; a second claimer skips what is leased; the holder renews; a lease that ran out
// is taken over, and the old holder can then neither renew nor release it; a release on a
// clean stop frees the rows at once (and gives the attempt back); retries follow the delays;
// the heartbeat renews while work runs. The five queues' own tests cover their declarations.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { whileLeased } from '../../src/queue/heartbeat.ts';
import { defineQueue, nextAttemptAt } from '../../src/queue/lease.ts';
import { describeEachDatabase, useHarness } from '../support/harness.ts';

interface LeaseTestDb {
  lease_jobs: {
    id: number;
    due_at: Date;
    locked_until: Date | null;
    attempts: number;
    note: string | null;
  };
  lease_owed: { id: number; due_at: Date | null; attempts: number };
}

const jobs = defineQueue<LeaseTestDb, 'lease_jobs'>({
  name: 'test job',
  working: 'testing',
  table: 'lease_jobs',
  key: ['id'],
  lease: 'locked_until',
  due: 'due_at',
  attempts: { column: 'attempts', counted: 'claim' },
  leaseMs: 10_000,
  heartbeatMs: 20,
  retryDelaysMs: [60_000, 300_000],
});

/** A queue whose lease is kept in its due column, as seals keep theirs. */
const owed = defineQueue<LeaseTestDb, 'lease_owed'>({
  name: 'owed',
  working: 'paying',
  table: 'lease_owed',
  key: ['id'],
  lease: 'due_at',
  due: 'due_at',
  attempts: { column: 'attempts', counted: 'claim' },
  leaseMs: (config) => config.webhooks.timeoutMs,
});

describeEachDatabase('the claim-and-lease module', (kind) => {
  const h = useHarness(kind);
  let db: Kysely<LeaseTestDb>;
  const ctx = () => ({ ...h.ctx, db });

  before(async () => {
    db = h.ctx.db as unknown as Kysely<LeaseTestDb>;
    await sql`create table lease_jobs (id int primary key, due_at timestamptz(3) not null,
      locked_until timestamptz(3), attempts int not null default 0, note text)`.execute(db);
    await sql`create table lease_owed (id int primary key, due_at timestamptz(3),
      attempts int not null default 0)`.execute(db);
  });

  /** Rows due a moment ago, in the order of their ids. */
  async function fresh(ids: number[]) {
    await db.deleteFrom('lease_jobs').execute();
    const now = h.clock.now().getTime();
    await db
      .insertInto('lease_jobs')
      .values(ids.map((id) => ({ id, due_at: new Date(now - 100 + id), attempts: 0 })))
      .execute();
  }
  const claim = (limit: number) =>
    jobs.claim<{ id: number; attempts: number }>(db, {
      now: h.clock.now(),
      until: jobs.leaseFrom(h.clock.now(), h.config),
      limit,
      where: sql`due_at <= ${h.clock.now()}`,
      orderBy: sql`due_at, id`,
      returning: sql`q.attempts`,
    });
  const row = (id: number) =>
    db.selectFrom('lease_jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  test('a claim takes due rows in the order given, up to its limit, leased and with the attempt counted', async () => {
    await fresh([3, 1, 2]);
    await db
      .insertInto('lease_jobs')
      .values({ id: 9, due_at: new Date(h.clock.now().getTime() + 60_000), attempts: 0 })
      .execute();
    const claimed = await claim(2);
    assert.deepEqual(
      claimed.map((c) => c.row.id).sort(),
      [1, 2],
      'the two due first; a row due later is not taken',
    );
    const until = h.clock.now().getTime() + 10_000;
    for (const { row: r, held } of claimed) {
      assert.equal(r.attempts, 1);
      assert.deepEqual(held.key, [r.id]);
      assert.equal(held.until.getTime(), until);
      assert.equal((await row(r.id)).locked_until?.getTime(), until);
    }
    assert.deepEqual(
      (await claim(5)).map((c) => c.row.id),
      [3],
      'a second claimer skips what is leased',
    );
    assert.deepEqual(await claim(5), []);
  });

  test('two claims at once never take the same row', async () => {
    await fresh([1, 2, 3, 4, 5, 6]);
    const [a, b] = await Promise.all([claim(3), claim(3)]);
    const ids = [...(a ?? []), ...(b ?? [])].map((c) => c.row.id).sort();
    assert.deepEqual(ids, [1, 2, 3, 4, 5, 6]);
  });

  test('the holder renews; a lease that ran out is taken over, and the old holder can neither renew nor release it', async () => {
    await fresh([1]);
    const [first] = await claim(1);
    assert.ok(first);
    h.clock.advance(8_000);
    assert.equal(await jobs.renew(db, [first.held], jobs.leaseFrom(h.clock.now(), h.config)), 1);
    assert.equal(first.held.until.getTime(), h.clock.now().getTime() + 10_000, 'renewed from now');
    h.clock.advance(9_999);
    assert.deepEqual(await claim(1), [], 'held while the renewed lease lasts');
    h.clock.advance(1);
    const [second] = await claim(1);
    assert.equal(second?.row.id, 1, 'taken over once it ran out');
    assert.equal(second?.row.attempts, 2, 'the dead holder used its attempt');
    assert.equal(await jobs.renew(db, [first.held], jobs.leaseFrom(h.clock.now(), h.config)), 0);
    assert.equal(first.held.lost, true);
    assert.equal(await jobs.release(db, [first.held], { now: h.clock.now(), undoAttempt: true }), 0);
    const after = await row(1);
    assert.equal(after.locked_until?.getTime(), second?.held.until.getTime(), 'the new holder keeps it');
    assert.equal(after.attempts, 2);
  });

  test('a release on a clean stop frees the rows at once and gives their attempt back', async () => {
    await fresh([1, 2, 3]);
    const claimed = await claim(3);
    assert.equal(claimed.length, 3);
    const released = await jobs.release(
      db,
      claimed.slice(1).map((c) => c.held),
      { now: h.clock.now(), undoAttempt: true, set: sql`note = 'handed back'` },
    );
    assert.equal(released, 2);
    for (const id of [2, 3]) {
      const r = await row(id);
      assert.deepEqual([r.locked_until, r.attempts, r.note], [null, 0, 'handed back']);
    }
    assert.deepEqual(
      (await claim(5)).map((c) => c.row.id).sort(),
      [2, 3],
      'another worker takes them without waiting for the lease',
    );
  });

  test('an attempt that fails is due again after the delays, then given up; an outcome ends the lease', async () => {
    assert.deepEqual(nextAttemptAt([1000, 5000], 1, new Date(0)), new Date(1000));
    assert.deepEqual(nextAttemptAt([1000, 5000], 2, new Date(0)), new Date(5000));
    assert.equal(nextAttemptAt([1000, 5000], 3, new Date(0)), null);
    await fresh([1, 2]);
    const [one, two] = await claim(2);
    assert.ok(one && two);
    const retryAt = jobs.retryAt(one.row.attempts, h.clock.now());
    assert.equal(retryAt?.getTime(), h.clock.now().getTime() + 60_000);
    await db.updateTable('lease_jobs').set(jobs.retrying(retryAt)).where('id', '=', one.row.id).execute();
    assert.deepEqual([(await row(one.row.id)).due_at, (await row(one.row.id)).locked_until], [retryAt, null]);
    const dueBefore = (await row(two.row.id)).due_at;
    await db.updateTable('lease_jobs').set(jobs.retrying(null)).where('id', '=', two.row.id).execute();
    assert.deepEqual(
      [(await row(two.row.id)).due_at, (await row(two.row.id)).locked_until],
      [dueBefore, null],
    );
    await db.updateTable('lease_jobs').set(jobs.ending()).where('id', '=', one.row.id).execute();
    assert.equal((await row(one.row.id)).locked_until, null);
  });

  test('the heartbeat renews the lease while work runs and stops with it; a row taken over is marked lost', async () => {
    await fresh([1, 2]);
    const claimed = await claim(2);
    const held = claimed.map((c) => c.held);
    const firstUntil = held[0]?.until.getTime() ?? 0;
    h.clock.advance(5_000);
    // Another worker takes row 2 meanwhile (as if its lease had run out).
    await db
      .updateTable('lease_jobs')
      .set({ locked_until: new Date(0) })
      .where('id', '=', 2)
      .execute();
    const result = await whileLeased(
      ctx(),
      jobs,
      () => held,
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 120));
        return 'done';
      },
    );
    assert.equal(result, 'done');
    assert.equal(held[0]?.until.getTime(), firstUntil + 5_000, 'renewed from the moved clock');
    assert.equal((await row(1)).locked_until?.getTime(), firstUntil + 5_000);
    assert.equal(held[1]?.lost, true);
    // Nothing renews once the work is over.
    h.clock.advance(1_000);
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.equal((await row(1)).locked_until?.getTime(), firstUntil + 5_000);
  });

  test('a lease kept in the due column: a release makes the row due now, the end of the work clears it', async () => {
    await db.deleteFrom('lease_owed').execute();
    await db
      .insertInto('lease_owed')
      .values([
        { id: 1, due_at: h.clock.now(), attempts: 0 },
        { id: 2, due_at: null, attempts: 0 },
      ])
      .execute();
    const take = () =>
      owed.claim<{ id: number }>(db, {
        now: h.clock.now(),
        until: owed.leaseFrom(h.clock.now(), h.config),
        limit: 5,
        orderBy: sql`due_at`,
      });
    const [first, ...none] = await take();
    assert.ok(first);
    assert.equal(first.row.id, 1, 'null means nothing is owed');
    assert.deepEqual(none, []);
    assert.equal(first.held.until.getTime(), h.clock.now().getTime() + h.config.webhooks.timeoutMs);
    assert.deepEqual(await take(), []);
    h.clock.advance(1_000);
    assert.equal(await owed.release(db, [first.held], { now: h.clock.now(), undoAttempt: true }), 1);
    const released = await db
      .selectFrom('lease_owed')
      .selectAll()
      .where('id', '=', 1)
      .executeTakeFirstOrThrow();
    assert.deepEqual([released.due_at, released.attempts], [h.clock.now(), 0]);
    const [again] = await take();
    assert.equal(again?.row.id, 1);
    await db.updateTable('lease_owed').set(owed.ending()).where('id', '=', 1).execute();
    assert.deepEqual(await take(), []);
  });
});
