// **The** scopes an API key can have (issue 37) and what each allows, in the words the web
// app, the CLI and the docs show. `read` is the spec's key, and every key's default: it reads
// the workspace's documents and manages its webhook endpoints. `write` may also use the
// document writes of /v1 (sending/sending.routes.ts): create, replace, send, delete, remind,
// withdraw, and fresh signing links. The API guard
// (http/api-guard.ts: `requireWriteScope`) refuses a read key those operations, 403
// `insufficient-scope`.
import type { ApiKeyScope } from '../db/schema.ts';

export type { ApiKeyScope };

export const apiKeyScopes: readonly ApiKeyScope[] = ['read', 'write'];

export const apiKeyScopeLabels: Record<ApiKeyScope, string> = {
  read: 'Read only',
  write: 'Read and write',
};

export const apiKeyScopeSentences: Record<ApiKeyScope, string> = {
  read: 'Reads every document of the workspace and manages its webhook endpoints; cannot create, change or send documents.',
  write:
    'Everything a read-only key does, and also creates, changes, sends, reminds, withdraws and deletes documents and gets their signing links: it can send documents in your name.',
};

export function isApiKeyScope(value: unknown): value is ApiKeyScope {
  return typeof value === 'string' && (apiKeyScopes as readonly string[]).includes(value);
}
