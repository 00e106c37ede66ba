// The live contract test's cases for the document operations (openapi-live.test.ts runs
// them in this order among the others): creating a document, then sending, deleting,
// replacing, reminding, a fresh signing link, withdrawing, listing and reading; each status
// and error code the contract documents for them. What a case is: contract-cases.ts.
import { type Case, type CaseKit, signer } from './contract-cases.ts';

/** createDocument: each status and error code it documents. */
export function createDocumentCases({ call, write, keyCases, newDocument }: CaseKit): Case[] {
  return [
    ['createDocument', '201', () => write('POST', '/v1/documents', { body: newDocument })],
    [
      'createDocument',
      'invalid-query',
      () => write('POST', '/v1/documents?x=1', { body: newDocument }),
      'invalid-query',
    ],
    ['createDocument', 'invalid-json', () => write('POST', '/v1/documents', { body: '{' }), 'invalid-json'],
    ['createDocument', 'invalid-body', () => write('POST', '/v1/documents', { body: {} }), 'invalid-body'],
    [
      'createDocument',
      'invalid-file',
      () =>
        write('POST', '/v1/documents', {
          body: { ...newDocument, file: Buffer.from('not a PDF').toString('base64') },
        }),
      'invalid-file',
    ],
    [
      'createDocument',
      'invalid-idempotency-key',
      () =>
        write('POST', '/v1/documents', { body: newDocument, headers: { 'idempotency-key': 'two words' } }),
      'invalid-idempotency-key',
    ],
    [
      'createDocument',
      'document-not-sendable',
      () => write('POST', '/v1/documents', { body: { title: 'Empty', recipients: [signer], send: true } }),
      'document-not-sendable',
    ],
    [
      'createDocument',
      'unsupported-media-type',
      () => write('POST', '/v1/documents', { body: 'x', headers: { 'content-type': 'text/plain' } }),
      'unsupported-media-type',
    ],
    [
      'createDocument',
      'insufficient-scope',
      () => call('POST', '/v1/documents', { body: newDocument }),
      'insufficient-scope',
    ],
    ...keyCases('createDocument', 'POST', () => '/v1/documents', newDocument),
  ];
}

