// Fairness in the mail outbox (issue 49 §2: one workspace's bulk send held everyone's mail
// back minutes). Each mail carries a priority, set where it is queued: 0 urgent (what a
// person is waiting for: one-time codes, password resets, confirmations, a document's first
// invitations sent by hand), 1 automatic (reminders, completion copies, notices, later
// signing groups), 2 bulk (a bulk send's invitations). Mails queued before this migration
// are automatic; so are the inserts of a process still running the previous version during
// an upgrade (the default), so none of them fails.
// - `mails_fair_due`: the claim ranks due mails within each workspace by priority and due
//   time (a window partitioned by workspace), read in this index's order.
// - `mails_urgent_due`: the urgent lane's claim, which runs on every mail queued, reads the
//   few urgent mails without the bulk ones.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  'alter table mails add column priority smallint not null default 1 check (priority between 0 and 2)',
  `create index mails_fair_due on mails (workspace_id, priority, next_attempt_at, id) where status = 'pending'`,
  `create index mails_urgent_due on mails (next_attempt_at) where status = 'pending' and priority = 0`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
