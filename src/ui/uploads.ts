// Forms that carry a file (a document's PDF, a file to verify): multipart/form-data through
// @fastify/multipart, in the scope of the routes that take one and nowhere else. Every
// field ends up in the same Form as an urlencoded post (forms.ts: no prototype, control
// characters removed, a repeated field as a list), so CSRF checks and handlers read it the same way.
// Nothing is read before it is known who is asking: the scope's gate admits the request
// before a byte of its body is read (a visitor, a busy server), and checks the form's first
// field (its CSRF token) before any other part is read. Parts are read in order as they
// arrive; the file is counted as it arrives and cut off at the limit and marked, never held
// whole, so the page can say so and keep the other fields. After an answer given before the
// body was read to its end, the rest is dropped as it arrives (bounded), never held.
import type { IncomingMessage } from 'node:http';
import multipart, { type Multipart, type MultipartFile } from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { withoutControlCharacters } from '../http/control-characters.ts';
import type { Form } from './forms.ts';

export interface UploadedFile {
  filename: string;
  /** Empty when the file was over the limit (`tooLarge`). */
  data: Buffer;
  /** The file went past the scope's limit: what arrived of it was dropped. */
  tooLarge: boolean;
}

/** Who may send a body to the scope, decided before it is read. */
export interface UploadGate {
  /** Before any of the body is read: the reply it sends (and returns) refuses the request. */
  admit?(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | null> | FastifyReply | null;
  /**
   * The field every form of the scope sends first (`name`), given its value (null when the
   * first part is anything else) before another part is read: throws to refuse.
   */
  firstField?: { name: string; check(request: FastifyRequest, value: string | null): void };
}

const uploadKey = Symbol('upload');

/**
 * Reads multipart forms in this scope: at most one file of `maxFileBytes`, and other fields
 * of at most `maxFieldBytes` (64 KB by default; a longer value is refused, never cut short).
 */
export async function useUploadBodies(
  app: FastifyInstance,
  options: { maxFileBytes: number; maxFieldBytes?: number; gate?: UploadGate },
): Promise<void> {
  const { gate = {}, maxFieldBytes = 64 * 1024 } = options;
  // The parser only marks the request as multipart: the parts are read below, in order.
  await app.register(multipart, {
    throwFileSizeLimit: false,
    // Two file parts: the file, and a JSON part sent as a Blob (read as a field, below).
    limits: { fileSize: options.maxFileBytes, files: 2, fields: 200, fieldSize: maxFieldBytes, parts: 210 },
  });
  const { admit } = gate;
  if (admit)
    app.addHook('onRequest', async (request, reply) => {
      const refused = await admit(request, reply);
      if (refused) return refused;
    });
  app.addHook('preValidation', async (request) => {
    if (!request.isMultipart()) return;
    try {
      request.body = await readParts(request, gate, maxFieldBytes);
    } catch (error) {
      // The parser's own failures (a body that is not the multipart its header says, a part
      // cut short) carry no status: the request is malformed (400), not the server (500).
      if ((error as { statusCode?: number }).statusCode === undefined && !(error instanceof TypeError))
        throw Object.assign(new Error(`multipart body unreadable: ${(error as Error).message}`), {
          statusCode: 400,
          code: 'FST_ERR_MULTIPART_MALFORMED',
          cause: error,
        });
      throw error;
    }
  });
  // Answered before the body was read to its end (refused early, or an error while reading
  // it): the rest is read and dropped as it comes, never held, so the client (still sending)
  // gets the answer instead of a reset connection; but only for as long and as much as a form
  // of the scope may take, then the connection is closed.
  const lingerBytes = options.maxFileBytes + 1024 * 1024;
  app.addHook('onSend', async (request, reply) => {
    if (request.raw.complete) return;
    reply.raw.once('finish', () => discardRest(request.raw, lingerBytes));
  });
}

/**
 * How long the rest of a refused body may take to arrive, dropped as it comes: a browser on
 * a slow line still gets the answer (cut sooner, it shows a reset connection instead); no
 * longer than Node lets a request's headers take.
 */
const lingerMs = 30_000;

function discardRest(raw: IncomingMessage, maxBytes: number): void {
  raw.unpipe(); // no parser sees it
  const close = () => raw.socket?.destroy();
  const timer = setTimeout(close, lingerMs).unref();
  let dropped = 0;
  raw.on('data', (chunk: Buffer) => {
    dropped += chunk.byteLength;
    if (dropped > maxBytes) close();
  });
  raw.once('end', () => clearTimeout(timer));
  raw.once('close', () => clearTimeout(timer));
  raw.resume();
}

/** A value past the field limit: refused whole (413), never taken cut short. */
const fieldTooLarge = (name: string) =>
  Object.assign(new Error(`form field ${name} over its limit`), {
    statusCode: 413,
    code: 'FST_ERR_CTP_BODY_TOO_LARGE',
  });

/**
 * The form's parts in the order they come, the gate's first field checked before the rest.
 * A part sent as a file but declared `application/json` is a field (JavaScript's
 * `FormData.append('document', new Blob([json], {type: 'application/json'}))` sends a JSON
 * part so, with a file name): read as text within the field limit. One file beside it at most.
 */
async function readParts(request: FastifyRequest, gate: UploadGate, maxFieldBytes: number): Promise<Form> {
  const values: Record<string, unknown[]> = Object.create(null);
  let first = true;
  let files = 0;
  for await (const part of request.parts()) {
    if (first && gate.firstField) {
      first = false;
      const { name, check } = gate.firstField;
      const value = part.type === 'field' && part.fieldname === name ? String(part.value) : null;
      try {
        check(request, value);
      } catch (error) {
        request.raw.unpipe(); // busboy reads no further; the rest is dropped once answered
        throw error;
      }
    }
    let value: string | UploadedFile | undefined;
    if (part.type === 'field') value = clean(part);
    else if (isJson(part.mimetype)) value = await readJsonPart(part, maxFieldBytes);
    else if (++files > 1) {
      request.raw.unpipe(); // as the parser's own files limit: nothing more is read
      throw Object.assign(new Error('more than one file'), { statusCode: 413, code: 'FST_FILES_LIMIT' });
    } else value = await readFile(part);
    if (value !== undefined) values[part.fieldname] = [...(values[part.fieldname] ?? []), value];
  }
  return asForm(values);
}

/** The file, counted as it arrives: past the limit busboy stops feeding it, and it is dropped. */
async function readFile(part: MultipartFile): Promise<UploadedFile> {
  const chunks: Buffer[] = [];
  for await (const chunk of part.file) {
    if (!part.file.truncated) chunks.push(chunk as Buffer);
    else chunks.length = 0;
  }
  const tooLarge = part.file.truncated;
  const file = {
    filename: withoutControlCharacters(part.filename ?? ''),
    data: tooLarge ? Buffer.alloc(0) : Buffer.concat(chunks),
    tooLarge,
  };
  return Object.assign(file, { [uploadKey]: true });
}

const isJson = (mimetype: string) => /^application\/json\s*(;|$)/i.test(mimetype);

/** A JSON part sent as a file, as its text: past `maxBytes` refused whole (the rest read and dropped). */
async function readJsonPart(part: MultipartFile, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of part.file) {
    bytes += (chunk as Buffer).byteLength;
    if (bytes <= maxBytes) chunks.push(chunk as Buffer);
  }
  if (bytes > maxBytes || part.file.truncated) throw fieldTooLarge(part.fieldname);
  return withoutControlCharacters(Buffer.concat(chunks).toString('utf8'));
}

function clean(part: Multipart): string | undefined {
  // A value past the field limit arrives cut short: refused whole (413), never taken cut.
  if ('valueTruncated' in part && part.valueTruncated) throw fieldTooLarge(part.fieldname);
  const value = 'value' in part ? part.value : undefined;
  // A part declared application/json arrives parsed (by secure-json-parse): kept as its JSON text.
  if (part.type === 'field' && part.mimetype === 'application/json' && typeof value !== 'string')
    return JSON.stringify(value);
  return typeof value === 'string' ? withoutControlCharacters(value) : undefined;
}

function isUpload(value: unknown): value is UploadedFile {
  return typeof value === 'object' && value !== null && uploadKey in value;
}

function asForm(values: Record<string, unknown[]>): Form {
  const form: Form = Object.create(null);
  for (const [name, list] of Object.entries(values)) {
    const texts = list.filter((v): v is string => typeof v === 'string');
    const file = list.find(isUpload);
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
