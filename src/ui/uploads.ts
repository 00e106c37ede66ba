// Forms that carry a file (a document's PDF, a file to verify): multipart/form-data through
// @fastify/multipart, in the scope of the routes that take one and nowhere else. Every
// field ends up in the same Form as an urlencoded post (forms.ts: no prototype, U+0000
// removed, a repeated field as a list), so CSRF checks and handlers read it the same way;
// the file is read into memory once, counted as it arrives, and a file over the limit is
// cut off and marked, never held whole, so the page can say so and keep the other fields.
import multipart, { type MultipartFile } from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { Form } from './forms.ts';

export interface UploadedFile {
  filename: string;
  /** Empty when the file was over the limit (`tooLarge`). */
  data: Buffer;
  /** The file went past the scope's limit: what arrived of it was dropped. */
  tooLarge: boolean;
}

const uploadKey = Symbol('upload');

type UploadPart = MultipartFile & { value?: unknown };

/** Reads multipart forms in this scope: at most one file of `maxFileBytes`. */
export async function useUploadBodies(
  app: FastifyInstance,
  options: { maxFileBytes: number },
): Promise<void> {
  await app.register(multipart, {
    attachFieldsToBody: 'keyValues',
    throwFileSizeLimit: false,
    limits: { fileSize: options.maxFileBytes, files: 1, fields: 200, fieldSize: 64 * 1024, parts: 210 },
    async onFile(part: UploadPart) {
      const chunks: Buffer[] = [];
      for await (const chunk of part.file) {
        // Past the limit busboy stops feeding the file; drop what came so far at once.
        if (!part.file.truncated) chunks.push(chunk as Buffer);
        else chunks.length = 0;
      }
      const tooLarge = part.file.truncated;
      part.value = {
        [uploadKey]: true,
        filename: part.filename,
        data: tooLarge ? Buffer.alloc(0) : Buffer.concat(chunks),
        tooLarge,
      };
    },
  });
  // Runs after the multipart plugin's own preValidation: the fields as a Form.
  app.addHook('preValidation', async (request) => {
    if (request.isMultipart()) request.body = asForm(request.body);
  });
}

function isUpload(value: unknown): value is UploadedFile {
  return typeof value === 'object' && value !== null && uploadKey in value;
}

function clean(value: unknown): string | UploadedFile | undefined {
  if (typeof value === 'string') return value.replaceAll('\u0000', '');
  return isUpload(value) ? value : undefined;
}

function asForm(body: unknown): Form {
  const form: Form = Object.create(null);
  for (const [name, value] of Object.entries((body ?? {}) as Record<string, unknown>)) {
    const values = (Array.isArray(value) ? value : [value]).map(clean).filter((v) => v !== undefined);
    const texts = values.filter((v): v is string => typeof v === 'string');
    const file = values.find((v): v is UploadedFile => typeof v !== 'string');
    if (file) (form as Record<string, unknown>)[name] = file;
    else if (texts.length > 0) form[name] = texts.length === 1 ? texts[0] : texts;
  }
  return form;
}

/** The file sent in `name`, or null when none was chosen (an empty file input). */
export function formFile(form: unknown, name: string): UploadedFile | null {
  const file = (form as Record<string, unknown> | null | undefined)?.[name];
  if (!isUpload(file)) return null;
  // A form posted with no file chosen sends an empty part without a name.
  return !file.filename && file.data.byteLength === 0 && !file.tooLarge ? null : file;
}
