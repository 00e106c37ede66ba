// The webhook engine's pacing rules, as tables (webhooks/local-queue.ts): how far ahead
// claims reach for an endpoint, and how many deliveries the claim queue holds. The running
// dispatcher's tests (webhook-delivery-dispatcher.test.ts) show them at work.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { prefetchLimit, roundsAhead } from '../../src/webhooks/local-queue.ts';

test('claims reach 8 rounds ahead of an endpoint of unknown pace, then as many as start in half the wait, 1 to 32', () => {
  const window = 9000; // 20 s lease - 10 s timeout - 1 s margin, the defaults
  const cases: Array<[number | null, number]> = [
    [null, 8],
    [0, 32],
    [1, 32], // a fast local receiver: 4,500 rounds would start in time; 32 is the most
    [140, 32],
    [150, 30],
    [500, 9],
    [1000, 4],
    [4500, 1],
    [10_000, 1], // an endpoint that times out still gets its slots filled once
  ];
  for (const [pace, rounds] of cases) assert.equal(roundsAhead(pace, window), rounds, `pace ${pace} ms`);
});

test('the claim queue holds 32 rounds of the slots, but at most 4,096 deliveries unless 2 rounds are more', () => {
  const cases: Array<[number, number]> = [
    [1, 32],
    [32, 1024],
    [128, 4096],
    [1000, 4096],
    [4000, 8000],
  ];
  for (const [concurrency, limit] of cases)
    assert.equal(prefetchLimit(concurrency), limit, `concurrency ${concurrency}`);
});
