// GET /metrics: the output parses as the Prometheus text format, and the series move with
// what the test does: requests by route template, method and status; rate-limit refusals;
// webhook attempts by outcome and error class, from the running dispatcher; the backlog
// gauges read from the database. SIGNET_METRICS=false turns it off; SIGNET_METRICS_PORT
// moves it (with the health checks) to a listener of its own.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { backlogFreshMs } from '../../src/metrics/metrics.ts';
import { startServer } from '../../src/server.ts';
import { startDispatcher } from '../../src/webhooks/dispatcher.ts';
import { createEndpoint } from '../../src/webhooks/endpoints.service.ts';
import {
  callApi,
  createSentDocument,
  createTestWorkspace,
  describeEachDatabase,
  useHarness,
  withApp,
} from '../support/harness.ts';
import { startReceiver } from '../support/receiver.ts';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * Parses the Prometheus text exposition format strictly: every line is a HELP or TYPE
 * comment, blank, or `name{label="value",…} number`; every sample's family was typed.
 */
function parsePrometheus(text: string): Sample[] {
  const typed = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const comment = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (comment) {
      if (comment[1] === 'TYPE') {
        assert.match(comment[3] as string, /^(counter|gauge|histogram|summary|untyped)$/, line);
        typed.set(comment[2] as string, comment[3] as string);
      }
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?[0-9.e+-]+|NaN|[+-]Inf)$/i.exec(line);
    assert.ok(sample, `not a Prometheus line: ${line}`);
    const name = sample[1] as string;
    const family = name.replace(/_(bucket|sum|count)$/, '');
    assert.ok(typed.has(name) || typed.has(family), `${name} has a TYPE line`);
    const labels: Record<string, string> = {};
    for (const pair of (sample[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[pair[1] as string] = pair[2] as string;
    samples.push({ name, labels, value: Number(sample[3]) });
  }
  return samples;
}

function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

describeEachDatabase('metrics', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_WEBHOOK_ALLOW_UNSAFE: '1' } });

  async function scrape(base = h.baseUrl): Promise<Sample[]> {
    const res = await fetch(`${base}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    return parsePrometheus(await res.text());
  }

  test('requests are counted by route template, method and status, with their latency', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id: documentId } = await createSentDocument(h.ctx, ws.id);
    const before = await scrape();
    for (let i = 0; i < 3; i++) await callApi(h, 'GET', '/v1/documents', { key: ws.apiKey });
    await callApi(h, 'GET', `/v1/documents/${documentId}`, { key: ws.apiKey });
    await callApi(h, 'GET', '/v1/documents', { key: 'sgn_nope' });
    await callApi(h, 'GET', '/v1/nothing-here', { key: ws.apiKey });
    const after = await scrape();
    const moved = (labels: Record<string, string>) =>
      value(after, 'signet_http_requests_total', labels) -
      value(before, 'signet_http_requests_total', labels);
    assert.equal(moved({ route: '/v1/documents', method: 'GET', status: '200' }), 3);
    assert.equal(
      moved({ route: '/v1/documents/:id', method: 'GET', status: '200' }),
      1,
      'the template, not the id',
    );
    assert.equal(moved({ route: '/v1/documents', method: 'GET', status: '401' }), 1);
    assert.equal(moved({ status: '404' }), 1);
    assert.ok(
      !after.some((s) => Object.values(s.labels).some((v) => v.includes(documentId))),
      'no id in any label',
    );
    const counted =
      value(after, 'signet_http_request_duration_seconds_count', { route: '/v1/documents', method: 'GET' }) -
      value(before, 'signet_http_request_duration_seconds_count', { route: '/v1/documents', method: 'GET' });
    assert.equal(counted, 4, 'every request has its latency observed');
  });

  test('rate-limit refusals are counted', async () => {
    await withApp(h.ctx, { burst: 2, refillPerSecond: 1 }, async (base) => {
      const ws = await createTestWorkspace(h.ctx);
      const before = value(await scrape(base), 'signet_rate_limit_rejections_total', { limiter: 'api' });
      const statuses = [];
      for (let i = 0; i < 5; i++)
        statuses.push((await callApi({ baseUrl: base }, 'GET', '/v1/documents', { key: ws.apiKey })).status);
      assert.deepEqual(statuses, [200, 200, 429, 429, 429]);
      const after = value(await scrape(base), 'signet_rate_limit_rejections_total', { limiter: 'api' });
      assert.equal(after - before, 3);
    });
  });

  test('webhook attempts by outcome and error class, from the running dispatcher; backlog gauges', async () => {
    let failing = true;
    const receiver = await startReceiver((_request, response) => {
      response.statusCode = failing ? 500 : 200;
      response.end('ok');
    });
    try {
      const ws = await createTestWorkspace(h.ctx);
      const endpoint = await createEndpoint(h.ctx, ws.id, {
        url: `${receiver.url}/hooks`,
        events: ['document.sent'],
      });
      const before = await scrape();
      // Three events wait in the outbox: the backlog gauges see them before any worker runs.
      for (let i = 0; i < 3; i++) await createSentDocument(h.ctx, ws.id);
      // The backlog is read at most once a second, whoever scrapes.
      await new Promise((resolve) => setTimeout(resolve, backlogFreshMs));
      const waiting = await scrape();
      assert.ok(value(waiting, 'signet_webhook_deliveries_due') >= 3, 'due deliveries and unfanned events');
      assert.ok(value(waiting, 'signet_mail_outbox_depth') >= 3, 'the signing mails wait to be sent');
      assert.ok(value(waiting, 'signet_webhook_oldest_due_age_seconds') >= 0);

      const dispatcher = await startDispatcher(h.ctx, { subscribe: h.subscribe });
      try {
        await dispatcher.idle();
        const failed = await scrape();
        const attempts = (samples: Sample[], labels: Record<string, string>) =>
          value(samples, 'signet_webhook_attempts_total', labels) -
          value(before, 'signet_webhook_attempts_total', labels);
        assert.equal(attempts(failed, { outcome: 'failed', error_class: 'http-status' }), 3);
        assert.equal(attempts(failed, { outcome: 'delivered' }), 0);
        assert.equal(value(failed, 'signet_webhook_attempts_in_flight'), 0);

        failing = false;
        h.clock.advance(6 * 60_000); // past the first retry's delay
        dispatcher.wake();
        await dispatcher.idle();
        const delivered = await scrape();
        assert.equal(attempts(delivered, { outcome: 'delivered', error_class: '' }), 3);
      } finally {
        await dispatcher.stop();
      }

      await h.ctx.db
        .updateTable('webhook_endpoints')
        .set({ enabled: false, disabled_reason: 'failures', paused_at: h.clock.now() })
        .where('id', '=', endpoint.id)
        .execute();
      await new Promise((resolve) => setTimeout(resolve, backlogFreshMs));
      const paused = await scrape();
      assert.ok(value(paused, 'signet_webhook_endpoints_paused') >= 1);
      assert.equal(value(paused, 'signet_database_up'), 1);
    } finally {
      await receiver.close();
    }
  });
});

test('SIGNET_METRICS=false turns /metrics off; SIGNET_METRICS_PORT serves it (and health) on its own port only', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'signet-metrics-'));
  const common = { SIGNET_DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'silent' };
  try {
    const off = await startServer(loadConfig({ ...common, SIGNET_METRICS: 'false' }), 'api');
    try {
      assert.equal((await fetch(`${off.url}/metrics`)).status, 404);
      assert.equal(off.metricsUrl, null);
    } finally {
      await off.close();
    }
    const apart = await startServer(loadConfig({ ...common, SIGNET_METRICS_PORT: '0' }), 'all');
    try {
      assert.equal((await fetch(`${apart.url}/metrics`)).status, 404, 'not on the main port');
      const res = await fetch(`${apart.metricsUrl}/metrics`);
      assert.equal(res.status, 200);
      const samples = parsePrometheus(await res.text());
      assert.ok(
        samples.some((s) => s.name === 'signet_process_resident_memory_bytes'),
        'process metrics in a server',
      );
      assert.equal((await fetch(`${apart.metricsUrl}/healthz`)).status, 200);
      assert.equal((await fetch(`${apart.metricsUrl}/readyz`)).status, 200);
    } finally {
      await apart.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
