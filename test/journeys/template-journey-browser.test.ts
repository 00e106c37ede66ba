// Issue 38's template journey in Chromium: an owner saves a two-page draft with its fields
// (one a value the sender filled in) as a template from the document's page, uses it (each
// role's person and the asked "Monthly fee") and confirms the send; the first role signs on a
// phone from the link in their mail (the prefilled fee shown, not asked), the second role's
// link waits for them until then, and the second signs on a desktop from theirs. The sealed
// PDF is valid by pdfsig and qpdf --check, and pdftotext -bbox finds the sender's value and
// each signer's typed name and text inside the rectangles the template gives its fields.
// On the way the template's roles are renamed on its page and its field editor looked at. A
// second case looks at the templates list, a bulk send's preview with problems (a CSV with a
// BOM and semicolons, nothing sent) and its progress, at both widths.
// Every page passes axe; the screenshots land in test/output/screenshots/ (docs/screenshots/
// with SIGNET_SCREENSHOTS_DIR=docs/screenshots).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import type { Browser, Page } from 'playwright-core';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { listFields } from '../../src/fields/fields.service.ts';
import { drawQueuedPages } from '../../src/files/background-pages.ts';
import { readFile } from '../../src/files/files.service.ts';
import { sealDueDocuments } from '../../src/sealing/sealing.service.ts';
import { createDocument } from '../../src/sending/drafts.ts';
import { sendDueBulkRows } from '../../src/templates/bulk-send.ts';
import { createTemplate, getTemplate, type TemplateField } from '../../src/templates/templates.service.ts';
import { launchChromium, logIn, lookAt, lookAtAddress, openPage, viewports } from '../support/chromium.ts';
import { templateRole } from '../support/factories.ts';
import {
  countRows,
  databaseKinds,
  describeEachDatabase,
  issueLinkOutOfTurn,
  linkFor,
  recipient,
  recipientRow,
  useHarness,
} from '../support/harness.ts';
import { assertSealedOver, assertWordsInside, pdftotext, pdftotextBbox } from '../support/pdf-tools.ts';

const owner = { email: 'sara@northwind.example', password: 'a long and careful password' };
const maria = { email: 'maria@client.example', name: 'Maria Jansen', initials: 'MJ' };
const tomasz = { email: 'tomasz@northwind.example', name: 'Tomasz Wójcik', depot: 'Rotterdam Waalhaven' };
const title = 'Warehouse services agreement';
const fee = '1,250 EUR';
/** The draft's own value for the fee: the template asks for it again, so it never reaches a document. */
const draftFee = '975 USD';

/** A two-page A4 agreement, each page with a line of its own where the fields go. */
async function agreementPdf(): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const lines = [
    ['Warehouse services agreement', 'The supplier stores, picks and ships the client’s goods.', 'Fee:'],
    ['Signatures', 'Client', 'Supplier'],
  ];
  for (const [heading, first, second] of lines) {
    const page = pdf.addPage([595.28, 841.89]);
    page.drawText(heading as string, { x: 72, y: 760, size: 18, font });
    page.drawText((first as string).replace('’', "'"), { x: 72, y: 720, size: 11, font });
    page.drawText(second as string, { x: 72, y: 640, size: 11, font });
  }
  return Buffer.from(await pdf.save());
}

type Placed = { page: number; x: number; y: number; width: number; height: number };
const placed = (f: Placed) => [f.page, f.x, f.y, f.width, f.height];

/** The draft's fields: the client's fee (filled in by the sender), initials and signature; the supplier's depot and signature. */
function draftFields() {
  return [
    {
      recipient: 'client@draft.example',
      type: 'text',
      page: 1,
      x: 110,
      y: 632,
      width: 180,
      height: 24,
      label: 'Monthly fee',
      value: draftFee,
    },
    { recipient: 'client@draft.example', type: 'initials', page: 1, x: 450, y: 60, width: 80, height: 36 },
    { recipient: 'client@draft.example', type: 'signature', page: 2, x: 72, y: 560, width: 220, height: 56 },
    {
      recipient: 'supplier@draft.example',
      type: 'text',
      page: 2,
      x: 320,
      y: 500,
      width: 200,
      height: 24,
      label: 'Depot',
    },
    {
      recipient: 'supplier@draft.example',
      type: 'signature',
      page: 2,
      x: 320,
      y: 560,
      width: 220,
      height: 56,
    },
  ];
}

