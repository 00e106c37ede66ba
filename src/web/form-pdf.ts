// The PDF a form with a file brings (the new-document form, a draft's edit form, the
// new-template form): a new file (its bytes, or that it was cut off at the limit), or the one
// kept from the form's last attempt (sending/kept-uploads.ts: no browser keeps a chosen file
// across a reload), and keeping a new one that passed its checks for the next attempt.
import type { SessionUser } from '../accounts/accounts.service.ts';
import { type Problems, problemsOf } from '../i18n/refusals.ts';
import { InputError } from '../input-error.ts';
import { findKeptUpload, type KeptUpload, keepUpload } from '../sending/kept-uploads.ts';
import { formFile, type UploadedFile } from '../ui/uploads.ts';
import { type Form, formText, type Web } from './kit.ts';

/** The PDF the form brings: a new file (its bytes, or that it was cut off), or the one kept before. */
export interface FormPdf {
  upload: UploadedFile | null;
  kept: KeptUpload | null;
  /** The form named a kept PDF that is not (or no longer) this session's. */
  keptMissing: boolean;
}

/** The form's `file` part and its `keptFile` id, looked up among `member`'s kept PDFs. */
export async function formPdfOf(web: Web, member: SessionUser, form: Form): Promise<FormPdf> {
  const upload = formFile(form, 'file');
  const keptId = formText(form, 'keptFile');
  const kept = keptId ? await findKeptUpload(web.ctx, member, keptId) : null;
  return { upload, kept, keptMissing: keptId !== '' && !kept };
}

/**
 * A new file that passed its checks is kept for the form's next submit (replacing the one
 * kept before); one refused keeps nothing, and the one kept before stays. Returns the file's
 * refusal, if any (keyed where its rule is), for the form to show beside the field.
 */
export async function keepNewFile(web: Web, member: SessionUser, pdf: FormPdf): Promise<Problems> {
  const { upload } = pdf;
  if (!upload || upload.tooLarge) return {};
  try {
    pdf.kept = await keepUpload(web.ctx, member, { fileName: upload.filename, data: upload.data });
    return {};
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    return problemsOf(error);
  }
}
