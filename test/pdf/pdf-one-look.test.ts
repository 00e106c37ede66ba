// One look (issue 48): a PDF that readers, or one reader's screen and print, show differently
// is refused at upload through the real new-document form on both databases, with its
// sentence beside the file field and nothing stored: layers (usage, /AS events, a second
// configuration, an OFF group, an OCMD that hides, /OC on a form XObject, an unresolvable
// mark), print-only and screen-only annotations, markup, every open-time action, form fields
// whose value is not what they show, text under a field that paints over it. Files whose layers, links and form fields every reader
// shows alike are accepted; and a Signet field placed under one of the upload's own widgets
// is refused at placing, since the widget would cover what the signer enters.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { InputError } from '../../src/input-error.ts';
import { addField } from '../../src/sending/draft-fields.ts';
import {
  countRows,
  createDraftDocument,
  createTestWorkspace,
  describeEachDatabase,
  recipient,
  useHarness,
} from '../support/harness.ts';
import {
  annotationPdfs,
  fieldValuePdfs,
  formPdf,
  goToLinkPdf,
  harmlessLayerPdf,
  linkPdf,
  misshapenPdfs,
  openTimeActionPdfs,
  optionalContentPdfs,
  textUnderFieldPdf,
} from '../support/hostile-pdfs.ts';
import { comparePageRenderings, renderingTolerance } from '../support/pdf-compare.ts';
import { assertPage, newDocumentFields, pdfFile, type WebClient, webPeople } from '../support/web-client.ts';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'pdf');
const formFields = newDocumentFields('Price list');
const layers =
  /This PDF has layers \(optional content\) that readers show differently on screen and in print/;

/** Files the one-look rules accept: each is shown alike by every reader. */
async function acceptedFiles(): Promise<Array<readonly [string, Uint8Array]>> {
  return [
    ['a layer on everywhere', harmlessLayerPdf()],
    ['a link to a web address', await linkPdf()],
    ['a link to a page', await goToLinkPdf()],
    ['a filled form whose values match their appearances', await formPdf()],
    ['a field over a line to write on', await textUnderFieldPdf('______________________________')],
    ['a LaTeX form with its own appearances', readFileSync(join(fixtures, 'latex-form-appearances.pdf'))],
    ['a LaTeX file with links and outlines', readFileSync(join(fixtures, 'latex-object-streams.pdf'))],
    ['a Chromium print', readFileSync(join(fixtures, 'chromium-print.pdf'))],
  ];
}

// "If a file is accepted, pdf.js's display and print intents, poppler and MuPDF must show its
// pages alike" (issue 48 §1): what the signer was shown is what every reader shows.
test('every file these rules accept is drawn alike by pdf.js (display and print), poppler and MuPDF', async () => {
  for (const [what, data] of await acceptedFiles()) {
    const { pairs, worst } = await comparePageRenderings(data, 1, { width: 400 });
    assert.ok(worst <= renderingTolerance, `${what}: ${JSON.stringify(pairs)}`);
  }
});

describeEachDatabase('one look: what readers show differently is refused at upload', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: 'true' } });
  const people = webPeople(h, '10.48');

  async function owner(): Promise<WebClient> {
    const client = await people.signedIn(await people.newOwner());
    assertPage(await client.get('/documents/new'), 200);
    return client;
  }

  async function assertRefused(client: WebClient, what: string, data: Uint8Array, sentence: RegExp) {
    const files = await countRows(h.ctx, 'files');
    const refused = await client.post('/documents', { ...formFields, file: pdfFile(data) });
    assertPage(refused, 400, what);
    assert.match(
      refused.text,
      /<span class="field-error" id="file-error">/,
      `${what}: beside the file field`,
    );
    assert.match(refused.text, sentence, what);
    assert.equal(await countRows(h.ctx, 'files'), files, `${what}: no file stored`);
  }

  test('layers whose state differs by usage, event or configuration, or that hide content, are refused', async () => {
    const client = await owner();
    const cases = optionalContentPdfs();
    assert.equal(cases.length, 7);
    for (const [what, data] of cases) await assertRefused(client, what, data, layers);
  });

  test('annotations shown on screen or in print only, and markup over the page, are refused', async () => {
    const client = await owner();
    for (const [what, data, words] of annotationPdfs()) await assertRefused(client, what, await data, words);
  });

  test('every open-time or page action other than going to a page, and links out of the file, are refused', async () => {
    const client = await owner();
    const cases = openTimeActionPdfs();
    assert.equal(cases.length, 9);
    for (const [what, data, words] of cases) {
      await assertRefused(client, what, await data, /This PDF contains /);
      await assertRefused(client, what, await data, words);
    }
  });

  test('form fields whose value differs from what they show, or that have no appearance, are refused', async () => {
    const client = await owner();
    for (const [what, data, words] of fieldValuePdfs()) await assertRefused(client, what, await data, words);
    await assertRefused(
      client,
      'a LaTeX form without appearances',
      readFileSync(join(fixtures, 'latex-form-drawn.pdf')),
      /form fields without an appearance of their own, which each reader draws its own way/,
    );
    await assertRefused(
      client,
      'text under a field that paints over it',
      await textUnderFieldPdf(),
      /text on its pages under a form field that paints over it, so nobody sees it on the page while readers still extract it/,
    );
  });

  test('what every reader shows alike is accepted: a layer that is on, links, a filled form, real files', async () => {
    const client = await owner();
    for (const [what, data] of await acceptedFiles()) {
      const created = await client.post('/documents', { ...formFields, file: pdfFile(data) });
      assert.equal(created.status, 303, `${what}: ${created.text.slice(0, 300)}`);
    }
  });

  test('entries of the wrong kind where these rules look are answered (a sentence or a draft), never a failure', async () => {
    const client = await owner();
    for (const [what, data] of misshapenPdfs()) {
      const answer = await client.post('/documents', { ...formFields, file: pdfFile(data) });
      assert.ok(answer.status === 303 || answer.status === 400, `${what}: ${answer.status}`);
      if (answer.status === 400)
        assert.match(answer.text, /<span class="field-error" id="file-error">This PDF /, what);
    }
  });

  test('a field placed under one of the upload’s own form fields is refused, beside it is not', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const signer = 'zoe@client.example';
    const file = await formPdf();
    // pdf-lib's text field: its widget (with its border) covers x 149.5–350.5, y 699.5–724.5.
    const over = { recipient: signer, type: 'text', page: 1, x: 160, y: 702, width: 120, height: 20 };
    const under =
      /Field 1: this spot is under a form field or annotation of the PDF \(x 149\.5–350\.5, y 699\.5–724\.5\), which would cover what the signer enters; move the field\./;
    await assert.rejects(
      createDraftDocument(h.ctx, ws.id, { recipients: [recipient(signer, 'Zoe')], file, fields: [over] }),
      (error) => error instanceof InputError && under.test(error.fields.fields ?? ''),
    );
    const { id } = await createDraftDocument(h.ctx, ws.id, {
      recipients: [recipient(signer, 'Zoe')],
      file,
      fields: [{ ...over, y: 600 }],
    });
    await assert.rejects(
      addField(h.ctx, ws.id, id, over),
      (error) =>
        error instanceof InputError &&
        /under a form field or annotation of the PDF/.test(error.fields.fields ?? ''),
    );
    // Touching the widget's edge is not under it.
    await addField(h.ctx, ws.id, id, { ...over, y: 724.5 - 20 - 30 });
    assert.equal(await countRows(h.ctx, 'document_fields'), 2);
  });
});
