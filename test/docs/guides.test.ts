// The verification examples of docs/guides/webhooks.md, TypeScript and Python, run exactly
// as published (extracted from the Markdown) on a real delivery: a valid one, a tampered
// body, another secret, a stale and a future timestamp (and exactly the 5-minute edge),
// a malformed header and an unreadable time; and during a rotation's overlap (two v1=),
// a delivery that each of the two secrets verifies and a third does not.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { sendPing } from '../../src/webhooks/deliveries.service.ts';
import { rotateEndpointSecret } from '../../src/webhooks/endpoints.service.ts';
import { guideBlock, readGuide } from '../support/guide-code.ts';
import { createTestWorkspace, describeEachDatabase, useHarness } from '../support/harness.ts';
import { receivePing, startReceiver } from '../support/receiver.ts';

const guide = readGuide('webhooks.md');
const work = mkdtempSync(join(tmpdir(), 'signet-guides-'));
after(() => rmSync(work, { recursive: true, force: true }));

const block = (heading: string, language: string) => guideBlock(guide, heading, language);

type Verify = (rawBody: string, header: string, secret: string, nowMs: number) => Promise<boolean>;

async function typescriptVerifier(): Promise<Verify> {
  const file = join(work, 'verify.ts');
  writeFileSync(file, block('### Verify in TypeScript', 'ts'));
  const module = (await import(pathToFileURL(file).href)) as {
    verifySignet(raw: string, header: string, secret: string, now: number): boolean;
  };
  return async (raw, header, secret, now) => module.verifySignet(raw, header, secret, now);
}

function pythonVerifier(): Verify {
  const file = join(work, 'verify.py');
  writeFileSync(
    file,
    `${block('### Verify in Python', 'python')}

if __name__ == "__main__":
    import json, sys
    case = json.load(sys.stdin)
    print("valid" if verify_signet(case["body"].encode(), case["header"], case["secret"], case["now"]) else "refused")
`,
  );
  return async (raw, header, secret, now) => {
    const out = execFileSync('python3', [file], {
      input: JSON.stringify({ body: raw, header, secret, now: now / 1000 }),
    });
    return out.toString().trim() === 'valid';
  };
}

describeEachDatabase('the guide’s verification examples', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_WEBHOOK_ALLOW_UNSAFE: '1' } });

  test('TypeScript and Python accept a real delivery and refuse every forgery', async () => {
    const receiver = await startReceiver();
    try {
      const ws = await createTestWorkspace(h.ctx);
      const { endpoint, delivery, header } = await receivePing(h.ctx, ws.id, receiver);
      const sent = Date.parse(/^t=([^,]+)/.exec(header)?.[1] ?? '');
      // The same endpoint's secret rotated: the next ping carries two v1=, new one first.
      const rotated = await rotateEndpointSecret(h.ctx, ws.id, endpoint.id, 24);
      assert.equal((await sendPing(h.ctx, ws.id, endpoint.id)).ok, true);
      const twice = receiver.requests.at(-1) as { body: string; headers: Record<string, unknown> };
      const twoHeader = String(twice.headers['x-service-signature']);
      const twoSent = Date.parse(/^t=([^,]+)/.exec(twoHeader)?.[1] ?? '');
      assert.equal(twoHeader.split(',v1=').length, 3, 'two signatures');
      const cases: Array<[string, string, string, string, number, boolean]> = [
        ['two signatures, the previous secret', twice.body, twoHeader, endpoint.secret, twoSent, true],
        ['two signatures, the new secret', twice.body, twoHeader, rotated.secret, twoSent, true],
        ['two signatures, another secret', twice.body, twoHeader, 'whsec_someone-else', twoSent, false],
        [
          'two signatures, a tampered body',
          twice.body.replace('"ping"', '"pong"'),
          twoHeader,
          rotated.secret,
          twoSent,
          false,
        ],
        ['a real delivery', delivery.body, header, endpoint.secret, sent + 1_000, true],
        ['exactly 5 minutes later', delivery.body, header, endpoint.secret, sent + 300_000, true],
        ['exactly 5 minutes earlier', delivery.body, header, endpoint.secret, sent - 300_000, true],
        ['a tampered body', delivery.body.replace('"ping"', '"pong"'), header, endpoint.secret, sent, false],
        ['another secret', delivery.body, header, 'whsec_someone-else', sent, false],
        ['a stale timestamp', delivery.body, header, endpoint.secret, sent + 301_000, false],
        ['a future timestamp', delivery.body, header, endpoint.secret, sent - 301_000, false],
        ['a malformed header', delivery.body, 'v1=abc', endpoint.secret, sent, false],
        [
          'an unreadable time',
          delivery.body,
          header.replace(/^t=[^,]+/, 't=2026-13-45T99:99:99.000Z'),
          endpoint.secret,
          sent,
          false,
        ],
      ];
      for (const [language, verify] of [
        ['TypeScript', await typescriptVerifier()],
        ['Python', pythonVerifier()],
      ] as const) {
        for (const [name, body, signature, secret, now, expected] of cases) {
          assert.equal(await verify(body, signature, secret, now), expected, `${language}: ${name}`);
        }
      }
    } finally {
      await receiver.close();
    }
  });
});
