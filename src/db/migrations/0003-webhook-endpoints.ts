// Webhook endpoints: where a workspace wants its events delivered, with the secret that
// signs each delivery and the consecutive-failure count that pauses it.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  `create table webhook_endpoints (
    id uuid primary key,
    workspace_id uuid not null references workspaces (id) on delete cascade,
    url text not null,
    events text[] not null check (cardinality(events) between 1 and 5),
    description text,
    enabled boolean not null default true,
    secret text not null,
    failure_count integer not null default 0,
    disabled_reason text check (disabled_reason in ('failures')),
    created_at timestamptz(3) not null,
    updated_at timestamptz(3) not null
  )`,
  'create index webhook_endpoints_workspace on webhook_endpoints (workspace_id, created_at, id)',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
