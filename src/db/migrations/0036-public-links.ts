// Public signing links of templates (issue 38): a template with one signing role can be
// opened by anyone holding its link, who gives a name and an email, confirms the email with a
// one-time code, and gets a document of their own made from it, which they sign at once.
// - `public_link_token` is the link's token (null: no link). It is public by design (put on a
//   website), so it is kept as it is; renewing the link replaces it, which ends the old one
//   and every code asked through it.
// - `public_link_max_uses` and `public_link_ends_at` bound the link; `public_link_uses` counts
//   the documents made through it.
// - `public_link_requests`: a visitor's request, its code's hash (six digits, 10 minutes, five
//   wrong tries void it), and the document it made once confirmed.
// - `documents.made_via`: 'public-link' for a document made through one (the sender's list
//   marks it).
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  'alter table templates add column public_link_token text unique',
  'alter table templates add column public_link_max_uses integer check (public_link_max_uses > 0)',
  'alter table templates add column public_link_ends_at timestamptz(3)',
  'alter table templates add column public_link_uses integer not null default 0',
  `create table public_link_requests (
    id uuid primary key,
    workspace_id uuid not null,
    template_id uuid not null references templates (id) on delete cascade,
    link_token text not null,
    email text not null,
    full_name text not null,
    code_hash text,
    code_expires_at timestamptz(3) not null,
    code_attempts integer not null default 0,
    client_ip text,
    created_at timestamptz(3) not null,
    document_id uuid references documents (id) on delete set null
  )`,
  `alter table documents add column made_via text check (made_via in ('public-link'))`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
