// The outbox's way in: a document event's webhook body (webhook_events, stored once for every
// delivery of it) and the outbox row that queues it for fan-out, written in the transaction of
// the change that caused it (events.ts), and the channel NOTIFYed on commit. Here, below
// webhooks/, which reads the bodies (webhooks/outbox.repository.ts) and fans the rows out
// (webhooks/claims.repository.ts).
import { type Insertable, type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';

type Db = Kysely<Database> | Transaction<Database>;

/** NOTIFYed when outbox rows are committed: the dispatcher and event streams listen. */
export const outboxChannel = 'signet_outbox';

export type WebhookEventRow = Insertable<Database['webhook_events']>;

/** Stores events' webhook bodies and queues the events for fan-out, in one statement. */
export async function queueWebhookEvents(db: Db, rows: WebhookEventRow[]): Promise<void> {
  if (rows.length === 0) return;
  const bodies = rows.map((r) => sql`(${r.id}, ${r.workspace_id}, ${r.type}, ${r.payload}, ${r.created_at})`);
  const queued = rows.map((r) => sql`(${r.id}, ${r.workspace_id}, ${r.type}, ${r.created_at})`);
  await sql`
    with body as (
      insert into webhook_events (id, workspace_id, type, payload, created_at)
      values ${sql.join(bodies)}
    )
    insert into outbox (event_id, workspace_id, type, created_at)
    values ${sql.join(queued)}
  `.execute(db);
}
