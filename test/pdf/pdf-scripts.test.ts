// Every name drawn in its own letters: names in Arabic, Hebrew, Thai, Korean, Japanese,
// Georgian, Armenian and emoji set in faces that have them, shaped, in bidirectional order,
// in subset fonts tagged as ISO 32000 requires, judged by poppler (pdftotext, pdffonts,
// pdfsig) and qpdf; and text no face can draw refused where it is typed, with a sentence.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { PDFDocument } from '@cantoo/pdf-lib';
import { requestSignup } from '../../src/accounts/accounts.service.ts';
import { checkPricingBlock, describePricingError } from '../../src/documents/pricing.ts';
import { fillFields, readFieldInput } from '../../src/fields/field-rules.ts';
import { InputError } from '../../src/input-error.ts';
import { appendCertificate, type Certificate } from '../../src/pdf/certificate.ts';
import { drawableText, drawingProblem, FontSet, subsetTag } from '../../src/pdf/fonts.ts';
import { sealPdf } from '../../src/pdf/seal.ts';
import { createSelfSignedSeal } from '../../src/pdf/seal-identity.ts';
import { renderTextDocument } from '../../src/pdf/text-document.ts';
import { runsOf } from '../../src/pdf/text-runs.ts';
import { createWorkspace } from '../../src/workspaces/workspaces.service.ts';
import {
  createDraftDocument,
  createSentDocument,
  createTestWorkspace,
  describeEachDatabase,
  recipient,
  recipientRow,
  useHarness,
} from '../support/harness.ts';
import { assertSealedOver, pdffonts, pdftotext, pdftotextBbox } from '../support/pdf-tools.ts';
import { ensureScreenshotDir } from '../support/screenshots.ts';
import { assertPage, webPeople } from '../support/web-client.ts';

const names = {
  arabic: 'محمد عبد الرحمن',
  hebrew: 'דוד כהן',
  thai: 'สมชาย ใจดี',
  korean: '김민준',
  emoji: 'Zoë 🙂',
  japanese: '山田 花子 さくら',
  georgian: 'ნინო ბერიძე',
  armenian: 'Արամ Պետրոսյան',
};
const emails: Record<keyof typeof names, string> = {
  arabic: 'mohammed@example.com',
  hebrew: 'david@example.co.il',
  thai: 'somchai@example.co.th',
  korean: 'minjun@example.kr',
  japanese: 'hanako@example.jp',
  georgian: 'nino@example.ge',
  armenian: 'aram@example.am',
  emoji: 'zoe@example.com',
};

// Characters no bundled face has: Ol Chiki (a script Signet carries no face for) and a
// private-use code point.
const olChiki = 'ᱚᱛ';
const privateUse = '\u{10fffd}';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 25, 9, minute));

function certificateOf(title: string, fieldValue: string): Certificate {
  const keys = Object.keys(names) as Array<keyof typeof names>;
  return {
    documentId: '6f1c2b8e-0000-4000-8000-0000000000aa',
    title,
    workspaceName: 'Acme GmbH',
    originalSha256: 'cd'.repeat(32),
    originalPages: 1,
    sentAt: at(0),
    completedAt: at(30),
    verifyUrl: 'https://sign.example.com/verify',
    language: 'en' as const,
    recipients: keys.map((key, i) => ({
      fullName: names[key],
      email: emails[key],
      role: 'signer',
      signingMethod: 'standard',
      sent: null,
      openedAt: at(i + 1),
      signedAt: at(i + 2),
      declinedAt: null,
      clientIp: '203.0.113.7',
      userAgent: 'Test browser',
      signature: { kind: 'typed' as const, name: names[key] },
      fields: [{ name: 'Text', label: 'Company', page: 1, value: fieldValue }],
    })),
    events: keys.map((key, i) => ({
      at: at(i + 2),
      label: 'Signed',
      recipientEmail: emails[key],
      clientIp: '203.0.113.7',
      userAgent: 'Test browser',
    })),
  };
}

// poppler marks right-to-left text it reorders with embedding controls; what is asserted is
// the letters, in logical order, as copying them gives.
const letters = (text: string) => text.replace(/[\u202a-\u202e\u200e\u200f]/g, '');

async function original(): Promise<Uint8Array> {
  return (
    await renderTextDocument({
      title: 'Service agreement',
      body: 'Terms.',
      workspaceName: 'Acme GmbH',
      pricing: null,
      createdAt: at(0),
    })
  ).data;
}

