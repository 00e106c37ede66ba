// Page images drawn ahead of time (issue 36 §4, src/files/background-pages.ts): a PDF
// uploaded through the new-document form is queued in the same transaction, the worker's
// pass draws every page (the reading width, then the thumbnails) into page_images, and the
// editor's and the sender's page images are then answered from there, no drawing while the
// sender waits. A big file is drawn a few pages at a claim, so a file stored after it is not
// held back. The pass is run here as the worker runs it (no worker loop, no sleeps). On
// both databases.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { PDFDocument } from '@cantoo/pdf-lib';
import { drawQueuedPages, pagesPerClaim } from '../../src/files/background-pages.ts';
import { setPageImageLimits } from '../../src/files/page-images.ts';
import { createDocument } from '../../src/sending/drafts.ts';
import { sendDocument } from '../../src/sending/send.ts';
import {
  countRows,
  createTestWorkspace,
  describeEachDatabase,
  linkFor,
  twoSigners,
  useHarness,
} from '../support/harness.ts';
import { assertPage, newDocumentFields, pdfFile, webPeople } from '../support/web-client.ts';

async function pdfOf(pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setSubject(randomUUID());
  for (let i = 1; i <= pages; i++) doc.addPage([595, 842]).drawText(`Page ${i}`, { x: 72, y: 760, size: 20 });
  return doc.save();
}

