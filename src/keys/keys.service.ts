// API keys (spec, API key and Authentication): shown once, stored as a hash, at most 10
// active per workspace, revocation effective on the next request.

import type { Context } from '../context.ts';
import { notifyAuthChanged } from '../db/notify.ts';
import { ApiError } from '../http/errors.ts';
import { keyedRefusal } from '../i18n/refusals.ts';
import { findWorkspace, lockWorkspace } from '../workspaces/workspaces.repository.ts';
import { type ApiKeyScope, isApiKeyScope } from './api-key-scope.ts';
import { apiKeyHint, generateApiKeySecret, hashApiKey, isWellFormedApiKey } from './api-key-secret.ts';
import type { KeyIdentity } from './key-cache.ts';
import {
  type ApiKeyRow,
  countActiveApiKeys,
  findActiveKeyByHash,
  findApiKey,
  findApiKeys,
  insertApiKey,
  markApiKeyRevoked,
} from './keys.repository.ts';

export const maxActiveKeysPerWorkspace = 10;

export interface ApiKey {
  id: string;
  workspaceId: string;
  name: string;
  hint: string;
  createdAt: string;
  revokedAt: string | null;
  /** When it last authenticated a request (to the minute), or null. */
  lastUsedAt: string | null;
  /** What it may do (api-key-scope.ts): `read`, the default, or `write`. */
  scope: ApiKeyScope;
}

export interface CreatedApiKey extends ApiKey {
  /** The only time the secret exists outside the caller's hands. */
  secret: string;
}

export type { KeyIdentity };

function apiKeyRowToApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    hint: row.hint,
    createdAt: row.created_at.toISOString(),
    revokedAt: row.revoked_at?.toISOString() ?? null,
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
    scope: row.scope,
  };
}

/** A key's name says what uses it: 1 to 100 characters. */
export const maxKeyNameLength = 100;

export async function createApiKey(
  ctx: Context,
  input: { workspaceId: string; name: string; scope?: ApiKeyScope },
): Promise<CreatedApiKey> {
  const name = input.name.trim();
  const scope = input.scope ?? 'read';
  // Keyed sentences: the web page says them in the member's language, the CLI in English.
  if (!isApiKeyScope(scope)) throw keyedRefusal([['scope', 'integrations.refusal.scope']]);
  if (!name) throw keyedRefusal([['name', 'integrations.refusal.name']]);
  if (name.length > maxKeyNameLength)
    throw keyedRefusal([['name', 'integrations.refusal.nameLong', { max: maxKeyNameLength }]]);
  const secret = generateApiKeySecret(ctx.ids.randomBytes);
  const row: ApiKeyRow = {
    id: ctx.ids.uuid(),
    workspace_id: input.workspaceId,
    name,
    hint: apiKeyHint(secret),
    created_at: ctx.clock.now(),
    revoked_at: null,
    last_used_at: null,
    scope,
  };
  await ctx.db.transaction().execute(async (trx) => {
    if (!(await lockWorkspace(trx, input.workspaceId))) throw new ApiError('not-found');
    if ((await countActiveApiKeys(trx, input.workspaceId)) >= maxActiveKeysPerWorkspace) {
      throw new ApiError('limit-reached');
    }
    await insertApiKey(trx, { ...row, secret_hash: hashApiKey(secret) });
  });
  return { ...apiKeyRowToApiKey(row), secret };
}

/** One key of a workspace (never its secret); not-found for another workspace's. */
export async function getApiKey(ctx: Context, workspaceId: string, keyId: string): Promise<ApiKey> {
  const row = await findApiKey(ctx.db, keyId, workspaceId);
  if (!row) throw new ApiError('not-found');
  return apiKeyRowToApiKey(row);
}

export async function listApiKeys(ctx: Context, workspaceId: string): Promise<ApiKey[]> {
  if (!(await findWorkspace(ctx.db, workspaceId))) throw new ApiError('not-found');
  return (await findApiKeys(ctx.db, workspaceId)).map(apiKeyRowToApiKey);
}

/**
 * Revokes a key; with `workspaceId` (the web application), only that workspace's: another
 * workspace's key is not-found, exactly like a missing one. Operators pass null.
 */
export async function revokeApiKey(
  ctx: Context,
  keyId: string,
  workspaceId: string | null = null,
): Promise<ApiKey> {
  const row = await ctx.db.transaction().execute(async (trx) => {
    await markApiKeyRevoked(trx, keyId, workspaceId, ctx.clock.now());
    await notifyAuthChanged(trx);
    return findApiKey(trx, keyId, workspaceId);
  });
  ctx.keyCache.clear();
  if (!row) throw new ApiError('not-found');
  return apiKeyRowToApiKey(row);
}

/** The identity behind a presented secret, or null for anything not an active key. */
export async function authenticateApiKey(ctx: Context, secret: string): Promise<KeyIdentity | null> {
  if (!isWellFormedApiKey(secret)) return null;
  const hash = hashApiKey(secret);
  const cached = ctx.keyCache.get(hash);
  if (cached !== undefined) return cached;
  const remember = ctx.keyCache.begin();
  const identity = (await findActiveKeyByHash(ctx.db, hash)) ?? null;
  remember(hash, identity);
  return identity;
}
