// A field's value given by the sender when the document is made (issue 37's "a value the
// sender fills in beforehand", issue 38's fields a template's user fills in): a text or a
// checkbox the signer sees filled and cannot change. `prefilled` marks it; `value` holds it
// from the start (null for a checkbox left unticked), and `filled_at` is set when its signer
// signs with it shown, as for the fields they fill themselves.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table document_fields add column prefilled boolean not null default false`.execute(db);
}
