// The documents list's search (issue 36 §6): a document is found by a part of its title or
// of a recipient's name or address, case-insensitively, and fast at 100,000 documents.
// documents.search_text holds the lower-cased title and every recipient's name and address,
// one a line; triggers keep it current (a document's title, recipients added, changed or
// removed), so no write path can forget it. A trigram GIN index (pg_trgm, trusted since
// PostgreSQL 13: the database owner may create it) answers `like '%…%'` on it.
// Frozen: never edit a migration that has shipped; add the next one instead.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create extension if not exists pg_trgm`.execute(db);
  await sql`alter table documents add column search_text text not null default ''`.execute(db);
  await sql`
    create function signet_document_search_text(document uuid, title text) returns text
    language sql stable as $$
      select lower(title || coalesce((
        select string_agg(chr(10) || r.full_name || chr(10) || r.email, '' order by r.position)
        from recipients r where r.document_id = document), ''))
    $$
  `.execute(db);
  await sql`
    create function signet_documents_search_text() returns trigger language plpgsql as $$
    begin
      new.search_text := signet_document_search_text(new.id, new.title);
      return new;
    end
    $$
  `.execute(db);
  await sql`
    create trigger documents_search_text before insert or update of title on documents
    for each row execute function signet_documents_search_text()
  `.execute(db);
  // Recipients come and go in batches (a draft's list, an import of thousands): one update of
  // their documents a statement, not one a row. A name or address changed: that document.
  for (const [event, table] of [
    ['insert', 'new'],
    ['delete', 'old'],
  ] as const) {
    await sql
      .raw(`
        create function signet_recipients_${event}_search_text() returns trigger language plpgsql as $$
        begin
          update documents set search_text = signet_document_search_text(id, title)
          where id in (select document_id from changed);
          return null;
        end
        $$`)
      .execute(db);
    await sql
      .raw(`
        create trigger recipients_${event}_search_text after ${event} on recipients
        referencing ${table} table as changed
        for each statement execute function signet_recipients_${event}_search_text()`)
      .execute(db);
  }
  await sql`
    create function signet_recipients_update_search_text() returns trigger language plpgsql as $$
    begin
      update documents set search_text = signet_document_search_text(id, title)
      where id in (new.document_id, old.document_id);
      return null;
    end
    $$
  `.execute(db);
  await sql`
    create trigger recipients_update_search_text after update of full_name, email, document_id
    on recipients for each row execute function signet_recipients_update_search_text()
  `.execute(db);
  await sql`update documents set search_text = signet_document_search_text(id, title)`.execute(db);
  await sql`create index documents_search on documents using gin (search_text gin_trgm_ops)`.execute(db);
}
