// What the document writes of /v1 take, turned into what the services take, and their
// refusals turned into the API's answers. **The** mapping from a service's InputError (a
// sentence per form key, input-error.ts) to a code and a JSON Pointer into the request body:
// `recipients[1].email` → `/recipients/1/email`, the web form's `body` and `expiry` →
// `/text` and `/expiresInSeconds`; a problem of the PDF → `invalid-file` (`/file`), the day's
// uploads used up → `upload-limit-reached`. The first problem is answered, the input's own
// before its file's, in the order the service found them.
import type { Static } from '@sinclair/typebox';
import { DocumentActionError, type Refusal } from '../documents/lifecycle.ts';
import { pointerToken } from '../http/error-handler.ts';
import { ApiError, type ErrorCode } from '../http/errors.ts';
import { InputError } from '../input-error.ts';
import type { CreateDocumentInput } from './draft-input.ts';
import type { CreateDocumentBody } from './sending.schemas.ts';

/** The web form's names for members the API names otherwise. */
const apiNames: Record<string, string> = { body: 'text', expiry: 'expiresInSeconds' };

/**
 * A form key as a JSON Pointer: `a.b[2].c` and `a["odd key"]` (pricing.ts's paths) become
 * `/a/b/2/c` and `/a/odd key`, each token escaped (RFC 6901).
 */
export function keyPointer(key: string): string {
  const tokens: string[] = [];
  for (const match of key.matchAll(/([^.[\]]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g)) {
    if (match[1] !== undefined) tokens.push(match[1]);
    else if (match[2] !== undefined) tokens.push(match[2]);
    else tokens.push(JSON.parse(match[3] as string) as string);
  }
  if (tokens.length > 0) tokens[0] = apiNames[tokens[0] as string] ?? (tokens[0] as string);
  return tokens.map((token) => `/${pointerToken(token)}`).join('');
}

/** A service's refusal of the input as the API answers it. */
export function apiInputError(error: InputError): ApiError {
  const keys = Object.keys(error.fields);
  const first = keys.find((key) => key !== 'file') ?? keys[0] ?? '';
  const over = error.details.overAllowance;
  if (first === 'file' && over)
    return new ApiError('upload-limit-reached', { 'Retry-After': String(over.retryAfterSeconds) }, '/file');
  if (first === 'file') return new ApiError('invalid-file', {}, '/file');
  return new ApiError('invalid-body', {}, error.details.pointers?.[first] ?? keyPointer(first));
}

/**
 * **The** codes the API answers a refused document action with (lifecycle.ts's refusals).
 * `not-allowed` (the state machine refused the action) depends on the action: a draft's
 * (send, delete) says the document is no longer a draft, an active document's (remind,
 * withdraw) that it is no longer out for signature.
 */
const refusalCodes: Partial<Record<Refusal, ErrorCode>> = {
  'not-a-draft': 'document-not-draft',
  'no-signers': 'document-not-sendable',
  'nothing-to-send': 'document-not-sendable',
  expired: 'document-not-active',
  'not-remindable': 'recipient-not-remindable',
  'reminded-recently': 'reminded-recently',
};

/** What a document action needs the document to be: a draft, or out for signature. */
export type ActionOn = 'draft' | 'active';

/** A service's refusal as the API's answer; anything else is thrown on unchanged. */
export function asApiError(error: unknown, on: ActionOn = 'draft'): unknown {
  if (error instanceof InputError) return apiInputError(error);
  if (error instanceof DocumentActionError)
    return new ApiError(
      refusalCodes[error.refusal] ?? (on === 'draft' ? 'document-not-draft' : 'document-not-active'),
    );
  return error;
}

/** Runs a service call, answering its refusals as the API does. */
export async function answering<T>(call: () => Promise<T>, on: ActionOn = 'draft'): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw asApiError(error, on);
  }
}

/** The request body as createDocument takes it (defaults of the web form filled in). */
export function createInputOf(
  workspaceId: string,
  body: Omit<Static<typeof CreateDocumentBody>, 'file'>,
  file: Uint8Array | null,
): CreateDocumentInput {
  return {
    workspaceId,
    title: body.title,
    body: body.text ?? '',
    recipients: body.recipients.map((r) => ({
      email: r.email,
      fullName: r.fullName,
      role: r.role ?? 'signer',
      signingMethod: r.signingMethod ?? 'standard',
      signingOrder: r.signingOrder ?? 1,
      language: r.language ?? null,
    })),
    pricing: body.pricing ?? null,
    ...(body.expiresInSeconds === undefined ? {} : { expiresInSeconds: body.expiresInSeconds }),
    remindEveryDays: body.remindEveryDays ?? null,
    language: body.language ?? null,
    file,
    fields: body.fields ?? [],
    delivery: body.delivery === 'none' ? 'none' : 'email',
  };
}

/**
 * The PDF of a JSON request, from base64 (standard or URL-safe alphabet, padding optional,
 * no other characters): null without one; `/file` refused when it is not base64.
 */
export function decodeBase64File(value: string | undefined): Uint8Array | null {
  if (value === undefined || value === '') return null;
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(value) || value.replace(/=+$/, '').length % 4 === 1)
    throw new ApiError('invalid-body', {}, '/file');
  return Buffer.from(value, 'base64');
}
