// `signet document …`, `signet trigger …` and `signet mail list`: argument formats, and
// that trigger really drives a document through the lifecycle to the asked event.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { UsageError } from '../../src/cli/args.ts';
import { parseDuration, parsePriceArg, parseRecipientArg } from '../../src/cli/documents.ts';
import { triggerEvent } from '../../src/demo/trigger.ts';
import { documentEventTypes } from '../../src/documents/events.ts';
import { callApi, createTestWorkspace, describeEachDatabase, useHarness } from '../support/harness.ts';

const run = promisify(execFile);
const main = join(import.meta.dirname, '..', '..', 'src', 'main.ts');

test('recipient arguments: email, full name (commas allowed), role, order and an optional method', () => {
  assert.deepEqual(parseRecipientArg('ann@x.example,Ann Lee,signer,1'), {
    email: 'ann@x.example',
    fullName: 'Ann Lee',
    role: 'signer',
    signingMethod: 'standard',
    signingOrder: 1,
  });
  assert.deepEqual(parseRecipientArg('v@x.example, Lee, Ann ,viewer,2,email-code'), {
    email: 'v@x.example',
    fullName: 'Lee, Ann',
    role: 'viewer',
    signingMethod: 'email-code',
    signingOrder: 2,
  });
  for (const bad of [
    'ann@x.example',
    'ann@x.example,Ann,signer',
    'a@x.example,Ann,owner,1',
    'a@x.example,Ann,signer,one',
  ]) {
    assert.throws(() => parseRecipientArg(bad), UsageError, bad);
  }
});

test('price arguments: item (commas allowed), quantity, unit price, VAT rate and an optional recurrence', () => {
  assert.deepEqual(parsePriceArg('Setup,1,1500.00,21'), {
    name: 'Setup',
    quantity: '1',
    unitPrice: '1500.00',
    vatRate: '21',
    billing: { type: 'one-off' },
  });
  assert.deepEqual(parsePriceArg('Rent, office,1,1200,0,month,12'), {
    name: 'Rent, office',
    quantity: '1',
    unitPrice: '1200',
    vatRate: '0',
    billing: { type: 'recurring', interval: 'month', periods: 12 },
  });
  assert.throws(() => parsePriceArg('Setup,1,1500'), UsageError);
});

test('durations: seconds, minutes, hours and days', () => {
  assert.equal(parseDuration('90'), 90);
  assert.equal(parseDuration('90s'), 90);
  assert.equal(parseDuration('15m'), 900);
  assert.equal(parseDuration('12h'), 43_200);
  assert.equal(parseDuration('30d'), 2_592_000);
  for (const bad of ['', '1w', '-1d', '1.5h', 'soon'])
    assert.throws(() => parseDuration(bad), UsageError, bad);
});

describeEachDatabase('signet trigger', (kind) => {
  const h = useHarness(kind);
  for (const type of documentEventTypes) {
    test(`trigger ${type} drives a sample document until ${type} happens`, async () => {
      const ws = await createTestWorkspace(h.ctx);
      const { documentId, eventId } = await triggerEvent(h.ctx, ws.id, type);
      const res = await callApi(h, 'GET', `/v1/documents/${documentId}`, { key: ws.apiKey });
      const doc = res.body.data as {
        status: string;
        events: Array<{ id: string; type: string; createdAt: string }>;
      };
      const event = doc.events.find((e) => e.id === eventId);
      assert.equal(event?.type, type);
      assert.ok(event.createdAt <= h.clock.now().toISOString(), 'nothing is dated in the future');
      const expectedStatus = {
        'document.sent': 'sent',
        'document.opened': 'viewed',
        'document.signed': 'viewed',
        'document.completed': 'signed',
        'document.declined': 'declined',
        'document.expired': 'expired',
      }[type];
      assert.equal(doc.status, expectedStatus);
      assert.equal(doc.events[0]?.type, 'document.sent');
    });
  }
});

