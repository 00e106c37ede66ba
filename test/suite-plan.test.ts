// How `npm test` plans its processes (test/suite-plan.ts): every file runs once per database
// kind, small files of one folder share a process up to `batchSeconds`, never across folders,
// and a file that starts something, writes process.env or is long keeps a process of its own.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { batchSeconds, planJobs, seconds, sharesProcess, splitAboveSeconds } from './suite-plan.ts';

const testDir = import.meta.dirname;
const names = readdirSync(testDir, { recursive: true, encoding: 'utf8' })
  .filter((path) => path.endsWith('.test.ts') && !/^(fixtures|output)\//.test(path))
  .map((path) => path.split('\\').join('/'))
  .sort();
const source = (name: string) => readFileSync(join(testDir, name), 'utf8');

test('every file runs once with every kind; a process holds one folder, within batchSeconds', () => {
  const kinds = ['pglite', 'postgres'];
  const jobs = planJobs(names, kinds, source);
  const runs = new Map<string, number>();
  for (const job of jobs) {
    for (const name of job.files) runs.set(name, (runs.get(name) ?? 0) + job.kinds.length);
    if (job.files.length > 1) {
      assert.equal(
        new Set(job.files.map((name) => name.split('/').slice(0, -1).join('/'))).size,
        1,
        job.files.join(' '),
      );
      assert.ok(job.weight <= batchSeconds, `${job.files.join(' ')} weighs ${job.weight}`);
      assert.deepEqual(job.kinds, kinds);
      for (const name of job.files) assert.ok(sharesProcess(name, source(name)), name);
    }
  }
  assert.deepEqual([...runs.keys()].sort(), names);
  for (const [name, count] of runs) assert.equal(count, kinds.length, name);
  assert.ok(jobs.length < names.length, 'some files share a process');
  for (let i = 1; i < jobs.length; i++)
    assert.ok((jobs[i - 1]?.weight ?? 0) >= (jobs[i]?.weight ?? 0), 'longest first');
});

test('a file that starts something, writes process.env or is long keeps a process of its own', () => {
  assert.equal(sharesProcess('web/web-pages.test.ts', "import { chromium } from 'playwright-core';"), false);
  assert.equal(
    sharesProcess('cli/cli-webhooks.test.ts', "import { runSignet } from '../support/cli-process.ts';"),
    false,
  );
  assert.equal(sharesProcess('db/pg-array.test.ts', "process.env.SIGNET_X = '1';"), false);
  assert.equal(sharesProcess('db/pg-array.test.ts', 'delete process.env.SIGNET_X;'), false);
  assert.equal(sharesProcess('db/pg-array.test.ts', "process.env['SIGNET_X'] ??= '1';"), false);
  assert.equal(sharesProcess('db/pg-array.test.ts', "const url = process.env.SIGNET_X === 'y';"), true);
  const long = Object.entries(seconds).find(([, s]) => s >= splitAboveSeconds)?.[0] as string;
  assert.equal(sharesProcess(long, ''), false, `${long} is long`);
  assert.equal(sharesProcess('new/never-measured.test.ts', ''), false, 'a file not yet measured runs alone');
});
