// The mail outbox's pace (issue 38: a bulk send's mails go out at a pace the mail server
// accepts): the workers count the mails handed to the server in the last minute before they
// claim more (mail/mail.service.ts), which this index keeps cheap however long the table
// grows. And a document's mails, read by its page and the bulk tests, by document.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  'create index mails_sent_at on mails (sent_at) where sent_at is not null',
  'create index mails_document on mails (document_id) where document_id is not null',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
