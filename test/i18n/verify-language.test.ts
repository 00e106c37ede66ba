// /verify in the visitor's language (issue 51), on both databases: a browser asking for
// German reads the form, the verdict on a sealed file, its facts and the readers' note in
// German (`<html lang="de">`), the same sentences `verificationSentence` gives in German; a
// text file is refused in Japanese for a Japanese browser; the switch (`?lang=ar`) turns the
// page Arabic, right to left, and its cookie keeps it; `signet verify`'s English is unchanged.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findFullDocument } from '../../src/documents/documents.repository.ts';
import { readFile } from '../../src/files/files.service.ts';
import { translator } from '../../src/i18n/messages.ts';
import { sealDueDocuments } from '../../src/sealing/sealing.service.ts';
import {
  readerNote,
  verificationFacts,
  verificationSentence,
  verifyPdf,
} from '../../src/sealing/verification.service.ts';
import { signDocument } from '../../src/signing/signing.service.ts';
import {
  createSentDocument,
  createTestWorkspace,
  describeEachDatabase,
  recipient,
  useHarness,
} from '../support/harness.ts';
import { assertPage, createWebClient, errorBeside, escaped, pdfFile } from '../support/web-client.ts';

describeEachDatabase('/verify in the visitor’s language', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: 'true' } });
  let addresses = 0;
  const visitor = (acceptLanguage: string) =>
    createWebClient(h.baseUrl, { address: `10.52.0.${addresses++}`, acceptLanguage });

  async function sealedFile(): Promise<Uint8Array> {
    const workspace = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, workspace.id, {
      title: 'Liefervertrag',
      recipients: [recipient('ann@client.example', 'Ann Lee')],
    });
    const session = links.get('ann@client.example')?.session;
    assert.ok(session);
    await signDocument(h.ctx, session, { fullName: 'Ann Lee', consent: true });
    h.clock.advance(5_000);
    await sealDueDocuments(h.ctx);
    const document = await findFullDocument(h.ctx.db, workspace.id, id);
    const sealed = document?.sealed_sha256 && (await readFile(h.ctx.db, document.sealed_sha256));
    assert.ok(sealed);
    return sealed;
  }

  test('German: the form, the verdict, its facts and the readers’ note', async () => {
    const de = translator('de');
    const browser = visitor('de-DE,de;q=0.9');
    const form = await browser.get('/verify');
    assertPage(form, 200);
    assert.match(form.text, /<html lang="de" dir="ltr">/);
    for (const key of ['verify.title', 'verify.choose', 'verify.fileLabel', 'verify.submit'] as const)
      assert.ok(form.text.includes(escaped(de.t(key))), key);
    assert.doesNotMatch(form.text, /Verify a sealed PDF|Choose the PDF/);

    const sealed = await sealedFile();
    const page = await browser.post('/verify', { file: pdfFile(sealed, 'vertrag.pdf') });
    assertPage(page, 200);
    const result = await verifyPdf(h.ctx, sealed);
    assert.equal(result.verdict, 'sealed-unchanged');
    const sentence = verificationSentence(result, de);
    assert.notEqual(sentence, verificationSentence(result));
    assert.ok(page.text.includes(escaped(sentence)), sentence);
    for (const fact of verificationFacts(result, de))
      assert.ok(page.text.includes(escaped(fact.label)), fact.label);
    assert.ok(page.text.includes(escaped(readerNote(result, de) ?? '')));
    // The command's (and an English page's) words are the English ones, as before.
    assert.match(verificationSentence(result), /^Sealed by this Signet for document “Liefervertrag” on /);
  });

  test('Japanese: a text file is refused in Japanese; the switch turns the page Arabic and sticks', async () => {
    const browser = visitor('ja');
    assertPage(await browser.get('/verify'), 200);
    const refused = await browser.post('/verify', {
      file: pdfFile(new TextEncoder().encode('hello'), 'notes.txt'),
    });
    assertPage(refused, 400);
    assert.match(refused.text, /<html lang="ja"/);
    assert.equal(errorBeside(refused.text, 'file'), translator('ja').t('verify.refusal.notPdf'));
    const arabic = await browser.get('/verify?lang=ar');
    assert.match(arabic.text, /<html lang="ar" dir="rtl">/);
    assert.ok(arabic.text.includes(escaped(translator('ar').t('verify.title'))));
    assert.match(arabic.text, /<form class="language-switch" method="get" action="\/verify">/);
    const again = await browser.get('/verify');
    assert.match(again.text, /<html lang="ar" dir="rtl">/);
  });
});
