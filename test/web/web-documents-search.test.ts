// The documents list's search and status filter (issue 36 §6) over real HTTP: a part of a
// title, of a recipient's name or of their address finds a document, in any case and in
// any script; LIKE's own characters stand for themselves; the status filter narrows a
// search; "Next page" keeps the search and walks every match once; a recipient's change is
// found at once (migration 0027's triggers); another workspace's documents never appear.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DocumentStatus } from '../../src/db/schema.ts';
import type { SampleRecipient } from '../../src/demo/sample-documents.ts';
import { escapeHtml } from '../../src/ui/html.ts';
import {
  createDraftDocument,
  createSentDocument,
  createTestDocument,
  describeEachDatabase,
  recipient,
  useHarness,
} from '../support/harness.ts';
import { assertPage, type TestAccount, type WebClient, webPeople } from '../support/web-client.ts';

const minute = 60_000;

/** The ids of the documents a list page shows, in order. */
function idsOf(text: string): string[] {
  return [...text.matchAll(/<td><a href="\/documents\/([0-9a-f-]{36})">/g)].map((m) => m[1] as string);
}

/** The "Next page" link of a list page, as the browser follows it, or null. */
function nextPageOf(text: string): string | null {
  const href = /<a href="([^"]+)">Next page<\/a>/.exec(text)?.[1];
  return href === undefined ? null : href.replaceAll('&amp;', '&');
}

function signerOf(email: string, fullName: string): SampleRecipient {
  return { email, fullName, role: 'signer', signingMethod: 'standard', signingOrder: 1 };
}

