// Writes src/types.ts from docs/openapi.json: every component schema, the request bodies,
// the error codes with their statuses and the webhook event types, as TypeScript types.
// openapi-typescript would be the tool, but it drives the TypeScript 5 compiler API, which
// the project's TypeScript 7 (the native port) does not have; the document uses a small
// subset of JSON Schema (objects, arrays, strings, numbers, booleans, null, const, enum,
// anyOf, $ref), translated below. `npm run client:types` writes the file; the client's
// test fails when it is not what this script writes.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

type Schema = {
  $ref?: string;
  const?: unknown;
  enum?: unknown[];
  anyOf?: Schema[];
  type?: string;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  description?: string;
};

export function tsType(schema: Schema, indent = ''): string {
  if (schema.$ref) return schema.$ref.split('/').at(-1) as string;
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (schema.anyOf) return schema.anyOf.map((s) => tsType(s, indent)).join(' | ');
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return `Array<${tsType(schema.items ?? {}, indent)}>`;
    case 'object': {
      const required = new Set(schema.required ?? []);
      const lines = Object.entries(schema.properties ?? {}).map(([name, property]) => {
        const doc = property.description ? `${indent}  /** ${property.description} */\n` : '';
        return `${doc}${indent}  ${name}${required.has(name) ? '' : '?'}: ${tsType(property, `${indent}  `)};`;
      });
      return `{\n${lines.join('\n')}\n${indent}}`;
    }
    default:
      return 'unknown';
  }
}

interface Contract {
  components: { schemas: Record<string, Schema> };
  paths: Record<
    string,
    Record<
      string,
      { operationId: string; requestBody?: { content: { 'application/json': { schema: Schema } } } }
    >
  >;
  webhooks: Record<string, unknown>;
  'x-error-codes': Record<string, number>;
}

export function generateTypes(contract: Contract): string {
  const out = ['// Generated from docs/openapi.json by `npm run client:types`: do not edit by hand.', ''];
  for (const [name, schema] of Object.entries(contract.components.schemas)) {
    out.push(`export type ${name} = ${tsType(schema)};`, '');
  }
  for (const item of Object.values(contract.paths)) {
    for (const operation of Object.values(item)) {
      const body = operation.requestBody?.content['application/json'].schema;
      if (!body) continue;
      const name = `${operation.operationId[0]?.toUpperCase()}${operation.operationId.slice(1)}Body`;
      out.push(`export type ${name} = ${tsType(body)};`, '');
    }
  }
  out.push(`export const errorStatus = ${JSON.stringify(contract['x-error-codes'], null, 2)} as const;`, '');
  out.push('export type ErrorCode = keyof typeof errorStatus;', '');
  const events = Object.keys(contract.webhooks);
  out.push(`export const webhookEventTypes = ${JSON.stringify(events)} as const;`, '');
  out.push('export type WebhookEventType = (typeof webhookEventTypes)[number];', '');
  return `${out.join('\n').trimEnd()}\n`;
}

export const contractPath = join(import.meta.dirname, '..', '..', '..', 'docs', 'openapi.json');
export const typesPath = join(import.meta.dirname, '..', 'src', 'types.ts');

if (import.meta.main) {
  writeFileSync(typesPath, generateTypes(JSON.parse(readFileSync(contractPath, 'utf8')) as Contract));
}
