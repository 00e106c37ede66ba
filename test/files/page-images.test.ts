// Page images under abuse (issue 34, §2): a page that runs out of its budget (time or the
// parser's memory) is drawn once and then answered with a placeholder at once, never drawn
// again; the placeholder is a readable PNG of the page's proportions, on the signing page
// and the sender's page alike; and one workspace's slow pages do not hold up another's
// page beyond one turn. Over HTTP, on both databases, with a turn budget of 4 s instead of
// 10 (src/files/page-images.ts) so that the slow pages give up quickly.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { PDFDocument, PDFName } from '@cantoo/pdf-lib';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { storeFile } from '../../src/files/files.service.ts';
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
import { bombPdf } from '../support/hostile-pdfs.ts';
import { assertPage, webPeople } from '../support/web-client.ts';

const turnMs = 4000;

/**
 * `pages` Letter pages (612 x 792) each drawing 300,000 short strokes: pdf.js takes over ten
 * seconds a page on the machine the tests run on, far past the test's budget.
 */
async function slowPdf(pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setSubject(randomUUID());
  const parts: string[] = [];
  for (let i = 0; i < 300_000; i++) {
    const x = (i * 7) % 600;
    const y = (i * 13) % 780;
    parts.push(`${x} ${y} m ${x + 5} ${y + 9} l S`);
  }
  const strokes = doc.context.register(doc.context.flateStream(parts.join('\n')));
  for (let i = 0; i < pages; i++) doc.addPage([612, 792]).node.set(PDFName.of('Contents'), strokes);
  return doc.save();
}

/** An ordinary page of text, A4, with a mark of its own (a file of its own, not cached). */
async function ordinaryPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setSubject(randomUUID());
  doc.addPage([595, 842]).drawText('An ordinary page', { x: 72, y: 760, size: 20 });
  return doc.save();
}

