// Issue 36 on the signing page, over real HTTP without JavaScript (signing-phone-browser.test.ts,
// beside it, has the browser): a refused one-time code keeps everything the signer entered
// (field values, typed name, consent, a drawn signature; the refused code is cleared), and
// so does asking for a code after it; each field's input comes right after the page it sits
// on, each page links to its full-size image; the favicon is served and linked.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import { createCanvas } from '@napi-rs/canvas';
import { refusalMessages } from '../../src/documents/lifecycle.ts';
import { codeResendIntervalMs } from '../../src/signing/codes.ts';
import { escapeHtml } from '../../src/ui/html.ts';
import {
  createSentDocument,
  createTestWorkspace,
  describeEachDatabase,
  latestCodeFor,
  recipient,
  useHarness,
} from '../support/harness.ts';

const cody = { email: 'cody@client.example', name: 'Cody Fox' };

/** Two A4 pages with a line of text each. */
async function twoPages(): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const text of ['Terms', 'Signatures']) {
    pdf.addPage([595, 842]).drawText(text, { x: 72, y: 760, size: 14, font });
  }
  return pdf.save();
}

/** A drawn signature as the pad posts it: a PNG data URL of one stroke. */
function drawnSignature(): string {
  const canvas = createCanvas(300, 100);
  const context = canvas.getContext('2d');
  context.lineWidth = 3;
  context.beginPath();
  context.moveTo(10, 70);
  context.bezierCurveTo(80, 10, 150, 90, 290, 30);
  context.stroke();
  return `data:image/png;base64,${canvas.toBuffer('image/png').toString('base64')}`;
}

/** The whole start tag of the element with this id. */
function tagWithId(page: string, id: string): string {
  const match = new RegExp(`<(?:input|textarea)[^>]* id="${id}"[^>]*>`).exec(page);
  assert.ok(match, `no element #${id}`);
  return match[0];
}

/** The value attribute of the input with this id. */
function valueIn(page: string, id: string): string | undefined {
  return /value="([^"]*)"/.exec(tagWithId(page, id))?.[1];
}

/** The start tags of the radio buttons of the signature's kind. */
function kindChecked(page: string): string | undefined {
  const radios = [...page.matchAll(/<input type="radio" name="signatureKind" value="(\w+)"( checked)?>/g)];
  assert.equal(radios.length, 2);
  return radios.find((r) => r[2])?.[1];
}