test('a certificate with names in eight scripts holds their text, in subset fonts with ISO subset tags, and seals valid', async () => {
  const before = await original();
  const title = `عقد خدمة مع info@example.com`;
  const { data } = await appendCertificate(before, certificateOf(title, 'שותפות (בע״מ) 2026'), [
    {
      page: 1,
      x: 72,
      y: 300,
      width: 240,
      height: 30,
      content: { kind: 'text', text: names.arabic, style: 'handwriting' },
    },
    {
      page: 1,
      x: 72,
      y: 400,
      width: 240,
      height: 30,
      content: { kind: 'text', text: names.thai, style: 'text' },
    },
  ]);
  const text = letters(await pdftotext(data));
  for (const [script, name] of Object.entries(names)) assert.ok(text.includes(name), `${script}: ${name}`);
  assert.ok(text.includes('👍') || text.includes('🙂'), 'the emoji are in the text layer');
  // The address in a right-to-left title reads left to right, never reversed.
  assert.ok(text.includes('info@example.com'), text.slice(0, 400));
  assert.ok(!text.includes('moc.elpmaxe'), 'no address reversed');

  // "name <address>" is a left-to-right line whatever the name: the Arabic name to the left
  // of the address, which is one word in its own order.
  const words = (await pdftotextBbox(data)).flatMap((page) =>
    page.words.map((w) => ({ ...w, page: page.page })),
  );
  const address = words.find((w) => w.text === '<mohammed@example.com>');
  assert.ok(
    address,
    `the address as one word: ${words
      .map((w) => w.text)
      .join(' ')
      .slice(0, 600)}`,
  );
  const sameLine = words.filter(
    (w) =>
      w.page === address.page &&
      Math.abs(w.yMax + w.yMin - address.yMax - address.yMin) < 6 &&
      /\p{Script=Arabic}/u.test(w.text),
  );
  assert.ok(sameLine.length >= 2, 'the Arabic name is on the address’s line');
  for (const word of sameLine) assert.ok(word.xMax <= address.xMin, 'and to its left');

  const fonts = await pdffonts(data);
  for (const family of [
    'NotoSansArabic',
    'NotoSansHebrew',
    'NotoSansThai',
    'NotoSansKR',
    'NotoSansJP',
    'NotoSansGeorgian',
    'NotoSansArmenian',
    'NotoEmoji',
    'Caveat',
  ])
    assert.ok(
      fonts.some((font) => font.name.includes(`+${family}-`)),
      `${family} in ${fonts.map((f) => f.name)}`,
    );
  for (const font of fonts) {
    assert.match(font.name, /^[A-Z]{6}\+[A-Za-z0-9-]+$/, 'a subset is named ABCDEF+Name');
    assert.ok(font.embedded && font.subset && font.unicode, JSON.stringify(font));
  }
  // The tag is in /BaseFont and in the descriptor's /FontName alike (the file is written
  // without object streams, so its dictionaries are plain text).
  const raw = Buffer.from(data).toString('latin1');
  const baseFonts = [...raw.matchAll(/\/BaseFont \/(\S+?)[\s/>]/g)].map((m) => m[1]);
  const fontNames = [...raw.matchAll(/\/FontName \/(\S+?)[\s/>]/g)].map((m) => m[1]);
  assert.ok(baseFonts.length > 10 && fontNames.length > 10);
  for (const name of [...baseFonts, ...fontNames]) assert.match(name ?? '', /^[A-Z]{6}\+/);
  for (const name of fontNames) assert.ok(baseFonts.includes(name), `${name} is also a /BaseFont`);

  // The rendered proof (docs/web-app.md): the certificate's first page, by poppler, into the
  // screenshot folder (docs/screenshots/ when `npm run screenshots` runs).
  const dir = await mkdtemp(join(tmpdir(), 'signet-scripts-'));
  try {
    await writeFile(join(dir, 'certificate.pdf'), data);
    const out = join(ensureScreenshotDir(), 'certificate-scripts');
    await promisify(execFile)('pdftoppm', [
      '-png',
      '-r',
      '110',
      '-f',
      '2',
      '-l',
      '2',
      '-singlefile',
      join(dir, 'certificate.pdf'),
      out,
    ]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }

  const { identity } = await createSelfSignedSeal({ commonName: 'Signet test seal', now: new Date() });
  const sealed = await sealPdf(data, identity, {
    signedAt: new Date(),
    name: 'Signet',
    reason: 'test',
    fieldName: 'Seal',
  });
  await assertSealedOver(before, sealed, 1, 'certificate in eight scripts');
});

test('no glyph drawn is .notdef, and Arabic letters take their joined forms', async () => {
  const pdf = await PDFDocument.create();
  const fonts = new FontSet(pdf, 'test');
  for (const style of ['text', 'bold', 'handwriting'] as const) {
    for (const name of [...Object.values(names), 'Zoë 👍🏽 👨‍👩‍👧 🇫🇷 ❤️']) {
      await fonts.prepare(style, name);
      const ids = fonts.shape(style, name).glyphIds().flat();
      assert.ok(ids.length > 0 && ids.every((id) => id !== 0), `${style}: ${name}: ${ids}`);
    }
  }
  // A text stored before the rule refused it is drawn with U+FFFD for what no face has.
  await fonts.prepare('text', `Ann ${olChiki}`);
  const stored = fonts.shape('text', `Ann ${olChiki}`);
  assert.ok(
    stored
      .glyphIds()
      .flat()
      .every((id) => id !== 0),
  );
  assert.equal(stored.runs.map((run) => run.actual).join(''), 'Ann \ufffd\ufffd');
  // محمد: each letter alone is its isolated form; in the word, initial, medial and final.
  const word = 'محمد';
  await fonts.prepare('text', word);
  const joined = fonts.shape('text', word).glyphIds().flat();
  const isolated = [...word].map((letter) => fonts.shape('text', letter).glyphIds().flat()[0]);
  // Visual order is right to left: the word's glyphs come reversed.
  const differing = joined.reverse().filter((id, i) => id !== isolated[i]).length;
  assert.ok(differing >= 3, `joined ${joined} against isolated ${isolated}`);
});

test('a line is laid out in the bidirectional order: runs left to right, right-to-left runs shaped so, brackets mirrored', async () => {
  const pdf = await PDFDocument.create();
  const fonts = new FontSet(pdf, 'test');
  const line = 'abc אבג def';
  await fonts.prepare('text', line);
  const runs = fonts.shape('text', line, 'ltr').runs;
  assert.equal(runs.map((run) => run.actual).join(''), line, 'a left-to-right paragraph keeps its order');
  assert.ok(
    runs.find((run) => run.actual === 'אבג')?.text.startsWith('\ufdd1'),
    'the Hebrew run is right to left',
  );

  const rtl = 'שלום abc';
  await fonts.prepare('text', rtl);
  const reversed = fonts.shape('text', rtl).runs;
  assert.equal(reversed[0]?.actual, 'abc', 'in a right-to-left paragraph the Latin word comes first, left');
  assert.equal(reversed.at(-1)?.actual.trim(), 'שלום');

  const brackets = 'דוד (כהן) [x]';
  await fonts.prepare('text', brackets);
  for (const run of fonts.shape('text', brackets, 'rtl').runs.filter((r) => r.text.startsWith('\ufdd1'))) {
    const swapped = run.actual.replace(
      /[()[\]]/g,
      (c) => ({ '(': ')', ')': '(', '[': ']', ']': '[' })[c] ?? c,
    );
    assert.equal(run.text.slice(1), swapped, `mirrored at odd levels: ${run.actual}`);
  }
});

test('each paragraph of a text document has its own direction, and a title in Thai alone wraps', async () => {
  const { data } = await renderTextDocument({
    // A title in one script only, bold: the spaces between its words are measured in its face.
    title: 'ทดสอบ น้ำใจ ผู้ใหญ่',
    body: 'שלום עולם first\nsecond 🙂 third',
    workspaceName: 'Acme',
    pricing: null,
    createdAt: at(0),
  });
  const words = (await pdftotextBbox(data))[0]?.words ?? [];
  const x = (text: string) => words.find((w) => w.text === text)?.xMin ?? Number.NaN;
  // The Hebrew paragraph is right to left: its Latin word is at the left; the next paragraph,
  // whose first strong letter is Latin, reads left to right.
  assert.ok(x('first') < x('עולם') || x('first') < x('םלוע'), words.map((w) => w.text).join(' '));
  assert.ok(x('second') < x('third'), 'second then third, left to right');
});

test('every text is NFC before it is measured: a decomposed accent is one letter of the handwriting face', () => {
  const decomposed = 'Rene\u0301e Zoe\u0308';
  assert.equal(drawableText(decomposed), 'Renée Zoë');
  assert.deepEqual(runsOf('handwriting', decomposed), [{ face: 'hand', text: 'Renée Zoë' }]);
});

test('the rule of drawable text: scripts with a face pass, others are named in a sentence', () => {
  for (const name of [...Object.values(names), 'Σωκράτης', 'Жанна', '山田太郎', 'देवनागरी', 'Zoë 👍🏽 ❤️'])
    assert.equal(drawingProblem('The name', name), null, name);
  assert.equal(
    drawingProblem('The name', `Ann ${olChiki}`),
    'The name has characters that the signed PDF cannot show: “ᱚ” (U+1C5A), “ᱛ” (U+1C5B). Please write it without them.',
  );
  assert.equal(
    drawingProblem('The title', `Contract ${privateUse}`),
    'The title has a character that the signed PDF cannot show: U+10FFFD. Please write it without it.',
  );
});

test('subset tags are six upper-case letters, the same for the same document and face, others for others', () => {
  assert.match(subsetTag('doc', 'sans'), /^[A-Z]{6}$/);
  assert.equal(subsetTag('doc', 'sans'), subsetTag('doc', 'sans'));
  assert.notEqual(subsetTag('doc', 'sans'), subsetTag('doc', 'sansBold'));
  assert.notEqual(subsetTag('doc', 'sans'), subsetTag('other', 'sans'));
});

// In a process of its own, so that nothing else has parsed a face yet.
async function facesParsedBy(script: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    cwd: new URL('../..', import.meta.url).pathname,
  });
  return JSON.parse(stdout) as string[];
}

