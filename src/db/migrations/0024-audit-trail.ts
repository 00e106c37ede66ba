// An audit trail that holds up (issue 36): a history event may carry a detail (a decline's or
// a withdrawal's reason, which reminder, why a code was refused), and a recipient remembers
// when their link was first fetched without the document being viewed (a mail scanner, a
// link preview): recorded once, as history, never as document.opened.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  'alter table document_events add column detail text',
  'alter table recipients add column link_fetched_at timestamptz(3)',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
