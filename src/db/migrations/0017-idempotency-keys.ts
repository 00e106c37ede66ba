// Idempotency-Key on POST /v1/webhook-endpoints (issue 26): the first successful answer to a
// key (a 201; refusals are not kept), kept 24 hours per workspace, with a hash of the request
// body it answered (the same key with another body is refused). Rows past their day are
// ignored and pruned.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  `create table idempotency_keys (
     workspace_id uuid not null references workspaces (id) on delete cascade,
     key text not null,
     request_sha256 text not null,
     response text not null,
     created_at timestamptz(3) not null,
     primary key (workspace_id, key)
   )`,
  'create index idempotency_keys_created on idempotency_keys (created_at)',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
