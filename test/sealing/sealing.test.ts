// Completion (src/sealing): the last signature makes a seal owed; the worker's pass appends
// the certificate, seals the file, stores it and records document.completed with it, and
// queues the completion mails. Checked with pdfsig, pdftotext and qpdf, on both databases.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { PDFDocument } from '@cantoo/pdf-lib';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { findFullDocument } from '../../src/documents/documents.repository.ts';
import { readFile } from '../../src/files/files.service.ts';
import { deliverDueMails } from '../../src/mail/mail.service.ts';
import { createMailTransport } from '../../src/mail/mailer.ts';
import { inspectSeals } from '../../src/pdf/verify.ts';
import { claimDueSeal, renewSealLease } from '../../src/sealing/sealing.repository.ts';
import { sealDueDocuments, sealLeaseMs, sealRetryDelaysMs } from '../../src/sealing/sealing.service.ts';
import { createDocument } from '../../src/sending/drafts.ts';
import { sendDocument } from '../../src/sending/send.ts';
import { openDocument, signDocument } from '../../src/signing/signing.service.ts';
import {
  callApi,
  countRows,
  createSentDocument,
  createTestWorkspace,
  describeEachDatabase,
  linkFor,
  recipient,
  signingLinksOf,
  storedEventBody,
  useHarness,
} from '../support/harness.ts';
import { pdfsig, pdftotext, qpdfCheck, startTestTsa } from '../support/pdf-tools.ts';
import { startSmtpReceiver } from '../support/smtp-receiver.ts';
import { testPassword } from '../support/web-client.ts';

const folder = mkdtempSync(join(tmpdir(), 'signet-sealing-'));

const client = (ip: string) => ({ ip, userAgent: `Test browser ${ip}` });

