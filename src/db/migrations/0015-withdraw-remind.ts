// Withdrawing and reminding (issue 25): a sent document the sender withdraws ends as
// `expired` (the spec's statuses do not change) and remembers when it was withdrawn, so its
// pages and mails can say so; a signer remembers when they were last reminded, so a
// reminder goes out at most once an hour.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  'alter table documents add column withdrawn_at timestamptz(3)',
  'alter table recipients add column reminded_at timestamptz(3)',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
