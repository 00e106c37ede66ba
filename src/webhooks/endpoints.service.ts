// Webhook endpoints (spec, Webhook endpoint and /webhook-endpoints): at most 10 per
// workspace, 1–5 subscribed event types, a destination that passes destination.ts, and a
// secret shown exactly once, in the create response.
import type { Context } from '../context.ts';
import { documentEventTypes } from '../documents/events.ts';
import { ApiError } from '../http/errors.ts';
import { findIdempotentAnswer, storeIdempotentAnswer } from '../http/idempotency.repository.ts';
import { type IdempotencyKey, idempotencyWindowMs, openAnswer, sealAnswer } from '../http/idempotency.ts';
import { type KeyedProblem, keyedRefusal } from '../i18n/refusals.ts';
import { lockWorkspace } from '../workspaces/workspaces.repository.ts';
import { deleteDeliveriesOf } from './deliveries.repository.ts';
import { checkDestination } from './destination.ts';
import {
  countEndpoints,
  deleteEndpoint,
  type EndpointRow,
  findEndpoint,
  findEndpoints,
  findEndpointWorkspaceId,
  findPausedEndpoints,
  insertEndpoint,
  lockEndpoint,
  rotateSecret,
  updateEndpoint,
} from './endpoints.repository.ts';
import { dropPendingDeliveries } from './outcomes.repository.ts';

export const maxEndpointsPerWorkspace = 10;
/** What an endpoint can subscribe to: every document event; `ping` is sent only on request. */
export const subscribableEventTypes = documentEventTypes;
/** How many event types one endpoint subscribes to, at least one (the request schema's maxItems). */
export const maxEventsPerEndpoint = 5;
/** A description's length, in UTF-16 units as TypeBox counts (the request schema's maxLength). */
export const maxDescriptionLength = 500;

export interface WebhookEndpoint {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  description: string | null;
  createdAt: string;
  failureCount: number;
  /** "failures" when the service switched the endpoint off after consecutive failures. */
  disabledReason: 'failures' | null;
  /** When that happened (the web application's banner; not part of the API's object). */
  pausedAt: string | null;
  /**
   * Until when the secret before the last rotation still signs too, or null (the web
   * application's notice and the rotation's answer; not part of the API's endpoint object).
   */
  previousSecretExpiresAt: string | null;
}

export interface CreateEndpointInput {
  url: string;
  events: string[];
  description?: string | null;
}

export interface UpdateEndpointInput {
  url?: string;
  events?: string[];
  description?: string | null;
  enabled?: boolean;
}

/**
 * An endpoint's input as a person typed it (the web form), every problem at once: an
 * InputError with a sentence per field (keyed: a page says it in its visitor's language, the
 * fields stay English). The API's request schema (endpoints.schemas.ts)
 * is built from the same limits and refuses first, with its own codes; there a blank URL
 * is the destination rule's `invalid-url`, so createEndpoint and changeEndpoint leave the
 * form's sentences to this function.
 */
export function checkEndpointInput(input: UpdateEndpointInput): void {
  const problems: KeyedProblem[] = [];
  if (input.url !== undefined && input.url.trim() === '') problems.push(['url', 'endpoints.refusal.noUrl']);
  if (input.events !== undefined) {
    const { events } = input;
    const isSubscribable = (type: string) => (subscribableEventTypes as readonly string[]).includes(type);
    if (
      events.length < 1 ||
      events.length > maxEventsPerEndpoint ||
      new Set(events).size !== events.length ||
      !events.every(isSubscribable)
    )
      problems.push(
        events.includes('ping')
          ? ['events', 'endpoints.refusal.ping']
          : ['events', 'endpoints.refusal.events', { max: maxEventsPerEndpoint }],
      );
  }
  // (U+0000, which the schema refuses too, never reaches here from a form: ui/forms.ts drops it.)
  if (input.description && input.description.length > maxDescriptionLength)
    problems.push(['description', 'endpoints.refusal.description', { max: maxDescriptionLength }]);
  if (problems.length > 0) throw keyedRefusal(problems);
}

