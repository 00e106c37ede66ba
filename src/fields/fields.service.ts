// Fields placed on a document's PDF, read (field-rules.ts has the rules): a document's
// fields for the API, the pages and sealing; each page's displayed size; a stored field as
// the sender describes one. Editing a draft's fields is the sender's (sending/draft-fields.ts).

import type { Kysely } from 'kysely';
import type { Database, PageSize } from '../db/schema.ts';
import { findPageSizes, storePageSizes } from '../files/files.repository.ts';
import { readFile } from '../files/files.service.ts';
import { emailKey } from '../mail/address.ts';
import { pageViews } from '../pdf/fields.ts';
import { loadPdf } from '../pdf/load.ts';
import type { FieldInput } from './field-rules.ts';
import { fieldTypeSpecs } from './field-types.ts';
import { type FieldRow, findFields } from './fields.repository.ts';

export const sameEmail = (a: string, b: string) => emailKey(a) === emailKey(b);

/**
 * Each page's displayed size, from the file's row, or worked out once from the PDF and kept
 * (files stored before fields existed). `db` is the caller's transaction when it holds one.
 */
export async function pageSizesOf(db: Kysely<Database>, sha256: string): Promise<PageSize[]> {
  const stored = await findPageSizes(db, sha256);
  if (stored) return stored;
  const data = await readFile(db, sha256);
  if (!data) throw new Error(`file ${sha256} is missing`);
  const pdf = await loadPdf(data);
  const sizes = pageViews(pdf).map(({ width, height }) => ({ width, height }));
  await storePageSizes(db, sha256, sizes);
  return sizes;
}

/** A stored field as the sender's JSON describes it (the editor's form, `--fields`). */
export function fieldInputOf(row: FieldRow, recipients: Array<{ id: string; email: string }>): FieldInput {
  return {
    recipient: recipients.find((r) => r.id === row.recipient_id)?.email ?? '',
    type: row.type,
    page: row.page,
    x: row.x,
    y: row.y,
    width: row.width,
    height: row.height,
    required: row.required,
    label: row.label,
    maxLength: row.max_length,
    value: row.prefilled ? fieldTypeSpecs[row.type].apiValue(row.value) : null,
  };
}

export { findFields as listFields };
