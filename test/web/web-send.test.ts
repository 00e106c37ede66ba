// Nothing uploaded is lost, nothing wrong goes out (issue 36 §1), in the web application over
// HTTP, on both databases:
// - a PDF sent with a refused form (new or edit) is kept: stored once, counted once in the
//   day's uploads, shown as kept, and used by the next submit without a new file; a new file
//   replaces it; it cannot be used from another session or another workspace;
// - a document with neither a PDF nor text cannot be sent (the rule of sending/send.ts);
// - Send asks to confirm: GET /documents/{id}/send shows the recipients in signing order, the
//   page count and each signer's fields, and warns of a signer without a signature field and
//   of a document without any field; its POST sends.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findFullDocument } from '../../src/documents/documents.repository.ts';
import { DocumentActionError } from '../../src/documents/lifecycle.ts';
import { findKeptUpload, keptForMs } from '../../src/sending/kept-uploads.ts';
import { sendDocument } from '../../src/sending/send.ts';
import {
  countRows,
  createDraftDocument,
  describeEachDatabase,
  pagesPdf,
  recipient,
  useHarness,
} from '../support/harness.ts';
import {
  assertPage,
  assertRedirect,
  errorBeside,
  newDocumentFields,
  pdfFile,
  type WebClient,
  webPeople,
} from '../support/web-client.ts';

/** The kept file's id carried by the form, or null. */
function keptIdIn(text: string): string | null {
  return /<input type="hidden" name="keptFile" value="([^"]+)">/.exec(text)?.[1] ?? null;
}