export function endpointRowToEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    enabled: row.enabled,
    description: row.description,
    createdAt: row.created_at.toISOString(),
    failureCount: row.failure_count,
    disabledReason: row.disabled_reason,
    pausedAt: row.paused_at?.toISOString() ?? null,
    previousSecretExpiresAt: row.previous_secret_expires_at?.toISOString() ?? null,
  };
}

/** A new endpoint secret: 32 random bytes, shown once. */
function newSecret(ctx: Context): string {
  return `whsec_${ctx.ids.randomBytes(32).toString('base64url')}`;
}

/** The normalised URL if the destination is acceptable, else the spec's error. */
async function acceptedUrl(ctx: Context, raw: string): Promise<string> {
  const verdict = await checkDestination(raw, ctx.config.webhooks, ctx.resolver);
  if (!verdict.ok) throw new ApiError(verdict.code);
  return verdict.url.href;
}

/**
 * Registers an endpoint. With an idempotency key (http/idempotency.ts), the first success
 * for that key is kept (sealed), and a repeat answers it (`replayed`) instead of creating
 * another, unless the endpoint was deleted since: then `not-found`, as for any id of it.
 */
export async function createEndpoint(
  ctx: Context,
  workspaceId: string,
  input: CreateEndpointInput,
  idempotency: IdempotencyKey | null = null,
): Promise<WebhookEndpoint & { secret: string; replayed?: true }> {
  const url = await acceptedUrl(ctx, input.url);
  const now = ctx.clock.now();
  const since = new Date(now.getTime() - idempotencyWindowMs);
  const secret = newSecret(ctx);
  const row = {
    id: ctx.ids.uuid(),
    workspace_id: workspaceId,
    url,
    events: input.events,
    description: input.description ?? null,
    enabled: true,
    failure_count: 0,
    disabled_reason: null,
    paused_at: null,
    previous_secret_expires_at: null,
    created_at: now,
  };
  const created = { ...endpointRowToEndpoint(row), secret };
  const kept = idempotency ? { workspaceId, key: idempotency.key } : null;
  const sealed = kept ? await sealAnswer(ctx, kept, JSON.stringify(created)) : '';
  return ctx.db.transaction().execute(async (trx) => {
    // The workspace lock makes "at most 10" hold under concurrent creates, and one key create once.
    await lockWorkspace(trx, workspaceId);
    if (idempotency) {
      const first = await findIdempotentAnswer(trx, workspaceId, idempotency.key, since);
      if (first && first.request_sha256 !== idempotency.requestSha256)
        throw new ApiError('idempotency-key-reused');
      if (first && kept) {
        const answer = JSON.parse(await openAnswer(ctx, kept, first.response)) as typeof created;
        if (!(await findEndpoint(trx, workspaceId, answer.id))) throw new ApiError('not-found');
        return { ...answer, replayed: true as const };
      }
    }
    if ((await countEndpoints(trx, workspaceId)) >= maxEndpointsPerWorkspace)
      throw new ApiError('limit-reached');
    await insertEndpoint(trx, { ...row, secret, updated_at: now });
    if (idempotency)
      await storeIdempotentAnswer(
        trx,
        {
          workspace_id: workspaceId,
          key: idempotency.key,
          request_sha256: idempotency.requestSha256,
          response: sealed,
          created_at: now,
        },
        since,
      );
    return created;
  });
}

/** The workspace an endpoint belongs to (operators' commands name endpoints by id alone). */
export async function workspaceOfEndpoint(ctx: Context, id: string): Promise<string> {
  const workspaceId = await findEndpointWorkspaceId(ctx.db, id);
  if (!workspaceId) throw new ApiError('not-found');
  return workspaceId;
}

export async function listEndpoints(ctx: Context, workspaceId: string): Promise<WebhookEndpoint[]> {
  return (await findEndpoints(ctx.db, workspaceId)).map(endpointRowToEndpoint);
}