describeEachDatabase('searching the documents list', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: '1' } });
  const people = webPeople(h, '10.36');
  let owner: TestAccount;
  let other: TestAccount;
  let client: WebClient;
  const ids: Record<string, string> = {};

  /** The ids listed for `query` (q, status, …) on the first page. */
  async function search(query: Record<string, string>): Promise<string[]> {
    const res = await client.get(`/documents?${new URLSearchParams(query)}`);
    assertPage(res, 200);
    return idsOf(res.text);
  }

  test('setup: a workspace with named documents and recipients, and another workspace with the same words', async () => {
    owner = await people.newOwner();
    other = await people.newOwner();
    const ws = owner.workspaceId;
    ids.acme = (
      await createDraftDocument(h.ctx, ws, {
        title: 'Acme consulting agreement',
        recipients: [recipient('ann@client.example', 'Ann Lee')],
      })
    ).id;
    ids.zoe = (
      await createDraftDocument(h.ctx, ws, {
        title: 'Lease',
        recipients: [recipient('zoe@mueller.example', 'Zoë Müller'), recipient('bo@north.example', 'Bo Ek')],
      })
    ).id;
    ids.percent = (
      await createDraftDocument(h.ctx, ws, {
        title: 'Discount 100% on renewal',
        recipients: [recipient('cy@client.example', 'Cy Dee')],
      })
    ).id;
    ids.plain = (
      await createDraftDocument(h.ctx, ws, {
        title: 'Discount 1000 on renewal',
        recipients: [recipient('di_x@client.example', 'Di Fox')],
      })
    ).id;
    ids.sentAcme = (
      await createSentDocument(h.ctx, ws, {
        title: 'Acme service order',
        recipients: [recipient('eve@acme.example', 'Eve Orr')],
      })
    ).id;
    ids.otherAcme = (
      await createDraftDocument(h.ctx, other.workspaceId, { title: 'Acme consulting agreement' })
    ).id;
    client = await people.signedIn(owner);
  });

  test('a part of a title finds the document in any case; the form shows the search again, escaped', async () => {
    assert.deepEqual(new Set(await search({ q: 'ACME' })), new Set([ids.acme, ids.sentAcme]));
    assert.deepEqual(await search({ q: 'sulting agr' }), [ids.acme]);
    const res = await client.get(`/documents?${new URLSearchParams({ q: '<b>Acme' })}`);
    assertPage(res, 200);
    assert.ok(res.text.includes(`value="${escapeHtml('<b>Acme')}"`), 'the search stays in its field');
    assert.ok(!res.text.includes('<b>Acme'), 'and is escaped');
    assert.ok(res.text.includes('match “&lt;b&gt;Acme”'), 'nothing matches it, and the page says so');
    assert.deepEqual(idsOf(res.text), []);
  });

  test('a part of a recipient’s name or email address finds the document; non-ASCII letters match in either case', async () => {
    assert.deepEqual(await search({ q: 'ZOË MÜL' }), [ids.zoe]);
    assert.deepEqual(await search({ q: 'müller' }), [ids.zoe]);
    assert.deepEqual(await search({ q: 'Bo Ek' }), [ids.zoe], 'the second recipient too');
    assert.deepEqual(await search({ q: 'north.EXAMPLE' }), [ids.zoe]);
    assert.deepEqual(await search({ q: 'eve@acme' }), [ids.sentAcme]);
    assert.deepEqual(await search({ q: '  ann@client.example ' }), [ids.acme], 'spaces around are dropped');
  });

  test('%, _ and \\ in a search stand for themselves, not for LIKE’s wildcards', async () => {
    assert.deepEqual(await search({ q: '100%' }), [ids.percent]);
    assert.deepEqual(await search({ q: 'di_x' }), [ids.plain]);
    assert.deepEqual(await search({ q: 'i_f' }), [], 'an underscore is not any character');
    assert.deepEqual(await search({ q: '\\' }), []);
    assert.deepEqual(new Set(await search({ q: 'discount' })), new Set([ids.percent, ids.plain]));
  });

  test('the status filter narrows a search, and its links keep the search', async () => {
    assert.deepEqual(await search({ q: 'acme', status: 'sent' }), [ids.sentAcme]);
    assert.deepEqual(await search({ q: 'acme', status: 'draft' }), [ids.acme]);
    assert.deepEqual(await search({ q: 'acme', status: 'signed' }), []);
    const res = await client.get('/documents?q=acme');
    assert.ok(res.text.includes('href="/documents?q=acme&amp;status=sent"'), 'the "Sent" filter keeps q');
    const filtered = await client.get('/documents?q=acme&status=sent');
    assert.ok(
      filtered.text.includes('<input type="hidden" name="status" value="sent">'),
      'a new search keeps the filter',
    );
    assert.ok(filtered.text.includes('href="/documents?status=sent">Clear search</a>'));
  });

  test('never another workspace’s documents', async () => {
    const listed = await search({ q: 'consulting' });
    assert.deepEqual(listed, [ids.acme]);
    assert.ok(!listed.includes(ids.otherAcme as string));
  });

  test('a recipient changed, added or removed is found by the new name at once, and no longer by the old', async () => {
    await h.ctx.db
      .updateTable('recipients')
      .set({ full_name: 'Annika Berg' })
      .where('document_id', '=', ids.acme as string)
      .execute();
    assert.deepEqual(await search({ q: 'annika' }), [ids.acme]);
    assert.deepEqual(await search({ q: 'ann lee' }), []);
    await h.ctx.db
      .deleteFrom('recipients')
      .where('document_id', '=', ids.zoe as string)
      .where('full_name', '=', 'Bo Ek')
      .execute();
    assert.deepEqual(await search({ q: 'bo ek' }), []);
    assert.deepEqual(await search({ q: 'zoë' }), [ids.zoe], 'the other recipient is still found');
    await h.ctx.db
      .updateTable('documents')
      .set({ title: 'Lease of the north office' })
      .where('id', '=', ids.zoe as string)
      .execute();
    assert.deepEqual(await search({ q: 'north office' }), [ids.zoe]);
  });

  test('"Next page" keeps the search and the filter: 60 matches among 90 documents, each listed once, newest first', async () => {
    const account = await people.newOwner();
    const now = h.clock.now().getTime();
    const expected: string[] = [];
    for (let i = 0; i < 90; i++) {
      const match = i % 3 !== 0;
      const status: DocumentStatus = i % 2 === 0 ? 'signed' : 'sent';
      const graph = await createTestDocument(h.ctx, {
        workspaceId: account.workspaceId,
        status,
        // Some share a creation time: the keyset's id breaks the tie.
        createdAt: new Date(now - Math.floor(i / 2) * minute),
        title: match ? `Tenancy ${i}` : `Other ${i}`,
        recipients: [signerOf(`p${i}@example.com`, `Person ${i}`)],
      });
      if (match && status === 'signed') expected.push(graph.document.id as string);
    }
    const browser = await people.signedIn(account);
    const seen: string[] = [];
    let path: string | null = '/documents?q=TENANCY&status=signed';
    let pages = 0;
    while (path !== null) {
      pages++;
      assert.ok(pages < 10, 'the pages end');
      const res = await browser.get(path);
      assertPage(res, 200);
      assert.ok(!res.text.includes('That page link had expired'), path);
      seen.push(...idsOf(res.text));
      path = nextPageOf(res.text);
      if (path) assert.match(path, /^\/documents\?q=TENANCY&status=signed&cursor=/);
    }
    assert.equal(pages, 2);
    assert.equal(seen.length, 30);
    assert.equal(new Set(seen).size, 30, 'each once');
    assert.deepEqual(new Set(seen), new Set(expected));
    // Newest first, as the list without a search.
    const rows = await h.ctx.db
      .selectFrom('documents')
      .select(['id'])
      .where('id', 'in', seen)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    assert.deepEqual(
      seen,
      rows.map((r) => r.id),
    );

    // A cursor is bound to its search: another search with it starts again from the newest.
    const first = await browser.get('/documents?q=tenancy&status=signed');
    const next = nextPageOf(first.text) as string;
    const cursor = new URL(next, 'http://x').searchParams.get('cursor') as string;
    const res = await browser.get(
      `/documents?${new URLSearchParams({ q: 'person', status: 'signed', cursor })}`,
    );
    assertPage(res, 200);
    assert.ok(res.text.includes('That page link had expired'));
  });
});
