// Migrations that move data: a database holding rows of the previous schema comes out of
// the next migration with nothing lost. Each test stops at the migration before, writes
// rows in that shape with plain SQL, and migrates to the latest schema.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { type Kysely, Migrator, sql } from 'kysely';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { migrations } from '../../src/db/migrations/index.ts';
import { createTestDatabase, describeEachDatabase } from '../support/harness.ts';

// biome-ignore lint/suspicious/noExplicitAny: rows of an older schema have no types here
async function migrateTo(db: Kysely<any>, name: string): Promise<void> {
  const { error } = await new Migrator({ db, provider: { getMigrations: async () => migrations } }).migrateTo(
    name,
  );
  if (error) throw error;
}

describeEachDatabase('migrations', (kind) => {
  test('0007 stores each webhook body once: from the outbox, from deliveries, and for pings', async () => {
    const handle = await createTestDatabase(kind, { migrated: false });
    try {
      const db = handle.db;
      await migrateTo(db, '0006-delivery-ids');
      const at = '2026-03-01T12:00:00.000Z';
      const [ws, doc, endpoint, queuedEvent, deliveredEvent, pingEvent, delivery, ping] = Array.from(
        { length: 8 },
        () => randomUUID(),
      );
      const body = (id: string | undefined, type: string) =>
        JSON.stringify({ id, type, createdAt: at, data: {} });
      await sql`insert into workspaces (id, name, plan, created_at) values (${ws}, 'W', 'max', ${at})`.execute(
        db,
      );
      await sql`insert into documents (id, workspace_id, title, status, created_at)
                values (${doc}, ${ws}, 'D', 'sent', ${at})`.execute(db);
      for (const event of [queuedEvent, deliveredEvent]) {
        await sql`insert into document_events (id, workspace_id, document_id, type, created_at)
                  values (${event}, ${ws}, ${doc}, 'document.sent', ${at})`.execute(db);
      }
      await sql`insert into outbox (event_id, workspace_id, type, payload, created_at)
                values (${queuedEvent}, ${ws}, 'document.sent', ${body(queuedEvent, 'document.sent')}, ${at})`.execute(
        db,
      );
      await sql`insert into webhook_endpoints (id, workspace_id, url, events, secret, created_at, updated_at)
                values (${endpoint}, ${ws}, 'http://127.0.0.1:9/hook', '{document.sent}', 'whsec_x', ${at}, ${at})`.execute(
        db,
      );
      await sql`insert into webhook_deliveries
                  (id, workspace_id, endpoint_id, event_id, event_type, payload, status, attempts, next_attempt_at, created_at)
                values
                  (${delivery}, ${ws}, ${endpoint}, ${deliveredEvent}, 'document.sent',
                   ${body(deliveredEvent, 'document.sent')}, 'delivered', 1, ${at}, ${at}),
                  (${ping}, ${ws}, ${endpoint}, null, 'ping', ${body(pingEvent, 'ping')}, 'delivered', 1, ${at}, ${at})`.execute(
        db,
      );
      for (const id of [delivery, ping]) {
        await sql`insert into webhook_attempts (id, delivery_id, workspace_id, endpoint_id, attempt, started_at, duration_ms, status_code)
                  values (${randomUUID()}, ${id}, ${ws}, ${endpoint}, 1, ${at}, 3, 200)`.execute(db);
      }

      await migrateToLatest(db);

      const bodies = await sql<{ id: string; type: string; body_id: string }>`
        select id, type, payload ->> 'id' as body_id from webhook_events
      `.execute(db);
      const sorted = (rows: string[][]) => rows.map((r) => r.join(' ')).sort();
      assert.deepEqual(
        sorted(bodies.rows.map((r) => [r.id, r.type, r.body_id])),
        sorted([
          [queuedEvent, 'document.sent', queuedEvent],
          [deliveredEvent, 'document.sent', deliveredEvent],
          [pingEvent, 'ping', pingEvent],
        ] as string[][]),
      );
      const deliveries = await sql<{ id: string; event_id: string }>`
        select id, event_id from webhook_deliveries order by event_type
      `.execute(db);
      assert.deepEqual(
        deliveries.rows.map((r) => [r.id, r.event_id]),
        [
          [delivery, deliveredEvent],
          [ping, pingEvent],
        ],
        'a ping delivery takes its body id as its event id',
      );
      const queued = await sql<{ event_id: string }>`select event_id from outbox`.execute(db);
      assert.deepEqual(
        queued.rows.map((r) => r.event_id),
        [queuedEvent],
      );
      const attempts = await sql<{ delivery_id: string; attempt: number }>`
        select delivery_id, attempt from webhook_attempts order by delivery_id
      `.execute(db);
      assert.equal(attempts.rows.length, 2);
      // (delivery, attempt) is the key now: the same attempt twice is refused.
      await assert.rejects(
        sql`insert into webhook_attempts (delivery_id, workspace_id, endpoint_id, attempt, started_at, duration_ms)
            values (${delivery}, ${ws}, ${endpoint}, 1, ${at}, 1)`.execute(db),
      );
    } finally {
      await handle.close();
    }
  });
});