/** The workspace's endpoints paused by failures, for the banner on every page. */
export async function listPausedEndpoints(ctx: Context, workspaceId: string): Promise<WebhookEndpoint[]> {
  return (await findPausedEndpoints(ctx.db, workspaceId)).map(endpointRowToEndpoint);
}

export async function getEndpoint(ctx: Context, workspaceId: string, id: string): Promise<WebhookEndpoint> {
  const row = await findEndpoint(ctx.db, workspaceId, id);
  if (!row) throw new ApiError('not-found');
  return endpointRowToEndpoint(row);
}

/**
 * Changes only the fields given. A new url passes every destination check again.
 * Re-enabling a disabled endpoint clears its failure count and disabledReason.
 */
export async function changeEndpoint(
  ctx: Context,
  workspaceId: string,
  id: string,
  input: UpdateEndpointInput,
): Promise<WebhookEndpoint> {
  if (!(await findEndpoint(ctx.db, workspaceId, id))) throw new ApiError('not-found');
  // Resolve outside the transaction: no row lock is held across DNS.
  const url = input.url === undefined ? undefined : await acceptedUrl(ctx, input.url);
  return ctx.db.transaction().execute(async (trx) => {
    const current = await lockEndpoint(trx, workspaceId, id);
    if (!current) throw new ApiError('not-found');
    const reenabled = input.enabled === true && !current.enabled;
    const patch = {
      ...(url === undefined ? {} : { url }),
      ...(input.events === undefined ? {} : { events: input.events }),
      ...(input.description === undefined ? {} : { description: input.description }),
      ...(input.enabled === undefined ? {} : { enabled: input.enabled }),
      ...(reenabled ? { failure_count: 0, disabled_reason: null, paused_at: null } : {}),
      updated_at: ctx.clock.now(),
    };
    await updateEndpoint(trx, workspaceId, id, patch);
    // Switched off: its pending deliveries are dropped, nothing is replayed later. Switched
    // back on: dropped again, for a fan-out that read the endpoint as enabled just before it
    // was switched off may have queued some after the first drop.
    if ((input.enabled === false && current.enabled) || reenabled) await dropPendingDeliveries(trx, id);
    return endpointRowToEndpoint({ ...current, ...patch });
  });
}

/** How long the previous secret keeps signing after a rotation, unless the caller says. */
export const defaultOverlapHours = 24;
export const maxOverlapHours = 168;

/**
 * Rotates an endpoint's signing secret: the new one is returned once, and for
 * `overlapHours` (0 to 168) every delivery is signed with both, so the receiver can switch
 * without missing one. Pending deliveries and retries are signed anew at each attempt, so
 * they carry the new secret too.
 */
export async function rotateEndpointSecret(
  ctx: Context,
  workspaceId: string,
  id: string,
  overlapHours: number = defaultOverlapHours,
): Promise<WebhookEndpoint & { secret: string }> {
  if (!Number.isInteger(overlapHours) || overlapHours < 0 || overlapHours > maxOverlapHours)
    throw new RangeError(`overlapHours must be a whole number from 0 to ${maxOverlapHours}`);
  const at = ctx.clock.now();
  const secret = newSecret(ctx);
  const previousUntil = overlapHours ? new Date(at.getTime() + overlapHours * 3_600_000) : null;
  const row = await rotateSecret(ctx.db, workspaceId, id, { secret, at, previousUntil });
  if (!row) throw new ApiError('not-found');
  return { ...endpointRowToEndpoint(row), secret };
}

export async function removeEndpoint(
  ctx: Context,
  workspaceId: string,
  id: string,
): Promise<{ id: string; deleted: true }> {
  await ctx.db.transaction().execute(async (trx) => {
    // Waits for a fan-out or an outcome being written for it (they lock the endpoint's row),
    // then takes its deliveries and their attempts with it.
    if (!(await deleteEndpoint(trx, workspaceId, id))) throw new ApiError('not-found');
    await deleteDeliveriesOf(trx, id);
  });
  return { id, deleted: true };
}