/** The other document operations, from sendDocument to getDocument. */
export function documentCases({
  call,
  write,
  keyCases,
  writeBodyCases,
  randomId,
  newDocument,
  drafts,
  sent,
  own,
  live,
}: CaseKit): Case[] {
  return [
    ['sendDocument', '200', () => write('POST', `/v1/documents/${drafts.toSend}/send`)],
    ['sendDocument', 'invalid-id', () => write('POST', '/v1/documents/nope/send'), 'invalid-id'],
    [
      'sendDocument',
      'invalid-query',
      () => write('POST', `/v1/documents/${drafts.empty}/send?x=1`),
      'invalid-query',
    ],
    ['sendDocument', 'not-found', () => write('POST', `/v1/documents/${randomId()}/send`), 'not-found'],
    [
      'sendDocument',
      'document-not-draft',
      () => write('POST', `/v1/documents/${live.documentId}/send`),
      'document-not-draft',
    ],
    [
      'sendDocument',
      'document-not-sendable',
      () => write('POST', `/v1/documents/${drafts.empty}/send`),
      'document-not-sendable',
    ],
    [
      'sendDocument',
      'insufficient-scope',
      () => call('POST', `/v1/documents/${drafts.empty}/send`),
      'insufficient-scope',
    ],
    ...keyCases('sendDocument', 'POST', () => `/v1/documents/${drafts.empty}/send`),
    ...writeBodyCases('sendDocument', 'POST', () => `/v1/documents/${drafts.empty}/send`),
    ['deleteDocument', 'invalid-id', () => write('DELETE', '/v1/documents/nope'), 'invalid-id'],
    [
      'deleteDocument',
      'invalid-query',
      () => write('DELETE', `/v1/documents/${drafts.toDelete}?x=1`),
      'invalid-query',
    ],
    ['deleteDocument', 'not-found', () => write('DELETE', `/v1/documents/${randomId()}`), 'not-found'],
    [
      'deleteDocument',
      'document-not-draft',
      () => write('DELETE', `/v1/documents/${live.documentId}`),
      'document-not-draft',
    ],
    [
      'deleteDocument',
      'insufficient-scope',
      () => call('DELETE', `/v1/documents/${drafts.toDelete}`),
      'insufficient-scope',
    ],
    ...keyCases('deleteDocument', 'DELETE', () => `/v1/documents/${drafts.toDelete}`),
    ...writeBodyCases('deleteDocument', 'DELETE', () => `/v1/documents/${drafts.toDelete}`),
    ['deleteDocument', '200', () => write('DELETE', `/v1/documents/${drafts.toDelete}`)],
    [
      'replaceDocument',
      '200',
      () => write('PUT', `/v1/documents/${drafts.toReplace}`, { body: newDocument }),
    ],
    [
      'replaceDocument',
      'invalid-id',
      () => write('PUT', '/v1/documents/nope', { body: newDocument }),
      'invalid-id',
    ],
    [
      'replaceDocument',
      'invalid-query',
      () => write('PUT', `/v1/documents/${drafts.toReplace}?x=1`, { body: newDocument }),
      'invalid-query',
    ],
    [
      'replaceDocument',
      'invalid-json',
      () => write('PUT', `/v1/documents/${drafts.toReplace}`, { body: '{' }),
      'invalid-json',
    ],
    [
      'replaceDocument',
      'invalid-body',
      () => write('PUT', `/v1/documents/${drafts.toReplace}`, { body: {} }),
      'invalid-body',
    ],
    [
      'replaceDocument',
      'invalid-file',
      () =>
        write('PUT', `/v1/documents/${drafts.toReplace}`, {
          body: { ...newDocument, file: Buffer.from('not a PDF').toString('base64') },
        }),
      'invalid-file',
    ],
    [
      'replaceDocument',
      'not-found',
      () => write('PUT', `/v1/documents/${randomId()}`, { body: newDocument }),
      'not-found',
    ],
    [
      'replaceDocument',
      'document-not-draft',
      () => write('PUT', `/v1/documents/${live.documentId}`, { body: newDocument }),
      'document-not-draft',
    ],
    [
      'replaceDocument',
      'unsupported-media-type',
      () =>
        write('PUT', `/v1/documents/${drafts.toReplace}`, {
          body: 'x',
          headers: { 'content-type': 'text/plain' },
        }),
      'unsupported-media-type',
    ],
    [
      'replaceDocument',
      'insufficient-scope',
      () => call('PUT', `/v1/documents/${drafts.toReplace}`, { body: newDocument }),
      'insufficient-scope',
    ],
    ...keyCases('replaceDocument', 'PUT', () => `/v1/documents/${drafts.toReplace}`, newDocument),
    [
      'remindRecipient',
      '200',
      () => write('POST', `/v1/documents/${sent.id}/recipients/${sent.first}/remind`),
    ],
    [
      'remindRecipient',
      'reminded-recently',
      () => write('POST', `/v1/documents/${sent.id}/recipients/${sent.first}/remind`),
      'reminded-recently',
    ],
    [
      'remindRecipient',
      'recipient-not-remindable',
      () => write('POST', `/v1/documents/${sent.id}/recipients/${sent.second}/remind`),
      'recipient-not-remindable',
    ],
    [
      'remindRecipient',
      'invalid-id',
      () => write('POST', `/v1/documents/${sent.id}/recipients/nope/remind`),
      'invalid-id',
    ],
    [
      'remindRecipient',
      'invalid-query',
      () => write('POST', `/v1/documents/${sent.id}/recipients/${sent.first}/remind?x=1`),
      'invalid-query',
    ],
    [
      'remindRecipient',
      'not-found',
      () => write('POST', `/v1/documents/${sent.id}/recipients/${randomId()}/remind`),
      'not-found',
    ],
    [
      'remindRecipient',
      'insufficient-scope',
      () => call('POST', `/v1/documents/${sent.id}/recipients/${sent.first}/remind`),
      'insufficient-scope',
    ],
    ...keyCases('remindRecipient', 'POST', () => `/v1/documents/${sent.id}/recipients/${sent.first}/remind`),
    ...writeBodyCases(
      'remindRecipient',
      'POST',
      () => `/v1/documents/${sent.id}/recipients/${sent.first}/remind`,
    ),
    [
      'renewSigningUrl',
      '200',
      () => write('POST', `/v1/documents/${own.id}/recipients/${own.first}/signing-url`),
    ],
    [
      'renewSigningUrl',
      'recipient-not-invited',
      () => write('POST', `/v1/documents/${own.id}/recipients/${own.second}/signing-url`),
      'recipient-not-invited',
    ],
    [
      'renewSigningUrl',
      'document-delivered-by-mail',
      () => write('POST', `/v1/documents/${sent.id}/recipients/${sent.first}/signing-url`),
      'document-delivered-by-mail',
    ],
    [
      'renewSigningUrl',
      'invalid-id',
      () => write('POST', `/v1/documents/nope/recipients/${own.first}/signing-url`),
      'invalid-id',
    ],
    [
      'renewSigningUrl',
      'invalid-query',
      () => write('POST', `/v1/documents/${own.id}/recipients/${own.first}/signing-url?x=1`),
      'invalid-query',
    ],
    [
      'renewSigningUrl',
      'not-found',
      () => write('POST', `/v1/documents/${own.id}/recipients/${randomId()}/signing-url`),
      'not-found',
    ],
    [
      'renewSigningUrl',
      'insufficient-scope',
      () => call('POST', `/v1/documents/${own.id}/recipients/${own.first}/signing-url`),
      'insufficient-scope',
    ],
    ...keyCases(
      'renewSigningUrl',
      'POST',
      () => `/v1/documents/${own.id}/recipients/${own.first}/signing-url`,
    ),
    ...writeBodyCases(
      'renewSigningUrl',
      'POST',
      () => `/v1/documents/${own.id}/recipients/${own.first}/signing-url`,
    ),
    [
      'withdrawDocument',
      'document-not-active',
      () => write('POST', `/v1/documents/${drafts.empty}/withdraw`),
      'document-not-active',
    ],
    ['withdrawDocument', 'invalid-id', () => write('POST', '/v1/documents/nope/withdraw'), 'invalid-id'],
    [
      'withdrawDocument',
      'invalid-query',
      () => write('POST', `/v1/documents/${sent.id}/withdraw?x=1`),
      'invalid-query',
    ],
    [
      'withdrawDocument',
      'invalid-body',
      () => write('POST', `/v1/documents/${sent.id}/withdraw`, { body: { why: 'x' } }),
      'invalid-body',
    ],
    [
      'withdrawDocument',
      'not-found',
      () => write('POST', `/v1/documents/${randomId()}/withdraw`),
      'not-found',
    ],
    [
      'withdrawDocument',
      'insufficient-scope',
      () => call('POST', `/v1/documents/${sent.id}/withdraw`),
      'insufficient-scope',
    ],
    ...keyCases('withdrawDocument', 'POST', () => `/v1/documents/${sent.id}/withdraw`),
    ...writeBodyCases('withdrawDocument', 'POST', () => `/v1/documents/${sent.id}/withdraw`),
    [
      'withdrawDocument',
      '200',
      () => write('POST', `/v1/documents/${sent.id}/withdraw`, { body: { reason: 'Done.' } }),
    ],
    [
      'renewSigningUrl',
      'document-not-active',
      () => write('POST', `/v1/documents/${sent.id}/recipients/${sent.first}/signing-url`),
      'document-not-active',
    ],
    ['listDocuments', '200', () => call('GET', '/v1/documents?limit=2')],
    ['listDocuments', 'invalid-query', () => call('GET', '/v1/documents?limit=0'), 'invalid-query'],
    ['listDocuments', 'invalid-cursor', () => call('GET', '/v1/documents?cursor=abc'), 'invalid-cursor'],
    ...keyCases('listDocuments', 'GET', () => '/v1/documents'),
    ['getDocument', '200', () => call('GET', `/v1/documents/${live.documentId}`)],
    ['getDocument', 'invalid-id', () => call('GET', '/v1/documents/nope'), 'invalid-id'],
    [
      'getDocument',
      'invalid-query',
      () => call('GET', `/v1/documents/${live.documentId}?expand=events`),
      'invalid-query',
    ],
    ['getDocument', 'not-found', () => call('GET', `/v1/documents/${randomId()}`), 'not-found'],
    ...keyCases('getDocument', 'GET', () => `/v1/documents/${live.documentId}`),
  ];
}