describe('signet document and mail commands', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const signet = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await run(process.execPath, [main, ...args], { env });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'signet-cli-docs-'));
    env = {
      ...process.env,
      SIGNET_DATA_DIR: dir,
      LOG_LEVEL: 'warn',
      SIGNET_PUBLIC_URL: 'https://sign.example.test',
    };
    delete env.DATABASE_URL;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('create, send, read the mail, and refuse a second send with one line and exit 1', async () => {
    const ws = JSON.parse((await signet('workspace', 'create', '--name', 'Docs', '--json')).stdout) as {
      id: string;
    };
    const created = await signet(
      'document',
      'create',
      '--workspace',
      ws.id,
      '--title',
      'Lease',
      '--json',
      '--recipient',
      'ann@x.example,Ann Lee,signer,1',
      '--recipient',
      'cfo@x.example,Casey,viewer,2',
      '--price',
      'Rent,1,1200.00,0,month,12',
      '--price',
      'Deposit,1,2400,0',
      '--currency',
      'eur',
      '--expires-in',
      '7d',
      '--remind-every',
      '3d',
    );
    assert.equal(created.code, 0, created.stderr);
    const doc = JSON.parse(created.stdout) as {
      id: string;
      status: string;
      value: unknown;
      recipients: unknown[];
    };
    assert.equal(doc.status, 'draft');
    assert.deepEqual(doc.value, { amount: 16_800, currency: 'EUR' });
    assert.equal(doc.recipients.length, 2);

    const sent = await signet('document', 'send', doc.id, '--json');
    assert.equal(sent.code, 0, sent.stderr);
    const result = JSON.parse(sent.stdout) as {
      document: { status: string; sentAt: string; expiresAt: string };
    };
    assert.equal(result.document.status, 'sent');
    assert.equal(Date.parse(result.document.expiresAt) - Date.parse(result.document.sentAt), 7 * 86_400_000);

    const mails = JSON.parse((await signet('mail', 'list', '--document', doc.id, '--json')).stdout) as Array<{
      to: string;
      text: string;
    }>;
    // Signing order is honoured by mail: the first group (Ann) now; the viewer of order 2 when Ann has signed.
    assert.deepEqual(
      mails.map((m) => m.to),
      ['ann@x.example'],
    );
    assert.ok(
      mails.every((m) =>
        new RegExp(`https://sign\\.example\\.test/sign/${doc.id}/[A-Za-z0-9_-]{43}`).test(m.text),
      ),
    );

    const again = await signet('document', 'send', doc.id);
    assert.equal(again.code, 1);
    assert.equal(again.stderr.trim().split('\n').length, 1);
    assert.match(again.stderr, /^signet: /);
  });

  test('bad document arguments exit 2 with one line', async () => {
    const ws = JSON.parse((await signet('workspace', 'create', '--name', 'Bad', '--json')).stdout) as {
      id: string;
    };
    const cases = [
      ['document', 'create', '--workspace', ws.id, '--title', 'No recipients'],
      [
        'document',
        'create',
        '--workspace',
        ws.id,
        '--title',
        'Viewer only',
        '--recipient',
        'v@x.example,V,viewer,1',
      ],
      [
        'document',
        'create',
        '--workspace',
        ws.id,
        '--title',
        'Bad price',
        '--recipient',
        'a@x.example,A,signer,1',
        '--price',
        'X,1,abc,21',
      ],
      [
        'document',
        'create',
        '--workspace',
        ws.id,
        '--title',
        'Bad currency',
        '--recipient',
        'a@x.example,A,signer,1',
        '--price',
        'X,1,1,21',
        '--currency',
        'XYZ',
      ],
      // Automatic reminders: a number of days among the choices (the service's rule, passed through).
      [
        'document',
        'create',
        '--workspace',
        ws.id,
        '--title',
        'T',
        '--recipient',
        'a@x.example,A,signer,1',
        '--remind-every',
        '4d',
      ],
      [
        'document',
        'create',
        '--workspace',
        ws.id,
        '--title',
        'T',
        '--recipient',
        'a@x.example,A,signer,1',
        '--remind-every',
        'soon',
      ],
      ['trigger', 'document.unknown', '--workspace', ws.id],
      ['document', 'send', 'not-a-uuid'],
    ];
    for (const args of cases) {
      const result = await signet(...args);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.equal(result.stderr.trim().split('\n').length, 1);
      assert.match(result.stderr, /^signet: /);
    }
  });

  test('--fields places a JSON array of fields on the --file; a bad one exits 2 with its sentence', async () => {
    const ws = JSON.parse((await signet('workspace', 'create', '--name', 'Fields', '--json')).stdout) as {
      id: string;
    };
    const pdf = join(import.meta.dirname, '..', 'fixtures', 'pdf', 'latex-xref-table.pdf');
    const write = (name: string, fields: unknown) => {
      const path = join(dir, name);
      writeFileSync(path, JSON.stringify(fields));
      return path;
    };
    const signature = {
      recipient: 'ann@x.example',
      type: 'signature',
      page: 1,
      x: 72,
      y: 90,
      width: 180,
      height: 40,
    };
    const company = { ...signature, type: 'text', y: 150, label: 'Company', maxLength: 40, required: false };
    const args = ['document', 'create', '--workspace', ws.id, '--title', 'Lease', '--file', pdf];
    const people = [
      '--recipient',
      'ann@x.example,Ann Lee,signer,1',
      '--recipient',
      'cfo@x.example,Casey,viewer,2',
    ];
    const created = await signet(
      ...args,
      ...people,
      '--fields',
      write('fields.json', [signature, company]),
      '--json',
    );
    assert.equal(created.code, 0, created.stderr);
    const document = JSON.parse(created.stdout) as {
      id: string;
      recipients: Array<{
        email: string;
        fields: Array<{ type: string; label: string | null; filled: boolean }>;
      }>;
    };
    assert.deepEqual(
      document.recipients.map((r) => [r.email, r.fields.map((f) => [f.type, f.label, f.filled])]),
      [
        [
          'ann@x.example',
          [
            ['signature', null, false],
            ['text', 'Company', false],
          ],
        ],
        ['cfo@x.example', []],
      ],
    );

    const offPage = await signet(
      ...args,
      ...people,
      '--fields',
      write('off.json', [{ ...signature, x: 500 }]),
    );
    assert.equal(offPage.code, 2);
    assert.match(offPage.stderr, /Field 1: it lies off page 1, which is 595\.28 × 841\.89 points/);
    const viewer = await signet(
      ...args,
      ...people,
      '--fields',
      write('viewer.json', [{ ...signature, recipient: 'cfo@x.example' }]),
    );
    assert.match(viewer.stderr, /Field 1: cfo@x\.example is a viewer; only signers fill fields\./);
    const notJson = await signet(
      ...args,
      ...people,
      '--fields',
      write('bad.json', 'x').replace('.json', '.txt'),
    );
    assert.match(notJson.stderr, /--fields .*: no such file/);

    const replaced = await signet(
      'document',
      'fields',
      document.id,
      '--fields',
      write('one.json', [company]),
    );
    assert.equal(replaced.code, 0, replaced.stderr);
    assert.match(replaced.stdout, /has 1 field now/);
    assert.equal((await signet('document', 'send', document.id)).code, 0);
    const late = await signet('document', 'fields', document.id, '--fields', write('none.json', []));
    assert.equal(late.code, 1);
    assert.match(late.stderr, /This document has been sent, so it can no longer be edited\./);
  });
});
