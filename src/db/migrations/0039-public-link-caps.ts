// Caps on the code mails of public links (issue 49 §3): a visitor chooses the address their
// code goes to, so without a cap anyone could use a link to mail strangers. Each code mail is
// counted, in the transaction that queues it, twice (templates/public-link-caps.ts):
// - `public_link_code_mails`: per workspace and UTC day, all its links together;
// - `public_link_inbox_mails`: per destination inbox and UTC hour, across every link of every
//   workspace (so it carries no workspace_id: it protects a mailbox, not a tenant). The inbox
//   is a SHA-256 of the address's key, never the address.
// `reached_at` is set the first time a mail is refused in that day or hour, so the event is
// logged once however many processes refuse it.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  `create table public_link_code_mails (
    workspace_id uuid not null references workspaces (id) on delete cascade,
    day text not null check (day ~ '^\\d{4}-\\d{2}-\\d{2}$'),
    mails integer not null check (mails >= 0),
    reached_at timestamptz(3),
    primary key (workspace_id, day)
  )`,
  `create table public_link_inbox_mails (
    inbox text not null,
    hour timestamptz(3) not null,
    mails integer not null check (mails >= 0),
    reached_at timestamptz(3),
    primary key (inbox, hour)
  )`,
  // Hours that ended are deleted (only the current one is read): this finds them.
  'create index public_link_inbox_mails_hour on public_link_inbox_mails (hour)',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
