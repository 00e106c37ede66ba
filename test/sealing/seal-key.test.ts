// The seal's key (issue 33, part 5): the private key is stored encrypted with a key that is
// not in the database, so a stolen database neither holds the PKCS#8 nor can seal; a wrong
// key is named as such and seals nothing; a clear key an older version stored is encrypted at
// start; `rotateSeal` makes a new seal that every process (context) uses from its next seal
// on, with the operator's name in the subject; a retired seal, and the self-signed seal left
// behind by a switch to a PKCS#12, vouch only for the files Signet's records show they sealed.
import assert from 'node:assert/strict';
import { randomUUID, webcrypto } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import { type Kysely, Migrator, sql } from 'kysely';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { type Context, createContext, createLogger } from '../../src/context.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { migrations } from '../../src/db/migrations/index.ts';
import { readFile, sha256Hex } from '../../src/files/files.service.ts';
import { sealPdf } from '../../src/pdf/seal.ts';
import { createSelfSignedSeal, describeCertificate, identityFromPkcs8 } from '../../src/pdf/seal-identity.ts';
import { decryptSealKey, keyEncryptionKey } from '../../src/sealing/seal-kek.ts';
import {
  certificateFingerprint,
  currentSeal,
  listSeals,
  prepareSealKeys,
  rotateSeal,
} from '../../src/sealing/seal-key.ts';
import { findStoredSealKey, listSealKeys } from '../../src/sealing/seal-keys.repository.ts';
import { sealDueDocuments } from '../../src/sealing/sealing.service.ts';
import { verificationSentence, verifyPdf } from '../../src/sealing/verification.service.ts';
import { startServer } from '../../src/server.ts';
import { signDocument } from '../../src/signing/signing.service.ts';
import { describeRun, runSignet } from '../support/cli-process.ts';
import {
  createEmptyPostgresDatabase,
  createSentDocument,
  createTestClock,
  createTestDatabase,
  createTestWorkspace,
  databaseKinds,
  describeEachDatabase,
  recipient,
  testSealKey,
  useHarness,
} from '../support/harness.ts';
import { pdfsig, startTestTsa } from '../support/pdf-tools.ts';
import { databaseUrlOf, until } from '../support/processes.ts';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'pdf');
const otherKey = Buffer.alloc(32, 7).toString('hex');

/** Every log line of the suite, to show that no key reaches them. */
const logLines: string[] = [];
const capturingLog = () => createLogger('trace', { write: (line: string) => logLines.push(line) });

/** Another process on the same database: its own Kysely instance, so its own seal cache. */
function anotherProcess(ctx: Context, seal: Partial<Context['config']['seal']> = {}): Context {
  return {
    ...ctx,
    db: ctx.db.withoutPlugins(),
    config: { ...ctx.config, seal: { ...ctx.config.seal, ...seal } },
  };
}

async function unsignedPdf(text: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage().drawText(text, { x: 50, y: 700, size: 14, font });
  return doc.save({ useObjectStreams: false });
}

/** The distinguished name pdfsig reads from the seal (poppler writes it without spaces). */
function pdfsigSigner(report: Awaited<ReturnType<typeof pdfsig>>): string {
  return /- Signer full Distinguished Name: (.*)$/m.exec(report.signatures[0]?.text ?? '')?.[1] ?? '';
}

