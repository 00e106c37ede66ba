// Templates (issue 38): a PDF with its fields placed once, for roles ("Client", "Company")
// instead of people, and the defaults of the documents made from it; sent many times, each
// time as an ordinary document (sending/'s services) that keeps its own copy of everything
// it needs, so editing or deleting a template never changes a document made from it.
// - `original_sha256`: the template's PDF, content-addressed like every file, so a thousand
//   documents made from one template store its bytes once (they point at the same row).
// - A role has a name unique in its template (case aside), a kind (signer or viewer), a
//   signing order and a signing method, as a recipient has.
// - A field belongs to a signing role; `sender_fills`: whoever uses the template gives its
//   value (a price, a start date), which the document's field then holds, prefilled
//   (migration 0033). Otherwise as a document's field (migration 0014).
// - `documents.template_id`: the template a document was made from (null once it is deleted).
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  `create table templates (
    id uuid primary key,
    workspace_id uuid not null references workspaces (id) on delete cascade,
    name text not null,
    title text not null,
    body text not null default '',
    original_sha256 text not null references files (sha256),
    expires_in_seconds integer not null check (expires_in_seconds > 0),
    remind_every_days integer check (remind_every_days > 0),
    created_at timestamptz(3) not null,
    updated_at timestamptz(3) not null
  )`,
  'create index templates_workspace on templates (workspace_id, created_at desc, id desc)',
  `create table template_roles (
    id uuid primary key,
    workspace_id uuid not null,
    template_id uuid not null references templates (id) on delete cascade,
    position integer not null check (position >= 0),
    name text not null,
    role text not null check (role in ('signer', 'viewer')),
    signing_order integer not null check (signing_order between 1 and 100),
    signing_method text not null check (signing_method in ('standard', 'email-code')),
    unique (template_id, position)
  )`,
  'create unique index template_roles_name on template_roles (template_id, lower(name))',
  `create table template_fields (
    id uuid primary key,
    workspace_id uuid not null,
    template_id uuid not null references templates (id) on delete cascade,
    role_id uuid not null references template_roles (id) on delete cascade,
    position integer not null check (position >= 0),
    type text not null check (type in ('signature', 'initials', 'date', 'name', 'email', 'text', 'checkbox')),
    page integer not null check (page > 0),
    x double precision not null check (x >= 0),
    y double precision not null check (y >= 0),
    width double precision not null check (width > 0),
    height double precision not null check (height > 0),
    required boolean not null,
    label text,
    max_length integer check (max_length > 0),
    sender_fills boolean not null default false,
    unique (template_id, position)
  )`,
  'create index template_fields_role on template_fields (role_id)',
  'alter table documents add column template_id uuid references templates (id) on delete set null',
  'create index documents_template on documents (template_id) where template_id is not null',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
