// Accounts for the web application: users, their memberships of workspaces, sessions,
// sign-up confirmations and invitations. Users belong to no single workspace (one person
// may be a member of several), so `users` is the one table without `workspace_id`;
// everything a user does is scoped by the workspace of their session. Tokens and
// passwords are stored only as hashes. Account mails (sign-up confirmation) belong to no
// workspace yet, so a mail's workspace becomes optional.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  `create table users (
    id uuid primary key,
    email text not null,
    email_key text not null unique,
    password_hash text not null,
    created_at timestamptz(3) not null,
    password_changed_at timestamptz(3) not null
  )`,
  `create table memberships (
    workspace_id uuid not null references workspaces (id) on delete cascade,
    user_id uuid not null references users (id) on delete cascade,
    role text not null check (role in ('owner', 'member')),
    created_at timestamptz(3) not null,
    primary key (workspace_id, user_id)
  )`,
  'create index memberships_user on memberships (user_id)',
  `create table sessions (
    id uuid primary key,
    token_hash text not null unique,
    user_id uuid not null references users (id) on delete cascade,
    workspace_id uuid not null references workspaces (id) on delete cascade,
    created_at timestamptz(3) not null,
    last_seen_at timestamptz(3) not null,
    expires_at timestamptz(3) not null
  )`,
  'create index sessions_user on sessions (user_id)',
  `create table signup_requests (
    id uuid primary key,
    token_hash text not null unique,
    email text not null,
    password_hash text not null,
    workspace_name text not null,
    created_at timestamptz(3) not null,
    expires_at timestamptz(3) not null,
    used_at timestamptz(3)
  )`,
  `create table invitations (
    id uuid primary key,
    workspace_id uuid not null references workspaces (id) on delete cascade,
    email text not null,
    role text not null check (role in ('owner', 'member')),
    token_hash text not null unique,
    invited_by uuid references users (id) on delete set null,
    created_at timestamptz(3) not null,
    expires_at timestamptz(3) not null,
    accepted_at timestamptz(3)
  )`,
  'create index invitations_workspace on invitations (workspace_id, created_at desc)',
  'alter table mails alter column workspace_id drop not null',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
