// A workspace's brand (issue 52): the company's name as its recipients know it, its accent
// colour (`#rrggbb`, checked for contrast when set), and whether recipients' pages say "Sent
// with Signet". Null name and colour: the workspace's name and Signet's blue.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  'alter table workspaces add column brand_name text',
  'alter table workspaces add column brand_accent text',
  'alter table workspaces add column brand_sent_with boolean not null default true',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
