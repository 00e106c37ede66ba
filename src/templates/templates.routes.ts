// /v1's templates (issue 38): HTTP in, service call, envelope out. Any key lists and reads
// them; a write key creates, replaces and deletes them (JSON, the PDF in base64) and makes
// documents from one: `POST /templates/{id}/documents`, up to 100 in a request, each item on
// its own (a refused item is answered with its index, code and pointer, the others made).
// An Idempotency-Key is bound to the whole request first (the same key with another body is
// 409 `idempotency-key-reused`), then covers each item under its own derived key (the key and
// the item's index), claimed in the item's own transaction as a document's create claims one:
// a repeat answers the documents made, makes the ones a crash or a refusal left out, and
// makes nothing twice.
import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Context } from '../context.ts';
import { defaultPageSize } from '../documents/documents.schemas.ts';
import { requireWriteScope, workspaceOf } from '../http/api-guard.ts';
import { ok } from '../http/envelope.ts';
import { ApiError, bodyLimitBytes } from '../http/errors.ts';
import { type IdempotencyKey, idempotencyKeyOf, itemIdempotencyKey } from '../http/idempotency.ts';
import { InputError } from '../input-error.ts';
import { apiInputError, asApiError, decodeBase64File } from '../sending/api-input.ts';
import { bindRequestKey, createDocumentFromApi } from '../sending/api-writes.ts';
import type { TemplateInput } from './template-input.ts';
import {
  createTemplateOperation,
  deleteTemplateOperation,
  getTemplateOperation,
  listTemplatesOperation,
  replaceTemplateOperation,
  useTemplateOperation,
} from './templates.contract.ts';
import {
  createTemplateSchema,
  deleteTemplateSchema,
  getTemplateSchema,
  type ListTemplatesQuery,
  listTemplatesSchema,
  replaceTemplateSchema,
  type TemplateBody,
  type TemplateIdParams,
  type TemplateItemSchema,
  type UseTemplateBody,
  useTemplateSchema,
} from './templates.schemas.ts';
import {
  createTemplate,
  deleteTemplate,
  getTemplate,
  listTemplates,
  type TemplateDetail,
  updateTemplate,
} from './templates.service.ts';
import { documentInputOf, templatePointer } from './use-template.ts';

type Id = { Params: Static<typeof TemplateIdParams> };
type Body = Static<typeof TemplateBody>;

/** The body of a create or a replacement as the services take it (404 and 400s as the documents' writes). */
function templateInputOf(ctx: Context, workspaceId: string, body: Body): Omit<TemplateInput, 'kept'> {
  const { file: base64, text, ...rest } = body;
  const file = decodeBase64File(base64);
  // As a document's PDF: the body limit leaves room for the JSON beside it.
  if (file && file.byteLength > ctx.config.maxUploadBytes) throw new ApiError('payload-too-large');
  return {
    ...rest,
    workspaceId,
    body: text ?? '',
    expiresInSeconds: body.expiresInSeconds ?? 30 * 24 * 60 * 60,
    remindEveryDays: body.remindEveryDays ?? null,
    file,
  };
}

/** Runs a template service call, answering its refusals as the API does. */
async function answered<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw asApiError(error);
  }
}

