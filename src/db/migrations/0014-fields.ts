// Fields on the page (issue 24): the sender places fields on the original PDF's pages and
// assigns each to one signer; the signer fills theirs when signing; the sealed PDF carries
// each value at its field's rectangle.
// - A field's rectangle is in PDF points in the page as displayed (after its rotation,
//   within its crop box), from the displayed page's bottom-left (src/pdf/fields.ts).
// - `value` is what was filled (text, a name, an email, a date, 'yes' for a ticked box;
//   null for a signature, whose image is the recipient's adopted signature), `filled_at`
//   when. Values are for the sealed PDF and the certificate; the API says only whether a
//   field is filled.
// - A file remembers its pages' displayed sizes, so fields can be checked against them and
//   the editor can draw them without parsing the PDF again (null until known: files stored
//   before this migration get theirs the first time they are asked for).
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

const statements = [
  `create table document_fields (
    id uuid primary key,
    workspace_id uuid not null,
    document_id uuid not null references documents (id) on delete cascade,
    recipient_id uuid not null references recipients (id) on delete cascade,
    position integer not null,
    type text not null check (type in ('signature', 'initials', 'date', 'name', 'email', 'text', 'checkbox')),
    page integer not null check (page > 0),
    x double precision not null check (x >= 0),
    y double precision not null check (y >= 0),
    width double precision not null check (width > 0),
    height double precision not null check (height > 0),
    required boolean not null,
    label text,
    max_length integer check (max_length > 0),
    value text,
    filled_at timestamptz(3),
    unique (document_id, position)
  )`,
  'create index document_fields_recipient on document_fields (recipient_id)',
  'alter table files add column page_sizes jsonb',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
