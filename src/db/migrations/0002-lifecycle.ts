// Documents that really get signed: per-document expiry, recipients' signing links,
// signatures, declines and one-time codes; the event outbox and the mail outbox.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  `alter table documents add column expires_in_seconds integer not null default 2592000
     check (expires_in_seconds between 60 and 31536000)`,
  // The expiry job looks for active documents that are due.
  `create index documents_due on documents (expires_at) where status in ('sent', 'viewed')`,

  `alter table recipients
     add column token_hash text unique,
     add column opened_at timestamptz(3),
     add column declined_at timestamptz(3),
     add column decline_reason text,
     add column signature_name text,
     add column code_hash text,
     add column code_expires_at timestamptz(3),
     add column code_attempts integer not null default 0,
     add column code_sent_at timestamptz(3)`,

  // Every document event, written in the transaction of the change that caused it, with
  // the webhook body as it was at that moment (json, not jsonb: the body keeps its key
  // order). Dispatchers consume unprocessed rows.
  `create table outbox (
    seq bigint generated always as identity primary key,
    event_id uuid not null unique references document_events (id) on delete cascade,
    workspace_id uuid not null,
    type text not null,
    payload json not null,
    created_at timestamptz(3) not null,
    processed_at timestamptz(3)
  )`,
  'create index outbox_pending on outbox (seq) where processed_at is null',

  // Mail is an outbox of its own: rows written with the change, sent (and retried) later.
  `create table mails (
    id uuid primary key,
    workspace_id uuid not null references workspaces (id) on delete cascade,
    document_id uuid references documents (id) on delete cascade,
    recipient_id uuid references recipients (id) on delete cascade,
    to_address text not null,
    subject text not null,
    text_body text not null,
    created_at timestamptz(3) not null,
    status text not null default 'pending' check (status in ('pending', 'sent', 'logged', 'failed')),
    attempts integer not null default 0,
    next_attempt_at timestamptz(3) not null,
    locked_until timestamptz(3),
    sent_at timestamptz(3),
    last_error text
  )`,
  `create index mails_due on mails (next_attempt_at) where status = 'pending'`,
  'create index mails_workspace on mails (workspace_id, created_at desc)',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
