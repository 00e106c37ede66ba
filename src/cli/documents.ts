// Document commands: create, send, trigger an event, and read the mail outbox. They call
// the same domain functions as the signing pages, never around them.
import { createWriteStream } from 'node:fs';
import { type FileHandle, open, rm, stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../config.ts';
import type { RecipientRole, SigningMethod } from '../db/schema.ts';
import { isDocumentEventType, triggerEvent } from '../demo/trigger.ts';
import { getDocument, workspaceOfDocument } from '../documents/documents.service.ts';
import { documentEventTypes } from '../documents/events.ts';
import type { LineItem } from '../documents/value.ts';
import { type FileKind, fileKinds } from '../files/download-links.ts';
import { findDownloadable } from '../files/files.repository.ts';
import { fileStream } from '../files/files.service.ts';
import { InputError } from '../input-error.ts';
import { listMails } from '../mail/mail.service.ts';
import { refuseOversized, refuseTooLarge } from '../pdf/inspect.ts';
import { setFields } from '../sending/draft-fields.ts';
import type { RecipientInput } from '../sending/draft-input.ts';
import { createDocument } from '../sending/drafts.ts';
import { sendDocument } from '../sending/send.ts';
import { parseCommandArgs, parseCount, requireText, requireUuid, UsageError } from './args.ts';
import { print, withContext } from './context.ts';

const json = { json: { type: 'boolean' } } as const;
const methods: SigningMethod[] = ['standard', 'email-code'];
const intervals = ['week', 'month', 'quarter', 'year'];

/** "email,Full Name,role,order[,method]"; the name may itself contain commas. */
export function parseRecipientArg(value: string): RecipientInput {
  const parts = value.split(',').map((p) => p.trim());
  const method = methods.includes(parts.at(-1) as SigningMethod)
    ? (parts.pop() as SigningMethod)
    : 'standard';
  const [email, ...rest] = parts;
  const order = rest.pop();
  const role = rest.pop();
  const fullName = rest.join(', ');
  if (!email || !fullName || !role || !order) {
    throw new UsageError(`--recipient "${value}" must look like "email,Full Name,signer,1[,email-code]"`);
  }
  if (role !== 'signer' && role !== 'viewer')
    throw new UsageError(`--recipient "${value}": role must be signer or viewer`);
  if (!/^\d{1,3}$/.test(order))
    throw new UsageError(`--recipient "${value}": signing order must be a whole number`);
  return { email, fullName, role: role as RecipientRole, signingMethod: method, signingOrder: Number(order) };
}

/** "item,qty,unitPrice,vatRate[,interval,periods]"; the item name may contain commas. */
export function parsePriceArg(value: string): LineItem {
  const parts = value.split(',').map((p) => p.trim());
  let billing: LineItem['billing'] = { type: 'one-off' };
  const last = parts.at(-1) ?? '';
  if (parts.length >= 6 && /^\d+$/.test(last) && intervals.includes(parts.at(-2) ?? '')) {
    const periods = Number(parts.pop());
    billing = { type: 'recurring', interval: parts.pop() as 'month', periods };
  }
  const vatRate = parts.pop();
  const unitPrice = parts.pop();
  const quantity = parts.pop();
  const name = parts.join(', ');
  if (!name || !quantity || !unitPrice || !vatRate) {
    throw new UsageError(`--price "${value}" must look like "item,qty,unitPrice,vatRate[,month,12]"`);
  }
  return { name, quantity, unitPrice, vatRate, billing };
}

/** "30d", "12h", "90m", "3600s" or plain seconds. */
export function parseDuration(value: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(value.trim());
  if (!match) throw new UsageError(`--expires-in "${value}" must look like 30d, 12h, 90m or 3600s`);
  const factor = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * factor;
}

/** "3d" or "3": automatic reminders' interval in whole days (the service checks the choices). */
function parseDays(value: string): number {
  const match = /^(\d{1,3})d?$/.exec(value.trim());
  if (!match) throw new UsageError(`--remind-every "${value}" must be a number of days, like 3d`);
  return Number(match[1]);
}

function domainErrors<T>(promise: Promise<T>): Promise<T> {
  return promise.catch((error: unknown) => {
    if (error instanceof InputError) throw new UsageError(error.message);
    throw error;
  });
}

/**
 * The bytes of `path`, read to at most `maxBytes`: a file's size is not known before it is
 * read when it is a pipe or a device (`/dev/stdin`, `/dev/zero`), so the count is kept as it
 * is read, and reading stops at the first byte past the limit.
 */
async function readAtMost(
  option: string,
  path: string,
  maxBytes: number,
  tooLarge: () => never,
): Promise<Buffer> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
    if ((await handle.stat()).isDirectory()) throw new Error('a folder');
  } catch {
    throw new UsageError(`${option} ${path}: no such file`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of handle.createReadStream({ highWaterMark: 1024 * 1024, autoClose: false })) {
      total += (chunk as Buffer).byteLength;
      if (total > maxBytes) tooLarge();
      chunks.push(chunk as Buffer);
    }
  } finally {
    await handle.close();
  }
  return Buffer.concat(chunks, total);
}

