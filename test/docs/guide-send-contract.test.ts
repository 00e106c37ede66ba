// The programs of docs/guides/send-a-contract.md, run exactly as published (extracted from
// the Markdown) against a real server: each sends a real PDF to two signers in turn with a
// write key, the test signs as them (in their order, from the links mailed), the worker's
// seal and webhook deliveries run, and the program must save the sealed PDF, byte for byte
// the one the API describes. curl polls; Python waits for document.completed on its own
// receiver, verifying each delivery's signature.
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { createMemoryRateLimiter } from '../../src/http/rate-limiter.ts';
import { createApiKey } from '../../src/keys/keys.service.ts';
import { renderTextDocument } from '../../src/pdf/text-document.ts';
import { sealDueDocuments } from '../../src/sealing/sealing.service.ts';
import { signDocument } from '../../src/signing/signing.service.ts';
import { deliverDue } from '../../src/webhooks/dispatcher.ts';
import { createEndpoint } from '../../src/webhooks/endpoints.service.ts';
import { guideBlock, readGuide } from '../support/guide-code.ts';
import { createTestWorkspace, describeEachDatabase, linkFor, useHarness } from '../support/harness.ts';
import { pdfsig } from '../support/pdf-tools.ts';

const guide = readGuide('send-a-contract.md');
const work = mkdtempSync(join(tmpdir(), 'signet-send-guide-'));
after(() => rmSync(work, { recursive: true, force: true }));

const block = (heading: string, language: string) => guideBlock(guide, heading, language);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address ? address.port : 0;
}

