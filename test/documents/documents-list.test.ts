// GET /v1/documents: paging, filters, cursors and every error the endpoint can return.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { insertSampleDocuments } from '../../src/demo/seed.ts';
import { cursorLifetimeMs } from '../../src/documents/cursor.ts';
import {
  callApi,
  createTestDocument,
  createTestWorkspace,
  describeEachDatabase,
  listedDocumentKeys,
  type TestWorkspace,
  useHarness,
} from '../support/harness.ts';

interface ListedDocument {
  id: string;
  title: string;
  status: string;
  url: string;
  createdAt: string;
  sentAt: string | null;
  signedAt: string | null;
  expiresAt: string | null;
  value: { amount: number; currency: string } | null;
}

const timestampPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const statuses = ['draft', 'sent', 'viewed', 'signed', 'declined', 'expired'];

describeEachDatabase('GET /v1/documents', (kind) => {
  const h = useHarness(kind);
  let ws: TestWorkspace;
  const list = (query = '', key: string | null = ws.apiKey) =>
    callApi(h, 'GET', `/v1/documents${query}`, { key });

  test('setup: a workspace with 60 documents', async () => {
    ws = await createTestWorkspace(h.ctx);
    await insertSampleDocuments(h.ctx, ws.id, 60, { seed: 7 });
  });

  test('answers 25 documents newest first by default, with a nextCursor', async () => {
    const res = await list();
    assert.equal(res.status, 200);
    assert.equal(res.body.ok, true);
    const docs = res.body.data as ListedDocument[];
    assert.equal(docs.length, 25);
    for (let i = 1; i < docs.length; i++) {
      assert.ok((docs[i - 1] as ListedDocument).createdAt >= (docs[i] as ListedDocument).createdAt);
    }
    assert.equal(typeof res.body.nextCursor, 'string');
    assert.deepEqual(Object.keys(res.body).sort(), ['data', 'nextCursor', 'ok']);
  });

  test('every field is present, null when it has no value, timestamps in ISO 8601 UTC with ms', async () => {
    const docs = (await list('?limit=100')).body.data as ListedDocument[];
    for (const doc of docs) {
      assert.deepEqual(Object.keys(doc).sort(), listedDocumentKeys);
      assert.match(doc.id, /^[0-9a-f-]{36}$/);
      assert.match(doc.createdAt, timestampPattern);
      for (const field of ['sentAt', 'signedAt', 'expiresAt'] as const) {
        const value = doc[field];
        if (value !== null) assert.match(value, timestampPattern);
      }
      assert.ok(statuses.includes(doc.status));
      assert.equal(doc.url, `https://sign.example.test/sign/${doc.id}`);
      if (doc.status === 'draft') assert.equal(doc.sentAt, null);
      if (doc.status !== 'signed') assert.equal(doc.signedAt, null);
      else assert.match(doc.signedAt ?? '', timestampPattern);
    }
    assert.ok(docs.some((d) => d.value === null));
    assert.ok(docs.some((d) => d.value !== null && typeof d.value.amount === 'number'));
  });

  test('value is the VAT-excluded contract value of the pricing block', async () => {
    const doc = await createTestDocument(h.ctx, {
      workspaceId: ws.id,
      status: 'sent',
      pricing: {
        currency: 'EUR',
        pricesIncludeVat: true,
        items: [
          { name: 'Setup', quantity: '1', unitPrice: '121.00', vatRate: '21', billing: { type: 'one-off' } },
          {
            name: 'Subscription',
            quantity: '1',
            unitPrice: '11.90',
            vatRate: '19',
            billing: { type: 'recurring', interval: 'month', periods: 12 },
          },
        ],
      },
    });
    const res = await callApi(h, 'GET', `/v1/documents/${doc.document.id}`, { key: ws.apiKey });
    // 121.00 / 1.21 = 100.00; 11.90 / 1.19 = 10.00 a month, 12 months = 120.00
    assert.deepEqual((res.body.data as ListedDocument).value, { amount: 220, currency: 'EUR' });
    const none = await createTestDocument(h.ctx, { workspaceId: ws.id, status: 'draft', pricing: null });
    const res2 = await callApi(h, 'GET', `/v1/documents/${none.document.id}`, { key: ws.apiKey });
    assert.equal((res2.body.data as ListedDocument).value, null);
  });

  test('walking nextCursor visits every document once, and the last page has nextCursor null', async () => {
    const all = (await list('?limit=100')).body.data as ListedDocument[];
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await list(`?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(res.status, 200);
      seen.push(...(res.body.data as ListedDocument[]).map((d) => d.id));
      cursor = res.body.nextCursor ?? null;
      pages++;
    } while (cursor);
    assert.deepEqual(
      seen,
      all.map((d) => d.id),
    );
    assert.equal(pages, Math.ceil(all.length / 7));
  });

  test('a page that ends exactly at the last document has nextCursor null', async () => {
    const other = await createTestWorkspace(h.ctx);
    await insertSampleDocuments(h.ctx, other.id, 4);
    const res = await list('?limit=4', other.apiKey);
    assert.equal((res.body.data as unknown[]).length, 4);
    assert.equal(res.body.nextCursor, null);
  });

  test('an empty workspace answers an empty page', async () => {
    const empty = await createTestWorkspace(h.ctx);
    const res = await list('', empty.apiKey);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { ok: true, data: [], nextCursor: null });
  });

  test('limit=1 and limit=100 are accepted', async () => {
    assert.equal(((await list('?limit=1')).body.data as unknown[]).length, 1);
    assert.ok(((await list('?limit=100')).body.data as unknown[]).length > 25);
  });

  test('status filters the list, and its cursor keeps the filter', async () => {
    for (const status of statuses) {
      const all = ((await list(`?status=${status}&limit=100`)).body.data as ListedDocument[]).map(
        (d) => d.id,
      );
      assert.ok(all.length > 0, `sample has ${status} documents`);
      const first = await list(`?status=${status}&limit=2`);
      const docs = first.body.data as ListedDocument[];
      assert.ok(docs.every((d) => d.status === status));
      if (first.body.nextCursor) {
        const second = await list(`?status=${status}&limit=100&cursor=${first.body.nextCursor}`);
        assert.equal(second.status, 200);
        assert.deepEqual(
          [...docs, ...(second.body.data as ListedDocument[])].map((d) => d.id),
          all,
        );
      }
    }
  });

  test('documents of another workspace never appear', async () => {
    const other = await createTestWorkspace(h.ctx);
    const foreign = await createTestDocument(h.ctx, { workspaceId: other.id, status: 'sent' });
    const ids = ((await list('?limit=100')).body.data as ListedDocument[]).map((d) => d.id);
    assert.ok(!ids.includes(foreign.document.id));
    const theirs = ((await list('?limit=100', other.apiKey)).body.data as ListedDocument[]).map((d) => d.id);
    assert.deepEqual(theirs, [foreign.document.id]);
  });

  const badQueries: Array<[string, string]> = [
    ['limit below range', '?limit=0'],
    ['limit above range', '?limit=101'],
    ['negative limit', '?limit=-1'],
    ['limit not a number', '?limit=ten'],
    ['fractional limit', '?limit=2.5'],
    ['limit with leading zero', '?limit=010'],
    ['limit with exponent', '?limit=1e1'],
    ['limit with spaces', '?limit=%2010'],
    ['empty limit', '?limit='],
    ['limit without value', '?limit'],
    ['repeated limit', '?limit=5&limit=5'],
    ['unknown status', '?status=archived'],
    ['status in capitals', '?status=SENT'],
    ['empty status', '?status='],
    ['repeated status', '?status=sent&status=signed'],
    ['empty cursor', '?cursor='],
    ['cursor longer than 200 characters', `?cursor=${'a'.repeat(201)}`],
    ['repeated cursor', '?cursor=abc&cursor=abc'],
    ['unrecognised parameter', '?page=2'],
    ['unrecognised parameter beside valid ones', '?limit=5&sort=asc'],
    ['parameter names are case-sensitive', '?Limit=5'],
    ['array syntax', '?status[]=sent'],
  ];
  for (const [name, query] of badQueries) {
    test(`invalid-query: ${name}`, async () => {
      const res = await list(query);
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { ok: false, error: 'invalid-query' });
    });
  }

  test('a cursor of exactly 200 characters is judged as a cursor (invalid-cursor), not as too long', async () => {
    const res = await list(`?cursor=${'a'.repeat(200)}`);
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { ok: false, error: 'invalid-cursor' });
  });

  const badCursors: Array<[string, () => Promise<string>]> = [
    ['a made-up cursor', async () => 'hello'],
    ['random base64url', async () => Buffer.alloc(48, 7).toString('base64url')],
    [
      'a tampered cursor',
      async () => {
        const cursor = (await list('?limit=2')).body.nextCursor as string;
        const flipped = cursor[10] === 'A' ? 'B' : 'A';
        return cursor.slice(0, 10) + flipped + cursor.slice(11);
      },
    ],
    ['a truncated cursor', async () => ((await list('?limit=2')).body.nextCursor as string).slice(0, -2)],
    ['a cursor with padding', async () => `${(await list('?limit=2')).body.nextCursor}=`],
  ];
  for (const [name, make] of badCursors) {
    test(`invalid-cursor: ${name}`, async () => {
      const res = await list(`?cursor=${encodeURIComponent(await make())}`);
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { ok: false, error: 'invalid-cursor' });
    });
  }

  test('a cursor from another workspace is invalid-cursor', async () => {
    const other = await createTestWorkspace(h.ctx);
    await insertSampleDocuments(h.ctx, other.id, 5);
    const theirs = (await list('?limit=2', other.apiKey)).body.nextCursor as string;
    const res = await list(`?cursor=${theirs}`);
    assert.deepEqual([res.status, res.body], [400, { ok: false, error: 'invalid-cursor' }]);
  });

  test('a cursor used with another status filter is invalid-cursor', async () => {
    const cursor = (await list('?limit=2&status=sent')).body.nextCursor as string;
    for (const query of [`?cursor=${cursor}`, `?cursor=${cursor}&status=signed`]) {
      const res = await list(query);
      assert.deepEqual([res.status, res.body], [400, { ok: false, error: 'invalid-cursor' }]);
    }
    const unfiltered = (await list('?limit=2')).body.nextCursor as string;
    const res = await list(`?cursor=${unfiltered}&status=sent`);
    assert.deepEqual([res.status, res.body], [400, { ok: false, error: 'invalid-cursor' }]);
  });

  test('a cursor expires 24 hours after it was issued', async () => {
    const cursor = (await list('?limit=2')).body.nextCursor as string;
    h.clock.advance(cursorLifetimeMs - 1000);
    assert.equal((await list(`?cursor=${cursor}`)).status, 200);
    h.clock.advance(1000);
    const res = await list(`?cursor=${cursor}`);
    assert.deepEqual([res.status, res.body], [400, { ok: false, error: 'invalid-cursor' }]);
  });

  test('a cursor still works after its document was deleted', async () => {
    const other = await createTestWorkspace(h.ctx);
    await insertSampleDocuments(h.ctx, other.id, 6);
    const first = await list('?limit=3', other.apiKey);
    const lastId = (first.body.data as ListedDocument[])[2]?.id as string;
    await h.ctx.db.deleteFrom('documents').where('id', '=', lastId).execute();
    const second = await list(`?limit=3&cursor=${first.body.nextCursor}`, other.apiKey);
    assert.equal(second.status, 200);
    assert.equal((second.body.data as unknown[]).length, 3);
  });

  test('documents created in the same millisecond are ordered by id and none is skipped', async () => {
    const other = await createTestWorkspace(h.ctx);
    const createdAt = new Date('2026-02-01T00:00:00.000Z');
    const made = [];
    for (let i = 0; i < 9; i++)
      made.push(await createTestDocument(h.ctx, { workspaceId: other.id, createdAt }));
    const expected = made
      .map((g) => g.document.id as string)
      .sort()
      .reverse();
    const seen: string[] = [];
    let cursor: string | null | undefined = null;
    do {
      const res = await list(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`, other.apiKey);
      seen.push(...(res.body.data as ListedDocument[]).map((d) => d.id));
      cursor = res.body.nextCursor;
    } while (cursor);
    assert.deepEqual(seen, expected);
  });
});