/** The --file to upload: read once, to at most the upload limit. */
async function readPdfArg(path: string, maxBytes: number): Promise<Buffer> {
  try {
    const size = (await stat(path)).size;
    refuseOversized(size, maxBytes);
  } catch (error) {
    if (error instanceof InputError) throw error;
  }
  return readAtMost('--file', path, maxBytes, () => refuseTooLarge(maxBytes));
}

/** A fields file larger than this is no list of fields (500 pages of them fit in far less). */
export const maxFieldsFileBytes = 1024 * 1024;

/**
 * The --fields file: a JSON array of `{recipient, type, page, x, y, width, height, required,
 * label, maxLength}` (fields/field-rules.ts checks each against the document).
 */
async function readFieldsArg(path: string): Promise<unknown[]> {
  const text = (
    await readAtMost('--fields', path, maxFieldsFileBytes, () => {
      throw new UsageError(
        `--fields ${path}: larger than ${maxFieldsFileBytes / 1024 / 1024} MB; a fields file is a JSON array of fields`,
      );
    })
  ).toString('utf8');
  let fields: unknown;
  try {
    fields = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--fields ${path}: not JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(fields)) throw new UsageError(`--fields ${path}: must be a JSON array of fields`);
  return fields;
}

/** `document fields ID --fields FILE`: replaces a draft's fields with the file's. */
async function setDocumentFields(config: Config, argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, { fields: { type: 'string' }, ...json }, [
    'DOCUMENT_ID',
  ]);
  const id = requireUuid(positionals[0], 'document id');
  if (!values.fields)
    throw new UsageError('--fields FILE is needed (a JSON array of fields; [] removes them)');
  const fields = await readFieldsArg(values.fields);
  const document = await withContext(config, 'document fields', async (ctx) => {
    const workspaceId = await workspaceOfDocument(ctx, id);
    await domainErrors(setFields(ctx, workspaceId, id, fields));
    return getDocument(ctx, workspaceId, id);
  });
  const count = document.recipients.reduce((sum, r) => sum + r.fields.length, 0);
  print(!!values.json, document, `Document ${id} has ${count} ${count === 1 ? 'field' : 'fields'} now.`);
}

/**
 * `document download ID [--kind sealed|original] --out FILE [--force]`: the stored file,
 * streamed chunk by chunk into FILE, which must not exist unless --force says to replace it.
 */
async function downloadDocument(config: Config, argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(
    argv,
    { kind: { type: 'string' }, out: { type: 'string' }, force: { type: 'boolean' }, ...json },
    ['DOCUMENT_ID'],
  );
  const id = requireUuid(positionals[0], 'document id');
  const kind = values.kind ?? 'sealed';
  if (!(fileKinds as readonly string[]).includes(kind))
    throw new UsageError('--kind must be sealed or original');
  const out = values.out;
  if (!out) throw new UsageError('--out FILE is needed (where to write the PDF)');
  const file = await withContext(config, 'document download', async (ctx) => {
    const found = await findDownloadable(ctx.db, id, kind as FileKind);
    if (!found) throw new Error(`document ${id} has no ${kind} file (no such document, or not ${kind} yet)`);
    const target = createWriteStream(out, { flags: values.force ? 'w' : 'wx' });
    try {
      await pipeline(fileStream(ctx.db, found.file), target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new UsageError(`${out} exists; pass --force to replace it`);
      }
      await rm(out, { force: true });
      throw error;
    }
    return { ...found, kind };
  });
  print(
    !!values.json,
    { documentId: id, kind, path: out, sha256: file.file.sha256, bytes: file.file.bytes },
    `Wrote ${out}: the ${kind} PDF of “${file.title}” (${file.file.bytes} bytes, SHA-256 ${file.file.sha256})`,
  );
}

