// **The** scopes an API key can have (issue 37) and what each allows (the web app says it in
// the member's language: the catalogues' integrations.scope.*). `read` is the spec's key,
// and every key's default: it reads the workspace's documents and manages its webhook endpoints. `write` may also use the
// document writes of /v1 (sending/sending.routes.ts): create, replace, send, delete, remind,
// withdraw, and fresh signing links. The API guard
// (http/api-guard.ts: `requireWriteScope`) refuses a read key those operations, 403
// `insufficient-scope`.
import type { ApiKeyScope } from '../db/schema.ts';

export type { ApiKeyScope };

export const apiKeyScopes: readonly ApiKeyScope[] = ['read', 'write'];

export function isApiKeyScope(value: unknown): value is ApiKeyScope {
  return typeof value === 'string' && (apiKeyScopes as readonly string[]).includes(value);
}
