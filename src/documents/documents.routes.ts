// GET /v1/documents and GET /v1/documents/{id}: HTTP in, service call, envelope out.
import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Context } from '../context.ts';
import type { DocumentStatus } from '../db/schema.ts';
import { workspaceOf } from '../http/api-guard.ts';
import { ok } from '../http/envelope.ts';
import { getDocumentOperation, listDocumentsOperation } from './documents.contract.ts';
import {
  type DocumentIdParams,
  defaultPageSize,
  getDocumentSchema,
  type ListDocumentsQueryPartial,
  listDocumentsSchema,
} from './documents.schemas.ts';
import { getDocument, listDocuments } from './documents.service.ts';

export function documentsRoutes(ctx: Context) {
  return async function register(app: FastifyInstance) {
    app.get<{ Querystring: Static<typeof ListDocumentsQueryPartial> }>(
      '/documents',
      { schema: listDocumentsSchema, config: { operation: listDocumentsOperation } },
      async (request) => {
        const { documents, nextCursor } = await listDocuments(ctx, {
          workspaceId: workspaceOf(request),
          limit: request.query.limit === undefined ? defaultPageSize : Number(request.query.limit),
          cursor: request.query.cursor ?? null,
          status: (request.query.status as DocumentStatus | undefined) ?? null,
        });
        return { ok: true, data: documents, nextCursor };
      },
    );

    app.get<{ Params: Static<typeof DocumentIdParams> }>(
      '/documents/:id',
      { schema: getDocumentSchema, config: { operation: getDocumentOperation } },
      async (request) => ok(await getDocument(ctx, workspaceOf(request), request.params.id.toLowerCase())),
    );
  };
}