describeEachDatabase(
  'a document from a template, signed by two roles in order in Chromium, sealed',
  (kind) => {
    const h = useHarness(kind);
    const saveScreenshots = kind === databaseKinds[0];
    const watch = { foreignRequests: [] as string[], pageErrors: [] as string[] };
    let browser: Browser;
    let pdf: Buffer;
    let workspaceId = '';
    let draftId = '';

    before(async () => {
      browser = await launchChromium({ screenshots: saveScreenshots });
      pdf = await agreementPdf();
      const account = await createAccount(h.ctx, { ...owner, workspaceName: 'Northwind', plan: 'max' });
      workspaceId = account.workspaceId as string;
      ({ id: draftId } = await createDocument(h.ctx, {
        workspaceId,
        title,
        body: 'Please sign the agreement.',
        recipients: [
          recipient('client@draft.example', 'Ada Draft'),
          recipient('supplier@draft.example', 'Ben Draft', { signingOrder: 2 }),
        ],
        pricing: null,
        file: pdf,
        fields: draftFields(),
      }));
      // The pages drawn ahead of time, as the worker does once a PDF is stored.
      await drawQueuedPages(h.ctx);
    });

    after(async () => {
      await browser?.close();
      assert.deepEqual(watch, { foreignRequests: [], pageErrors: [] }, 'nothing beyond the app, no errors');
    });

    const look = (page: Page, name: string, viewport: keyof typeof viewports) =>
      lookAt(page, name, viewport, saveScreenshots ? `${name}-${viewport}.png` : undefined);

    async function loggedIn(viewport: keyof typeof viewports) {
      const opened = await openPage(browser, h.baseUrl, watch, viewports[viewport]);
      await logIn(opened.page, h.baseUrl, owner);
      return opened;
    }

    /** Who has been mailed anything about the document, in the order the mails were written. */
    async function mailedTo(documentId: string): Promise<string[]> {
      const rows = await h.ctx.db
        .selectFrom('mails')
        .select('to_address')
        .where('document_id', '=', documentId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map((row) => row.to_address);
    }

    /** The use form filled in as the owner does: each role's person and the fee. */
    async function fillUseForm(page: Page): Promise<void> {
      const role = (name: string) => page.getByRole('group', { name });
      await role('Client').getByLabel('Full name').fill(maria.name);
      await role('Client').getByLabel('Email').fill(maria.email);
      await role('Supplier').getByLabel('Full name').fill(tomasz.name);
      await role('Supplier').getByLabel('Email').fill(tomasz.email);
      await page.getByRole('group', { name: 'Values you fill in' }).getByLabel('Monthly fee').fill(fee);
    }

    /**
     * From the draft's page to a sent document, in the browser: "Save as template", "Use
     * template" filled in (also looked at on a phone), the send confirmed. Its id and the template's.
     */
    async function saveUseAndSend(): Promise<{ templateId: string; documentId: string }> {
      const { context, page } = await loggedIn('desktop');
      try {
        await page.goto(`${h.baseUrl}/documents/${draftId}`);
        const section = page.getByRole('region', { name: 'Template' });
        await lookAt(page, 'template-journey-draft', 'desktop');
        assert.equal(
          await section.getByLabel('Template name').inputValue(),
          title,
          'named after the document',
        );
        await section.getByLabel('Template name').fill('Warehouse services');
        await section.getByRole('button', { name: 'Save as template' }).click();
        await page.waitForURL(/\/templates\/[0-9a-f-]{36}\?done=saved$/);
        const templateId = new URL(page.url()).pathname.split('/').pop() as string;
        await page.getByRole('heading', { level: 1, name: 'Warehouse services' }).waitFor();
        await page.getByText('Template saved.').waitFor();
        await lookAt(page, 'template-journey-template', 'desktop');
        await renameRolesAndLookAtEditor(context, page, templateId);
        const roles = (await page.locator('ol.roles > li').allInnerTexts()).map((t) =>
          t.replace(/\s+/g, ' '),
        );
        assert.equal(roles.length, 2, roles.join(' | '));
        assert.match(
          roles[0] as string,
          /^Client signer, order 1\b.*Text “Monthly fee” on page 1 you fill it in/,
        );
        assert.match(roles[1] as string, /^Supplier signer, order 2\b.*Text “Depot” on page 2 Signature/);

        await page.getByRole('link', { name: 'Use template' }).click();
        await page.getByRole('heading', { level: 1, name: 'Use “Warehouse services”' }).waitFor();
        await fillUseForm(page);
        await look(page, 'issue38-journey-use', 'desktop');
        await lookAtUseFormOnPhone(context, templateId);
        await page.getByRole('button', { name: 'Create draft and review' }).click();
        await page.waitForURL(/\/documents\/[0-9a-f-]{36}\/send$/);
        const documentId = new URL(page.url()).pathname.split('/')[2] as string;
        await page.getByRole('heading', { level: 1, name: 'Send this document?' }).waitFor();
        await lookAt(page, 'template-journey-send', 'desktop');
        const confirmation = await page.locator('main').innerText();
        for (const expected of [maria.name, maria.email, tomasz.name, tomasz.email])
          assert.ok(confirmation.includes(expected), `${expected} on the send confirmation`);
        assert.deepEqual(await mailedTo(documentId), [], 'nothing is sent before the send is confirmed');
        await page.getByRole('button', { name: 'Send to recipients' }).click();
        await page.waitForURL(new RegExp(`/documents/${documentId}$`));
        assert.equal(await page.locator('.section-title .badge').innerText(), 'sent');
        return { templateId, documentId };
      } finally {
        await context.close();
      }
    }

    /**
     * On the template's page, "Change the roles": "Signer 1" and "Signer 2" renamed "Client"
     * and "Supplier" (their fields kept); then its field editor, each field over its page,
     * looked at on a desktop and a phone; then back on the template's page.
     */
    async function renameRolesAndLookAtEditor(
      desktop: Awaited<ReturnType<typeof loggedIn>>['context'],
      page: Page,
      templateId: string,
    ): Promise<void> {
      await page.locator('summary', { hasText: 'Change the roles' }).click();
      await page.getByLabel('Role 1 name').fill('Client');
      await page.getByLabel('Role 2 name').fill('Supplier');
      await page.getByRole('button', { name: 'Save roles' }).click();
      await page.waitForURL(/\?done=roles$/);
      await page.getByText('Roles saved.').waitFor();
      await page.getByRole('link', { name: 'Edit fields' }).click();
      await page.getByRole('heading', { level: 1, name: 'Fields' }).waitFor();
      const shapes = await page.locator('.field-layer .field-shape').count();
      assert.equal(shapes, draftFields().length, 'every field over its page');
      assert.deepEqual(
        await page.getByLabel('Role', { exact: true }).first().locator('option').allInnerTexts(),
        ['Client', 'Supplier'],
      );
      await look(page, 'issue38-journey-editor', 'desktop');
      await lookAtAddress(browser, h.baseUrl, watch, page.url(), 'issue38-journey-editor', 'phone', {
        storageState: await desktop.storageState(),
        file: saveScreenshots ? 'issue38-journey-editor-phone.png' : undefined,
      });
      for (const viewport of ['desktop', 'phone'] as const)
        await lookAtAddress(
          browser,
          h.baseUrl,
          watch,
          `${h.baseUrl}/templates/new`,
          'issue38-new-template',
          viewport,
          {
            storageState: await desktop.storageState(),
            file: saveScreenshots ? `issue38-new-template-${viewport}.png` : undefined,
          },
        );
      await page.goto(`${h.baseUrl}/templates/${templateId}`);
    }

    /** The same use form filled in on a phone (the owner's cookies), looked at, not sent. */
    async function lookAtUseFormOnPhone(
      desktop: Awaited<ReturnType<typeof loggedIn>>['context'],
      templateId: string,
    ): Promise<void> {
      const { context, page } = await openPage(browser, h.baseUrl, watch, {
        ...viewports.phone,
        storageState: await desktop.storageState(),
      });
      try {
        await page.goto(`${h.baseUrl}/templates/${templateId}/use`);
        await fillUseForm(page);
        await look(page, 'issue38-journey-use', 'phone');
      } finally {
        await context.close();
      }
    }

    /** The signing page at `path`, opened afresh at `viewport`, its heading there. */
    async function openSigning(viewport: keyof typeof viewports, path: string) {
      const opened = await openPage(browser, h.baseUrl, watch, viewports[viewport]);
      const response = await opened.page.goto(h.baseUrl + path);
      assert.equal(response?.status(), 200);
      await opened.page.getByRole('heading', { level: 1, name: title }).waitFor();
      return opened;
    }

    /** The sender's fee, shown to the first signer among what is filled in for them, not asked. */
    async function assertFeeShown(page: Page): Promise<void> {
      assert.match(
        await page.locator('.filled-for-you').innerText(),
        /Text “Monthly fee” on page 1: “1,250 EUR”, as Northwind filled it in/,
      );
      assert.equal(await page.getByLabel('Text “Monthly fee” on page 1').count(), 0, 'not an input of hers');
    }

    /** Fills the signer's own inputs (if any), types their name, consents, looks, signs. */
    async function sign(
      page: Page,
      signer: { name: string },
      viewport: keyof typeof viewports,
      inputs: Array<[label: string, value: string]>,
    ): Promise<void> {
      for (const [label, value] of inputs) await page.getByLabel(label).fill(value);
      await page.getByLabel('Type your full name to sign').fill(signer.name);
      await page.getByLabel(/I agree to sign this document electronically/).check();
      await lookAt(page, `template-journey-${signer === maria ? 'first' : 'second'}`, viewport);
      await page.getByRole('button', { name: 'Sign document' }).click();
      await page.getByText('You signed this document. Thank you!').waitFor();
    }

    test('saved as a template, used and sent in the browser, signed in order by its two roles, sealed with each value in its field', async () => {
      const { templateId, documentId } = await saveUseAndSend();
      const template = await getTemplate(h.ctx, workspaceId, templateId);
      assert.deepEqual(
        template.roles.flatMap((r) =>
          r.fields.map((f) => [r.name, f.type, f.label, f.senderFills, ...placed(f)]),
        ),
        draftFields().map((f) => [
          f.recipient === 'client@draft.example' ? 'Client' : 'Supplier',
          f.type,
          f.label ?? null,
          f.value !== undefined,
          ...placed(f),
        ]),
        'the draft’s fields, on its roles, where the draft has them; the fee asked of the template’s user',
      );
      assert.deepEqual(await mailedTo(documentId), [maria.email], 'the first role only is mailed at send');

      // The first role's page on a desktop, looked at for the screenshot only.
      h.clock.advance(10 * 60_000);
      const mariaPath = (await linkFor(h.ctx, documentId, maria.email)).path;
      const glance = await openSigning('desktop', mariaPath);
      try {
        await assertFeeShown(glance.page);
        await look(glance.page, 'issue38-journey-signing', 'desktop');
      } finally {
        await glance.context.close();
      }

      // The second role's link before their turn: the page says whom they wait for, and offers no signing.
      const early = await issueLinkOutOfTurn(h.ctx, documentId, tomasz.email);
      const waiting = await openSigning('desktop', early.path);
      try {
        await waiting.page.getByText(`You can sign once ${maria.name} has signed.`).waitFor();
        assert.equal(await waiting.page.getByRole('button', { name: 'Sign document' }).count(), 0);
        assert.equal(await waiting.page.getByLabel('Type your full name to sign').count(), 0);
        await lookAt(waiting.page, 'template-journey-waiting', 'desktop');
      } finally {
        await waiting.context.close();
      }
      // That link withdrawn, his row as the send left it: his turn's mail brings him a link of its own.
      await h.ctx.db
        .updateTable('recipients')
        .set({ token_hash: null })
        .where('document_id', '=', documentId)
        .where('email', '=', tomasz.email)
        .execute();

      h.clock.advance(10 * 60_000);
      const phone = await openSigning('phone', mariaPath);
      try {
        await assertFeeShown(phone.page);
        await look(phone.page, 'issue38-journey-signing', 'phone');
        await sign(phone.page, maria, 'phone', [['Initials on page 1', maria.initials]]);
        assert.match(
          await phone.page.locator('.box-success').innerText(),
          /Other signers have not signed yet/,
        );
      } finally {
        await phone.context.close();
      }
      assert.deepEqual(
        await mailedTo(documentId),
        [maria.email, tomasz.email],
        'the second role is mailed at their turn',
      );
      const tomaszPath = (await linkFor(h.ctx, documentId, tomasz.email)).path;
      assert.notEqual(tomaszPath, early.path, 'a link of his own');
      assert.equal((await fetch(h.baseUrl + early.path)).status, 404, 'the withdrawn link leads nowhere');

      h.clock.advance(10 * 60_000);
      const desktop = await openSigning('desktop', tomaszPath);
      try {
        await sign(desktop.page, tomasz, 'desktop', [['Text “Depot” on page 2', tomasz.depot]]);
        assert.match(await desktop.page.locator('.box-success').innerText(), /signed by everyone/);
      } finally {
        await desktop.context.close();
      }
      for (const who of [maria, tomasz])
        assert.equal((await recipientRow(h.ctx, documentId, who.email)).signature_kind, 'typed');

      await checkSealed(documentId, template);
    });

    test('the templates list, a bulk send’s preview with its problems, and its progress, on a desktop and a phone', async () => {
      const { id: templateId } = await createTemplate(h.ctx, {
        workspaceId,
        name: 'Storage contract',
        title: 'Storage contract',
        roles: [templateRole('Client'), templateRole('Supplier', { signingOrder: 2 })],
        fields: [
          { role: 'Client', type: 'signature', page: 2, x: 72, y: 560, width: 180, height: 40 },
          {
            role: 'Client',
            type: 'text',
            page: 1,
            x: 150,
            y: 600,
            width: 160,
            height: 18,
            label: 'Monthly fee',
            senderFills: true,
          },
          { role: 'Supplier', type: 'signature', page: 2, x: 320, y: 560, width: 180, height: 40 },
        ],
        expiresInSeconds: 30 * 86_400,
        file: pdf,
      });
      // As Excel writes it in much of Europe: a BOM and semicolons; rows 3 and 5 have problems.
      const csv = [
        'Client email;Client name;Supplier email;Supplier name;Monthly fee',
        'ann@client.example;Ann Berg;ops@northwind.example;Northwind Ops;900 EUR',
        'bob@client;Bob Olsen;ops@northwind.example;Northwind Ops;1,100 EUR',
        'cy@client.example;Cy Lund;ops@northwind.example;Northwind Ops;750 EUR',
        'dee@client.example;;ops@northwind.example;Northwind Ops;',
      ].join('\r\n');
      const file = { name: 'clients.csv', mimeType: 'text/csv', buffer: Buffer.from(`\uFEFF${csv}\r\n`) };
      let progressUrl = '';
      for (const viewport of ['desktop', 'phone'] as const) {
        const { context, page } = await loggedIn(viewport);
        try {
          await page.goto(`${h.baseUrl}/templates`);
          await page.getByRole('link', { name: 'Storage contract' }).waitFor();
          await look(page, 'issue38-templates', viewport);
          const sendsBefore = await countRows(h.ctx, 'bulk_sends', { workspace_id: workspaceId });
          await page.goto(`${h.baseUrl}/templates/${templateId}/bulk`);
          await page.getByLabel('The filled CSV file').setInputFiles(file);
          await page.getByRole('button', { name: 'Check the file' }).click();
          await page.getByRole('heading', { level: 1, name: 'Check clients.csv' }).waitFor();
          const problems = await page.locator('main').innerText();
          assert.match(problems, /Row 3: Client email “bob@client” is not an email address\./);
          assert.match(problems, /Row 5: Client name/);
          assert.match(problems, /Row 5: Monthly fee/);
          await look(page, 'issue38-bulk-preview', viewport);
          assert.equal(
            await countRows(h.ctx, 'bulk_sends', { workspace_id: workspaceId }),
            sendsBefore,
            'nothing sent by a preview',
          );
          if (viewport === 'desktop') {
            await page.getByRole('button', { name: 'Send the 2 good rows' }).click();
            await page.waitForURL(/\/bulk\/[0-9a-f-]{36}$/);
            progressUrl = page.url();
            await page.getByRole('heading', { level: 1, name: 'Bulk send of clients.csv' }).waitFor();
            await look(page, 'issue38-bulk-progress', viewport);
          } else {
            // The worker's turn, then the progress page at the phone's width.
            await sendDueBulkRows(h.ctx);
            await page.goto(progressUrl);
            assert.match(await page.locator('main').innerText(), /2 of 2 done/);
            await look(page, 'issue38-bulk-progress', viewport);
          }
        } finally {
          await context.close();
        }
      }
    });

    /**
     * Seals what is due, as the worker does: the document's PDF is the template's file and its
     * fields are at the template's positions; the sealed file keeps the original's bytes first,
     * is valid by pdfsig over the whole file and clean by qpdf --check, and carries each value
     * inside its field's rectangle.
     */
    async function checkSealed(documentId: string, template: Awaited<ReturnType<typeof getTemplate>>) {
      assert.equal(await sealDueDocuments(h.ctx), 1, 'one document sealed');
      const document = await h.ctx.db
        .selectFrom('documents')
        .select(['status', 'template_id', 'original_sha256', 'sealed_sha256'])
        .where('id', '=', documentId)
        .executeTakeFirstOrThrow();
      assert.equal(document.status, 'signed');
      assert.equal(document.template_id, template.id, 'made from the template');
      assert.equal(document.original_sha256, template.file.sha256, 'the template’s file, not a copy');
      const templateFields = template.roles.flatMap((r) => r.fields);
      assert.deepEqual(
        (await listFields(h.ctx.db, workspaceId, documentId)).map(placed),
        templateFields.map(placed),
        'the document’s fields at the template’s positions',
      );
      const sealed = (await readFile(h.ctx.db, document.sealed_sha256 as string)) as Buffer;
      await assertSealedOver(pdf, sealed, 1, 'the seal alone');

      const [client, supplier] = template.roles;
      assert.ok(client && supplier);
      const fieldOf = (fields: TemplateField[], type: string, label: string | null = null) => {
        const found = fields.find((f) => f.type === type && f.label === label);
        assert.ok(found, `a ${type} field “${label}”`);
        return found;
      };
      const words = await pdftotextBbox(sealed);
      assertWordsInside(words, fieldOf(client.fields, 'text', 'Monthly fee'), fee);
      assertWordsInside(words, fieldOf(client.fields, 'initials'), maria.initials);
      assertWordsInside(words, fieldOf(client.fields, 'signature'), maria.name);
      assertWordsInside(words, fieldOf(supplier.fields, 'text', 'Depot'), tomasz.depot);
      assertWordsInside(words, fieldOf(supplier.fields, 'signature'), tomasz.name);
      const text = await pdftotext(sealed);
      assert.ok(!text.includes(draftFee), 'the draft’s own fee is not the document’s');
      assert.ok(text.includes('Certificate of completion'));
    }
  },
);
