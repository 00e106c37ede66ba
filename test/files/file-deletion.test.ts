// What a sender deletes is gone (issue 49): a deleted draft's PDF, its chunks and its page
// images leave the database, and so do a deleted template's and a draft's replaced PDF, unless
// something else (another workspace's draft with the same bytes, a document made from the
// template) still uses the same bytes, since files are stored once by content.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { drawQueuedPages } from '../../src/files/background-pages.ts';
import { sha256Hex } from '../../src/files/files.service.ts';
import { createApiKey } from '../../src/keys/keys.service.ts';
import { editDraft } from '../../src/sending/drafts.ts';
import { signatureField, templateRole } from '../support/factories.ts';
import {
  callApi,
  countRows,
  createTestWorkspace,
  describeEachDatabase,
  pagesPdf,
  postDocumentMultipart,
  recipient,
  useHarness,
} from '../support/harness.ts';

const ann = { email: 'ann@northwind.example', fullName: 'Ann Lee' };

describeEachDatabase('deleting what a sender deletes', (kind) => {
  const h = useHarness(kind);

  async function workspace() {
    const ws = await createTestWorkspace(h.ctx);
    const write = await createApiKey(h.ctx, { workspaceId: ws.id, name: 'writer', scope: 'write' });
    return { ...ws, writeKey: write.secret };
  }

  /** Every row the database holds of the file `sha256`: the file, its chunks, its page images and their queue. */
  async function storedRows(sha256: string) {
    return {
      files: await countRows(h.ctx, 'files', { sha256 }),
      chunks: await countRows(h.ctx, 'file_chunks', { sha256 }),
      pageImages: await countRows(h.ctx, 'page_images', { sha256 }),
      queued: await countRows(h.ctx, 'page_image_queue', { sha256 }),
    };
  }
  const none = { files: 0, chunks: 0, pageImages: 0, queued: 0 };

  async function uploadDraft(key: string, pdf: Uint8Array): Promise<string> {
    const made = await postDocumentMultipart(h, key, { title: 'Lease', recipients: [ann] }, pdf);
    assert.equal(made.status, 201, made.text);
    return (made.body.data as { id: string }).id;
  }

  test('a deleted draft takes its PDF, its chunks and its page images with it', async () => {
    const ws = await workspace();
    const pdf = await pagesPdf(2);
    const sha256 = sha256Hex(pdf);
    const id = await uploadDraft(ws.writeKey, pdf);
    await drawQueuedPages(h.ctx);
    const stored = await storedRows(sha256);
    assert.equal(stored.files, 1);
    assert.ok(stored.chunks > 0 && stored.pageImages > 0, JSON.stringify(stored));
    const deleted = await callApi(h, 'DELETE', `/v1/documents/${id}`, { key: ws.writeKey });
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(await storedRows(sha256), none);
  });

  test('the same bytes in another workspace’s draft stay until that draft goes too', async () => {
    const [first, second] = [await workspace(), await workspace()];
    const pdf = await pagesPdf(1);
    const sha256 = sha256Hex(pdf);
    const [one, two] = [await uploadDraft(first.writeKey, pdf), await uploadDraft(second.writeKey, pdf)];
    await callApi(h, 'DELETE', `/v1/documents/${one}`, { key: first.writeKey });
    assert.equal((await storedRows(sha256)).files, 1, 'the other draft still uses it');
    const detail = await callApi(h, 'GET', `/v1/documents/${two}`, { key: second.writeKey });
    const link = (detail.body.data as { files: Array<{ downloadUrl: string }> }).files[0]?.downloadUrl ?? '';
    const download = await fetch(link.replace(/^https?:\/\/[^/]+/, h.baseUrl));
    assert.equal(download.status, 200);
    assert.deepEqual(new Uint8Array(await download.arrayBuffer()), new Uint8Array(pdf));
    await callApi(h, 'DELETE', `/v1/documents/${two}`, { key: second.writeKey });
    assert.deepEqual(await storedRows(sha256), none);
  });

  test('a draft given a new PDF forgets the old one', async () => {
    const ws = await workspace();
    const [before, after] = [await pagesPdf(1), await pagesPdf(1)];
    const id = await uploadDraft(ws.writeKey, before);
    await editDraft(h.ctx, ws.id, id, {
      title: 'Lease',
      recipients: [recipient(ann.email, ann.fullName)],
      file: after,
      pricing: null,
    });
    assert.deepEqual(await storedRows(sha256Hex(before)), none);
    assert.equal((await storedRows(sha256Hex(after))).files, 1);
  });

  test('a deleted template takes its PDF, unless a document made from it uses it', async () => {
    const ws = await workspace();
    const template = async (pdf: Uint8Array) => {
      const created = await callApi(h, 'POST', '/v1/templates', {
        key: ws.writeKey,
        body: {
          name: 'Lease',
          title: 'Lease',
          roles: [templateRole('Tenant')],
          fields: [signatureField({ role: 'Tenant' })],
          file: Buffer.from(pdf).toString('base64'),
        },
      });
      assert.equal(created.status, 201, created.text);
      return (created.body.data as { id: string }).id;
    };
    const alone = await pagesPdf(1);
    const aloneId = await template(alone);
    await drawQueuedPages(h.ctx);
    assert.equal((await storedRows(sha256Hex(alone))).files, 1);
    assert.equal((await callApi(h, 'DELETE', `/v1/templates/${aloneId}`, { key: ws.writeKey })).status, 200);
    assert.deepEqual(await storedRows(sha256Hex(alone)), none);

    const used = await pagesPdf(1);
    const usedId = await template(used);
    const made = await callApi(h, 'POST', `/v1/templates/${usedId}/documents`, {
      key: ws.writeKey,
      body: { items: [{ recipients: { Tenant: ann } }] },
    });
    assert.equal(made.status, 200, made.text);
    assert.equal((await callApi(h, 'DELETE', `/v1/templates/${usedId}`, { key: ws.writeKey })).status, 200);
    assert.equal((await storedRows(sha256Hex(used))).files, 1, 'the document made from it keeps its PDF');
  });
});
