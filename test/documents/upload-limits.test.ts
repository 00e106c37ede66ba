// SIGNET_UPLOAD_BYTES_PER_DAY: what a workspace may upload as documents' PDFs in a UTC day.
// Past it the form's file field says so and nothing is stored; another workspace has its
// own count; the next UTC day starts afresh (the injected clock crosses midnight). The rule
// is the signing service's, so a draft's edit form meets it too.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderTextDocument } from '../../src/pdf/text-document.ts';
import { countRows, describeEachDatabase, useHarness } from '../support/harness.ts';
import { assertPage, newDocumentFields, pdfFile, type WebClient, webPeople } from '../support/web-client.ts';

const { data } = await renderTextDocument({
  title: 'Lease',
  body: 'The tenant rents the flat.',
  workspaceName: 'Acme',
  pricing: null,
  createdAt: new Date('2026-11-01T00:00:00Z'),
});
const pdf = Buffer.from(data);
/** Two of these PDFs a day, not three. */
const perDay = Math.floor(pdf.byteLength * 2.5);

const formFields = newDocumentFields('Lease');
const file = () => pdfFile(pdf, 'lease.pdf');
const overSentence = /This workspace has uploaded its [\d.]+ KB for today \(UTC\); upload this PDF tomorrow/;

describeEachDatabase('uploads per workspace per day', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_UPLOAD_BYTES_PER_DAY: String(perDay) } });
  const people = webPeople(h, '10.32');

  async function onForm(): Promise<{ client: WebClient; workspaceId: string }> {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    assertPage(await client.get('/documents/new'), 200);
    return { client, workspaceId: owner.workspaceId };
  }

  const upload = (client: WebClient) => client.post('/documents', { ...formFields, file: file() });

  test('past the bytes of the day the file field says so and nothing is stored; at midnight UTC it starts afresh', async () => {
    h.clock.set(new Date('2026-11-26T23:58:00Z'));
    const { client, workspaceId } = await onForm();
    assert.equal((await upload(client)).status, 303);
    const second = await upload(client);
    assert.equal(second.status, 303);
    const third = await upload(client);
    assertPage(third, 400);
    assert.match(third.text, overSentence);
    assert.match(third.text, /id="file-error"/, 'beside the file field');
    assert.equal(await countRows(h.ctx, 'documents', { workspace_id: workspaceId }), 2, 'nothing stored');
    const usage = await h.ctx.db
      .selectFrom('upload_usage')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .execute();
    assert.deepEqual(
      usage.map((row) => [row.day, Number(row.bytes)]),
      [['2026-11-26', pdf.byteLength * 2]],
    );
    // A draft's edit form is refused too: the rule is the service's.
    const id = /^\/documents\/([0-9a-f-]{36})$/.exec(second.location ?? '')?.[1] as string;
    assertPage(await client.get(`/documents/${id}/edit`), 200);
    const edited = await client.post(`/documents/${id}/edit`, { ...formFields, file: file() });
    assertPage(edited, 400);
    assert.match(edited.text, overSentence);

    // Another workspace counts its own.
    const other = await onForm();
    assert.equal((await upload(other.client)).status, 303);

    // One second before midnight UTC: still today. At midnight: a new day.
    h.clock.set(new Date('2026-11-26T23:59:59.999Z'));
    assertPage(await upload(client), 400);
    h.clock.set(new Date('2026-11-27T00:00:00Z'));
    assertPage(await client.get('/documents/new'), 200);
    assert.equal((await upload(client)).status, 303);
    assert.equal(await countRows(h.ctx, 'documents', { workspace_id: workspaceId }), 3);
  });

  test('two uploads at once that fit the day only one at a time: one is stored, the other refused', async () => {
    h.clock.set(new Date('2026-11-29T12:00:00Z'));
    const { client, workspaceId } = await onForm();
    assert.equal((await upload(client)).status, 303);
    const answers = await Promise.all([upload(client), upload(client)]);
    assert.deepEqual(answers.map((a) => a.status).sort(), [303, 400]);
    const usage = await h.ctx.db
      .selectFrom('upload_usage')
      .select('bytes')
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow();
    assert.equal(Number(usage.bytes), pdf.byteLength * 2, 'the refused one is not counted');
    assert.equal(await countRows(h.ctx, 'documents', { workspace_id: workspaceId }), 2);
  });

  test('a form without a file is not counted, and a refused file is not counted', async () => {
    h.clock.set(new Date('2026-11-28T12:00:00Z'));
    const { client, workspaceId } = await onForm();
    assert.equal((await client.post('/documents', formFields)).status, 303);
    const bad = await client.post('/documents', {
      ...formFields,
      file: new File([Buffer.from('not a pdf')], 'x.pdf', { type: 'application/pdf' }),
    });
    assertPage(bad, 400);
    assert.equal(await countRows(h.ctx, 'upload_usage', { workspace_id: workspaceId }), 0);
  });
});
