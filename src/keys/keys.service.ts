// API keys (spec, API key and Authentication): shown once, stored as a hash, at most 10
// active per workspace, revocation effective on the next request.
import type { Context } from '../context.ts';
import type { Plan } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import { findWorkspace, lockWorkspace } from '../workspaces/workspaces.repository.ts';
import { apiKeyHint, generateApiKeySecret, hashApiKey, isWellFormedApiKey } from './api-key-secret.ts';
import {
  type ApiKeyRow,
  countActiveApiKeys,
  findActiveKeyByHash,
  findApiKey,
  findApiKeys,
  insertApiKey,
  markApiKeyRevoked,
  notifyAuthChanged,
} from './keys.repository.ts';

export const maxActiveKeysPerWorkspace = 10;

export interface ApiKey {
  id: string;
  workspaceId: string;
  name: string;
  hint: string;
  createdAt: string;
  revokedAt: string | null;
}

export interface CreatedApiKey extends ApiKey {
  /** The only time the secret exists outside the caller's hands. */
  secret: string;
}

export interface KeyIdentity {
  keyId: string;
  workspaceId: string;
  plan: Plan;
}

function apiKeyRowToApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    hint: row.hint,
    createdAt: row.created_at.toISOString(),
    revokedAt: row.revoked_at?.toISOString() ?? null,
  };
}

export async function createApiKey(
  ctx: Context,
  input: { workspaceId: string; name: string },
): Promise<CreatedApiKey> {
  const secret = generateApiKeySecret(ctx.ids.randomBytes);
  const row: ApiKeyRow = {
    id: ctx.ids.uuid(),
    workspace_id: input.workspaceId,
    name: input.name,
    hint: apiKeyHint(secret),
    created_at: ctx.clock.now(),
    revoked_at: null,
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

export async function listApiKeys(ctx: Context, workspaceId: string): Promise<ApiKey[]> {
  if (!(await findWorkspace(ctx.db, workspaceId))) throw new ApiError('not-found');
  return (await findApiKeys(ctx.db, workspaceId)).map(apiKeyRowToApiKey);
}

export async function revokeApiKey(ctx: Context, keyId: string): Promise<ApiKey> {
  const row = await ctx.db.transaction().execute(async (trx) => {
    await markApiKeyRevoked(trx, keyId, ctx.clock.now());
    await notifyAuthChanged(trx);
    return findApiKey(trx, keyId);
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