describeEachDatabase('kept uploads and the send confirmation on the web', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: '1' } });
  const people = webPeople(h, '10.36');

  const uploadedBytes = async (workspaceId: string) => {
    const row = await h.ctx.db
      .selectFrom('upload_usage')
      .select('bytes')
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirst();
    return Number(row?.bytes ?? 0);
  };
  const originalPages = async (workspaceId: string, id: string) => {
    const document = await findFullDocument(h.ctx.db, workspaceId, id);
    if (!document?.original_sha256) return null;
    const file = await h.ctx.db
      .selectFrom('files')
      .select('pages')
      .where('sha256', '=', document.original_sha256)
      .executeTakeFirstOrThrow();
    return file.pages;
  };
  const idOf = (location: string | null) => location?.split('/').at(-1) as string;

  /** An owner's browser on the new-document form. */
  async function onForm(owner?: Awaited<ReturnType<typeof people.newOwner>>) {
    const account = owner ?? (await people.newOwner());
    const client = await people.signedIn(account);
    assertPage(await client.get('/documents/new'), 200);
    return { owner: account, client };
  }

  test('a refused new-document form keeps its PDF: shown as kept, stored and counted once, and the fixed form’s draft has it', async () => {
    const { owner, client } = await onForm();
    const data = await pagesPdf(17);
    const files = await countRows(h.ctx, 'files');
    const refused = await client.post('/documents', {
      ...newDocumentFields('Service contract'),
      r0_email: 'ann@tenant', // mistyped
      file: pdfFile(data),
    });
    assertPage(refused, 400);
    assert.equal(errorBeside(refused.text, 'r0_email'), 'Recipient 1: the email address is not valid.');
    assert.match(
      refused.text,
      /<strong>contract\.pdf<\/strong>, 17 pages, kept; choose another file to replace it\./,
    );
    assert.doesNotMatch(refused.text, /Choose the PDF again/);
    const keptId = keptIdIn(refused.text);
    assert.ok(keptId, 'the form carries the kept file');
    assert.equal(await countRows(h.ctx, 'files'), files + 1, 'stored once');
    assert.equal(await uploadedBytes(owner.workspaceId), data.byteLength, 'counted once');
    assert.equal(await countRows(h.ctx, 'documents', { workspace_id: owner.workspaceId }), 0);

    // Only the address fixed; no file chosen again.
    const created = await client.post('/documents', {
      ...newDocumentFields('Service contract'),
      keptFile: keptId,
    });
    assert.equal(created.status, 303, created.text);
    const id = idOf(created.location);
    assert.equal(await originalPages(owner.workspaceId, id), 17, 'the draft has the PDF');
    assert.equal(await countRows(h.ctx, 'files'), files + 1, 'not stored again');
    assert.equal(await uploadedBytes(owner.workspaceId), data.byteLength, 'not counted again');
    const detail = await client.get(`/documents/${id}`);
    assert.match(detail.text, /PDF <span class="muted small">\(17 pages/);
  });

  test('a new file replaces the kept one; a refused new file keeps the one kept before; a form sent back for more rows keeps it too', async () => {
    const { owner, client } = await onForm();
    const first = await client.post('/documents', {
      ...newDocumentFields('Lease'),
      more: 'recipients',
      file: pdfFile(await pagesPdf(3), 'lease.pdf'),
    });
    assertPage(first, 200);
    assert.match(first.text, /<strong>lease\.pdf<\/strong>, 3 pages, kept/);
    const firstId = keptIdIn(first.text) as string;

    const notPdf = await client.post('/documents', {
      ...newDocumentFields('Lease'),
      r0_name: '',
      keptFile: firstId,
      file: new File([new TextEncoder().encode('hello')], 'notes.pdf', { type: 'application/pdf' }),
    });
    assertPage(notPdf, 400);
    assert.ok(errorBeside(notPdf.text, 'file'), 'the new file’s own refusal stands');
    assert.equal(keptIdIn(notPdf.text), firstId, 'the file kept before stays');

    const second = await client.post('/documents', {
      ...newDocumentFields('Lease'),
      r0_name: '',
      keptFile: firstId,
      file: pdfFile(await pagesPdf(5), 'lease-v2.pdf'),
    });
    assertPage(second, 400);
    assert.match(second.text, /<strong>lease-v2\.pdf<\/strong>, 5 pages, kept/);
    const created = await client.post('/documents', {
      ...newDocumentFields('Lease'),
      keptFile: keptIdIn(second.text) as string,
    });
    assert.equal(created.status, 303, created.text);
    assert.equal(await originalPages(owner.workspaceId, idOf(created.location)), 5);
  });

  test('a kept file cannot be used from another session, by another workspace, or after 6 hours', async () => {
    const { owner, client } = await onForm();
    const refused = await client.post('/documents', {
      ...newDocumentFields('Kept'),
      title: '',
      file: pdfFile(await pagesPdf(2)),
    });
    assertPage(refused, 400);
    const keptId = keptIdIn(refused.text) as string;
    assert.ok(keptId);

    const tryWith = async (other: WebClient, label: string) => {
      assertPage(await other.get('/documents/new'), 200);
      const before = await countRows(h.ctx, 'documents');
      const res = await other.post('/documents', { ...newDocumentFields('Taken'), keptFile: keptId });
      assertPage(res, 400, label);
      assert.match(errorBeside(res.text, 'file') ?? '', /no longer kept/, label);
      assert.equal(keptIdIn(res.text), null, label);
      assert.ok(!res.text.includes('contract.pdf'), label);
      assert.equal(await countRows(h.ctx, 'documents'), before, `${label}: nothing created`);
    };
    // The same person, signed in from another browser: another session.
    await tryWith(await people.signedIn(owner), 'another session');
    await tryWith(await people.signedIn(await people.newOwner()), 'another workspace');

    const session = await h.ctx.db
      .selectFrom('kept_uploads')
      .select(['session_id', 'workspace_id'])
      .where('id', '=', keptId)
      .executeTakeFirstOrThrow();
    const ownerOf = { sessionId: session.session_id, workspaceId: session.workspace_id };
    assert.ok(await findKeptUpload(h.ctx, ownerOf, keptId), 'its own session finds it');
    h.clock.advance(keptForMs);
    assert.equal(await findKeptUpload(h.ctx, ownerOf, keptId), null, 'gone after 6 hours');
  });

  test('the edit form keeps a new PDF through a refusal; the saved draft has it', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const { id } = await createDraftDocument(h.ctx, owner.workspaceId, {
      recipients: [recipient('ann@client.example', 'Ann Lee')],
      file: await pagesPdf(2),
    });
    assertPage(await client.get(`/documents/${id}/edit`), 200);
    const fields = {
      title: 'Consulting agreement',
      recipientRows: '2',
      priceRows: '1',
      r0_email: 'ann@client.example',
      r0_name: 'Ann Lee',
      r0_role: 'signer',
      r0_method: 'standard',
      r0_order: '1',
      currency: 'EUR',
      expiresInDays: '30',
    };
    const refused = await client.post(`/documents/${id}/edit`, {
      ...fields,
      r1_email: 'bob@client', // mistyped
      r1_name: 'Bob Ray',
      file: pdfFile(await pagesPdf(7), 'amended.pdf'),
    });
    assertPage(refused, 400);
    assert.match(
      refused.text,
      /<strong>amended\.pdf<\/strong>, 7 pages, kept; choose another file to replace it\./,
    );
    assert.match(refused.text, /The draft has a PDF of 2 pages\./);
    assert.equal(await originalPages(owner.workspaceId, id), 2, 'nothing changed yet');
    const saved = await client.post(`/documents/${id}/edit`, {
      ...fields,
      r1_email: 'bob@client.example',
      r1_name: 'Bob Ray',
      keptFile: keptIdIn(refused.text) as string,
    });
    assertRedirect(saved, `/documents/${id}?done=saved`);
    assert.equal(await originalPages(owner.workspaceId, id), 7);
  });

  test('a document with neither a PDF nor text cannot be sent: the confirmation says why, the post is refused, and so is the service', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const { id } = await createDraftDocument(h.ctx, owner.workspaceId, { title: 'Empty', body: '  ' });
    const sentence = /This document has neither a PDF nor any text, so there is nothing to sign/;
    const page = await client.get(`/documents/${id}/send`);
    assertPage(page, 200);
    assert.match(page.text, sentence);
    assert.doesNotMatch(page.text, /<button[^>]*>Send to recipients<\/button>/);
    const posted = await client.post(`/documents/${id}/send`);
    assertPage(posted, 409);
    assert.match(posted.text, sentence);
    await assert.rejects(
      sendDocument(h.ctx, owner.workspaceId, id),
      (error) => error instanceof DocumentActionError && error.refusal === 'nothing-to-send',
    );
    const document = await findFullDocument(h.ctx.db, owner.workspaceId, id);
    assert.equal(document?.status, 'draft');
    assert.equal(document?.original_sha256, null, 'no PDF made of the title alone');
  });

  test('Send asks to confirm: the recipients by signing order, the pages, each signer’s fields, and a warning for a signer without a signature field; its post sends', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const { id } = await createDraftDocument(h.ctx, owner.workspaceId, {
      title: 'Partnership',
      recipients: [
        recipient('bob@client.example', 'Bob Ray', { signingOrder: 2 }),
        recipient('ann@client.example', 'Ann Lee', { signingOrder: 1 }),
        recipient('val@client.example', 'Val Kim', { role: 'viewer', signingOrder: 2 }),
      ],
      file: await pagesPdf(3),
      fields: [
        { recipient: 'ann@client.example', type: 'signature', page: 3, x: 72, y: 90, width: 180, height: 40 },
        { recipient: 'ann@client.example', type: 'date', page: 3, x: 300, y: 90, width: 120, height: 20 },
        { recipient: 'bob@client.example', type: 'text', page: 1, x: 72, y: 300, width: 180, height: 20 },
        { recipient: 'bob@client.example', type: 'checkbox', page: 2, x: 72, y: 300, width: 20, height: 20 },
        { recipient: 'bob@client.example', type: 'checkbox', page: 2, x: 72, y: 340, width: 20, height: 20 },
      ],
    });
    const detail = await client.get(`/documents/${id}`);
    assert.match(
      detail.text,
      new RegExp(`<a class="button button-primary" href="/documents/${id}/send">Send to recipients…</a>`),
    );
    assert.doesNotMatch(
      detail.text,
      new RegExp(`action="/documents/${id}/send"`),
      'no send without the confirmation',
    );

    const page = await client.get(`/documents/${id}/send`);
    assertPage(page, 200);
    const text = page.text;
    assert.match(text, /<dt>PDF<\/dt><dd>3 pages<\/dd>/);
    assert.match(text, /<dt>Fields placed<\/dt><dd>5<\/dd>/);
    const list = text.slice(text.indexOf('Recipients, in signing order'));
    const order = ['Order 1', 'Ann Lee', 'Order 2', 'Bob Ray', 'Val Kim'].map((word) => list.indexOf(word));
    assert.ok(
      order.every((at, i) => at > 0 && (i === 0 || at > (order[i - 1] as number))),
      `${order}`,
    );
    assert.match(text, /Ann Lee<\/span>.*?1 signature, 1 date/s);
    assert.match(text, /Bob Ray<\/span>.*?1 text, 2 checkboxes/s);
    assert.match(text, /Val Kim<\/span>.*?receives a copy, fills in nothing/s);
    assert.match(text, /class="notice notice-warning"/);
    assert.match(
      text,
      /Bob Ray has no signature field: their signature will appear only on the certificate\./,
    );
    assert.doesNotMatch(text, /Ann Lee has no signature field/);
    assert.doesNotMatch(text, /No field was placed/);
    assert.match(text, new RegExp(`<form method="post" action="/documents/${id}/send" class="actions">`));
    assert.equal(
      (await findFullDocument(h.ctx.db, owner.workspaceId, id))?.status,
      'draft',
      'a GET sends nothing',
    );

    assertRedirect(await client.post(`/documents/${id}/send`), `/documents/${id}`);
    assert.equal((await findFullDocument(h.ctx.db, owner.workspaceId, id))?.status, 'sent');
    // Sent: the confirmation is over, back to the document.
    assertRedirect(await client.get(`/documents/${id}/send`), `/documents/${id}`);
  });

  test('the confirmation warns when no field was placed at all, and answers 404 to another workspace', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    const { id } = await createDraftDocument(h.ctx, owner.workspaceId, { file: await pagesPdf(1) });
    const page = await client.get(`/documents/${id}/send`);
    assertPage(page, 200);
    assert.match(page.text, /<dt>PDF<\/dt><dd>1 page<\/dd>/);
    assert.match(
      page.text,
      /No field was placed on the document: signers only confirm by name, and their signatures will appear only on the certificate\./,
    );
    assert.doesNotMatch(page.text, /has no signature field/);

    const text = await createDraftDocument(h.ctx, owner.workspaceId);
    const fromText = await client.get(`/documents/${text.id}/send`);
    assert.match(fromText.text, /<dt>PDF<\/dt><dd>made from the document’s text when you send it<\/dd>/);

    const stranger = await people.signedIn(await people.newOwner());
    assertPage(await stranger.get(`/documents/${id}/send`), 404);
    assertPage(await stranger.get('/documents/not-a-uuid/send'), 404);
  });
});
