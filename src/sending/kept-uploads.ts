// A PDF uploaded with a form that was refused (a mistyped address, a missing title) or sent
// back (more rows, the value shown) is kept for the form's next submit, so nobody has to
// choose it again and no draft is made without it (issue 36). It passes the upload's own
// checks (draft-input.ts `checkUpload`), is stored once (content-addressed) and counted once
// in the day's uploads, here; the draft that takes it later counts nothing more. The form
// carries only its id: 24 random bytes, found only together with the session and workspace
// that kept it, for 6 hours (a signed-out session's go with it).
import type { Context } from '../context.ts';
import { countUpload } from '../documents/upload-usage.ts';
import { deleteFileIfUnused } from '../files/files.repository.ts';
import { storeFile } from '../files/files.service.ts';
import { checkUpload, type KeptPdf } from './draft-input.ts';

/** How long a kept PDF stays usable by its form. */
export const keptForMs = 6 * 60 * 60 * 1000;

const keptIdPattern = /^[A-Za-z0-9_-]{32}$/;

/** Who kept it: the session (a browser's log-in) and its workspace. */
export interface UploadOwner {
  sessionId: string;
  workspaceId: string;
}

export interface KeptUpload extends KeptPdf {
  id: string;
  /** The name the browser sent, for the form to show. */
  fileName: string;
}

/** The browser's file name as shown: printable, at most 200 characters, never empty. */
function cleanFileName(name: string): string {
  const printable = name.replace(/[\p{Cc}\p{Cf}]/gu, '').trim();
  return [...printable].slice(0, 200).join('') || 'document.pdf';
}

/**
 * Checks, stores and counts an uploaded PDF and keeps it for `owner`'s form: an InputError on
 * `file` (not a PDF, encrypted, over the day's bytes…) keeps nothing. Expired kept files are
 * forgotten on the way, with their bytes unless a draft (or anything else) took them.
 */
export async function keepUpload(
  ctx: Context,
  owner: UploadOwner,
  upload: { fileName: string; data: Uint8Array },
): Promise<KeptUpload> {
  const pdf = await checkUpload(ctx, owner.workspaceId, upload.data);
  const now = ctx.clock.now();
  const id = ctx.ids.randomBytes(24).toString('base64url');
  const fileName = cleanFileName(upload.fileName);
  return ctx.db.transaction().execute(async (trx) => {
    const expired = await trx
      .deleteFrom('kept_uploads')
      .where('expires_at', '<=', now)
      .returning('file_sha256')
      .execute();
    for (const sha256 of new Set(expired.map((row) => row.file_sha256)))
      await deleteFileIfUnused(trx, sha256);
    await countUpload(trx, ctx, owner.workspaceId, upload.data.byteLength, now);
    const file = await storeFile(trx, {
      data: upload.data,
      mediaType: 'application/pdf',
      pages: pdf.pages,
      pageSizes: pdf.pageSizes,
      now,
      // Its pages are drawn ahead of time too: the draft it becomes opens its editor at once.
      drawPagesFor: owner.workspaceId,
    });
    await trx
      .insertInto('kept_uploads')
      .values({
        id,
        session_id: owner.sessionId,
        workspace_id: owner.workspaceId,
        file_sha256: file.sha256,
        file_name: fileName,
        created_at: now,
        expires_at: new Date(now.getTime() + keptForMs),
      })
      .execute();
    return { id, fileName, sha256: file.sha256, pages: pdf.pages, pageSizes: pdf.pageSizes };
  });
}

/** The PDF `owner` kept under `id`, or null (not theirs, expired, or no such id). */
export async function findKeptUpload(
  ctx: Context,
  owner: UploadOwner,
  id: string,
): Promise<KeptUpload | null> {
  if (!keptIdPattern.test(id)) return null;
  const row = await ctx.db
    .selectFrom('kept_uploads as k')
    .innerJoin('files as f', 'f.sha256', 'k.file_sha256')
    .select(['k.id', 'k.file_name', 'f.sha256', 'f.pages', 'f.page_sizes'])
    .where('k.id', '=', id)
    .where('k.session_id', '=', owner.sessionId)
    .where('k.workspace_id', '=', owner.workspaceId)
    .where('k.expires_at', '>', ctx.clock.now())
    .executeTakeFirst();
  if (!row?.pages || !row.page_sizes) return null;
  return {
    id: row.id,
    fileName: row.file_name,
    sha256: row.sha256,
    pages: row.pages,
    pageSizes: row.page_sizes,
  };
}
