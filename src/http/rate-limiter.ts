// Token buckets (spec, Limits): burst 120, refilled continuously at 1 request per second.
// One process keeps them in memory; with REDIS_URL they live in Redis, updated by one
// atomic script per request, so every process draws from the same bucket. While Redis is
// unreachable each process limits with buckets of its own (never refusing everything, never
// limiting nothing), says so once in the log and in signet_rate_limit_local_fallback, and
// shares again as soon as Redis answers.
import { once } from 'node:events';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics/metrics.ts';

export interface RateLimitResult {
  allowed: boolean;
  /** Whole requests left after this one. */
  remaining: number;
  /** Seconds until one request is available again (>= 1); meaningful when refused. */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  readonly burst: number;
  /** Takes a token from `bucket`, shaped as the limiter was made unless `shape` says otherwise. */
  take(bucket: string, nowMs: number, shape?: BucketShape): Promise<RateLimitResult>;
  close(): Promise<void>;
}

export interface BucketShape {
  burst: number;
  refillPerSecond: number;
}

function result(shape: BucketShape, allowed: boolean, tokens: number): RateLimitResult {
  const missing = Math.max(0, 1 - tokens);
  return {
    allowed,
    remaining: Math.max(0, Math.floor(tokens)),
    retryAfterSeconds: Math.max(1, Math.ceil(missing / shape.refillPerSecond)),
  };
}

export function createMemoryRateLimiter(defaultShape: BucketShape): RateLimiter {
  const buckets = new Map<string, { tokens: number; updatedMs: number; msToFill: number }>();
  let takesSincePrune = 0;

  // A bucket idle long enough to be full again is the same as no bucket: drop those so
  // memory follows the number of active clients, not every address ever seen.
  function prune(nowMs: number) {
    for (const [key, bucket] of buckets) {
      if (nowMs - bucket.updatedMs >= bucket.msToFill) buckets.delete(key);
    }
  }

  return {
    burst: defaultShape.burst,
    async take(key, nowMs, shape = defaultShape) {
      if (++takesSincePrune >= 10_000) {
        takesSincePrune = 0;
        prune(nowMs);
      }
      const bucket = buckets.get(key) ?? { tokens: shape.burst, updatedMs: nowMs };
      const elapsedMs = Math.max(0, nowMs - bucket.updatedMs);
      let tokens = Math.min(shape.burst, bucket.tokens + (elapsedMs / 1000) * shape.refillPerSecond);
      const allowed = tokens >= 1;
      if (allowed) tokens -= 1;
      const msToFill = (shape.burst / shape.refillPerSecond) * 1000;
      buckets.set(key, { tokens, updatedMs: Math.max(nowMs, bucket.updatedMs), msToFill });
      return result(shape, allowed, tokens);
    },
    async close() {},
  };
}

// KEYS[1] bucket; ARGV burst, refill per second, now (ms). Returns {allowed, tokens}
// with tokens as a string: Redis would truncate a Lua number to an integer.
const takeScript = `
local burst = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'updated')
local tokens = tonumber(state[1])
local updated = tonumber(state[2])
if tokens == nil or updated == nil then
  tokens = burst
  updated = now
end
tokens = math.min(burst, tokens + math.max(0, now - updated) * rate / 1000)
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'updated', tostring(math.max(now, updated)))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate * 1000) + 1000)
return {allowed, tostring(tokens)}
`;

type RedisWithTake = Redis & {
  signetTakeToken(key: string, burst: number, refill: number, nowMs: number): Promise<[number, string]>;
};

export interface RedisLimiterOptions {
  /** Key prefix in Redis (tests use one per run). */
  prefix?: string;
  /** Which limiter this is, in the log and the metrics: api or login. */
  name?: string;
  metrics?: Pick<Metrics, 'rateLimitLocal' | 'rateLimitLocalDecisions'>;
}

export async function createRedisRateLimiter(
  defaultShape: BucketShape,
  url: string,
  log: Logger,
  options: RedisLimiterOptions = {},
): Promise<RateLimiter> {
  const prefix = options.prefix ?? 'signet:rate:';
  const limiter = options.name ?? 'api';
  // Fail fast while Redis is unreachable instead of queueing requests behind it.
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 }) as RedisWithTake;
  let local = false;
  const goLocal = (error: unknown) => {
    if (local) return;
    local = true;
    options.metrics?.rateLimitLocal.set({ limiter }, 1);
    log.warn(
      { err: error, limiter },
      'Redis unreachable: rate limits are kept per process until it returns (logged once per outage)',
    );
  };
  const goShared = () => {
    if (!local) return;
    local = false;
    options.metrics?.rateLimitLocal.set({ limiter }, 0);
    log.info({ limiter }, 'Redis reachable again: rate limits are shared');
  };
  options.metrics?.rateLimitLocal.set({ limiter }, 0);
  // Before the first connection, the start-up check below reports the failure instead.
  let started = false;
  redis.on('error', (error) => {
    if (started) goLocal(error);
  });
  try {
    await Promise.race([
      once(redis, 'ready'),
      new Promise((_, reject) => setTimeout(() => reject(new Error('timed out after 5 s')), 5000)),
    ]);
  } catch (error) {
    redis.disconnect();
    throw new Error(`cannot reach Redis at REDIS_URL: ${(error as Error).message}`);
  }
  started = true;
  redis.defineCommand('signetTakeToken', { numberOfKeys: 1, lua: takeScript });
  const fallback = createMemoryRateLimiter(defaultShape);

  return {
    burst: defaultShape.burst,
    async take(key, nowMs, shape = defaultShape) {
      try {
        const [allowed, tokens] = await redis.signetTakeToken(
          prefix + key,
          shape.burst,
          shape.refillPerSecond,
          nowMs,
        );
        goShared();
        return result(shape, allowed === 1, Number(tokens));
      } catch (error) {
        goLocal(error);
        options.metrics?.rateLimitLocalDecisions.inc({ limiter });
        return fallback.take(key, nowMs, shape);
      }
    },
    async close() {
      redis.disconnect();
    },
  };
}
