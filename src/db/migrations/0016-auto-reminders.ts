// Automatic reminders (issue 25): a document may remind its pending signers every N days
// until it expires; a recipient remembers when their link was first mailed (signing groups
// are mailed in turn, so that is not the send time), from which the first reminder counts.
// The partial index holds only documents being signed with reminders on: the worker's pass
// reads nothing else.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  'alter table documents add column remind_every_days smallint',
  'alter table recipients add column invited_at timestamptz(3)',
  `create index documents_auto_remind on documents (id)
     where remind_every_days is not null and status in ('sent', 'viewed')`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
