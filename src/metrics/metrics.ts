// Prometheus metrics (prom-client): every series Signet exports, defined here once, in a
// registry of the process's context (tests build many contexts; none shares a global
// registry). Counters move where things happen (HTTP hook, rate limiters, dispatcher);
// backlog gauges are read from the database when scraped. Served at GET /metrics on the
// main port, on SIGNET_METRICS_PORT instead, or not at all (SIGNET_METRICS=false).
// Labels carry route templates and classes, never ids, addresses or secrets.
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import { type Backlog, readBacklog } from './backlog.repository.ts';

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

export interface MetricsOptions {
  db: Kysely<Database>;
  clock: Clock;
  /** The PostgreSQL pool's use; absent for PGlite (one backend, no pool). */
  poolStats?: () => PoolStats;
  /** Process metrics (CPU, memory, event loop, GC): for servers, not for tests' contexts. */
  processMetrics?: boolean;
}

export type Metrics = ReturnType<typeof createMetrics>;

/** How long one read of the backlog serves the scrapes that follow it. */
export const backlogFreshMs = 1000;

export function createMetrics(options: MetricsOptions) {
  const registry = new Registry();
  const registers = [registry];
  if (options.processMetrics) collectDefaultMetrics({ register: registry, prefix: 'signet_' });

  // One backlog read shared by the gauges below and by every scrape within a second, so
  // /metrics on a public port cannot be turned into a stream of database queries.
  let backlog: { readAt: number; value: Promise<Backlog | null> } | null = null;
  function currentBacklog(): Promise<Backlog | null> {
    const now = Date.now();
    if (!backlog || now - backlog.readAt >= backlogFreshMs) {
      // An outage must not fail the scrape: the gauges then keep their last values and
      // signet_database_up says why.
      backlog = { readAt: now, value: readBacklog(options.db, options.clock.now()).catch(() => null) };
    }
    return backlog.value;
  }
  function backlogGauge(name: string, help: string, pick: (b: Backlog) => number) {
    return new Gauge({
      name,
      help,
      registers,
      async collect() {
        const value = await currentBacklog();
        if (value) this.set(pick(value));
      },
    });
  }

  const metrics = {
    registry,
    /** The text of every series. */
    scrape(): Promise<string> {
      return registry.metrics();
    },
    httpRequests: new Counter({
      name: 'signet_http_requests_total',
      help: 'HTTP requests answered, by route template, method and status',
      labelNames: ['route', 'method', 'status'] as const,
      registers,
    }),
    httpDuration: new Histogram({
      name: 'signet_http_request_duration_seconds',
      help: 'Time from request to response, by route template and method',
      labelNames: ['route', 'method'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    }),
    rateLimitRejections: new Counter({
      name: 'signet_rate_limit_rejections_total',
      help: 'Requests refused by a token bucket (api: 429 rate-limited; login: log-in attempts; signup: sign-ups; verify: files sent to /verify)',
      labelNames: ['limiter'] as const,
      registers,
    }),
    authChangesHeard: new Counter({
      name: 'signet_auth_changes_heard_total',
      help: 'Key revocations and plan changes this process heard (LISTEN/NOTIFY) and dropped its cached keys for',
      registers,
    }),
    rateLimitLocal: new Gauge({
      name: 'signet_rate_limit_local_fallback',
      help: '1 while Redis is unreachable and this process limits with its own buckets',
      labelNames: ['limiter'] as const,
      registers,
    }),
    rateLimitLocalDecisions: new Counter({
      name: 'signet_rate_limit_local_decisions_total',
      help: 'Rate-limit decisions taken in process memory because Redis was unreachable',
      labelNames: ['limiter'] as const,
      registers,
    }),
    deliveries: new Counter({
      name: 'signet_webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome (delivered, failed) and error class',
      labelNames: ['outcome', 'error_class'] as const,
      registers,
    }),
    attemptsInFlight: new Gauge({
      name: 'signet_webhook_attempts_in_flight',
      help: 'Webhook attempts being sent by this process now',
      registers,
    }),
    pageRenders: new Counter({
      name: 'signet_page_renders_total',
      help: 'Page images drawn (outcome drawn) or given up and answered with a placeholder from then on (timeout, out-of-memory, invalid-pdf, encrypted)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    databaseUp: new Gauge({
      name: 'signet_database_up',
      help: '0 while this process cannot reach the database, 1 otherwise',
      registers,
    }),
    dueDeliveries: backlogGauge(
      'signet_webhook_deliveries_due',
      'Deliveries due now that no worker holds, plus events not yet fanned out (each capped at 100000)',
      (b) => b.dueDeliveries + b.outboxEvents,
    ),
    oldestDue: backlogGauge(
      'signet_webhook_oldest_due_age_seconds',
      'How long the longest-waiting due delivery or unfanned event has waited (0 when none)',
      (b) =>
        b.oldestDueAt ? Math.max(0, (options.clock.now().getTime() - b.oldestDueAt.getTime()) / 1000) : 0,
    ),
    pausedEndpoints: backlogGauge(
      'signet_webhook_endpoints_paused',
      'Webhook endpoints paused after 20 consecutive failures',
      (b) => b.pausedEndpoints,
    ),
    mailOutbox: backlogGauge(
      'signet_mail_outbox_depth',
      'Mails waiting to be sent (capped at 100000)',
      (b) => b.pendingMails,
    ),
    sealsOwed: backlogGauge(
      'signet_seals_owed',
      'Signed documents whose sealed PDF is still to be made (capped at 100000)',
      (b) => b.sealsOwed,
    ),
    sealsFailed: backlogGauge(
      'signet_seals_failed',
      'Signed documents whose seal failed after every retry: see documents.seal_error',
      (b) => b.sealsFailed,
    ),
    poolConnections: new Gauge({
      name: 'signet_db_pool_connections',
      help: 'PostgreSQL pool connections of this process by state (total, idle, waiting clients, max)',
      labelNames: ['state'] as const,
      registers,
      collect() {
        const stats = options.poolStats?.();
        if (!stats) return;
        for (const state of ['total', 'idle', 'waiting', 'max'] as const) this.set({ state }, stats[state]);
      },
    }),
  };
  metrics.databaseUp.set(1);
  metrics.attemptsInFlight.set(0);
  return metrics;
}

/** `GET /metrics` in the Prometheus text format, no key, no envelope. */
export function metricsRoutes(metrics: Metrics) {
  return async function register(app: FastifyInstance) {
    app.get('/metrics', async (_request, reply) => {
      const text = await metrics.scrape();
      return reply
        .header('content-type', metrics.registry.contentType)
        .header('cache-control', 'no-store')
        .send(text);
    });
  };
}
