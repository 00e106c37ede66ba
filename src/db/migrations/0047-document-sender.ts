// Who made a document (issue 52): the member who created it on the web, from a template or
// by a bulk send they started; null when an API key, a public link or the CLI made it. A
// recipient's mails about it say `Reply-To` that member's address while they are still a
// member of the workspace, so a signer's reply reaches a person (mails.reply_to).
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  'alter table documents add column created_by uuid',
  'alter table mails add column reply_to text',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
