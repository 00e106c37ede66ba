// The document writes of /v1 (issue 37): HTTP in, service call (api-writes.ts), envelope out:
// create, replace, send, delete a draft; remind a signer, withdraw; a fresh signing link
// (delivery none). Each needs a write key (`requireWriteScope`, before any body is read).
// `POST /documents` and `PUT /documents/{id}` take JSON (the PDF in base64) or
// multipart/form-data (a `document` part with the same JSON, and a `file` part), in a scope
// of their own so no other route of /v1 reads multipart; both arrive at the handler as the
// same validated body.
import type { Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Context } from '../context.ts';
import type { DocumentIdParams } from '../documents/documents.schemas.ts';
import { requireWriteScope, workspaceOf } from '../http/api-guard.ts';
import { ok } from '../http/envelope.ts';
import { pointerToken } from '../http/error-handler.ts';
import { ApiError, bodyLimitBytes } from '../http/errors.ts';
import { idempotencyKeyOf } from '../http/idempotency.ts';
import { getApiKey } from '../keys/keys.service.ts';
import { formFile, useUploadBodies } from '../ui/uploads.ts';
import { createInputOf, decodeBase64File } from './api-input.ts';
import {
  createDocumentFromApi,
  deleteDocumentFromApi,
  remindFromApi,
  renewSigningUrl,
  replaceDocumentFromApi,
  sendDocumentFromApi,
  withdrawFromApi,
} from './api-writes.ts';
import {
  createDocumentOperation,
  deleteDocumentOperation,
  remindOperation,
  replaceDocumentOperation,
  sendDocumentOperation,
  signingUrlOperation,
  withdrawOperation,
} from './sending.contract.ts';
import {
  type CreateDocumentBody,
  createDocumentSchema,
  deleteDocumentSchema,
  type RecipientParams,
  remindSchema,
  replaceDocumentSchema,
  sendDocumentSchema,
  signingUrlSchema,
  type WithdrawBody,
  withdrawSchema,
} from './sending.schemas.ts';

type Id = { Params: Static<typeof DocumentIdParams> };
type Recipient = { Params: Static<typeof RecipientParams> };

/** Ids as stored: lower case (upper-case input is accepted). */
const lowerIds = (params: Static<typeof RecipientParams>) => ({
  id: params.id.toLowerCase(),
  recipientId: params.recipientId.toLowerCase(),
});

/** Who withdrew it, as the history says: the key, by its name. */
async function keyNameOf(ctx: Context, request: FastifyRequest): Promise<string> {
  const identity = request.identity;
  if (!identity) return 'an API key';
  const key = await getApiKey(ctx, identity.workspaceId, identity.keyId).catch(() => null);
  return key ? `API key “${key.name}”` : 'an API key';
}

type CreateBody = Static<typeof CreateDocumentBody>;

const uploadedPdf = Symbol('uploadedPdf');
type WithUpload = FastifyRequest & { [uploadedPdf]?: Uint8Array | null };

/**
 * A multipart request's parts as the JSON body: `document` parsed (400 `invalid-json` when it
 * is not JSON, `invalid-body` at `/document` when it is missing), the `file` part kept aside
 * (413 when it went past the upload limit). Other parts are refused (`invalid-body`).
 */
function multipartAsBody(request: FastifyRequest): void {
  if (!request.isMultipart()) return;
  const form = request.body as Record<string, unknown>;
  for (const name of Object.keys(form))
    if (name !== 'document' && name !== 'file')
      throw new ApiError('invalid-body', {}, `/${pointerToken(name)}`);
  const file = formFile(form, 'file');
  if (file?.tooLarge) throw new ApiError('payload-too-large');
  if (form.file !== undefined && !file && typeof form.file === 'string')
    throw new ApiError('invalid-body', {}, '/file');
  if (typeof form.document !== 'string') throw new ApiError('invalid-body', {}, '/document');
  let parsed: unknown;
  try {
    parsed = JSON.parse(form.document);
  } catch {
    throw new ApiError('invalid-json');
  }
  // The file travels in its own part: `document` holding a `file` member too is ambiguous.
  if (parsed && typeof parsed === 'object' && 'file' in parsed)
    throw new ApiError('invalid-body', {}, '/file');
  request.body = parsed;
  (request as WithUpload)[uploadedPdf] = file ? file.data : null;
}

export function sendingRoutes(ctx: Context) {
  return async function register(app: FastifyInstance) {
    await app.register(createRoute(ctx));
    draftRoutes(ctx, app);
    activeRoutes(ctx, app);
  };
}