export async function documentCommand(config: Config, argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub === 'download') return downloadDocument(config, rest);
  if (sub === 'fields') return setDocumentFields(config, rest);
  if (sub === 'create') {
    const { values } = parseCommandArgs(
      rest,
      {
        workspace: { type: 'string' },
        title: { type: 'string' },
        body: { type: 'string' },
        file: { type: 'string' },
        fields: { type: 'string' },
        recipient: { type: 'string', multiple: true },
        price: { type: 'string', multiple: true },
        currency: { type: 'string' },
        'prices-include-vat': { type: 'boolean' },
        'expires-in': { type: 'string' },
        'remind-every': { type: 'string' },
        ...json,
      },
      [],
    );
    const workspaceId = requireUuid(values.workspace, '--workspace');
    const title = requireText(values.title, '--title');
    const recipients = (values.recipient ?? []).map(parseRecipientArg);
    if (recipients.length === 0) throw new UsageError('at least one --recipient is needed');
    const items = (values.price ?? []).map(parsePriceArg);
    if (values.currency && items.length === 0) throw new UsageError('--currency needs at least one --price');
    const pricing = items.length
      ? {
          currency: (values.currency ?? 'EUR').toUpperCase(),
          pricesIncludeVat: values['prices-include-vat'] === true,
          items,
        }
      : null;
    const expiresInSeconds = values['expires-in'] ? parseDuration(values['expires-in']) : undefined;
    const remindEveryDays = values['remind-every'] === undefined ? null : parseDays(values['remind-every']);
    const file = values.file === undefined ? null : await readPdfArg(values.file, config.maxUploadBytes);
    if (values.fields !== undefined && file === null)
      throw new UsageError('--fields needs --file: fields go on the PDF');
    const fields = values.fields === undefined ? [] : await readFieldsArg(values.fields);
    const document = await withContext(config, 'document create', async (ctx) => {
      const { id } = await domainErrors(
        createDocument(ctx, {
          workspaceId,
          title,
          body: values.body ?? '',
          recipients,
          pricing,
          expiresInSeconds,
          remindEveryDays,
          file,
          fields,
        }),
      );
      return getDocument(ctx, workspaceId, id);
    });
    print(
      !!values.json,
      document,
      `Created draft document ${document.id} (${document.title})\nSend it with: signet document send ${document.id}`,
    );
    return;
  }
  if (sub === 'send') {
    const { values, positionals } = parseCommandArgs(rest, { ...json }, ['DOCUMENT_ID']);
    const id = requireUuid(positionals[0], 'document id');
    const result = await withContext(config, 'document send', async (ctx) => {
      const workspaceId = await workspaceOfDocument(ctx, id);
      const { eventId } = await sendDocument(ctx, workspaceId, id);
      return { document: await getDocument(ctx, workspaceId, id), eventId };
    });
    print(
      !!values.json,
      result,
      `Sent document ${id} (event ${result.eventId}); each recipient gets their signing link by mail.\nSee the mails with: signet mail list --document ${id}`,
    );
    return;
  }
  throw new UsageError(
    'usage: signet document create --workspace ID --title T [--file contract.pdf [--fields fields.json]] --recipient "email,Full Name,signer,1" ... | fields ID --fields fields.json | send ID | download ID --out FILE',
  );
}

export async function triggerCommand(config: Config, argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, { workspace: { type: 'string' }, ...json }, [
    'EVENT_TYPE',
  ]);
  const type = positionals[0] ?? '';
  if (!isDocumentEventType(type)) {
    throw new UsageError(`event type must be one of ${documentEventTypes.join(', ')}`);
  }
  const workspaceId = requireUuid(values.workspace, '--workspace');
  const result = await withContext(config, 'trigger', (ctx) => triggerEvent(ctx, workspaceId, type));
  print(
    !!values.json,
    { type, ...result },
    `Triggered ${type}: document ${result.documentId}, event ${result.eventId}`,
  );
}

export async function mailCommand(config: Config, argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub !== 'list')
    throw new UsageError('usage: signet mail list [--workspace ID] [--document ID] [--to EMAIL] [--limit N]');
  const { values } = parseCommandArgs(
    rest,
    {
      workspace: { type: 'string' },
      document: { type: 'string' },
      to: { type: 'string' },
      limit: { type: 'string' },
      ...json,
    },
    [],
  );
  const workspaceId = values.workspace ? requireUuid(values.workspace, '--workspace') : undefined;
  const documentId = values.document ? requireUuid(values.document, '--document') : undefined;
  const limit = parseCount(values.limit, '--limit', 20, 500);
  const mails = await withContext(config, 'mail list', (ctx) =>
    listMails(ctx, { workspaceId, documentId, to: values.to, limit }),
  );
  const human = mails
    .map(
      (m) => `── ${m.createdAt}  ${m.status}  to ${m.to}\n   ${m.subject}\n\n${m.text.replace(/^/gm, '   ')}`,
    )
    .join('\n');
  print(!!values.json, mails, mails.length ? human : 'No mails.');
}
