// Why a bulk send's row was refused or failed, as sentences of the catalogues (issue 51):
// a JSON list, each item a keyed sentence (i18n/refusals.ts KeyedSentence) or, where the
// rule that refused it has no key, its English. The progress page and the results file say
// it in the reading member's language; `error` keeps the English (logs, rows failed before
// this migration, which have no reason and are shown as English).
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table bulk_send_rows add column reason jsonb`.execute(db);
}