describeEachDatabase('page images drawn in the background', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: 'true' } });
  const people = webPeople(h, '10.36');
  // A turn of a minute, not 10 s: a busy machine must not make a page a placeholder here.
  let restore: () => void;
  before(() => {
    restore = setPageImageLimits({ turnMs: 60_000 });
  });
  after(() => restore());

  const renders = async () =>
    (await h.ctx.metrics.pageRenders.get()).values.find((v) => v.labels.outcome === 'drawn')?.value ?? 0;

  test('an uploaded PDF is drawn by the worker’s pass; the editor’s images are then served as stored', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    await client.get('/documents/new');
    const created = await client.post('/documents', {
      ...newDocumentFields('Supply contract'),
      file: pdfFile(await pdfOf(3)),
    });
    assert.equal(created.status, 303, created.text.slice(0, 500));
    const id = /\/documents\/([0-9a-f-]{36})/.exec(created.location ?? '')?.[1];
    assert.ok(id);
    const [queued] = await h.ctx.db
      .selectFrom('page_image_queue')
      .selectAll()
      .where('workspace_id', '=', owner.workspaceId)
      .execute();
    assert.ok(queued, 'queued with the upload');
    assert.equal(queued.next_step, 0);
    assert.equal(await countRows(h.ctx, 'page_images', { sha256: queued.sha256 }), 0, 'nothing drawn yet');

    assert.equal(await drawQueuedPages(h.ctx), 6, 'three pages, then their thumbnails');
    assert.equal(await countRows(h.ctx, 'page_images', { sha256: queued.sha256, width: 1200 }), 3);
    assert.equal(await countRows(h.ctx, 'page_images', { sha256: queued.sha256, width: 240 }), 3);
    assert.equal(await countRows(h.ctx, 'page_image_queue', { sha256: queued.sha256 }), 0, 'done: dequeued');
    assert.equal(await drawQueuedPages(h.ctx), 0, 'nothing left');

    // The editor: pages 1 and 2 at once, page 3 lazily, each the page's proportions.
    const editor = await client.get(`/documents/${id}/fields`);
    assertPage(editor, 200);
    for (const [page, loading] of [
      [1, 'eager'],
      [2, 'eager'],
      [3, 'lazy'],
    ] as const) {
      assert.match(
        editor.text,
        new RegExp(
          `<img src="/documents/${id}/pages/${page}" alt="Page ${page} of 3" draggable="false" width="1200" height="1698" loading="${loading}">`,
        ),
      );
    }
    const before = await renders();
    for (const path of [
      `/documents/${id}/pages/1`,
      `/documents/${id}/pages/3`,
      `/documents/${id}/pages/2?size=thumbnail`,
    ]) {
      const image = await client.get(path);
      assert.equal(image.status, 200);
      assert.equal(image.headers.get('content-type'), 'image/png');
    }
    assert.equal(await renders(), before, 'served as stored: nothing drawn while the sender waits');
  });

  test('the signing page loads its pages lazily, each in its place before its image arrives', async () => {
    const workspace = await createTestWorkspace(h.ctx);
    const { id } = await createDocument(h.ctx, {
      workspaceId: workspace.id,
      title: 'Lease',
      body: '',
      recipients: twoSigners,
      pricing: null,
      file: await pdfOf(3),
    });
    await sendDocument(h.ctx, workspace.id, id);
    const link = await linkFor(h.ctx, id, 'ann@client.example');
    const page = await fetch(`${h.baseUrl}${link.path}`);
    assert.equal(page.status, 200);
    const images = [...(await page.text()).matchAll(/<img src="[^"]*\/pages\/\d+"[^>]*>/g)].map((m) => m[0]);
    assert.deepEqual(
      images,
      [1, 2, 3].map(
        (n) =>
          `<img src="${link.path}/pages/${n}" alt="Page ${n} of 3 of Lease" width="1200" height="1698" loading="${n <= 2 ? 'eager' : 'lazy'}">`,
      ),
    );
  });

  test('a big file is drawn a few pages at a claim, so a file stored after it is not held back', async () => {
    await drawQueuedPages(h.ctx); // what the tests before left queued
    const big = await createTestWorkspace(h.ctx);
    const small = await createTestWorkspace(h.ctx);
    const document = (workspaceId: string, file: Uint8Array) =>
      createDocument(h.ctx, {
        workspaceId,
        title: 'Lease',
        body: '',
        recipients: twoSigners,
        pricing: null,
        file,
      });
    await document(big.id, await pdfOf(pagesPerClaim * 2));
    h.clock.advance(1000);
    await document(small.id, await pdfOf(1));
    const [bigFile, smallFile] = await Promise.all(
      [big.id, small.id].map((workspaceId) =>
        h.ctx.db
          .selectFrom('page_image_queue')
          .select('sha256')
          .where('workspace_id', '=', workspaceId)
          .executeTakeFirstOrThrow(),
      ),
    );
    assert.ok(bigFile && smallFile);

    // The pass asks `stopping` before each claim and each page: stopped after one claim of
    // the big file and the small file whole (its page and thumbnail), it has drawn the big
    // file's first pages only, and the big file waits where it got to.
    let questions = 0;
    const asked = 1 + pagesPerClaim + 1 + 2;
    assert.equal(await drawQueuedPages(h.ctx, { stopping: () => ++questions > asked }), pagesPerClaim + 2);
    const images = async (sha256: string) =>
      (
        await h.ctx.db
          .selectFrom('page_images')
          .select(['page', 'width'])
          .where('sha256', '=', sha256)
          .orderBy('width')
          .orderBy('page')
          .execute()
      ).map((r) => `${r.page}@${r.width}`);
    assert.deepEqual(await images(smallFile.sha256), ['1@240', '1@1200'], 'the small file is not held back');
    assert.deepEqual(
      await images(bigFile.sha256),
      Array.from({ length: pagesPerClaim }, (_, i) => `${i + 1}@1200`),
    );
    const left = await h.ctx.db.selectFrom('page_image_queue').select(['sha256', 'next_step']).execute();
    assert.deepEqual(left, [{ sha256: bigFile.sha256, next_step: pagesPerClaim }]);

    // The next pass goes on where it stopped.
    assert.equal(await drawQueuedPages(h.ctx), pagesPerClaim * 4 - pagesPerClaim);
    assert.equal((await images(bigFile.sha256)).length, pagesPerClaim * 4);
    assert.equal(await countRows(h.ctx, 'page_image_queue'), 0);
  });
});
