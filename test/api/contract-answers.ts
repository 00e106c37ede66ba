// The live contract test's judge (openapi-live.test.ts and the case tables beside it,
// contract-cases-*.ts): the OpenAPI document as Signet builds it, each response's schema
// compiled by ajv with its `#/components/…` references pointing into it, and `checkAnswer`,
// which holds an answer to the schema the document gives for its operation and status
// (the error code, the headers it requires) and records the pair as exercised, so the suite's
// last test can ask that every (operation, status) the document promises was exercised.
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { buildOpenApiDocument } from '../../src/api/openapi.ts';
import { signetVersion } from '../../src/version.ts';

export type Schema = Record<string, unknown>;

export type Responses = Record<
  string,
  {
    headers?: Record<string, { $ref?: string; required?: boolean }>;
    content?: { 'application/json': { schema: Schema } };
  }
>;
export interface Contract {
  paths: Record<string, Record<string, { operationId: string; responses: Responses }>>;
  webhooks: Record<
    string,
    { post: { requestBody: { content: { 'application/json': { schema: Schema } } } } }
  >;
  components: { schemas: Record<string, Schema>; headers: Record<string, { required?: boolean }> };
}

export const contract = buildOpenApiDocument({
  serverUrl: 'http://127.0.0.1/v1',
  version: signetVersion,
}) as unknown as Contract;
// Formats are checked by the independent validator every callApi answer goes through (contract.ts).
export const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema({ $id: 'contract', components: contract.components }, 'contract');

/** A schema of the document, its `#/components/...` references pointing into it. */
export function compile(schema: Schema) {
  const rebased = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"contract#/components/'));
  return ajv.compile(rebased);
}

export function operation(operationId: string): { method: string; path: string; responses: Responses } {
  for (const [path, item] of Object.entries(contract.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (op.operationId === operationId) return { method, path, responses: op.responses };
    }
  }
  throw new Error(`no operation ${operationId}`);
}

/** Every (operation, status) pair the document promises; each must be exercised below. */
export const promised = new Set(
  Object.values(contract.paths).flatMap((item) =>
    Object.values(item).flatMap((op) =>
      Object.keys(op.responses).map((status) => `${op.operationId} ${status}`),
    ),
  ),
);
export const exercised = new Set<string>();

export function checkAnswer(
  operationId: string,
  res: { status: number; headers: Headers; body: unknown },
  code?: string,
): void {
  const { responses } = operation(operationId);
  const documented = responses[String(res.status)];
  assert.ok(documented, `${operationId} answered ${res.status}, which the contract does not document`);
  const schema = documented.content?.['application/json'].schema;
  assert.ok(schema, `${operationId} ${res.status} has a schema`);
  const validate = compile(schema);
  assert.ok(
    validate(res.body),
    `${operationId} ${res.status}: ${JSON.stringify(validate.errors)} for ${JSON.stringify(res.body).slice(0, 300)}`,
  );
  if (code) assert.equal((res.body as { error?: string }).error, code);
  for (const [header, object] of Object.entries(documented.headers ?? {})) {
    const resolved = object.$ref
      ? contract.components.headers[object.$ref.split('/').at(-1) as string]
      : (object as { required?: boolean });
    if (resolved?.required)
      assert.ok(res.headers.get(header) !== null, `${operationId} ${res.status} carries ${header}`);
  }
  exercised.add(`${operationId} ${res.status}`);
}
