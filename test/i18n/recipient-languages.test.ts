// Each recipient's mails in their language (issue 51), on both databases: a document sent
// through /v1 to a German, a Japanese and an Arabic signer (and one left to the workspace's
// default) mails each invitation, one-time code and completion in that language; the API
// takes a recipient's `language` as a BCP 47 tag, stores it as Signet lists it, gives it
// back, and refuses one Signet has no catalogue of.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { MessageKey } from '../../src/i18n/messages.ts';
import { translator } from '../../src/i18n/messages.ts';
import { listMails } from '../../src/mail/mail.service.ts';
import { sealDueDocuments } from '../../src/sealing/sealing.service.ts';
import { requestSigningCode } from '../../src/signing/codes.ts';
import { signDocument } from '../../src/signing/signing.service.ts';
import { updateWorkspaceLanguage } from '../../src/workspaces/workspaces.repository.ts';
import { useWriteApi } from '../sending/api-writes-setup.ts';
import { callApi, describeEachDatabase, latestCodeFor, signingLinksOf } from '../support/harness.ts';

/** The first line of a message as a language writes it, its placeholders filled from `values`. */
const said = (language: Parameters<typeof translator>[0], key: MessageKey, values = {}) =>
  translator(language).t(key, values);

describeEachDatabase('a recipient’s mails in their language', (kind) => {
  const { h, workspace, newDocument } = useWriteApi(kind);

  test('invitations, a one-time code and the completion mail each in the recipient’s language; the owner’s in the default', async () => {
    const ws = await workspace();
    assert.equal(await updateWorkspaceLanguage(h.ctx.db, ws.id, 'fr'), true);
    const title = 'Liefervertrag 2027';
    const res = await newDocument(ws.writeKey, {
      title,
      text: 'Die Parteien vereinbaren die Lieferung.',
      recipients: [
        { email: 'anna@kunde.example', fullName: 'Anna Schmidt', language: 'de-AT' },
        { email: 'kenji@client.example', fullName: '山田 健司', language: 'ja', signingMethod: 'email-code' },
        { email: 'layla@client.example', fullName: 'ليلى حداد', language: 'AR' },
        { email: 'remy@client.example', fullName: 'Rémy Blanc', role: 'viewer' },
      ],
      send: true,
    });
    assert.equal(res.status, 201, res.text);
    const id = (res.body.data as { id: string }).id;

    const read = await callApi(h, 'GET', `/v1/documents/${id}`, { key: ws.readKey });
    const languages = (
      read.body.data as { recipients: Array<{ email: string; language: string | null }> }
    ).recipients.map((r) => [r.email, r.language]);
    assert.deepEqual(languages, [
      ['anna@kunde.example', 'de'],
      ['kenji@client.example', 'ja'],
      ['layla@client.example', 'ar'],
      ['remy@client.example', null],
    ]);

    const mails = async () => (await listMails(h.ctx, { documentId: id, limit: 100 })).reverse();
    const invitations = new Map((await mails()).reverse().map((m) => [m.to, m]));
    for (const [to, language, name] of [
      ['anna@kunde.example', 'de', 'Anna Schmidt'],
      ['kenji@client.example', 'ja', '山田 健司'],
      ['layla@client.example', 'ar', 'ليلى حداد'],
    ] as const) {
      const mail = invitations.get(to);
      assert.ok(mail, to);
      assert.equal(mail.subject, said(language, 'mail.signingRequest.subjectSigner', { title }));
      assert.notEqual(mail.subject, said('en', 'mail.signingRequest.subjectSigner', { title }));
      assert.ok(mail.text.startsWith(said(language, 'mail.greetingNamed', { name })), mail.text);
      assert.ok(mail.text.includes(said(language, 'mail.personalLink')), mail.text);
      assert.match(mail.text, /\/sign\/[^\s]+/);
    }
    // Rémy chose nothing: the workspace's default, French.
    assert.equal(
      invitations.get('remy@client.example')?.subject,
      said('fr', 'mail.signingRequest.subjectViewer', { title }),
    );

    const links = await signingLinksOf(h.ctx, id);
    const kenji = links.get('kenji@client.example')?.session;
    assert.ok(kenji);
    await requestSigningCode(h.ctx, kenji, { ip: '203.0.113.7', userAgent: 'test' });
    const codeMail = (await mails()).find(
      (m) => m.to === 'kenji@client.example' && m.subject === said('ja', 'mail.code.subject', { title }),
    );
    assert.equal(codeMail?.subject, said('ja', 'mail.code.subject', { title }));
    assert.ok(codeMail?.text.includes(said('ja', 'mail.code.validity', { minutes: 10 })), codeMail?.text);

    for (const [email, fullName] of [
      ['anna@kunde.example', 'Anna Schmidt'],
      ['layla@client.example', 'ليلى حداد'],
    ] as const) {
      h.clock.advance(1000);
      const session = links.get(email)?.session;
      assert.ok(session);
      await signDocument(h.ctx, session, { fullName, consent: true });
    }
    h.clock.advance(1000);
    const code = await latestCodeFor(h.ctx, 'kenji@client.example');
    const done = await signDocument(h.ctx, kenji, { fullName: '山田 健司', consent: true, code });
    assert.equal(done.completed, true);
    h.clock.advance(1000);
    assert.equal(await sealDueDocuments(h.ctx), 1);
    const all = await mails();
    for (const [to, language] of [
      ['anna@kunde.example', 'de'],
      ['kenji@client.example', 'ja'],
      ['layla@client.example', 'ar'],
      ['remy@client.example', 'fr'],
    ] as const) {
      const subject = said(language, 'mail.completion.subject', { title });
      const completion = all.find((m) => m.to === to && m.subject === subject);
      assert.ok(
        completion,
        `${to} has the completion mail in ${language}: ${all.filter((m) => m.to === to).map((m) => m.subject)}`,
      );
      assert.ok(completion.text.includes(said(language, 'mail.completion.readers')), completion.text);
    }
  });

  test('a language Signet has no catalogue of is refused with a pointer to it; nothing is stored', async () => {
    const ws = await workspace();
    const res = await newDocument(ws.writeKey, {
      title: 'Lease',
      recipients: [{ email: 'ann@client.example', fullName: 'Ann Lee', language: 'tlh' }],
    });
    assert.equal(res.status, 400, res.text);
    assert.match(res.text, /\/recipients\/0\/language/);
    const malformed = await newDocument(ws.writeKey, {
      title: 'Lease',
      recipients: [{ email: 'ann@client.example', fullName: 'Ann Lee', language: 'not a tag!' }],
    });
    assert.equal(malformed.status, 400, malformed.text);
    const list = await callApi(h, 'GET', '/v1/documents', { key: ws.readKey });
    assert.deepEqual(list.body.data, []);
  });
});