describeEachDatabase(
  'the signing page keeps what was entered; fields beside their pages; favicon',
  (kind) => {
    const h = useHarness(kind);

    async function post(path: string, fields: Record<string, string>) {
      const response = await fetch(h.baseUrl + path, {
        method: 'POST',
        body: new URLSearchParams(fields),
        redirect: 'manual',
      });
      return {
        status: response.status,
        location: response.headers.get('location'),
        text: await response.text(),
      };
    }

    /** A sent two-page document for an email-code signer: a checkbox on page 1, a text and initials on page 2. */
    async function codeDocument() {
      const ws = await createTestWorkspace(h.ctx);
      const { id, links } = await createSentDocument(h.ctx, ws.id, {
        recipients: [recipient(cody.email, cody.name, { signingMethod: 'email-code' })],
        file: await twoPages(),
        fields: [
          {
            recipient: cody.email,
            type: 'checkbox',
            page: 1,
            x: 72,
            y: 600,
            width: 14,
            height: 14,
            label: 'Terms read',
          },
          {
            recipient: cody.email,
            type: 'text',
            page: 2,
            x: 72,
            y: 300,
            width: 200,
            height: 24,
            label: 'Company',
          },
          { recipient: cody.email, type: 'initials', page: 2, x: 400, y: 300, width: 60, height: 30 },
          { recipient: cody.email, type: 'signature', page: 2, x: 72, y: 200, width: 180, height: 40 },
        ],
      });
      const link = links.get(cody.email);
      assert.ok(link);
      const stored = await h.ctx.db
        .selectFrom('document_fields')
        .select(['id', 'type', 'label'])
        .where('document_id', '=', id)
        .execute();
      const ids = new Map(stored.map((f) => [f.label ?? f.type, f.id]));
      return { ws, id, path: link.path, ids };
    }

    test('a wrong code keeps the fields, the typed name, the consent and the drawn signature; the right code then signs', async () => {
      const { path, ids } = await codeDocument();
      const company = `field.${ids.get('Company')}`;
      const initials = `field.${ids.get('initials')}`;
      const terms = `field.${ids.get('Terms read')}`;
      assert.equal(
        (await post(`${path}/code`, {})).location,
        `${path}?done=code-sent`,
        'an empty request: the redirect as ever',
      );
      const code = await latestCodeFor(h.ctx, cody.email);
      const wrong = code === '000000' ? '111111' : '000000';
      const drawn = drawnSignature();
      const entries = {
        [company]: 'Fox & Sons <Ltd>',
        [initials]: 'CFx',
        [terms]: 'yes',
        fullName: 'cody fox',
        consent: 'yes',
        signatureKind: 'drawn',
        signatureImage: drawn,
      };

      const refused = await post(`${path}/sign`, { ...entries, code: wrong });
      assert.equal(refused.status, 400);
      assert.ok(refused.text.includes(escapeHtml(refusalMessages['code-invalid'])));
      const page = refused.text;
      assert.equal(valueIn(page, `field-${ids.get('Company')}`), escapeHtml('Fox & Sons <Ltd>'));
      assert.equal(valueIn(page, `field-${ids.get('initials')}`), 'CFx');
      assert.match(tagWithId(page, `field-${ids.get('Terms read')}`), / checked/);
      assert.equal(valueIn(page, 'sign-full-name'), 'cody fox');
      assert.match(tagWithId(page, 'sign-consent'), / checked/);
      assert.equal(valueIn(page, 'sign-code'), '', 'the refused code is cleared');
      assert.equal(kindChecked(page), 'drawn');
      assert.ok(
        page.includes(`<input type="hidden" name="signatureImage" value="${drawn}">`),
        'the drawing, to draw again',
      );

      // Asking for a new code from that page carries it all (the page's copies), and it comes back.
      const codeForm = /<form class="code-request"[^>]*>([\s\S]*?)<\/form>/.exec(page)?.[1] ?? '';
      const carried = Object.fromEntries(
        [...codeForm.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [
          m[1],
          (m[2] as string).replaceAll('&amp;', '&').replaceAll('&lt;', '<').replaceAll('&gt;', '>'),
        ]),
      );
      assert.deepEqual(carried, entries, 'the code request carries what the sign form held');
      const tooSoon = await post(`${path}/code`, carried);
      assert.equal(tooSoon.status, 409);
      assert.equal(valueIn(tooSoon.text, 'sign-full-name'), 'cody fox', 'kept through a refused request too');
      h.clock.advance(codeResendIntervalMs);
      const resent = await post(`${path}/code`, carried);
      assert.equal(resent.status, 200, 'the page again, not a redirect that would drop the form');
      assert.ok(resent.text.includes('We emailed you a 6-digit one-time code.'));
      assert.equal(valueIn(resent.text, `field-${ids.get('Company')}`), escapeHtml('Fox & Sons <Ltd>'));
      assert.equal(valueIn(resent.text, 'sign-full-name'), 'cody fox');
      assert.match(tagWithId(resent.text, 'sign-consent'), / checked/);
      assert.equal(kindChecked(resent.text), 'drawn');
      assert.ok(resent.text.includes(`name="signatureImage" value="${drawn}"`));
      const newCode = await latestCodeFor(h.ctx, cody.email);
      assert.notEqual(newCode, code);

      const signed = await post(`${path}/sign`, { ...entries, code: newCode });
      assert.equal(signed.status, 303, signed.text.slice(0, 300));
      const row = await h.ctx.db
        .selectFrom('recipients')
        .select(['signature_kind', 'signed_at'])
        .where('email', '=', cody.email)
        .orderBy('created_at', 'desc')
        .executeTakeFirstOrThrow();
      assert.equal(row.signature_kind, 'drawn');
      assert.ok(row.signed_at);
      const values = await h.ctx.db
        .selectFrom('document_fields')
        .select(['id', 'value'])
        .where('id', 'in', [ids.get('Company') as string, ids.get('initials') as string])
        .execute();
      assert.deepEqual(values.map((v) => v.value).sort(), ['CFx', 'Fox & Sons <Ltd>']);
    });

    test('a missing code and a name that does not match keep the typed signature, and the code with the name', async () => {
      const { path, ids } = await codeDocument();
      // Every field filled, so that the code is what is judged.
      const fields = {
        [`field.${ids.get('Company')}`]: 'Fox BV',
        [`field.${ids.get('initials')}`]: 'CF',
        [`field.${ids.get('Terms read')}`]: 'yes',
      };
      const noCode = await post(`${path}/sign`, {
        ...fields,
        fullName: 'Cody Fox',
        consent: 'yes',
      });
      assert.equal(noCode.status, 400);
      assert.ok(noCode.text.includes(escapeHtml(refusalMessages['code-required'])));
      assert.equal(valueIn(noCode.text, `field-${ids.get('Company')}`), 'Fox BV');
      assert.equal(valueIn(noCode.text, 'sign-full-name'), 'Cody Fox');
      assert.equal(kindChecked(noCode.text), 'typed');
      assert.ok(noCode.text.includes('<input type="hidden" name="signatureImage" value="">'));

      const mismatch = await post(`${path}/sign`, {
        ...fields,
        fullName: 'Someone Else',
        consent: 'yes',
        code: '123456',
      });
      assert.equal(mismatch.status, 400);
      assert.ok(mismatch.text.includes(escapeHtml(refusalMessages['name-mismatch'])));
      assert.equal(valueIn(mismatch.text, 'sign-full-name'), 'Someone Else');
      assert.equal(valueIn(mismatch.text, 'sign-code'), '123456', 'the code was not judged: kept');
      assert.match(tagWithId(mismatch.text, 'sign-consent'), / checked/);
    });

    test('each field’s input comes right after its page; each page links to its full-size image', async () => {
      const { path, ids } = await codeDocument();
      const page = await (await fetch(h.baseUrl + path)).text();
      const at = (needle: string) => {
        const index = page.indexOf(needle);
        assert.ok(index >= 0, `missing ${needle}`);
        return index;
      };
      const page1 = at('alt="Page 1 of 2');
      const page2 = at('alt="Page 2 of 2');
      const terms = at(`id="field-${ids.get('Terms read')}"`);
      const company = at(`id="field-${ids.get('Company')}"`);
      const initials = at(`id="field-${ids.get('initials')}"`);
      assert.ok(page1 < terms && terms < page2, 'the checkbox after page 1, before page 2');
      assert.ok(page2 < company && page2 < initials, 'the text and initials after page 2');
      assert.ok(company < at('id="sign-form"'), 'before the sign form, and part of it:');
      for (const id of [ids.get('Terms read'), ids.get('Company'), ids.get('initials')])
        assert.match(tagWithId(page, `field-${id}`), / form="sign-form"/);
      assert.match(page, /<legend class="label">Your field on page 1<\/legend>/);
      assert.match(page, /<legend class="label">Your fields on page 2<\/legend>/);
      // The sign form links to them, and still lists what is filled for the signer.
      assert.ok(page.includes(`<a href="#field-${ids.get('Company')}">Text “Company” on page 2</a>`));
      assert.match(page, /Signature on page 2: your signature/);
      for (const n of [1, 2]) {
        assert.ok(
          page.includes(
            `<a class="page-link" href="${path}/pages/${n}" data-page-link><img src="${path}/pages/${n}"`,
          ),
        );
      }
      const image = await fetch(`${h.baseUrl}${path}/pages/2`);
      assert.equal(image.status, 200);
      assert.equal(image.headers.get('content-type'), 'image/png');
      const png = Buffer.from(await image.arrayBuffer());
      assert.equal(png.readUInt32BE(16), 1200, 'the larger view is the 1200 px page image');
    });

    test('a favicon: /favicon.ico and /assets/favicon.svg are served, signing and application pages link it', async () => {
      const ico = await fetch(`${h.baseUrl}/favicon.ico`);
      assert.equal(ico.status, 200);
      assert.equal(ico.headers.get('content-type'), 'image/x-icon');
      const bytes = Buffer.from(await ico.arrayBuffer());
      assert.deepEqual([bytes.readUInt16LE(0), bytes.readUInt16LE(2)], [0, 1], 'an icon file');
      assert.ok(bytes.readUInt16LE(4) >= 1);
      const svg = await fetch(`${h.baseUrl}/assets/favicon.svg`);
      assert.equal(svg.status, 200);
      assert.equal(svg.headers.get('content-type'), 'image/svg+xml');
      assert.match(await svg.text(), /^<svg /);

      const link = '<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">';
      const { path } = await codeDocument();
      assert.ok((await (await fetch(h.baseUrl + path)).text()).includes(link), 'the signing page');
      assert.ok((await (await fetch(`${h.baseUrl}/login`)).text()).includes(link), 'the web app');
    });
  },
);
