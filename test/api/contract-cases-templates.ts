// The live contract test's cases for the template operations (openapi-live.test.ts runs them
// after createDocument's): list, get, create, replace, use (documents made from a template)
// and delete; each status and error code the contract documents for them. What a case is:
// contract-cases.ts.
import { type Case, type CaseKit, signer } from './contract-cases.ts';

/** The template operations, from listTemplates to deleteTemplate. */
export function templateCases({
  call,
  write,
  keyCases,
  writeBodyCases,
  randomId,
  templates,
  live,
}: CaseKit): Case[] {
  return [
    ['listTemplates', '200', () => call('GET', '/v1/templates?limit=1')],
    ['listTemplates', 'invalid-query', () => call('GET', '/v1/templates?x=1'), 'invalid-query'],
    ['listTemplates', 'invalid-cursor', () => call('GET', '/v1/templates?cursor=abc'), 'invalid-cursor'],
    ...keyCases('listTemplates', 'GET', () => '/v1/templates'),
    ['getTemplate', '200', () => call('GET', `/v1/templates/${templates.used}`)],
    ['getTemplate', 'invalid-id', () => call('GET', '/v1/templates/nope'), 'invalid-id'],
    ['getTemplate', 'not-found', () => call('GET', `/v1/templates/${randomId()}`), 'not-found'],
    ...keyCases('getTemplate', 'GET', () => `/v1/templates/${templates.used}`),
    ['createTemplate', '201', () => write('POST', '/v1/templates', { body: live.templateBody })],
    ['createTemplate', 'invalid-body', () => write('POST', '/v1/templates', { body: {} }), 'invalid-body'],
    [
      'createTemplate',
      'invalid-file',
      () =>
        write('POST', '/v1/templates', {
          body: { ...live.templateBody, file: Buffer.from('not a PDF').toString('base64') },
        }),
      'invalid-file',
    ],
    [
      'createTemplate',
      'insufficient-scope',
      () => call('POST', '/v1/templates', { body: live.templateBody }),
      'insufficient-scope',
    ],
    ['createTemplate', 'invalid-json', () => write('POST', '/v1/templates', { body: '{' }), 'invalid-json'],
    [
      'createTemplate',
      'unsupported-media-type',
      () => write('POST', '/v1/templates', { body: 'x', headers: { 'content-type': 'text/plain' } }),
      'unsupported-media-type',
    ],
    ...keyCases('createTemplate', 'POST', () => '/v1/templates', {}),
    [
      'replaceTemplate',
      '200',
      () =>
        write('PUT', `/v1/templates/${templates.used}`, { body: { ...live.templateBody, file: undefined } }),
    ],
    [
      'replaceTemplate',
      'invalid-id',
      () => write('PUT', '/v1/templates/nope', { body: live.templateBody }),
      'invalid-id',
    ],
    [
      'replaceTemplate',
      'not-found',
      () => write('PUT', `/v1/templates/${randomId()}`, { body: live.templateBody }),
      'not-found',
    ],
    [
      'replaceTemplate',
      'insufficient-scope',
      () => call('PUT', `/v1/templates/${templates.used}`, { body: live.templateBody }),
      'insufficient-scope',
    ],
    ...keyCases('replaceTemplate', 'PUT', () => `/v1/templates/${templates.used}`, {}),
    ...writeBodyCases('replaceTemplate', 'PUT', () => `/v1/templates/${templates.used}`).filter(
      ([, what]) => what !== 'payload-too-large',
    ),
    [
      'useTemplate',
      '200',
      () =>
        write('POST', `/v1/templates/${templates.used}/documents`, {
          body: {
            items: [
              { recipients: { Client: signer }, values: { Fee: '100 EUR' }, send: true },
              { recipients: { Client: { ...signer, email: 'ann@' } }, values: { Fee: '100 EUR' } },
            ],
          },
        }),
    ],
    [
      'useTemplate',
      'idempotency-key-reused',
      async () => {
        const headers = { 'idempotency-key': 'contract-batch' };
        const path = `/v1/templates/${templates.used}/documents`;
        const item = { recipients: { Client: signer }, values: { Fee: '100 EUR' } };
        await write('POST', path, { body: { items: [item] }, headers });
        return write('POST', path, { body: { items: [item, item] }, headers });
      },
      'idempotency-key-reused',
    ],
    [
      'useTemplate',
      'invalid-id',
      () => write('POST', '/v1/templates/nope/documents', { body: { items: [] } }),
      'invalid-id',
    ],
    [
      'useTemplate',
      'not-found',
      () =>
        write('POST', `/v1/templates/${randomId()}/documents`, {
          body: { items: [{ recipients: { Client: signer } }] },
        }),
      'not-found',
    ],
    [
      'useTemplate',
      'insufficient-scope',
      () =>
        call('POST', `/v1/templates/${templates.used}/documents`, {
          body: { items: [{ recipients: { Client: signer } }] },
        }),
      'insufficient-scope',
    ],
    ...keyCases('useTemplate', 'POST', () => `/v1/templates/${templates.used}/documents`, {
      items: [{ recipients: { Client: signer } }],
    }),
    ...writeBodyCases('useTemplate', 'POST', () => `/v1/templates/${templates.used}/documents`),
    ['deleteTemplate', 'invalid-id', () => write('DELETE', '/v1/templates/nope'), 'invalid-id'],
    ['deleteTemplate', 'not-found', () => write('DELETE', `/v1/templates/${randomId()}`), 'not-found'],
    [
      'deleteTemplate',
      'insufficient-scope',
      () => call('DELETE', `/v1/templates/${templates.toDelete}`),
      'insufficient-scope',
    ],
    ...keyCases('deleteTemplate', 'DELETE', () => `/v1/templates/${templates.toDelete}`),
    ...writeBodyCases('deleteTemplate', 'DELETE', () => `/v1/templates/${templates.toDelete}`),
    ['deleteTemplate', '200', () => write('DELETE', `/v1/templates/${templates.toDelete}`)],
  ];
}
