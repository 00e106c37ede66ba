// A member's own language (issue 51): the language of Signet's mails to them (a declined
// document, a completed one, a paused webhook endpoint) and of the log-in pages in their
// browser; null means the workspace's default. A sign-up keeps the language its pages were
// in, so the account made from it starts in that language.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  'alter table users add column language text',
  'alter table signup_requests add column language text',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
