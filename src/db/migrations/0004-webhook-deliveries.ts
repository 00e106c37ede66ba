// Webhook deliveries: one row per (event, endpoint), keeping its id (the
// X-Service-Delivery-Id) for life, and one row per attempt with what happened.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  `create table webhook_deliveries (
    id uuid primary key,
    workspace_id uuid not null,
    endpoint_id uuid not null references webhook_endpoints (id) on delete cascade,
    event_id uuid,
    event_type text not null,
    payload json not null,
    status text not null default 'pending' check (status in ('pending', 'delivered', 'dropped')),
    attempts integer not null default 0,
    next_attempt_at timestamptz(3) not null,
    locked_until timestamptz(3),
    created_at timestamptz(3) not null,
    last_attempt_at timestamptz(3),
    delivered_at timestamptz(3),
    unique (event_id, endpoint_id)
  )`,
  `create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'pending'`,
  'create index webhook_deliveries_endpoint on webhook_deliveries (endpoint_id, created_at desc)',
  'create index webhook_deliveries_created on webhook_deliveries (created_at)',
  `create table webhook_attempts (
    id uuid primary key,
    delivery_id uuid not null references webhook_deliveries (id) on delete cascade,
    workspace_id uuid not null,
    endpoint_id uuid not null,
    attempt integer not null,
    started_at timestamptz(3) not null,
    duration_ms integer not null,
    address text,
    status_code integer,
    error_class text check (error_class in ('dns', 'blocked', 'connect', 'tls', 'timeout', 'redirect', 'http-status')),
    response_body text
  )`,
  'create index webhook_attempts_delivery on webhook_attempts (delivery_id, attempt)',
  'create index outbox_processed on outbox (processed_at) where processed_at is not null',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
