// The name a mail is sent under (issue 52): a recipient's mail comes from "Acme GmbH via
// Signet", the sender's brand (else its workspace's name) in the recipient's language, at the
// address SIGNET_MAIL_FROM gives (so the server's SPF and DKIM still align). Null: the mail
// goes out as SIGNET_MAIL_FROM says (account and member mails).
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table mails add column from_name text`.execute(db);
}
