// Workspaces, API keys, documents with their pricing block, recipients and the event
// history. Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  `create table workspaces (
    id uuid primary key,
    name text not null,
    plan text not null check (plan in ('free', 'max')),
    created_at timestamptz(3) not null
  )`,
  `create table api_keys (
    id uuid primary key,
    workspace_id uuid not null references workspaces (id) on delete cascade,
    name text not null,
    secret_hash text not null unique,
    hint text not null,
    created_at timestamptz(3) not null,
    revoked_at timestamptz(3)
  )`,
  'create index api_keys_active on api_keys (workspace_id) where revoked_at is null',
  `create table documents (
    id uuid primary key,
    workspace_id uuid not null references workspaces (id) on delete cascade,
    title text not null,
    body text not null default '',
    status text not null check (status in ('draft', 'sent', 'viewed', 'signed', 'declined', 'expired')),
    created_at timestamptz(3) not null,
    sent_at timestamptz(3),
    signed_at timestamptz(3),
    expires_at timestamptz(3),
    pricing jsonb,
    value_amount numeric,
    value_currency text,
    check ((pricing is null) = (value_amount is null) and (value_amount is null) = (value_currency is null))
  )`,
  // Keyset pagination: newest first, with and without a status filter.
  'create index documents_page on documents (workspace_id, created_at desc, id desc)',
  'create index documents_status_page on documents (workspace_id, status, created_at desc, id desc)',
  `create table recipients (
    id uuid primary key,
    workspace_id uuid not null,
    document_id uuid not null references documents (id) on delete cascade,
    position integer not null,
    email text not null,
    full_name text not null,
    role text not null check (role in ('signer', 'viewer')),
    signing_method text not null check (signing_method in ('standard', 'email-code')),
    signing_order integer not null check (signing_order >= 1),
    signed_at timestamptz(3),
    created_at timestamptz(3) not null,
    unique (document_id, position)
  )`,
  'create index recipients_document on recipients (document_id, signing_order, position)',
  `create table document_events (
    id uuid primary key,
    workspace_id uuid not null,
    document_id uuid not null references documents (id) on delete cascade,
    seq bigint generated always as identity,
    type text not null,
    recipient_id uuid references recipients (id) on delete set null,
    recipient_email text,
    created_at timestamptz(3) not null
  )`,
  'create index document_events_document on document_events (document_id, created_at, seq)',
  // Keys that every process must share (cursor signing, later session signing).
  `create table server_secrets (
    name text primary key,
    secret text not null,
    created_at timestamptz(3) not null
  )`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
