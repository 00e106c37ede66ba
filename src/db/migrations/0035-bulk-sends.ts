// Bulk sends (issue 38): a template sent to every good row of a confirmed spreadsheet, by the
// worker, not in the request. A row's progress is written in the transaction of the change it
// records, so a restart in the middle loses nothing and sends nothing twice:
// - `pending` → `created` (with `document_id`) in the transaction that creates the document;
// - `created` → `sent` in the transaction that sends it;
// - `failed` (with `error`, a sentence) when the document's own checks refuse the row.
// `locked_until` is the lease of the worker sending it (another skips it until it runs out);
// `finished_at` is set once no row is left pending or created.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  `create table bulk_sends (
    id uuid primary key,
    workspace_id uuid not null references workspaces (id) on delete cascade,
    template_id uuid references templates (id) on delete set null,
    template_name text not null,
    file_name text not null,
    created_by uuid,
    total integer not null check (total >= 0),
    created_at timestamptz(3) not null,
    locked_until timestamptz(3),
    finished_at timestamptz(3)
  )`,
  'create index bulk_sends_workspace on bulk_sends (workspace_id, created_at desc, id desc)',
  'create index bulk_sends_unfinished on bulk_sends (created_at) where finished_at is null',
  `create table bulk_send_rows (
    bulk_send_id uuid not null references bulk_sends (id) on delete cascade,
    workspace_id uuid not null,
    row_number integer not null check (row_number > 0),
    input jsonb not null,
    status text not null default 'pending' check (status in ('pending', 'created', 'sent', 'failed')),
    document_id uuid references documents (id) on delete set null,
    error text,
    primary key (bulk_send_id, row_number)
  )`,
  `create index bulk_send_rows_open on bulk_send_rows (bulk_send_id, row_number)
    where status in ('pending', 'created')`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