describeEachDatabase('sealing', (kind) => {
  const h = useHarness(kind);

  async function signedByAll() {
    const workspace = await createTestWorkspace(h.ctx);
    const owner = `owner-${workspace.id.slice(0, 8)}@acme.example`;
    await createAccount(h.ctx, {
      email: owner,
      password: testPassword,
      workspaceId: workspace.id,
      role: 'owner',
    });
    const { id, links } = await createSentDocument(h.ctx, workspace.id, {
      title: 'Договор Σύμβαση 合同',
      recipients: [
        recipient('zoe@client.example', 'Zoë Łukasiewicz'),
        recipient('ivan@client.example', 'Иван Петров', { signingOrder: 2 }),
        recipient('val@client.example', 'Val Kim', { role: 'viewer' }),
      ],
    });
    const zoe = links.get('zoe@client.example')?.session;
    assert.ok(zoe);
    await openDocument(h.ctx, zoe, client('203.0.113.7'));
    await signDocument(h.ctx, zoe, {
      fullName: 'Zoë Łukasiewicz',
      consent: true,
      client: client('203.0.113.7'),
    });
    h.clock.advance(60_000);
    // Ivan, of order 2, is mailed his link once Zoë has signed.
    const ivan = (await linkFor(h.ctx, id, 'ivan@client.example')).session;
    const last = await signDocument(h.ctx, ivan, {
      fullName: 'Иван Петров',
      consent: true,
      client: client('2001:db8::9'),
    });
    assert.equal(last.completed, true);
    return { workspace, id, owner };
  }

  test('the last signature completes the signing; the seal pass records document.completed with the sealed PDF', async () => {
    const { workspace, id } = await signedByAll();
    let document = await findFullDocument(h.ctx.db, workspace.id, id);
    assert.equal(document?.status, 'signed');
    assert.equal(document?.sealed_sha256, null, 'not sealed in the signer’s request');
    assert.equal(
      await countRows(h.ctx, 'document_events', { document_id: id, type: 'document.completed' }),
      0,
    );
    const signedAt = document?.signed_at;

    h.clock.advance(5_000);
    assert.equal(await sealDueDocuments(h.ctx), 1);
    document = await findFullDocument(h.ctx.db, workspace.id, id);
    assert.ok(document?.sealed_sha256);
    assert.deepEqual(document?.signed_at, signedAt, 'signedAt stays the time of the last signature');
    assert.equal(
      await countRows(h.ctx, 'document_events', { document_id: id, type: 'document.completed' }),
      1,
    );
    assert.equal(await sealDueDocuments(h.ctx), 0, 'sealed once');

    const sealed = await readFile(h.ctx.db, document.sealed_sha256);
    const original = await readFile(h.ctx.db, document.original_sha256 as string);
    assert.ok(sealed && original);
    assert.deepEqual(
      sealed.subarray(0, original.byteLength),
      original,
      'the original bytes come first, unchanged',
    );
    const [seal] = (await pdfsig(sealed)).signatures;
    assert.equal(seal?.validation, 'Signature is Valid.');
    assert.equal(seal?.signatureType, 'ETSI.CAdES.detached');
    assert.ok(seal?.totalDocumentSigned);
    const check = await qpdfCheck(sealed);
    assert.ok(!check.errors && !check.warnings, check.output);
    const text = await pdftotext(sealed);
    for (const expected of [
      'Certificate of completion',
      'Договор Σύμβαση 合同',
      id,
      document.original_sha256 as string,
      'Zoë Łukasiewicz',
      'Иван Петров',
      'val@client.example',
      '203.0.113.7',
      '2001:db8::9',
      'Test browser 203.0.113.7',
      'Opened',
      'Signed',
      // What PDF readers show about the default self-signed seal, and who confirms the file.
      'confirms whether it is the file this Signet sealed',
      'PDF readers check the seal offline too',
      'they show Signet’s default self-signed seal as of unknown validity',
      'which does not mean the file was changed',
      '“issuer unknown”, “validity unknown”',
      'until the operator configures a seal certificate readers trust',
    ]) {
      assert.ok(text.includes(expected), `${expected} in the certificate`);
    }
  });

  test('every recipient and every owner get the sealed PDF by mail, once each', async () => {
    const { id, owner } = await signedByAll();
    await sealDueDocuments(h.ctx);
    const mails = await h.ctx.db
      .selectFrom('mails')
      .select(['to_address', 'subject', 'attachment_sha256', 'attachment_name'])
      .where('document_id', '=', id)
      .where('subject', 'like', 'Completed:%')
      .orderBy('to_address')
      .execute();
    assert.deepEqual(
      mails.map((m) => m.to_address),
      ['ivan@client.example', owner, 'val@client.example', 'zoe@client.example'].sort(),
    );
    const document = await h.ctx.db
      .selectFrom('documents')
      .select('sealed_sha256')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    for (const mail of mails) {
      assert.equal(mail.attachment_sha256, document.sealed_sha256);
      assert.equal(mail.attachment_name, 'Договор Σύμβαση 合同 (signed).pdf');
    }
  });

  test('a seal that fails is retried after a delay and records why; the document waits, still signed', async () => {
    const { id } = await signedByAll();
    const logged: Array<Record<string, unknown>> = [];
    const log = Object.create(h.ctx.log, {
      error: { value: (o: Record<string, unknown>) => logged.push(o) },
    });
    const missingSeal = {
      ...h.ctx.config,
      seal: { ...h.ctx.config.seal, p12File: join(folder, 'missing.p12') },
    };
    // Between scrapes the backlog is read at most once a second: the clock moves past that.
    const gauge = async (name: string) => {
      h.clock.advance(1_001);
      const text = await (await fetch(`${h.baseUrl}/metrics`)).text();
      return Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1]);
    };
    assert.ok((await gauge('signet_seals_owed')) >= 1, 'the seal is owed');
    assert.equal(await sealDueDocuments({ ...h.ctx, log, config: missingSeal }), 1);
    const failed = await h.ctx.db
      .selectFrom('documents')
      .select(['seal_due_at', 'seal_error', 'seal_attempts', 'status', 'sealed_sha256'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(failed.status, 'signed');
    assert.equal(failed.sealed_sha256, null);
    assert.equal(failed.seal_attempts, 1);
    assert.match(failed.seal_error ?? '', /missing\.p12/);
    assert.deepEqual(
      failed.seal_due_at,
      new Date(h.clock.now().getTime() + (sealRetryDelaysMs[0] as number)),
    );
    assert.equal(logged[0]?.documentId, id);
    assert.equal(
      await countRows(h.ctx, 'document_events', { document_id: id, type: 'document.completed' }),
      0,
    );

    assert.equal(await sealDueDocuments(h.ctx), 0, 'not before its retry is due');
    h.clock.advance(sealRetryDelaysMs[0] as number);
    assert.equal(await sealDueDocuments(h.ctx), 1);
    const sealed = await h.ctx.db
      .selectFrom('documents')
      .select(['seal_due_at', 'seal_error', 'sealed_sha256'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.ok(sealed.sealed_sha256);
    assert.equal(sealed.seal_error, null);
    assert.equal(sealed.seal_due_at, null);
    assert.equal(await gauge('signet_seals_failed'), 0);
  });

  test('a claimed seal stays with a holder that renews its lease, and goes to another worker seconds after it stops', async () => {
    const { id } = await signedByAll();
    // A worker claims the seal and then dies (killed, or its database gone): it never renews.
    const claim = await claimDueSeal(h.ctx.db, h.clock.now(), sealLeaseMs);
    assert.equal(claim?.id, id);
    assert.ok(claim);
    assert.equal(await sealDueDocuments(h.ctx), 0, 'held while the lease lasts');
    // A live holder renews before the lease ends, and keeps it past its first end.
    h.clock.advance(sealLeaseMs - 5_000);
    assert.equal(await renewSealLease(h.ctx.db, claim, h.clock.now(), sealLeaseMs), true);
    h.clock.advance(5_000);
    assert.equal(await sealDueDocuments(h.ctx), 0, 'renewed: still held');
    // Once it stops renewing, the seal is another worker's when the lease runs out.
    h.clock.advance(sealLeaseMs - 5_000);
    assert.equal(await sealDueDocuments(h.ctx), 1, 'taken over seconds after the last renewal');
    const row = await h.ctx.db
      .selectFrom('documents')
      .select(['sealed_sha256', 'seal_attempts', 'seal_due_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.ok(row.sealed_sha256);
    assert.equal(row.seal_attempts, 2);
    assert.equal(row.seal_due_at, null);
    // The dead holder's late renewal finds its lease gone and takes nothing back.
    assert.equal(await renewSealLease(h.ctx.db, claim, h.clock.now(), sealLeaseMs), false);
    assert.equal(
      await countRows(h.ctx, 'document_events', { document_id: id, type: 'document.completed' }),
      1,
    );
  });

  test('the API lists the original and sealed files with download links that work 15 minutes', async () => {
    const { workspace, id } = await signedByAll();
    await sealDueDocuments(h.ctx);
    const key = (await createTestWorkspace(h.ctx)).apiKey;
    assert.equal(
      (await callApi(h, 'GET', `/v1/documents/${id}`, { key })).status,
      404,
      'another workspace sees nothing',
    );
    const response = await callApi(h, 'GET', `/v1/documents/${id}`, { key: workspace.apiKey });
    const { files } = response.body.data as { files: Array<Record<string, string | number>> };
    const document = await findFullDocument(h.ctx.db, workspace.id, id);
    assert.deepEqual(
      files.map((f) => [f.kind, f.sha256]),
      [
        ['original', document?.original_sha256],
        ['sealed', document?.sealed_sha256],
      ],
    );
    const sealedUrl = String(files[1]?.downloadUrl).replace(h.config.publicUrl, h.baseUrl);
    assert.match(sealedUrl, /\/files\/[0-9a-f-]{36}\/sealed\.pdf\?expires=\d+&sig=/);
    const download = await fetch(sealedUrl);
    assert.equal(download.status, 200);
    assert.equal(download.headers.get('content-type'), 'application/pdf');
    assert.match(
      download.headers.get('content-disposition') ?? '',
      /^attachment; filename=".*\(signed\)\.pdf"; filename\*=UTF-8''.*%28signed%29\.pdf$/,
    );
    const bytes = Buffer.from(await download.arrayBuffer());
    assert.deepEqual(bytes, await readFile(h.ctx.db, document?.sealed_sha256 as string));
    assert.equal(Number(files[1]?.bytes), bytes.byteLength);

    const forged = sealedUrl.replace(/sig=./, (m) => (m.endsWith('A') ? 'sig=B' : 'sig=A'));
    assert.equal((await fetch(forged)).status, 404);
    assert.equal(
      (await fetch(sealedUrl.replace('sealed.pdf', 'original.pdf'))).status,
      404,
      'a link names one file',
    );
    h.clock.advance(15 * 60_000 + 1_000);
    const late = await fetch(sealedUrl);
    assert.equal(late.status, 410);
    assert.match(await late.text(), /has expired/);
  });

  test('document.completed carries the files (without links) of the sealed document', async () => {
    const { workspace, id } = await signedByAll();
    await sealDueDocuments(h.ctx);
    const body = await storedEventBody<{
      data: { document: { id: string; files: Array<Record<string, unknown>> } };
    }>(h.ctx, workspace.id, 'document.completed');
    assert.equal(body.data.document.id, id);
    assert.deepEqual(
      body.data.document.files.map((f) => Object.keys(f).sort()),
      [
        ['bytes', 'kind', 'pages', 'sha256'],
        ['bytes', 'kind', 'pages', 'sha256'],
      ],
    );
  });

  test('over SMTP the completion mail carries the sealed PDF as an attachment', async () => {
    const smtp = await startSmtpReceiver();
    try {
      const { id } = await signedByAll();
      await sealDueDocuments(h.ctx);
      const transport = createMailTransport({
        smtpUrl: smtp.url,
        from: 'Signet <no-reply@test>',
        log: h.ctx.log,
      });
      while ((await deliverDueMails(h.ctx, transport)) > 0) {}
      transport.close();
      // Earlier tests' documents completed too: find this one's mail by its attachment.
      const attachments = smtp.received
        .filter((m) => m.to.includes('zoe@client.example') && m.raw.includes('Content-Type: application/pdf'))
        .map((mail) => {
          assert.match(mail.raw, /Content-Type: application\/pdf;\s+name=/);
          assert.match(mail.raw, /Content-Disposition: attachment;\s+filename/);
          // The attachment's part: its headers, a blank line, base64 lines up to the next boundary.
          const part = mail.raw.slice(mail.raw.indexOf('Content-Type: application/pdf'));
          const body = part.slice(part.indexOf('\r\n\r\n') + 4);
          const base64 = body.slice(0, body.indexOf('\r\n--')).replace(/\s+/g, '');
          return createHash('sha256').update(Buffer.from(base64, 'base64')).digest('hex');
        });
      const document = await h.ctx.db
        .selectFrom('documents')
        .select('sealed_sha256')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      assert.ok(
        attachments.includes(document.sealed_sha256 as string),
        'the sealed file, whole, reached the SMTP server',
      );
    } finally {
      await smtp.close();
    }
  });

  test('with SIGNET_SEAL_TSA_URL the seal carries a signature time-stamp from that authority', async () => {
    const tsa = await startTestTsa(h.clock.now());
    try {
      const { id } = await signedByAll();
      const withTsa = { ...h.ctx.config, seal: { ...h.ctx.config.seal, tsaUrl: tsa.url } };
      await sealDueDocuments({ ...h.ctx, config: withTsa });
      assert.equal(tsa.requests(), 1, 'one stamp asked for');
      const document = await h.ctx.db
        .selectFrom('documents')
        .select('sealed_sha256')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      const sealed = await readFile(h.ctx.db, document.sealed_sha256 as string);
      assert.ok(sealed);
      const [seal] = (await pdfsig(sealed)).signatures;
      assert.equal(seal?.validation, 'Signature is Valid.');
      const report = await inspectSeals(sealed);
      assert.ok(report.isPdf && report.signatures.at(-1)?.timestamp, 'the time-stamp token is in the seal');
    } finally {
      await tsa.close();
    }
  });

  test('a sealed PDF over 10 MB is mailed as a download link valid 7 days, not attached', async () => {
    const workspace = await createTestWorkspace(h.ctx);
    const big = await PDFDocument.create();
    big.addPage([595, 842]).drawText('A large annex', { x: 72, y: 760, size: 14 });
    // An 11 MB stream, as a scanned annex would be (unreferenced, but written and sealed).
    big.context.register(big.context.stream(randomBytes(11 * 1024 * 1024)));
    const { id } = await createDocument(h.ctx, {
      workspaceId: workspace.id,
      title: 'Annex',
      recipients: [recipient('zoe@client.example', 'Zoë Łukasiewicz')],
      pricing: null,
      file: await big.save({ useObjectStreams: false }),
    });
    await sendDocument(h.ctx, workspace.id, id);
    const link = (await signingLinksOf(h.ctx, id)).get('zoe@client.example');
    assert.ok(link);
    await signDocument(h.ctx, link.session, { fullName: 'Zoë Łukasiewicz', consent: true });
    await sealDueDocuments(h.ctx);
    const mail = await h.ctx.db
      .selectFrom('mails')
      .select(['text_body', 'attachment_sha256'])
      .where('document_id', '=', id)
      .where('subject', 'like', 'Completed:%')
      .executeTakeFirstOrThrow();
    assert.equal(mail.attachment_sha256, null, 'not attached');
    const url = /https:\/\/sign\.example\.test\/files\/\S+\/sealed\.pdf\?expires=(\d+)&sig=\S+/.exec(
      mail.text_body,
    );
    assert.ok(url, mail.text_body);
    const days = (Number(url[1]) * 1000 - h.clock.now().getTime()) / 86_400_000;
    assert.ok(days > 6.99 && days <= 7, `valid ${days} days`);
    assert.match(mail.text_body, /too large to attach/);
  });
});
