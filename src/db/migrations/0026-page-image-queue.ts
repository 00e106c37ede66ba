// Page images drawn in the background (issue 36): a stored PDF a workspace uploaded is queued
// here in the transaction that stores it, and the worker draws its pages into `page_images`
// (files/background-pages.ts) through the render schedule, a few pages at a turn, so the
// editor's and the signing page's images exist before anyone asks for them.
// - One row per file and workspace (the schedule's turns are a workspace's: the file is
//   drawn in the turns of the workspace that uploaded it).
// - `next_step` is where drawing goes on: steps 0 … pages-1 draw each page at the reading
//   width, then pages … 2·pages-1 each page's thumbnail; the row is deleted when done.
// - `due_at` orders the rows: a row goes to the back after each turn of a few pages, so one
//   500-page file does not hold back a file uploaded after it; `locked_until` is the lease
//   of the worker drawing it (another worker skips it until it runs out).
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  `create table page_image_queue (
    sha256 text not null references files (sha256) on delete cascade,
    workspace_id uuid not null references workspaces (id) on delete cascade,
    next_step integer not null default 0 check (next_step >= 0),
    queued_at timestamptz(3) not null,
    due_at timestamptz(3) not null,
    locked_until timestamptz(3),
    primary key (sha256, workspace_id)
  )`,
  'create index page_image_queue_due on page_image_queue (due_at)',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
