// Stored files and page images are compressed already (a PDF's streams by the program that
// wrote it, PNG by its format), yet PostgreSQL tried its own pglz on every chunk written:
// on a 1 MB PDF it spent 15 to 20 ms of the upload's time and kept nothing (the result was
// not smaller; measured in issue 37, a 1 MB chunk stored in 27 ms, 12 ms without). From here:
// - lz4 where the server has it (PostgreSQL built with it, as Debian's is): as fast as
//   storing the bytes as they are, and a PDF written without compression still shrinks;
// - elsewhere (PGlite has pglz alone) the bytes are stored as they are.
// Rows stored before keep their form; each is read the same way.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const columns = [
  ['file_chunks', 'data'],
  ['page_images', 'png'],
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ lz4: boolean }>`select coalesce(
      (select 'lz4' = any (enumvals) from pg_settings where name = 'default_toast_compression'),
      false) as lz4`.execute(db);
  const lz4 = rows[0]?.lz4 === true;
  for (const [table, column] of columns) {
    const change = lz4 ? sql`set compression lz4` : sql`set storage external`;
    await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} ${change}`.execute(db);
  }
}
