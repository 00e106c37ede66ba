// Page images that could not be drawn (issue 34): a page that ran out of its time or memory,
// or that pdf.js could not read, is remembered here, and every later request for it gets a
// placeholder image at once instead of another attempt (src/files/page-images.ts).
// - `page` 0 stands for the whole file: opening it failed, so no page of it is drawn.
// - `width` is the width being drawn when it failed; a failure holds for every width of the
//   page (the cost of a page does not depend much on the size of its image).
// - `reason` is the renderer's error code; `renderer` the Signet version that gave up, so
//   that a newer version tries again, once.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  `create table page_image_failures (
    sha256 text not null references files (sha256) on delete cascade,
    page integer not null check (page >= 0),
    width integer not null check (width > 0),
    reason text not null,
    renderer text not null,
    failed_at timestamptz(3) not null,
    primary key (sha256, page)
  )`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