test('faces are parsed only when a word needs them: a Latin certificate parses no other script’s face', async () => {
  const setup = `
    import { appendCertificate } from './src/pdf/certificate.ts';
    import { renderTextDocument } from './src/pdf/text-document.ts';
    import { loadedFaces } from './src/pdf/font-faces.ts';
    import { drawingProblem } from './src/pdf/fonts.ts';
    const original = (await renderTextDocument({ title: 'T', body: 'B', workspaceName: 'W', pricing: null, createdAt: new Date(0) })).data;
    const recipient = (fullName) => ({ fullName, email: 'a@example.com', role: 'signer', signingMethod: 'standard',
      openedAt: null, signedAt: new Date(0), declinedAt: null, clientIp: null, userAgent: null,
      signature: { kind: 'typed', name: fullName }, fields: [] });
    const certificate = (fullName) => ({ documentId: 'd', title: 'T', workspaceName: 'W', originalSha256: 'ab', originalPages: 1,
      sentAt: null, completedAt: new Date(0), verifyUrl: 'https://x', language: 'en', events: [], recipients: [recipient(fullName)] });
  `;
  const latin = await facesParsedBy(
    `${setup} drawingProblem('x', 'Zoë Łukasiewicz ${olChiki}'); await appendCertificate(original, certificate('Zoë Łukasiewicz')); console.log(JSON.stringify(loadedFaces()));`,
  );
  assert.deepEqual(latin.sort(), ['hand', 'sans', 'sansBold']);
  const arabic = await facesParsedBy(
    `${setup} await appendCertificate(original, certificate('${names.arabic}')); console.log(JSON.stringify(loadedFaces()));`,
  );
  // Caveat is not parsed for an Arabic typed signature: it is not a face for Arabic.
  assert.deepEqual(arabic.sort(), ['arabic', 'arabicBold', 'sans', 'sansBold']);
});

