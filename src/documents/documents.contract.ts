// The contract of the document reads (documents.routes.ts): the paged list and one document
// in detail, each operation beside the route that serves it, built from the schemas that
// validate the query and serialise the answer (documents.schemas.ts); and the named objects
// of a document, the components every area's operations refer to.
import {
  envelope,
  idParameter,
  json,
  limitParameter,
  type Operation,
  one,
  success,
} from '../http/openapi-parts.ts';
import { documentDetailExample, documentListExample } from './documents.examples.ts';
import {
  CompletedDocumentSchema,
  DetailRecipientSchema,
  DocumentDetailSchema,
  DocumentEventSchema,
  DocumentFileSchema,
  DocumentSchema,
  defaultPageSize,
  FieldSchema,
  ListDocumentsQuery,
  MoneySchema,
  RecipientSchema,
} from './documents.schemas.ts';

/** The list's query parameters, as its route's schema takes them (`limit` written as the integer it is). */
function listQueryParameters(): unknown[] {
  const query = json(ListDocumentsQuery) as { properties: Record<string, Record<string, unknown>> };
  const descriptions: Record<string, string> = {
    cursor:
      'The `nextCursor` of the previous page, as issued (at most 200 characters), for the same `status`; never built by clients, valid 24 hours.',
    status: 'Only documents with this status.',
  };
  return Object.entries(query.properties).map(([name, schema]) =>
    name === 'limit'
      ? limitParameter(defaultPageSize)
      : { name, in: 'query', required: false, schema, description: descriptions[name] },
  );
}

export const listDocumentsOperation: Operation = {
  method: 'GET',
  path: '/documents',
  operationId: 'listDocuments',
  tag: 'Documents',
  summary: 'The workspace’s documents, newest first, a page at a time',
  description:
    'Newest first (by `createdAt`, then `id`). A parameter out of range, repeated, empty or not recognised is `invalid-query`; a cursor the service did not issue (or issued for another `status`, or more than 24 hours ago) is `invalid-cursor`.',
  parameters: listQueryParameters(),
  answers: success(
    200,
    'A page; `nextCursor` is null on the last one.',
    envelope(json(DocumentSchema), true),
    one('page', documentListExample),
  ),
  errors: ['invalid-query', 'invalid-cursor'],
};

export const getDocumentOperation: Operation = {
  method: 'GET',
  path: '/documents/{id}',
  operationId: 'getDocument',
  tag: 'Documents',
  summary: 'One document with its recipients and events',
  description:
    'A document that does not exist in your workspace, including one in another workspace, is `not-found`: the same answer either way. The route takes no query parameters (any is `invalid-query`). A file’s `downloadUrl` works for 15 minutes without a key: fetch the detail again for fresh links.',
  parameters: [idParameter],
  answers: success(
    200,
    'The document.',
    envelope(json(DocumentDetailSchema)),
    one('signed', { ok: true, data: documentDetailExample }),
  ),
  errors: ['invalid-query', 'invalid-id', 'not-found'],
};

/** The named objects of a document; wherever one appears inline in the contract it becomes a `$ref`. */
export const documentComponents = {
  Document: DocumentSchema,
  Money: MoneySchema,
  CompletedDocument: CompletedDocumentSchema,
  DocumentDetail: DocumentDetailSchema,
  Recipient: RecipientSchema,
  DetailRecipient: DetailRecipientSchema,
  Field: FieldSchema,
  DocumentEvent: DocumentEventSchema,
  DocumentFile: DocumentFileSchema,
};
