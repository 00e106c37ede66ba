// Property: walking GET /v1/documents page by page, with any page sizes and any status
// filter, returns every document of the workspace exactly once, newest first — also
// when new documents are created between pages, and when many share a timestamp.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { DocumentStatus } from '../../src/db/schema.ts';
import { documentStatuses } from '../../src/documents/lifecycle.ts';
import {
  callApi,
  createTestDocument,
  createTestWorkspace,
  describeEachDatabase,
  useHarness,
} from '../support/harness.ts';

const runs = Number(process.env.SIGNET_PROPERTY_RUNS ?? 30);

describeEachDatabase('pagination property', (kind) => {
  const h = useHarness(kind);

  test('every document exactly once, in order, while documents are being added', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            minutesAgo: fc.integer({ min: 1, max: 8 }), // few distinct times: many ties
            status: fc.constantFrom(...documentStatuses),
          }),
          { maxLength: 45 },
        ),
        fc.option(fc.constantFrom(...documentStatuses), { nil: null }),
        fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 6 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 6 }),
        async (documents, status, limits, insertsBetweenPages) => {
          const ws = await createTestWorkspace(h.ctx);
          const now = h.clock.now().getTime();
          const originals: Array<{ id: string; createdAt: number; status: DocumentStatus }> = [];
          for (const doc of documents) {
            const createdAt = new Date(now - doc.minutesAgo * 60_000);
            const graph = await createTestDocument(h.ctx, {
              workspaceId: ws.id,
              createdAt,
              status: doc.status,
            });
            originals.push({
              id: graph.document.id as string,
              createdAt: createdAt.getTime(),
              status: doc.status,
            });
          }
          const expected = originals
            .filter((d) => status === null || d.status === status)
            .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
            .map((d) => d.id);

          const seen: string[] = [];
          let cursor: string | null = null;
          let page = 0;
          do {
            const limit = limits[page % limits.length] as number;
            const query = new URLSearchParams({ limit: String(limit) });
            if (status) query.set('status', status);
            if (cursor) query.set('cursor', cursor);
            const res = await callApi(h, 'GET', `/v1/documents?${query}`, { key: ws.apiKey });
            assert.equal(res.status, 200);
            const data = res.body.data as Array<{ id: string; status: string }>;
            assert.ok(data.length <= limit);
            if (status) assert.ok(data.every((d) => d.status === status));
            seen.push(...data.map((d) => d.id));
            cursor = res.body.nextCursor ?? null;
            if (cursor) assert.equal(data.length, limit, 'only the last page may be short');
            // Someone creates documents while the client is paging.
            const inserts = insertsBetweenPages[page % insertsBetweenPages.length] as number;
            for (let i = 0; i < inserts; i++) {
              h.clock.advance(1);
              await createTestDocument(h.ctx, { workspaceId: ws.id, status: status ?? 'sent' });
            }
            page++;
          } while (cursor && page < 200);

          assert.deepEqual(seen, expected);
        },
      ),
      { numRuns: runs },
    );
  });
});
