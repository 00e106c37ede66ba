// Each webhook body is stored once, in webhook_events, written by the transaction of the
// change that caused it (or by the ping that sends it). The outbox and deliveries keep
// only the event's id: a delivery row shrinks from about 2 KB to about 150 bytes, so
// fan-out and every outcome write (a delivery's status changes by rewriting its row)
// stop copying the body, and N endpoints of one event share one copy.
// Attempts are keyed by (delivery, attempt number): their own uuid and its index go.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  `create table webhook_events (
    id uuid primary key,
    workspace_id uuid not null,
    type text not null,
    payload json not null,
    created_at timestamptz(3) not null
  )`,
  // Retention deletes by age; rows arrive in time order, so a BRIN index is enough and
  // costs the event's transaction next to nothing.
  'create index webhook_events_created on webhook_events using brin (created_at)',
  `insert into webhook_events (id, workspace_id, type, payload, created_at)
   select event_id, workspace_id, type, payload, created_at from outbox
   on conflict (id) do nothing`,
  // Pings had no event id; their body has one.
  `update webhook_deliveries set event_id = (payload::jsonb ->> 'id')::uuid where event_id is null`,
  `insert into webhook_events (id, workspace_id, type, payload, created_at)
   select distinct on (event_id) event_id, workspace_id, event_type, payload, created_at
   from webhook_deliveries order by event_id, created_at
   on conflict (id) do nothing`,
  'alter table outbox drop column payload',
  'alter table webhook_deliveries drop column payload',
  'alter table webhook_deliveries alter column event_id set not null',
  'alter table webhook_attempts drop column id',
  'drop index webhook_attempts_delivery',
  'alter table webhook_attempts add primary key (delivery_id, attempt)',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
