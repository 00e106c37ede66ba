// The wake loop every background job runs on (src/wake-loop.ts): a wake replaces the pending
// interval's timer instead of leaving it behind, so stop() leaves nothing that keeps the
// process alive (the worker's 60 s mail interval once held a test file's process for 60 s).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createWakeLoop } from '../src/wake-loop.ts';

const pendingTimeouts = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

test('a wake replaces the interval timer, and stop() leaves no timer pending', async () => {
  const before = pendingTimeouts();
  let passes = 0;
  const loop = createWakeLoop({
    pass: async () => {
      passes++;
    },
    onError: (error) => assert.fail(String(error)),
    intervalMs: 60_000,
  });
  try {
    await new Promise((resolve) => setImmediate(resolve)); // the first pass, run at start
    await loop.idle();
    assert.equal(passes, 1);
    assert.equal(pendingTimeouts(), before + 1, 'the interval is pending after the first pass');
    loop.wake();
    await loop.idle();
    assert.equal(passes, 2);
    assert.equal(pendingTimeouts(), before + 1, 'one interval timer, not the old one beside the new');
  } finally {
    await loop.stop();
  }
  assert.equal(pendingTimeouts(), before, 'stop() cleared it');
});

test('a wake during a pass runs exactly one more pass after it, and a stopped loop runs none', async () => {
  let passes = 0;
  let release: () => void = () => {};
  const loop = createWakeLoop({
    pass: () => {
      passes++;
      return new Promise<void>((resolve) => {
        release = resolve;
      });
    },
    onError: (error) => assert.fail(String(error)),
    startNow: false,
  });
  loop.wake();
  loop.wake();
  loop.wake();
  assert.equal(passes, 1);
  release();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(passes, 2, 'the wakes during the pass made one more pass');
  release();
  await loop.idle();
  await loop.stop();
  loop.wake();
  assert.equal(passes, 2);
});