describeEachDatabase('text no face can draw is refused where it is typed', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_TRUST_PROXY: '1' } });
  const people = webPeople(h, '10.33');

  test('a document’s title and a recipient’s name are refused by the service (API, CLI and pages call it)', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const error = await createDraftDocument(h.ctx, ws.id, {
      title: `Contract ${privateUse}`,
      recipients: [recipient('ann@client.example', `Ann ${olChiki}`)],
    }).then(
      () => assert.fail('accepted'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof InputError);
    assert.match(
      error.fields.title ?? '',
      /^The title has a character that the signed PDF cannot show: U\+10FFFD\./,
    );
    assert.match(
      error.fields['recipients[0].fullName'] ?? '',
      /^Recipient 1: the full name has characters that the signed PDF cannot show: “ᱚ” \(U\+1C5A\)/,
    );
  });

  test('names and titles are stored NFC-normalised, as they are drawn', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { id } = await createDraftDocument(h.ctx, ws.id, {
      title: 'Contrat de Rene\u0301e',
      recipients: [recipient('renee@client.example', 'Rene\u0301e Zoe\u0308')],
    });
    const row = await recipientRow(h.ctx, id, 'renee@client.example');
    assert.equal(row?.full_name, 'Renée Zoë');
    const document = await h.ctx.db
      .selectFrom('documents')
      .select('title')
      .where('id', '=', id)
      .executeTakeFirst();
    assert.equal(document?.title, 'Contrat de Renée');
  });

  test('the new-document form shows the sentence beside the name', async () => {
    const owner = await people.newOwner();
    const client = await people.signedIn(owner);
    await client.get('/documents/new');
    const res = await client.post('/documents', {
      title: 'Contract',
      r0_email: 'ann@client.example',
      r0_name: olChiki,
    });
    assertPage(res, 400);
    const beside = /<span class="field-error" id="r0_name-error">([^<]*)<\/span>/.exec(res.text)?.[1];
    assert.match(
      beside ?? '',
      /the full name has characters that the signed PDF cannot show: “ᱚ” \(U\+1C5A\)/,
    );
  });

  test('the signing page refuses a typed name no face can draw, with the sentence beside it', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const { links } = await createSentDocument(h.ctx, ws.id);
    const path = links.get('ann@client.example')?.path as string;
    const response = await fetch(`${h.baseUrl}${path}/sign`, {
      method: 'POST',
      body: new URLSearchParams({ fullName: `Ann Lee ${olChiki}`, consent: 'yes' }),
      redirect: 'manual',
    });
    const page = await response.text();
    assert.equal(response.status, 400, page.slice(0, 300));
    assert.match(page, /Your name has characters that the signed PDF cannot show: “ᱚ” \(U\+1C5A\)/);
    const row = await recipientRow(h.ctx, (path.split('/')[2] as string) ?? '', 'ann@client.example');
    assert.equal(row?.signed_at, null, 'nothing signed');
  });

  test('a field label and value, a price line, and a workspace’s name (sign-up and the operator’s CLI) are refused the same way', async () => {
    assert.throws(
      () =>
        fillFields(
          [{ id: 'f1', type: 'text', label: 'Company', page: 1, required: true, maxLength: null }],
          { f1: `ACME ${olChiki}` },
          { name: 'Ann', email: 'ann@client.example', date: '2026-11-25' },
        ),
      (error: unknown) =>
        error instanceof InputError &&
        /^Text “Company” on page 1 has characters that the signed PDF cannot show/.test(
          error.fields['field.f1'] ?? '',
        ),
    );
    assert.match(
      String(
        readFieldInput({
          recipient: 'ann@client.example',
          type: 'text',
          page: 1,
          x: 1,
          y: 1,
          width: 90,
          height: 20,
          label: olChiki,
        }),
      ),
      /^The label has characters that the signed PDF cannot show: “ᱚ” \(U\+1C5A\)/,
    );
    const pricing = checkPricingBlock({
      currency: 'EUR',
      pricesIncludeVat: false,
      items: [
        {
          name: `Setup ${olChiki}`,
          quantity: '1',
          unitPrice: '10',
          vatRate: '0',
          billing: { type: 'one-off' },
        },
      ],
    });
    assert.ok('errors' in pricing);
    assert.deepEqual(pricing.errors.map(describePricingError), [
      'Line 1: item has characters that the signed PDF cannot show: “ᱚ” (U+1C5A), “ᱛ” (U+1C5B).',
    ]);
    await assert.rejects(
      createWorkspace(h.ctx, { name: `Acme ${olChiki}`, plan: 'max' }),
      (error: unknown) =>
        error instanceof InputError &&
        /^The name has characters that the signed PDF cannot show/.test(error.fields.name ?? ''),
    );
    await assert.rejects(
      requestSignup(h.ctx, {
        email: 'new@client.example',
        password: 'a long passphrase 123',
        workspaceName: olChiki,
      }),
      (error: unknown) =>
        error instanceof InputError &&
        /^The name has characters that the signed PDF cannot show/.test(error.fields.workspaceName ?? ''),
    );
  });
});