describe('the key-encryption key, as configured', () => {
  test('SIGNET_SEAL_KEY must be 32 bytes (base64 or hex), never repeated in the message; not both variables', () => {
    for (const value of ['secret-but-short', Buffer.alloc(31).toString('base64'), 'z'.repeat(64)]) {
      assert.throws(
        () => loadConfig({ SIGNET_SEAL_KEY: value }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.message === 'SIGNET_SEAL_KEY must be 32 bytes in base64 or hex (openssl rand -base64 32)' &&
          !error.message.includes(value),
      );
    }
    for (const value of [testSealKey, Buffer.alloc(32, 1).toString('hex'), testSealKey.replace(/=$/, '')]) {
      assert.equal(loadConfig({ SIGNET_SEAL_KEY: value }).seal.key, value);
    }
    assert.throws(
      () => loadConfig({ SIGNET_SEAL_KEY: testSealKey, SIGNET_SEAL_KEY_FILE: '/etc/signet/seal.key' }),
      /set SIGNET_SEAL_KEY_FILE or SIGNET_SEAL_KEY, not both/,
    );
  });
});

describeEachDatabase('the seal’s key', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_SEAL_ORGANIZATION: 'Acme Lettings Ltd' }, log: capturingLog() });

  async function signedDocument(title: string): Promise<{ id: string; workspaceId: string }> {
    const workspace = await createTestWorkspace(h.ctx);
    const { id, links } = await createSentDocument(h.ctx, workspace.id, {
      title,
      recipients: [recipient('ann@client.example', 'Ann Lee')],
    });
    const session = links.get('ann@client.example')?.session;
    assert.ok(session);
    await signDocument(h.ctx, session, { fullName: 'Ann Lee', consent: true });
    return { id, workspaceId: workspace.id };
  }

  /** What the documents table records of its seal. */
  const sealRecord = (id: string) =>
    h.ctx.db
      .selectFrom('documents')
      .select(['sealed_sha256', 'sealed_by', 'seal_error'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  async function sealedDocument(title: string, sealingCtx: Context = h.ctx) {
    const { id } = await signedDocument(title);
    h.clock.advance(5_000);
    await sealDueDocuments(sealingCtx);
    const document = await sealRecord(id);
    const sealed = document?.sealed_sha256 && (await readFile(h.ctx.db, document.sealed_sha256));
    assert.ok(sealed, `${title} was sealed`);
    return { id, sealed, sealedBy: document.sealed_by };
  }

  /** What a thief who also took the key-encryption key could sign with: the seal's own key. */
  /** A stored seal's encrypted key and its PKCS#8, decrypted with the suite's key. */
  async function storedKeyOf(name: string) {
    const stored = await findStoredSealKey(h.ctx.db, name);
    assert.ok(stored?.encryptedKey);
    const pkcs8 = decryptSealKey(keyEncryptionKey(h.config), {
      name,
      encrypted_key: stored.encryptedKey,
      kek_id: stored.kekId,
    });
    return { encryptedKey: stored.encryptedKey, pkcs8 };
  }

  async function stolenIdentity(fingerprint: string) {
    const row = (await listSealKeys(h.ctx.db)).find((s) => s.fingerprint === fingerprint);
    assert.ok(row);
    return identityFromPkcs8(row.certificate, (await storedKeyOf(row.name)).pkcs8);
  }

  let first: Awaited<ReturnType<typeof sealedDocument>>;

  test('the database holds the seal’s key only encrypted: no PKCS#8, nothing that imports, and without the key nothing seals', async () => {
    first = await sealedDocument('Lease before rotation');
    const { fingerprint, identity } = await currentSeal(h.ctx);
    assert.equal(first.sealedBy, fingerprint, 'the document records which seal sealed it');
    const rows = await sql<Record<string, unknown>>`select * from seal_keys`.execute(h.ctx.db);
    assert.equal(rows.rows.length, 1);
    const row = rows.rows[0] as { private_key: unknown; encrypted_key: Uint8Array; kek_id: string };
    assert.equal(row.private_key, null);
    assert.equal(row.kek_id, keyEncryptionKey(h.config).id);
    // The key itself, as the one who holds the key-encryption key can read it.
    const stored = await findStoredSealKey(h.ctx.db, (await listSealKeys(h.ctx.db))[0]?.name ?? '');
    assert.ok(stored?.encryptedKey);
    const pkcs8 = decryptSealKey(keyEncryptionKey(h.config), {
      name: stored.name,
      encrypted_key: stored.encryptedKey,
      kek_id: stored.kekId,
    });
    const extractable = await webcrypto.subtle.importKey(
      'pkcs8',
      pkcs8,
      { name: 'ECDSA', namedCurve: 'P-256' },
      true,
      ['sign'],
    );
    const scalar = Buffer.from((await webcrypto.subtle.exportKey('jwk', extractable)).d ?? '', 'base64url');
    assert.equal(scalar.byteLength, 32);
    const everything = Buffer.from(
      JSON.stringify(rows.rows, (_, value) =>
        value instanceof Uint8Array ? Buffer.from(value).toString('hex') : value,
      ),
    ).toString('latin1');
    for (const [what, secret] of [
      ['the PKCS#8', pkcs8],
      ['the private scalar', scalar],
    ] as const) {
      assert.ok(!everything.includes(Buffer.from(secret).toString('hex')), `${what} is not in the row (hex)`);
      assert.ok(!Buffer.from(row.encrypted_key).includes(secret), `${what} is not in the ciphertext`);
    }
    await assert.rejects(
      webcrypto.subtle.importKey('pkcs8', row.encrypted_key, { name: 'ECDSA', namedCurve: 'P-256' }, false, [
        'sign',
      ]),
      'the stored bytes are no key',
    );
    assert.ok(identity.privateKey.extractable === false);

    // The stolen database on a server of the thief's: PostgreSQL, no key configured.
    const thief = anotherProcess(h.ctx, { key: null, keyFile: null });
    thief.config.databaseUrl = 'postgres://thief@127.0.0.1/stolen';
    await assert.rejects(currentSeal(thief), /SIGNET_SEAL_KEY_FILE or SIGNET_SEAL_KEY must be set to seal/);
  });

  test('a wrong key-encryption key says the key does not match the database’s seal, and seals nothing', async () => {
    const wrong = anotherProcess(h.ctx, { key: otherKey });
    await assert.rejects(currentSeal(wrong), (error: Error) => {
      assert.match(
        error.message,
        /^the seal key \(SIGNET_SEAL_KEY\) does not match the database's seal "seal-/,
      );
      assert.match(error.message, /run "signet seal rotate" to make a new seal$/);
      return true;
    });
    const { id } = await signedDocument('Sealed with the wrong key');
    h.clock.advance(5_000);
    assert.equal(await sealDueDocuments(wrong), 1);
    const waiting = await sealRecord(id);
    assert.equal(waiting?.sealed_sha256, null, 'nothing sealed');
    assert.match(waiting?.seal_error ?? '', /does not match the database's seal/);
    assert.equal((await listSealKeys(h.ctx.db)).length, 1, 'and no other seal made');
    h.clock.advance(60_000);
    assert.equal(await sealDueDocuments(h.ctx), 1, 'the right key seals it on the retry');
    assert.ok((await sealRecord(id)).sealed_sha256);
  });

  test('rotation: a new seal with SIGNET_SEAL_ORGANIZATION in its subject, which every process uses from its next seal', async () => {
    const before = await currentSeal(h.ctx);
    const beforeSubject = describeCertificate(before.identity.certificate).subject;
    assert.equal(beforeSubject, 'CN=Document seal of sign.example.test, O=Acme Lettings Ltd');
    assert.equal(
      pdfsigSigner(await pdfsig(first.sealed)),
      'CN=Document seal of sign.example.test,O=Acme Lettings Ltd',
    );
    // Another process has sealed with the current seal (and keeps its identity in its cache).
    const other = anotherProcess(h.ctx);
    const byOther = await sealedDocument('Sealed by the other process', other);
    assert.equal(byOther.sealedBy, before.fingerprint);

    // The operator renamed the organization, then rotated (from a third process: the CLI).
    h.clock.advance(60_000);
    const rotatedAt = h.clock.now();
    const rotation = await rotateSeal(anotherProcess(h.ctx, { organization: 'Acme Lettings GmbH' }));
    assert.equal(rotation.seal.subject, 'CN=Document seal of sign.example.test, O=Acme Lettings GmbH');
    assert.equal(
      rotation.retired?.fingerprintSha256,
      describeCertificate(before.identity.certificate).fingerprintSha256,
    );
    assert.deepEqual(rotation.retired?.retiredAt, rotatedAt);

    for (const [what, ctx] of [
      ['the other process', other],
      ['this process', h.ctx],
    ] as const) {
      const after = await sealedDocument(`Sealed after rotation by ${what}`, ctx);
      assert.notEqual(after.sealedBy, before.fingerprint, what);
      const [signature] = (await pdfsig(after.sealed)).signatures;
      assert.equal(signature?.validation, 'Signature is Valid.', what);
      assert.equal(
        pdfsigSigner(await pdfsig(after.sealed)),
        'CN=Document seal of sign.example.test,O=Acme Lettings GmbH',
        what,
      );
      const verified = await verifyPdf(h.ctx, after.sealed);
      assert.equal(verified.verdict, 'sealed-unchanged', what);
      assert.equal(verified.verdict === 'sealed-unchanged' && verified.seal.retired, null, what);
      assert.equal(
        verified.verdict === 'sealed-unchanged' && verified.seal.certificate?.fingerprintSha256,
        rotation.seal.fingerprintSha256,
        what,
      );
    }
    assert.deepEqual(
      (await listSeals(h.ctx)).map((s) => [s.status, s.fingerprintSha256]),
      [
        ['current', rotation.seal.fingerprintSha256],
        ['retired', rotation.retired?.fingerprintSha256],
      ],
    );
  });

  test('a file sealed before the rotation still verifies, as sealed here by a seal retired on its date', async () => {
    const [retired] = (await listSeals(h.ctx)).filter((s) => s.status === 'retired');
    assert.ok(retired?.retiredAt);
    const result = await verifyPdf(h.ctx, first.sealed);
    assert.equal(result.verdict, 'sealed-unchanged');
    assert.ok(result.verdict === 'sealed-unchanged');
    assert.equal(result.document?.id, first.id);
    assert.deepEqual(result.seal.retired, {
      fingerprintSha256: retired.fingerprintSha256,
      retiredAt: retired.retiredAt,
      vouchesForFile: true,
    });
    const retiredOn = `${retired.retiredAt.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
    assert.match(
      verificationSentence(result),
      new RegExp(
        `^Sealed by this Signet for document “Lease before rotation” on .+ UTC with a seal retired on ${retiredOn}; unchanged since\\.$`,
      ),
    );
  });

  test('a file the retired seal signs after its retirement (with its own key) is not sealed here, and says why', async () => {
    const [retired] = (await listSeals(h.ctx)).filter((s) => s.status === 'retired');
    assert.ok(retired);
    const identity = await stolenIdentity(retired.fingerprintSha256.replaceAll(':', '').toLowerCase());
    const forged = await sealPdf(await unsignedPdf('Total price: 1,000,000 EUR'), identity, {
      signedAt: new Date('2026-02-01T10:00:00Z'),
      name: 'Signet',
      reason: `Completed and sealed by Signet: document ${first.id}`,
      fieldName: `Signet seal ${first.id}`,
    });
    assert.equal((await pdfsig(forged)).signatures[0]?.validation, 'Signature is Valid.', 'the math holds');
    const result = await verifyPdf(h.ctx, forged);
    assert.equal(result.verdict, 'not-sealed-here');
    assert.ok(result.verdict === 'not-sealed-here');
    assert.equal(result.retiredSeal?.fingerprintSha256, retired.fingerprintSha256);
    assert.equal(result.retiredSeal?.vouchesForFile, false);
    assert.match(
      verificationSentence(result),
      /^This file was not sealed by this Signet: it carries a signature by Document seal of sign\.example\.test, made with a seal this Signet retired on .+ UTC, and a retired seal vouches only for the files Signet’s records show it sealed, not for this one\.$/,
    );
    assert.ok(!JSON.stringify(result).includes('Lease before rotation'), 'no title of the document it names');
    // The genuine file with one more line after it is not the recorded file either.
    const appended = Buffer.concat([first.sealed, Buffer.from('\n% note\n%%EOF\n')]);
    assert.equal((await verifyPdf(h.ctx, appended)).verdict, 'not-sealed-here');
  });

  test('a seal retired while a document is being sealed is not recorded for it: the retry seals with the new seal', async () => {
    // The rotation happens in the middle of the seal: while the seal thread asks the
    // time-stamp authority, which is this proxy (it rotates, then asks the real one).
    const tsa = await startTestTsa(h.clock.now());
    let rotated = false;
    const proxy = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      if (!rotated) {
        rotated = true;
        await rotateSeal(anotherProcess(h.ctx));
      }
      const answer = await fetch(tsa.url, {
        method: 'POST',
        headers: { 'content-type': request.headers['content-type'] ?? '' },
        body,
      });
      response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? '' });
      response.end(Buffer.from(await answer.arrayBuffer()));
    });
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    const { port } = proxy.address() as AddressInfo;
    try {
      const tsaCertFile = join(mkdtempSync(join(tmpdir(), 'signet-tsa-')), 'tsa.pem');
      writeFileSync(tsaCertFile, tsa.certificatePem);
      const sealing = anotherProcess(h.ctx, { tsaUrl: `http://127.0.0.1:${port}/`, tsaCertFile });
      const before = await currentSeal(sealing);
      const { id } = await signedDocument('Sealed across a rotation');
      h.clock.advance(5_000);
      assert.equal(await sealDueDocuments(sealing), 1);
      assert.ok(rotated, 'the seal was retired mid-seal');
      const refused = await sealRecord(id);
      assert.equal(refused.sealed_sha256, null, 'not stored under the retired seal');
      assert.match(refused.seal_error ?? '', /the seal was retired while this document was being sealed/);
      h.clock.advance(60_000);
      assert.equal(await sealDueDocuments(sealing), 1);
      const sealed = await sealRecord(id);
      const now = await currentSeal(h.ctx);
      assert.notEqual(now.fingerprint, before.fingerprint);
      assert.equal(sealed.sealed_by, now.fingerprint, 'sealed and recorded with the new seal');
      const file = await readFile(h.ctx.db, sealed.sealed_sha256 as string);
      assert.ok(file);
      const verified = await verifyPdf(h.ctx, file);
      assert.ok(verified.verdict === 'sealed-unchanged' && verified.seal.retired === null);
    } finally {
      proxy.close();
      await tsa.close();
    }
  });

  test('after switching to a PKCS#12, the self-signed seal vouches only for the files it is recorded to have sealed', async () => {
    const selfSigned = await currentSeal(h.ctx);
    const recorded = await sealedDocument('Sealed before the CA certificate');
    const withP12 = anotherProcess(h.ctx, {
      p12File: join(fixtures, 'seal-ec-with-chain.p12'),
      p12Passphrase: 'correct horse',
    });
    const caSealed = await sealedDocument('Sealed with the CA certificate', withP12);
    assert.equal(
      caSealed.sealedBy,
      certificateFingerprint((await currentSeal(withP12)).identity.certificate),
    );

    const old = await verifyPdf(withP12, recorded.sealed);
    assert.ok(old.verdict === 'sealed-unchanged', old.verdict);
    assert.equal(old.document?.id, recorded.id);
    assert.equal(old.seal.retired?.retiredAt, null);
    assert.match(verificationSentence(old), / with a seal no longer in use; unchanged since\.$/);
    const current = await verifyPdf(withP12, caSealed.sealed);
    assert.ok(current.verdict === 'sealed-unchanged' && current.seal.retired === null);

    // The self-signed key signs a new file: this installation no longer seals with it.
    const identity = await stolenIdentity(selfSigned.fingerprint);
    const later = await sealPdf(await unsignedPdf('Signed with the old key'), identity, {
      signedAt: h.clock.now(),
      name: 'Signet',
      reason: `Completed and sealed by Signet: document ${recorded.id}`,
      fieldName: `Signet seal ${recorded.id}`,
    });
    const refused = await verifyPdf(withP12, later);
    assert.ok(refused.verdict === 'not-sealed-here', refused.verdict);
    assert.equal(refused.retiredSeal?.retiredAt, null);
    assert.match(
      verificationSentence(refused),
      /made with a seal this Signet no longer uses \(it seals with a PKCS#12 certificate now\), and a retired seal vouches only for the files Signet’s records show it sealed, not for this one\.$/,
    );
    // While it is the seal in use, it is this installation's seal: the file is then judged as
    // any file sealed here, and it is not the file stored for the document it names.
    const inUse = await verifyPdf(h.ctx, later);
    assert.ok(
      inUse.verdict === 'changed-after-sealing' && inUse.change === 'not-as-stored',
      `${inUse.verdict}: while it is the seal in use, it is this installation’s seal`,
    );
    assert.deepEqual(
      (await listSeals(withP12)).map((s) => s.status),
      ['set-aside', 'retired', 'retired'],
    );
    await assert.rejects(rotateSeal(withP12), /SIGNET_SEAL_P12_FILE is set/);
  });

  test('no log line carries the seal’s key or the key-encryption key', async () => {
    assert.ok(logLines.length > 0, 'the suite logged');
    const secrets: string[] = [testSealKey, Buffer.from(testSealKey, 'base64').toString('hex'), otherKey];
    for (const seal of await listSealKeys(h.ctx.db)) {
      const { encryptedKey, pkcs8 } = await storedKeyOf(seal.name);
      secrets.push(pkcs8.toString('hex'), pkcs8.toString('base64'), encryptedKey.toString('base64'));
    }
    const all = logLines.join('');
    for (const secret of secrets) assert.ok(!all.includes(secret), 'a key in the log');
  });
});

describeEachDatabase('a clear key from an older version', (kind) => {
  // biome-ignore lint/suspicious/noExplicitAny: rows of an older schema have no types here
  async function migrateTo(db: Kysely<any>, name: string): Promise<void> {
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    const { error } = await migrator.migrateTo(name);
    if (error) throw error;
  }

  test('is encrypted at start, once, and seals and verifies as before', async () => {
    const handle = await createTestDatabase(kind, { migrated: false });
    try {
      await migrateTo(handle.db, '0019-server-settings');
      const old = await createSelfSignedSeal({
        commonName: 'Signet seal (sign.example.test)',
        organization: 'Signet',
        now: new Date('2026-01-01T00:00:00Z'),
      });
      await sql`insert into seal_keys (name, certificate, private_key, created_at)
                values ('installation', ${Buffer.from(old.identity.certificate)}, ${Buffer.from(old.pkcs8)},
                        ${new Date('2026-01-01T00:00:00Z')})`.execute(handle.db);
      await migrateToLatest(handle.db);
      const fingerprint = certificateFingerprint(old.identity.certificate);
      const log: string[] = [];
      const logger = createLogger('info', { write: (line: string) => log.push(line) });

      // A PostgreSQL server with no key configured cannot encrypt it: it says so, and leaves it.
      const noKey = loadConfig({ DATABASE_URL: 'postgres://db.example/signet', LOG_LEVEL: 'silent' });
      const unkeyed = await createContext(noKey, handle.db.withoutPlugins(), { log: logger });
      await prepareSealKeys(unkeyed, { seals: true });
      await unkeyed.close();
      assert.match(
        log.join(''),
        /stored in the clear and documents cannot be sealed: set SIGNET_SEAL_KEY_FILE/,
      );
      assert.ok((await findStoredSealKey(handle.db, 'installation'))?.privateKey);

      const config = loadConfig({
        SIGNET_PUBLIC_URL: 'https://sign.example.test',
        SIGNET_SEAL_KEY: testSealKey,
      });
      const ctx = await createContext(config, handle.db, { log: logger, clock: createTestClock() });
      try {
        await prepareSealKeys(ctx, { seals: true });
        await prepareSealKeys(ctx, { seals: true });
        assert.equal(log.filter((l) => l.includes('is now encrypted')).length, 1, 'encrypted once');
        // A worker started with another key says so at start, in one line, and starts.
        const wrongKey = { ...config, seal: { ...config.seal, key: otherKey } };
        const wrong = await createContext(wrongKey, handle.db.withoutPlugins(), { log: logger });
        await prepareSealKeys(wrong, { seals: true });
        await wrong.close();
        const said = log.map((l) => JSON.parse(l) as { level: number; msg: string }).at(-1);
        assert.equal(said?.level, 50);
        assert.match(
          said?.msg ?? '',
          /^documents cannot be sealed: the seal key \(SIGNET_SEAL_KEY\) does not match the database's seal "installation"/,
        );
        const rows = await sql<{
          name: string;
          private_key: unknown;
          encrypted_key: Uint8Array | null;
          fingerprint: string;
          retired_at: Date | null;
        }>`select name, private_key, encrypted_key, fingerprint, retired_at from seal_keys`.execute(
          handle.db,
        );
        assert.equal(rows.rows.length, 1);
        assert.equal(rows.rows[0]?.private_key, null);
        assert.ok(rows.rows[0]?.encrypted_key);
        assert.ok(!Buffer.from(rows.rows[0].encrypted_key).includes(Buffer.from(old.pkcs8)));
        assert.equal(rows.rows[0]?.fingerprint, fingerprint, 'the migration computed its fingerprint');
        assert.equal(rows.rows[0]?.retired_at, null, 'still the current seal');
        const seal = await currentSeal(ctx);
        assert.equal(seal.fingerprint, fingerprint, 'the same seal seals on');
        // A file it sealed before sealed_by was recorded (null) still verifies after a rotation.
        const sealed = await sealPdf(await unsignedPdf('Sealed by the old version'), seal.identity, {
          signedAt: new Date('2026-02-01T10:00:00Z'),
          name: 'Signet',
          reason: 'Completed and sealed by Signet',
          fieldName: 'Signet seal',
        });
        const workspaceId = randomUUID();
        const documentId = randomUUID();
        const sha256 = sha256Hex(sealed);
        await sql`insert into workspaces (id, name, plan, created_at) values (${workspaceId}, 'W', 'max', now())`.execute(
          handle.db,
        );
        await sql`insert into files (sha256, bytes, media_type, chunk_count, created_at) values (${sha256}, ${sealed.byteLength}, 'application/pdf', 0, now())`.execute(
          handle.db,
        );
        await sql`insert into documents (id, workspace_id, title, status, created_at, sealed_sha256)
                  values (${documentId}, ${workspaceId}, 'Old lease', 'signed', now(), ${sha256})`.execute(
          handle.db,
        );
        await rotateSeal(ctx);
        const result = await verifyPdf(ctx, sealed);
        assert.ok(result.verdict === 'sealed-unchanged', result.verdict);
        assert.ok(result.seal.retired?.retiredAt);
      } finally {
        await ctx.close();
      }
    } finally {
      await handle.close();
    }
  });
});

describeEachDatabase('the seal at a worker’s start', (kind) => {
  /** A document of a fresh installation signed by its one signer: its seal is owed. */
  async function signedIn(ctx: Context) {
    const workspace = await createTestWorkspace(ctx);
    const { id, links } = await createSentDocument(ctx, workspace.id, {
      title: 'First of a fresh installation',
      recipients: [recipient('ann@client.example', 'Ann Lee')],
    });
    const session = links.get('ann@client.example')?.session;
    assert.ok(session);
    await signDocument(ctx, session, { fullName: 'Ann Lee', consent: true });
    return id;
  }
  const documentSeal = (ctx: Context, id: string) =>
    ctx.db
      .selectFrom('documents')
      .select(['sealed_sha256', 'sealed_by', 'seal_error'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  test('a seal pass makes no seal: on an installation that has none, the seal waits for a worker’s start', async () => {
    const handle = await createTestDatabase(kind);
    const clock = createTestClock();
    const config = loadConfig({
      SIGNET_PUBLIC_URL: 'https://sign.example.test',
      SIGNET_SEAL_KEY: testSealKey,
    });
    const ctx = await createContext(config, handle.db, { clock, log: createLogger('silent') });
    try {
      const id = await signedIn(ctx);
      assert.equal(await sealDueDocuments(ctx), 1);
      assert.match(
        (await documentSeal(ctx, id)).seal_error ?? '',
        /has no seal yet: a worker makes it when it starts/,
      );
      assert.deepEqual(await listSealKeys(ctx.db), [], 'the pass made none');
      // What a worker does at start (server.ts) makes it; the retry seals with it.
      assert.equal(await prepareSealKeys(ctx, { seals: true }), null);
      const [made, ...others] = await listSealKeys(ctx.db);
      assert.ok(made);
      assert.deepEqual(others, []);
      clock.advance(60_000);
      assert.equal(await sealDueDocuments(ctx), 1);
      const sealed = await documentSeal(ctx, id);
      assert.ok(sealed.sealed_sha256);
      assert.equal(sealed.sealed_by, made.fingerprint);
      assert.equal((await listSealKeys(ctx.db)).length, 1);
    } finally {
      await ctx.close();
      await handle.close();
    }
  });

  test('a fresh installation’s worker has its seal as it starts, before the first document is sealed, and seals with it', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'signet-first-seal-'));
    const postgres = kind === 'postgres' ? await createEmptyPostgresDatabase() : null;
    const server = await startServer(
      loadConfig({
        ...(postgres
          ? { DATABASE_URL: postgres.url, SIGNET_SEAL_KEY: testSealKey }
          : { SIGNET_DATA_DIR: folder }),
        SIGNET_PUBLIC_URL: 'https://sign.example.test',
        LOG_LEVEL: 'silent',
        SIGNET_METRICS: '0',
      }),
      'worker',
    );
    try {
      const [made, ...others] = await listSealKeys(server.ctx.db);
      assert.ok(made, 'the seal is there as the worker starts');
      assert.deepEqual(others, []);
      const id = await signedIn(server.ctx);
      await until(
        async () => (await documentSeal(server.ctx, id)).sealed_sha256 !== null,
        30_000,
        'the seal',
      );
      assert.equal((await documentSeal(server.ctx, id)).sealed_by, made.fingerprint);
      assert.equal((await listSealKeys(server.ctx.db)).length, 1, 'no other seal made');
    } finally {
      await server.close();
      await postgres?.drop();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('signet seal show and rotate, with the data folder’s own key', () => {
  const dir = mkdtempSync(join(tmpdir(), 'signet-seal-key-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SIGNET_DATA_DIR: dir,
    LOG_LEVEL: 'warn',
    SIGNET_PUBLIC_URL: 'https://sign.acme.example',
    SIGNET_SEAL_ORGANIZATION: 'Acme Lettings Ltd',
  };
  for (const name of ['DATABASE_URL', 'SIGNET_SEAL_KEY', 'SIGNET_SEAL_KEY_FILE', 'SIGNET_SEAL_P12_FILE'])
    delete env[name];
  const keyFile = join(dir, 'seal.key');
  after(() => rmSync(dir, { recursive: true, force: true }));
  type Shown = {
    fingerprintSha256: string;
    subject: string;
    seals: Array<{ status: string; fingerprintSha256: string }>;
  };
  let firstFingerprint: string;

  test('the first seal generates seal.key in the data folder, readable by its owner only, and never replaces it', async () => {
    const shown = await runSignet(['seal', 'show', '--json'], env);
    assert.equal(shown.code, 0, describeRun(shown));
    const seal = JSON.parse(shown.stdout) as Shown;
    assert.equal(seal.subject, 'CN=Document seal of sign.acme.example, O=Acme Lettings Ltd');
    firstFingerprint = seal.fingerprintSha256;
    assert.equal(statSync(keyFile).mode & 0o777, 0o600);
    const key = readFileSync(keyFile, 'utf8');
    assert.equal(Buffer.from(key.trim(), 'base64').byteLength, 32);
    assert.ok(
      statSync(join(dir, 'pgdata')).isDirectory(),
      'the database lives in pgdata/ (what a backup holds)',
    );
    assert.ok(!existsSync(join(dir, 'pgdata', 'seal.key')), 'the key beside it, not in it');
    const again = await runSignet(['seal', 'show', '--json'], env);
    assert.equal((JSON.parse(again.stdout) as Shown).fingerprintSha256, firstFingerprint);
    assert.equal(readFileSync(keyFile, 'utf8'), key, 'the same key');
    assert.doesNotMatch(`${shown.stdout}${shown.stderr}`, new RegExp(key.trim().replace(/[+/=]/g, '.')));
  });

  test('rotate prints the new seal’s fingerprint; show lists it as current and the old one as retired', async () => {
    const rotated = await runSignet(['seal', 'rotate'], env);
    assert.equal(rotated.code, 0, describeRun(rotated));
    const fingerprint = /SHA-256 fingerprint +([0-9A-F:]{95})/.exec(rotated.stdout)?.[1];
    assert.ok(fingerprint && fingerprint !== firstFingerprint, rotated.stdout);
    assert.ok(rotated.stdout.includes(`Retired: ${firstFingerprint}`));
    const show = await runSignet(['seal', 'show'], env);
    assert.equal(show.code, 0, describeRun(show));
    assert.match(show.stdout, new RegExp(`current: ${fingerprint}\n`));
    assert.match(show.stdout, new RegExp(`retired: ${firstFingerprint}\n.*retired \\d{4}-`));
    for (const output of [rotated, show]) {
      assert.doesNotMatch(`${output.stdout}${output.stderr}`, /PRIVATE KEY|privateKey|pkcs8|encrypted_?key/i);
    }
  });

  test('a lost key file: the stored seal no longer opens, said in one line; rotate --key-lost makes a new seal with the new key', async () => {
    rmSync(keyFile);
    const lost = await runSignet(['seal', 'show'], env);
    assert.equal(lost.code, 1, describeRun(lost));
    assert.match(
      lost.stderr,
      /^signet: the seal key \(.*seal\.key\) does not match the database's seal "seal-[0-9a-f]{16}" .*run "signet seal rotate" to make a new seal\n$/,
    );
    // A rotation with another key than the current seal's is what a shell without the
    // servers' key would do by mistake: refused unless the operator says the key is lost.
    const refused = await runSignet(['seal', 'rotate'], env);
    assert.equal(refused.code, 1, describeRun(refused));
    assert.match(refused.stderr, /is not the one the current seal is encrypted with .* with --key-lost\n$/);
    const rotated = await runSignet(['seal', 'rotate', '--key-lost', '--json'], env);
    assert.equal(rotated.code, 0, describeRun(rotated));
    const shown = await runSignet(['seal', 'show', '--json'], env);
    assert.equal(shown.code, 0, describeRun(shown));
    assert.deepEqual(
      (JSON.parse(shown.stdout) as Shown).seals.map((s) => s.status),
      ['current', 'retired', 'retired'],
    );
  });
});

describe('on PostgreSQL, the key-encryption key is the operator’s to give', {
  skip: !databaseKinds.includes('postgres'),
}, () => {
  test('a worker that cannot seal does not start, and signet trigger says why at once', async () => {
    const database = await createTestDatabase('postgres');
    try {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        DATABASE_URL: await databaseUrlOf(database),
        PORT: '0',
      };
      for (const name of ['SIGNET_SEAL_KEY', 'SIGNET_SEAL_KEY_FILE', 'SIGNET_SEAL_P12_FILE'])
        delete env[name];
      for (const role of ['worker', 'all']) {
        const refused = await runSignet(['serve', '--role', role], env, 30_000);
        assert.equal(refused.code, 1, describeRun(refused));
        assert.match(
          refused.stderr,
          /^signet: documents cannot be sealed: with DATABASE_URL, set SIGNET_SEAL_KEY_FILE or SIGNET_SEAL_KEY \(or SIGNET_SEAL_P12_FILE\); see docs\/deployment\.md\. A process that runs the worker \(--role worker or all\) seals completed documents, so it does not start without it; --role api needs no key\n$/m,
        );
      }
      const setup = await createContext(loadConfig({ LOG_LEVEL: 'silent' }), database.db, {});
      const workspace = await createTestWorkspace(setup);
      await setup.close();
      const started = Date.now();
      const trigger = await runSignet(
        ['trigger', 'document.completed', '--workspace', workspace.id],
        env,
        30_000,
      );
      assert.equal(trigger.code, 1, describeRun(trigger));
      assert.match(
        trigger.stderr,
        /was signed but not sealed: documents cannot be sealed: with DATABASE_URL, set SIGNET_SEAL_KEY_FILE/,
      );
      assert.ok(Date.now() - started < 20_000, `said after ${Date.now() - started} ms, not a minute`);
    } finally {
      await database.close();
    }
  });

  test('without SIGNET_SEAL_KEY[_FILE] nothing is sealed nor stored, said in one line; SIGNET_SEAL_KEY_FILE names it', async () => {
    const database = await createTestDatabase('postgres');
    const folder = mkdtempSync(join(tmpdir(), 'signet-seal-kek-'));
    try {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        DATABASE_URL: await databaseUrlOf(database),
        LOG_LEVEL: 'warn',
      };
      for (const name of ['SIGNET_SEAL_KEY', 'SIGNET_SEAL_KEY_FILE', 'SIGNET_SEAL_P12_FILE'])
        delete env[name];
      const refused = await runSignet(['seal', 'show'], env);
      assert.equal(refused.code, 1, describeRun(refused));
      assert.match(
        refused.stderr,
        /^signet: SIGNET_SEAL_KEY_FILE or SIGNET_SEAL_KEY must be set to seal with DATABASE_URL: .*\n$/,
      );
      assert.equal((await listSealKeys(database.db)).length, 0, 'no seal stored');
      const missing = await runSignet(['seal', 'show'], {
        ...env,
        SIGNET_SEAL_KEY_FILE: join(folder, 'nope.key'),
      });
      assert.match(
        missing.stderr,
        /^signet: the seal key file .*nope\.key \(SIGNET_SEAL_KEY_FILE\) does not exist\n$/,
      );
      const keyFile = join(folder, 'seal.key');
      writeFileSync(keyFile, `${Buffer.alloc(32, 9).toString('hex')}\n`, { mode: 0o600 });
      const shown = await runSignet(['seal', 'show', '--json'], { ...env, SIGNET_SEAL_KEY_FILE: keyFile });
      assert.equal(shown.code, 0, describeRun(shown));
      const [stored] = await listSealKeys(database.db);
      assert.ok(stored);
      const row = await findStoredSealKey(database.db, stored.name);
      assert.equal(row?.privateKey, null);
      assert.equal(
        row?.kekId,
        keyEncryptionKey({ databaseUrl: 'x', dataDir: '', seal: { ...loadConfig({}).seal, keyFile } }).id,
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
      await database.close();
    }
  });
});