/** A running program: its output so far, a wait for a line, and its end. */
function run(command: string, args: string[], env: Record<string, string>, cwd: string) {
  const child: ChildProcess = spawn(command, args, { cwd, env: { ...process.env, ...env } });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const ended = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
  return {
    output: () => `${out}${err}`,
    async line(pattern: RegExp, timeoutMs = 30_000): Promise<RegExpExecArray> {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const match = pattern.exec(out);
        if (match) return match;
        assert.ok(Date.now() < until, `no line ${pattern} in time:\n${out}${err}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async end(timeoutMs = 30_000): Promise<number> {
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const code = await ended;
      clearTimeout(timer);
      return code;
    },
  };
}

describeEachDatabase('the guide “Send a contract from your application”', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_WEBHOOK_ALLOW_UNSAFE: '1' } });

  /** An app whose public URL is its own address, so the links the API gives can be fetched. */
  async function reachableApp() {
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    const ctx = { ...h.ctx, config: { ...h.ctx.config, publicUrl } };
    const app = await buildApp(ctx, { rateLimiter: createMemoryRateLimiter(h.config.rateLimit) });
    await app.listen({ host: '127.0.0.1', port });
    return { ctx, app, publicUrl };
  }

  async function contractPdf(folder: string): Promise<string> {
    const { data } = await renderTextDocument({
      title: 'Service agreement',
      body: 'The supplier answers within four hours, on working days.',
      workspaceName: 'Acme',
      pricing: null,
      createdAt: h.clock.now(),
    });
    const path = join(folder, 'contract.pdf');
    writeFileSync(path, data);
    return path;
  }

  /** Both signers sign in their order, as they would from their mails; then the seal is made. */
  async function signersSign(ctx: typeof h.ctx, documentId: string) {
    for (const [email, fullName] of [
      ['ann@northwind.example', 'Ann Lee'],
      ['bob@northwind.example', 'Bob Ray'],
    ]) {
      const link = await linkFor(ctx, documentId, email as string);
      await signDocument(ctx, link.session, { fullName: fullName as string, consent: true });
    }
    assert.equal(await sealDueDocuments(ctx), 1);
  }

  /** The file the program saved is the sealed PDF the API describes, and it is validly sealed. */
  async function assertSaved(ctx: typeof h.ctx, folder: string, documentId: string) {
    const saved = readFileSync(join(folder, `${documentId}-signed.pdf`));
    const row = await ctx.db
      .selectFrom('documents')
      .select('sealed_sha256')
      .where('id', '=', documentId)
      .executeTakeFirstOrThrow();
    assert.equal(createHash('sha256').update(saved).digest('hex'), row.sealed_sha256);
    const { signatures } = await pdfsig(saved);
    assert.equal(signatures.length, 1);
    assert.equal(signatures[0]?.validation, 'Signature is Valid.');
    assert.equal(signatures[0]?.totalDocumentSigned, true);
  }

  test('curl: sends, polls until sealed, saves the sealed PDF', async () => {
    const { ctx, app, publicUrl } = await reachableApp();
    try {
      const ws = await createTestWorkspace(ctx);
      const key = await createApiKey(ctx, { workspaceId: ws.id, name: 'CRM', scope: 'write' });
      const folder = mkdtempSync(join(work, 'curl-'));
      writeFileSync(join(folder, 'send-contract.sh'), block('## With curl', 'sh'));
      const program = run(
        'sh',
        ['send-contract.sh', await contractPdf(folder)],
        {
          SIGNET_URL: publicUrl,
          SIGNET_KEY: key.secret,
          POLL_SECONDS: '0.2',
          ORDER_ID: `order-${kind}-curl`,
        },
        folder,
      );
      const documentId = (await program.line(/^sent ([0-9a-f-]{36})$/m))[1] as string;
      await signersSign(ctx, documentId);
      assert.equal(await program.end(), 0, program.output());
      assert.match(program.output(), new RegExp(`^saved ${documentId}-signed\\.pdf$`, 'm'));
      await assertSaved(ctx, folder, documentId);
    } finally {
      await app.close();
    }
  });

  /**
   * A program that waits for document.completed on its own receiver: sends, the signers sign,
   * the seal is made, the worker delivers (retried until the receiver is up); the program saves.
   */
  async function withReceiver(
    name: string,
    program: (env: Record<string, string>, folder: string) => ReturnType<typeof run>,
  ) {
    const { ctx, app, publicUrl } = await reachableApp();
    // The program checks each delivery's timestamp against its own clock, as receivers must.
    h.clock.set(new Date());
    try {
      const ws = await createTestWorkspace(ctx);
      const key = await createApiKey(ctx, { workspaceId: ws.id, name: 'CRM', scope: 'write' });
      const port = await freePort();
      const endpoint = await createEndpoint(ctx, ws.id, {
        url: `http://127.0.0.1:${port}/hooks/signet`,
        events: ['document.completed'],
      });
      const folder = mkdtempSync(join(work, `${name}-`));
      await contractPdf(folder);
      const running = program(
        {
          SIGNET_URL: publicUrl,
          SIGNET_KEY: key.secret,
          SIGNET_WEBHOOK_SECRET: endpoint.secret,
          PORT: String(port),
          ORDER_ID: `order-${kind}-${name}`,
        },
        folder,
      );
      const documentId = (await running.line(/^sent ([0-9a-f-]{36})$/m))[1] as string;
      await signersSign(ctx, documentId);
      const until = Date.now() + 20_000;
      while (!/^saved /m.test(running.output()) && Date.now() < until) {
        await deliverDue(ctx);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(await running.end(), 0, running.output());
      assert.match(running.output(), new RegExp(`^saved ${documentId}-signed\\.pdf$`, 'm'));
      await assertSaved(ctx, folder, documentId);
    } finally {
      await app.close();
    }
  }

  test('Python: sends, receives document.completed (signature verified), saves the sealed PDF', async () => {
    await withReceiver('python', (env, folder) => {
      writeFileSync(join(folder, 'send_contract.py'), block('## In Python', 'python'));
      return run('python3', ['send_contract.py', join(folder, 'contract.pdf')], env, folder);
    });
  });

  test('TypeScript with @signet/client: the same, the PDF sent from its path, the download checked as it streams', async () => {
    await withReceiver('typescript', (env, folder) => {
      // Inside the repository, so that `@signet/client` resolves as it does for an installed package.
      const programs = join(import.meta.dirname, '..', 'output', `guide-${kind}`);
      mkdirSync(programs, { recursive: true });
      writeFileSync(join(programs, 'send-contract.ts'), block('## In TypeScript', 'ts'));
      // It type-checks against the client's types, strictly, as a reader's project would.
      execFileSync(
        process.execPath,
        [
          join(import.meta.dirname, '..', '..', 'node_modules', 'typescript', 'bin', 'tsc'),
          ...['--ignoreConfig', '--noEmit', '--strict', '--skipLibCheck', '--types', 'node'],
          ...['--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2023'],
          ...['--customConditions', '@signet/source', '--allowImportingTsExtensions'],
          join(programs, 'send-contract.ts'),
        ],
        { stdio: 'pipe' },
      );
      return run(
        process.execPath,
        ['--conditions=@signet/source', join(programs, 'send-contract.ts'), join(folder, 'contract.pdf')],
        env,
        folder,
      );
    });
  });
});
