// A bulk send's refused rows (issue 49): the rows of a confirmed spreadsheet that had a problem
// are stored too, as `refused` with the preview's sentences in `error` (and no input), so the
// results file lists every row of the file and what became of it. The worker never claims
// them (it takes `pending` and `created`), and the counts of progress leave them out.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  'alter table bulk_send_rows drop constraint bulk_send_rows_status_check',
  `alter table bulk_send_rows add constraint bulk_send_rows_status_check
    check (status in ('pending', 'created', 'sent', 'failed', 'refused'))`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