function pngSize(png: Buffer): { width: number; height: number } {
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

describeEachDatabase('page images that cannot be drawn, and fair drawing', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: 'true' } });
  const people = webPeople(h, '10.34');
  let restore: () => void;
  before(() => {
    restore = setPageImageLimits({ turnMs });
  });
  after(() => restore());

  /** A sent document of `file` in `workspaceId`: its id and Ann's signing link. */
  async function sent(workspaceId: string, file: Uint8Array) {
    const { id } = await createDocument(h.ctx, {
      workspaceId,
      title: 'Lease',
      body: 'Please sign.',
      recipients: twoSigners,
      pricing: null,
      file,
    });
    await sendDocument(h.ctx, workspaceId, id);
    const original = await h.ctx.db
      .selectFrom('documents')
      .select('original_sha256')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return {
      id,
      sha256: original.original_sha256 as string,
      ann: (await linkFor(h.ctx, id, 'ann@client.example')).path,
    };
  }

  /** signet_page_renders_total by outcome, as /metrics says. */
  async function renders(): Promise<Record<string, number>> {
    const text = await (await fetch(`${h.baseUrl}/metrics`)).text();
    const counts: Record<string, number> = {};
    for (const [, outcome, value] of text.matchAll(
      /^signet_page_renders_total\{outcome="([^"]+)"\} (\d+)$/gm,
    )) {
      counts[outcome as string] = Number(value);
    }
    return counts;
  }

  async function timed(url: string) {
    const started = performance.now();
    const response = await fetch(url);
    const png = Buffer.from(await response.arrayBuffer());
    return { response, png, ms: performance.now() - started };
  }

  test('a page past its time is drawn once; later it is a placeholder at once, on both pages', async (t) => {
    const owner = await people.newOwner();
    const { id, sha256, ann } = await sent(owner.workspaceId, await slowPdf(2));
    const before = await renders();

    const first = await timed(`${h.baseUrl}${ann}/pages/1`);
    assert.equal(first.response.status, 200);
    assert.equal(first.response.headers.get('content-type'), 'image/png');
    assert.equal(first.response.headers.get('cache-control'), 'no-store', 'a placeholder is not kept');
    assert.ok(first.ms >= turnMs - 500, `it was tried for its budget (${Math.round(first.ms)} ms)`);
    assert.ok(first.ms < turnMs + 5000, `and then given up (${Math.round(first.ms)} ms)`);
    const afterFirst = await renders();
    assert.equal((afterFirst.timeout ?? 0) - (before.timeout ?? 0), 1, 'one drawing, timed out');
    const failure = await h.ctx.db
      .selectFrom('page_image_failures')
      .select(['page', 'width', 'reason'])
      .where('sha256', '=', sha256)
      .execute();
    assert.deepEqual(failure, [{ page: 1, width: 1200, reason: 'timeout' }]);

    // Asked again, at both widths: the placeholder at once, nothing drawn.
    const again = await timed(`${h.baseUrl}${ann}/pages/1`);
    assert.equal(again.response.status, 200);
    assert.ok(again.ms < 1500, `answered at once (${Math.round(again.ms)} ms)`);
    assert.deepEqual(again.png, first.png);
    const thumbnail = await timed(`${h.baseUrl}${ann}/pages/1?size=thumbnail`);
    t.diagnostic(
      `given up after ${Math.round(first.ms)} ms; placeholder again in ${Math.round(again.ms)} ms`,
    );
    assert.ok(thumbnail.ms < 1500, `the thumbnail too (${Math.round(thumbnail.ms)} ms)`);
    assert.deepEqual(pngSize(thumbnail.png), { width: 240, height: Math.round((240 * 792) / 612) });
    assert.deepEqual(await renders(), afterFirst, 'no drawing was tried');
    assert.equal(
      Number(
        (
          await h.ctx.db
            .selectFrom('page_images')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('sha256', '=', sha256)
            .executeTakeFirstOrThrow()
        ).n,
      ),
      0,
    );

    // The placeholder: a PNG of the page's proportions, light grey, with dark words in the middle.
    assert.deepEqual(pngSize(first.png), { width: 1200, height: Math.round((1200 * 792) / 612) });
    const image = await loadImage(first.png);
    const canvas = createCanvas(image.width, image.height);
    const context = canvas.getContext('2d');
    context.drawImage(image, 0, 0);
    const [red = 0, green = 0] = context.getImageData(20, 20, 1, 1).data;
    assert.ok(red > 200 && red < 250 && Math.abs(red - green) < 8, `light grey, not ${red}, ${green}`);
    const band = context.getImageData(0, Math.round(image.height / 2) - 40, image.width, 80).data;
    let dark = 0;
    for (let i = 0; i < band.length; i += 4) if ((band[i] as number) < 120) dark += 1;
    assert.ok(dark > 500, `words across the middle (${dark} dark pixels)`);

    // The signing page shows it as a page like any other.
    const signingPage = await fetch(h.baseUrl + ann);
    assert.equal(signingPage.status, 200);
    assert.match(await signingPage.text(), /<img src="[^"]+\/pages\/1" alt="Page 1 of 2 of Lease"/);

    // The sender's page and its thumbnail too.
    const client = await people.signedIn(owner);
    assertPage(await client.get(`/documents/${id}`), 200);
    const ownerThumbnail = await client.get(`/documents/${id}/pages/1?size=thumbnail`);
    assert.equal(ownerThumbnail.status, 200);
    assert.equal(ownerThumbnail.headers.get('content-type'), 'image/png');
    assert.equal(ownerThumbnail.headers.get('cache-control'), 'no-store');
    assert.deepEqual(await renders(), afterFirst, 'still nothing drawn');
  });

  test('a file past the parser’s memory is remembered whole: every page a placeholder, drawn once', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { sha256, ann } = await sent(ws.id, await ordinaryPdf());
    const before = await renders();
    // 8 MB cannot even hold pdf.js: it stands for any file that needs more than the cap.
    const back = setPageImageLimits({ parserHeapMb: 8 });
    let first: Awaited<ReturnType<typeof timed>>;
    try {
      first = await timed(`${h.baseUrl}${ann}/pages/1`);
    } finally {
      back();
    }
    assert.equal(first.response.status, 200);
    assert.equal(first.response.headers.get('cache-control'), 'no-store');
    assert.deepEqual(pngSize(first.png), { width: 1200, height: Math.round((1200 * 842) / 595) });
    const failure = await h.ctx.db
      .selectFrom('page_image_failures')
      .select(['page', 'reason'])
      .where('sha256', '=', sha256)
      .execute();
    assert.deepEqual(failure, [{ page: 0, reason: 'out-of-memory' }], 'the file, not a page');
    const afterFirst = await renders();
    assert.equal((afterFirst['out-of-memory'] ?? 0) - (before['out-of-memory'] ?? 0), 1);
    // With the memory back, the file stays given up (same Signet version): no second try.
    const thumbnail = await timed(`${h.baseUrl}${ann}/pages/1?size=thumbnail`);
    assert.equal(thumbnail.response.headers.get('cache-control'), 'no-store');
    assert.deepEqual(await renders(), afterFirst);
    assert.equal((await fetch(`${h.baseUrl}${ann}/pages/2`)).status, 404, 'no page 2: still a 404');

    // A failure recorded by another version of Signet is tried again, once.
    await h.ctx.db
      .updateTable('page_image_failures')
      .set({ renderer: 'signet 0.0.1' })
      .where('sha256', '=', sha256)
      .execute();
    const retried = await timed(`${h.baseUrl}${ann}/pages/1`);
    assert.equal(retried.response.headers.get('cache-control'), 'private, max-age=86400', 'drawn this time');
    assert.equal((await renders()).drawn, (afterFirst.drawn ?? 0) + 1);
  });

  test('a bomb stored before the decode budget existed is never drawn: a placeholder, remembered', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id, ann } = await sent(ws.id, await ordinaryPdf());
    // Its content stream unpacks to 1 GiB: stored as an upload was before the budget.
    const bomb = bombPdf('content-stream', 2 ** 30);
    const sha256 = await h.ctx.db.transaction().execute(async (trx) => {
      const file = await storeFile(trx, {
        data: bomb,
        mediaType: 'application/pdf',
        pages: 1,
        now: h.clock.now(),
      });
      await trx.updateTable('documents').set({ original_sha256: file.sha256 }).where('id', '=', id).execute();
      return file.sha256;
    });
    const before = await renders();
    const first = await timed(`${h.baseUrl}${ann}/pages/1`);
    assert.equal(first.response.status, 200);
    assert.equal(first.response.headers.get('cache-control'), 'no-store', 'the placeholder');
    const failure = await h.ctx.db
      .selectFrom('page_image_failures')
      .select(['page', 'reason'])
      .where('sha256', '=', sha256)
      .execute();
    assert.deepEqual(failure, [{ page: 0, reason: 'invalid-pdf' }], 'the file, given up whole');
    const afterFirst = await renders();
    assert.equal((afterFirst['invalid-pdf'] ?? 0) - (before['invalid-pdf'] ?? 0), 1);
    assert.equal(afterFirst.drawn ?? 0, before.drawn ?? 0, 'pdf.js never opened it');
    await timed(`${h.baseUrl}${ann}/pages/1?size=thumbnail`);
    assert.deepEqual(await renders(), afterFirst, 'remembered: not measured again');
  });

  test('one workspace’s slow pages do not hold up another’s page beyond one turn', async (t) => {
    const slowOnes = [await createTestWorkspace(h.ctx), await createTestWorkspace(h.ctx)];
    const slowDocuments = await Promise.all(slowOnes.map(async (ws) => sent(ws.id, await slowPdf(2))));
    const quiet = await createTestWorkspace(h.ctx);
    const ordinary = await sent(quiet.id, await ordinaryPdf());
    const imagesBefore = await countRows(h.ctx, 'page_images');

    // Both places of the process taken by the slow workspaces, each asking for two pages (a
    // queue of all the process's pages in order would make the quiet workspace wait 4 turns).
    let settled = 0;
    const slow = slowDocuments.flatMap(({ ann }) =>
      [1, 2].map((n) =>
        timed(`${h.baseUrl}${ann}/pages/${n}`).finally(() => {
          settled += 1;
        }),
      ),
    );
    await sleep(300);
    const quietPage = await timed(`${h.baseUrl}${ordinary.ann}/pages/1`);
    const pendingThen = slow.length - settled;
    t.diagnostic(
      `the quiet page: ${Math.round(quietPage.ms)} ms, ${pendingThen} of 4 slow pages still waiting`,
    );

    assert.equal(quietPage.response.status, 200);
    assert.equal(
      quietPage.response.headers.get('cache-control'),
      'private, max-age=86400',
      'drawn, not given up',
    );
    assert.deepEqual(pngSize(quietPage.png), { width: 1200, height: Math.round((1200 * 842) / 595) });
    assert.ok(
      quietPage.ms < turnMs + 4000,
      `the quiet workspace waited at most one turn (${Math.round(quietPage.ms)} ms)`,
    );
    assert.ok(pendingThen > 0, 'while slow pages were still waiting');

    const slowAnswers = await Promise.all(slow);
    for (const answer of slowAnswers) {
      assert.equal(answer.response.status, 200);
      assert.equal(answer.response.headers.get('cache-control'), 'no-store', 'each slow page given up');
    }
    assert.equal(await countRows(h.ctx, 'page_images'), imagesBefore + 1, 'only the ordinary page was kept');
  });
});
