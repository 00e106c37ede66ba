// The certificate of completion in the document's language (issue 51), on both databases: a
// document made through /v1 with `language` (German, Japanese, Arabic, Hebrew) is sealed with
// its certificate written in that language, every script drawn with a face that has it (no
// empty box: pdftotext reads each sentence back); without one, the workspace's default; the
// API gives the choice back in the detail and refuses a language Signet has no catalogue of.
// The pages are written to test/output/certificates/ as PNGs (pdftoppm) to be looked at.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { findFullDocument } from '../../src/documents/documents.repository.ts';
import { readFile } from '../../src/files/files.service.ts';
import { translator } from '../../src/i18n/messages.ts';
import { sealDueDocuments } from '../../src/sealing/sealing.service.ts';
import { signDocument } from '../../src/signing/signing.service.ts';
import { updateWorkspaceLanguage } from '../../src/workspaces/workspaces.repository.ts';
import { useWriteApi } from '../sending/api-writes-setup.ts';
import { callApi, describeEachDatabase, signingLinksOf } from '../support/harness.ts';
import { pdffonts, pdfPageCount, pdftotextPage } from '../support/pdf-tools.ts';

const run = promisify(execFile);
const outputDir = new URL('../output/certificates/', import.meta.url);

/**
 * Text as pdftotext gives it back, without the spaces and line breaks it puts between runs,
 * and Arabic letters folded to their skeleton: the face draws letters that differ only by
 * their dots (ت ث ن ي, ف ق, س ش…) on one shared glyph, which a subset's ToUnicode maps back
 * to the first letter it was drawn for (pdf/fonts.ts, a known limit of copying Arabic text).
 */
const squeezed = (text: string) =>
  text
    .replace(/\s+/g, '')
    .replace(/[\u064B-\u0652]/g, '')
    .replace(/[بتثنيى]/g, 'ب')
    .replace(/[جحخ]/g, 'ح')
    .replace(/[دذ]/g, 'د')
    .replace(/[رز]/g, 'ر')
    .replace(/[سش]/g, 'س')
    .replace(/[صض]/g, 'ص')
    .replace(/[طظ]/g, 'ط')
    .replace(/[عغ]/g, 'ع')
    .replace(/[فق]/g, 'ف')
    .replace(/[أإآا]/g, 'ا')
    .replace(/[ةه]/g, 'ه');

const signers: Record<'de' | 'ja' | 'ar' | 'he', { fullName: string; title: string }> = {
  de: { fullName: 'Jürgen Weiß', title: 'Liefervertrag 2027' },
  ja: { fullName: '山田 健司', title: '業務委託契約書' },
  ar: { fullName: 'ليلى حداد', title: 'عقد توريد' },
  he: { fullName: 'נועה כהן', title: 'חוזה שירות' },
};

describeEachDatabase('the certificate of completion in the document’s language', (kind) => {
  const { h, workspace, newDocument } = useWriteApi(kind);

  /** Sends `title` to one signer, signs and seals it: the sealed PDF and its document id. */
  async function sealed(
    ws: Awaited<ReturnType<typeof workspace>>,
    signer: { fullName: string; title: string },
    language?: string,
  ) {
    const res = await newDocument(ws.writeKey, {
      title: signer.title,
      text: 'The parties agree.',
      recipients: [{ email: 'signer@client.example', fullName: signer.fullName }],
      ...(language === undefined ? {} : { language }),
      send: true,
    });
    assert.equal(res.status, 201, res.text);
    const id = (res.body.data as { id: string }).id;
    const session = (await signingLinksOf(h.ctx, id)).get('signer@client.example')?.session;
    assert.ok(session);
    h.clock.advance(1000);
    await signDocument(h.ctx, session, { fullName: signer.fullName, consent: true });
    h.clock.advance(1000);
    assert.equal(await sealDueDocuments(h.ctx), 1);
    const full = await findFullDocument(h.ctx.db, ws.id, id);
    assert.ok(
      full?.sealed_sha256,
      `sealed (the seal's error: ${(full as { seal_error?: string })?.seal_error})`,
    );
    const pdf = await readFile(h.ctx.db, full.sealed_sha256);
    assert.ok(pdf);
    return { id, pdf };
  }

  for (const language of ['de', 'ja', 'ar', 'he'] as const) {
    test(`a document in ${language}: the certificate reads in ${language}, its script drawn`, async () => {
      const ws = await workspace();
      const { id, pdf } = await sealed(ws, signers[language], language);
      const detail = await callApi(h, 'GET', `/v1/documents/${id}`, { key: ws.readKey });
      assert.equal((detail.body.data as { language: string | null }).language, language);

      const pages = await pdfPageCount(pdf);
      const certificate = squeezed(await pdftotextPage(pdf, pages));
      const tr = translator(language);
      for (const sentence of [
        tr.t('certificate.title'),
        tr.t('certificate.signatures'),
        tr.t('certificate.recipients'),
        tr.t('certificate.history'),
        tr.t('certificate.signingMethod'),
        tr.t('history.document.signed'),
        tr.t('history.document.sent'),
        signers[language].fullName,
      ]) {
        // Poppler gives right-to-left runs back in reading order; a word it cannot map to
        // characters (an empty box, a missing ToUnicode) would be missing here.
        assert.ok(certificate.includes(squeezed(sentence)), `${language}: “${sentence}” in\n${certificate}`);
      }
      for (const english of ['Certificate of completion', 'Event history', 'Signing method']) {
        assert.ok(!certificate.includes(squeezed(english)), `${language}: no “${english}”`);
      }
      const faces = (await pdffonts(pdf)).map((f) => f.name).join(' ');
      const script = {
        de: /NotoSans-/,
        ja: /NotoSansJP|NotoSansCJK|NotoSansJapanese/,
        ar: /Arabic/,
        he: /Hebrew/,
      };
      assert.match(faces, script[language]);

      if (kind === 'pglite') {
        await mkdir(outputDir, { recursive: true });
        const file = join(outputDir.pathname, `certificate-${language}.pdf`);
        await writeFile(file, pdf);
        await run('pdftoppm', [
          '-png',
          '-r',
          '60',
          '-f',
          String(pages),
          '-l',
          String(pages),
          file,
          file.replace(/\.pdf$/, ''),
        ]);
      }
    });
  }

  test('without a language of its own, the certificate is in the workspace’s default', async () => {
    const ws = await workspace();
    assert.equal(await updateWorkspaceLanguage(h.ctx.db, ws.id, 'ja'), true);
    const { id, pdf } = await sealed(ws, { fullName: 'Ann Lee', title: 'Lease' });
    const detail = await callApi(h, 'GET', `/v1/documents/${id}`, { key: ws.readKey });
    assert.equal((detail.body.data as { language: string | null }).language, null);
    const certificate = squeezed(await pdftotextPage(pdf, await pdfPageCount(pdf)));
    assert.ok(certificate.includes(squeezed(translator('ja').t('certificate.title'))), certificate);
  });

  test('a certificate language Signet has no catalogue of is refused at /language; nothing is stored', async () => {
    const ws = await workspace();
    for (const language of ['tlh', 'not a tag!']) {
      const res = await newDocument(ws.writeKey, {
        title: 'Lease',
        recipients: [{ email: 'ann@client.example', fullName: 'Ann Lee' }],
        language,
      });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.body, { ok: false, error: 'invalid-body', pointer: '/language' });
    }
    const list = await callApi(h, 'GET', '/v1/documents', { key: ws.readKey });
    assert.deepEqual(list.body.data, []);
  });
});