export function templatesRoutes(ctx: Context) {
  // A JSON request carries the PDF in base64 (4 characters for 3 bytes) beside the rest.
  const jsonBodyLimit = Math.ceil(ctx.config.maxUploadBytes / 3) * 4 + bodyLimitBytes;
  return async function register(app: FastifyInstance) {
    app.get<{ Querystring: Static<typeof ListTemplatesQuery> }>(
      '/templates',
      { schema: listTemplatesSchema, config: { operation: listTemplatesOperation } },
      async (request) => {
        const { data, nextCursor } = await listTemplates(ctx, {
          workspaceId: workspaceOf(request),
          limit: request.query.limit === undefined ? defaultPageSize : Number(request.query.limit),
          cursor: request.query.cursor ?? null,
        });
        return { ok: true, data, nextCursor };
      },
    );
    app.get<Id>(
      '/templates/:id',
      { schema: getTemplateSchema, config: { operation: getTemplateOperation } },
      async (request) => ok(await getTemplate(ctx, workspaceOf(request), request.params.id.toLowerCase())),
    );
    app.post<{ Body: Body }>(
      '/templates',
      {
        schema: createTemplateSchema,
        config: { operation: createTemplateOperation },
        bodyLimit: jsonBodyLimit,
        onRequest: requireWriteScope,
      },
      async (request, reply) => {
        const workspaceId = workspaceOf(request);
        const { id } = await answered(() =>
          createTemplate(ctx, templateInputOf(ctx, workspaceId, request.body)),
        );
        return reply.code(201).send(ok(await getTemplate(ctx, workspaceId, id)));
      },
    );
    app.put<Id & { Body: Body }>(
      '/templates/:id',
      {
        schema: replaceTemplateSchema,
        config: { operation: replaceTemplateOperation },
        bodyLimit: jsonBodyLimit,
        onRequest: requireWriteScope,
      },
      async (request) => {
        const workspaceId = workspaceOf(request);
        const id = request.params.id.toLowerCase();
        await answered(() => updateTemplate(ctx, id, templateInputOf(ctx, workspaceId, request.body)));
        return ok(await getTemplate(ctx, workspaceId, id));
      },
    );
    app.delete<Id>(
      '/templates/:id',
      {
        schema: deleteTemplateSchema,
        config: { operation: deleteTemplateOperation },
        onRequest: requireWriteScope,
      },
      async (request) => {
        const id = request.params.id.toLowerCase();
        await deleteTemplate(ctx, workspaceOf(request), id);
        return ok({ id, deleted: true as const });
      },
    );
    app.post<Id & { Body: Static<typeof UseTemplateBody> }>(
      '/templates/:id/documents',
      {
        schema: useTemplateSchema,
        config: { operation: useTemplateOperation },
        onRequest: requireWriteScope,
      },
      async (request) => {
        const workspaceId = workspaceOf(request);
        const template = await getTemplate(ctx, workspaceId, request.params.id.toLowerCase());
        const operation = `POST /templates/${template.id}/documents`;
        const batch = idempotencyKeyOf(request, { operation });
        await bindRequestKey(ctx, workspaceId, batch);
        const made = [];
        const refused = [];
        for (const [index, item] of request.body.items.entries()) {
          const key = batch && itemIdempotencyKey(batch, operation, index, item);
          try {
            made.push({ index, document: await documentFromItem(ctx, workspaceId, template, item, key) });
          } catch (error) {
            if (!(error instanceof ApiError) || error.statusCode >= 500) throw error;
            refused.push({ index, error: error.code, pointer: `/items/${index}${error.pointer ?? ''}` });
          }
        }
        return ok({ documents: made, refused });
      },
    );
  };
}

/** One item's document, made (and sent, with `send`) as a document's create makes one; a refusal as an ApiError. */
async function documentFromItem(
  ctx: Context,
  workspaceId: string,
  template: TemplateDetail,
  item: Static<typeof TemplateItemSchema>,
  idempotency: IdempotencyKey | null,
) {
  try {
    const input = await documentInputOf(ctx, workspaceId, template, {
      recipients: item.recipients,
      values: item.values ?? {},
      ...(item.title === undefined ? {} : { title: item.title }),
      ...(item.text === undefined ? {} : { body: item.text }),
      delivery: item.delivery === 'none' ? 'none' : 'email',
    });
    const { document, signingUrls } = await createDocumentFromApi(ctx, input, {
      send: item.send ?? false,
      idempotency,
    });
    return { ...document, signingUrls };
  } catch (error) {
    if (error instanceof InputError) throw apiInputError(error);
    if (error instanceof ApiError && error.pointer)
      throw new ApiError(error.code, error.headers, templatePointer(error.pointer, template));
    throw error;
  }
}