/** `POST /documents` and `PUT /documents/{id}`, in a scope of their own: the /v1 routes that read multipart. */
function createRoute(ctx: Context) {
  // A JSON request carries the PDF in base64 (4 characters for 3 bytes) beside the rest.
  const jsonBodyLimit = Math.ceil(ctx.config.maxUploadBytes / 3) * 4 + bodyLimitBytes;
  return async (scope: FastifyInstance) => {
    await useUploadBodies(scope, {
      maxFileBytes: ctx.config.maxUploadBytes,
      maxFieldBytes: bodyLimitBytes,
    });
    scope.post<{ Body: CreateBody }>(
      '/documents',
      {
        schema: createDocumentSchema,
        config: { operation: createDocumentOperation },
        bodyLimit: jsonBodyLimit,
        onRequest: requireWriteScope,
        preValidation: async (request) => multipartAsBody(request),
      },
      async (request, reply) => {
        const { input, send, file, body } = documentInputOf(ctx, request);
        // The whole request: its `send` too (a repeat that adds it is another request).
        const idempotency = idempotencyKeyOf(request, {
          operation: 'POST /documents',
          body: { ...body, send },
          file,
        });
        const { document, signingUrls, replayed } = await createDocumentFromApi(ctx, input, {
          send,
          idempotency,
        });
        if (replayed) reply.header('idempotent-replayed', 'true');
        return reply.code(201).send(ok({ ...document, signingUrls }));
      },
    );
    scope.put<Id & { Body: CreateBody }>(
      '/documents/:id',
      {
        schema: replaceDocumentSchema,
        config: { operation: replaceDocumentOperation },
        bodyLimit: jsonBodyLimit,
        onRequest: requireWriteScope,
        preValidation: async (request) => multipartAsBody(request),
      },
      async (request, reply) => {
        const id = request.params.id.toLowerCase();
        const { input, send, file, body } = documentInputOf(ctx, request);
        const idempotency = idempotencyKeyOf(request, {
          operation: `PUT /documents/${id}`,
          body: { ...body, send },
          file,
        });
        const { document, signingUrls, replayed } = await replaceDocumentFromApi(ctx, id, input, {
          send,
          idempotency,
        });
        if (replayed) reply.header('idempotent-replayed', 'true');
        return ok({ ...document, signingUrls });
      },
    );
  };
}

/** A create's or a replacement's body (JSON or multipart) as the services take it. */
function documentInputOf(ctx: Context, request: FastifyRequest<{ Body: CreateBody }>) {
  const { file: base64, send = false, ...body } = request.body;
  const uploaded = (request as WithUpload)[uploadedPdf];
  const file = uploaded === undefined ? decodeBase64File(base64) : uploaded;
  // As a multipart file past the limit: the body limit leaves room for the JSON beside it.
  if (file && file.byteLength > ctx.config.maxUploadBytes) throw new ApiError('payload-too-large');
  return { input: createInputOf(workspaceOf(request), body, file), send, file, body };
}

/** A draft sent or deleted. */
function draftRoutes(ctx: Context, app: FastifyInstance): void {
  app.post<Id>(
    '/documents/:id/send',
    {
      schema: sendDocumentSchema,
      config: { operation: sendDocumentOperation },
      onRequest: requireWriteScope,
    },
    async (request, reply) => {
      const id = request.params.id.toLowerCase();
      const idempotency = idempotencyKeyOf(request, {
        operation: `POST /documents/${id}/send`,
        body: null,
      });
      const { document, signingUrls, replayed } = await sendDocumentFromApi(
        ctx,
        workspaceOf(request),
        id,
        idempotency,
      );
      if (replayed) reply.header('idempotent-replayed', 'true');
      return ok({ ...document, signingUrls });
    },
  );

  app.delete<Id>(
    '/documents/:id',
    {
      schema: deleteDocumentSchema,
      config: { operation: deleteDocumentOperation },
      onRequest: requireWriteScope,
    },
    async (request) =>
      ok(await deleteDocumentFromApi(ctx, workspaceOf(request), request.params.id.toLowerCase())),
  );
}

/** A document out for signature: a signer reminded, the document withdrawn, a fresh link. */
function activeRoutes(ctx: Context, app: FastifyInstance): void {
  app.post<Recipient>(
    '/documents/:id/recipients/:recipientId/remind',
    { schema: remindSchema, config: { operation: remindOperation }, onRequest: requireWriteScope },
    async (request, reply) => {
      const { id, recipientId } = lowerIds(request.params);
      const idempotency = idempotencyKeyOf(request, {
        operation: `POST /documents/${id}/recipients/${recipientId}/remind`,
        body: null,
      });
      const { document, replayed } = await remindFromApi(
        ctx,
        workspaceOf(request),
        id,
        recipientId,
        idempotency,
      );
      if (replayed) reply.header('idempotent-replayed', 'true');
      return ok(document);
    },
  );

  // A withdrawal without a body is one without a reason.
  app.post<Id & { Body: Static<typeof WithdrawBody> }>(
    '/documents/:id/withdraw',
    {
      schema: withdrawSchema,
      config: { operation: withdrawOperation },
      onRequest: requireWriteScope,
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request, reply) => {
      const workspaceId = workspaceOf(request);
      const by = await keyNameOf(ctx, request);
      const id = request.params.id.toLowerCase();
      const idempotency = idempotencyKeyOf(request, {
        operation: `POST /documents/${id}/withdraw`,
        body: request.body,
      });
      const { document, replayed } = await withdrawFromApi(
        ctx,
        workspaceId,
        id,
        { by, reason: request.body.reason },
        idempotency,
      );
      if (replayed) reply.header('idempotent-replayed', 'true');
      return ok(document);
    },
  );

  app.post<Recipient>(
    '/documents/:id/recipients/:recipientId/signing-url',
    { schema: signingUrlSchema, config: { operation: signingUrlOperation }, onRequest: requireWriteScope },
    async (request, reply) => {
      const { id, recipientId } = lowerIds(request.params);
      const idempotency = idempotencyKeyOf(request, {
        operation: `POST /documents/${id}/recipients/${recipientId}/signing-url`,
        body: null,
      });
      const { signingUrls, replayed } = await renewSigningUrl(
        ctx,
        workspaceOf(request),
        id,
        recipientId,
        idempotency,
      );
      if (replayed) reply.header('idempotent-replayed', 'true');
      return ok(signingUrls[0]);
    },
  );
}
