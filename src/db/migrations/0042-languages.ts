// Languages (issue 51): the workspace's default language (set by its owner, English until
// then), a recipient's own language, a template role's default for its recipient and a
// document's (its certificate's), each a BCP 47 tag
// of i18n/languages.ts. A recipient's or a document's null means the workspace's default,
// read when it is used, so an owner's new default reaches what was left to it.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  `alter table workspaces add column default_language text not null default 'en'`,
  'alter table recipients add column language text',
  'alter table documents add column language text',
  'alter table template_roles add column language text',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
