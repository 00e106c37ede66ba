// `signet serve [--role all|api|worker] [--demo]`. With --demo (what `npm start` runs) the first
// start seeds a demo workspace and keeps its API key in the data folder, so every start
// can print a key that works and a curl line to try it.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.ts';
import type { Context } from '../context.ts';
import { seedWorkspace } from '../demo/seed.ts';
import { authenticateApiKey } from '../keys/keys.service.ts';
import { type Role, roles, startServer } from '../server.ts';
import { parseCommandArgs, UsageError } from './args.ts';

const demoDocuments = 60;

interface DemoState {
  workspaceId: string;
  apiKey: string;
}

async function ensureDemoWorkspace(ctx: Context): Promise<{ state: DemoState; valid: boolean }> {
  const file = join(ctx.config.dataDir, 'demo.json');
  if (existsSync(file)) {
    const state = JSON.parse(readFileSync(file, 'utf8')) as DemoState;
    return { state, valid: (await authenticateApiKey(ctx, state.apiKey)) !== null };
  }
  const seeded = await seedWorkspace(ctx, { documents: demoDocuments, name: 'Demo workspace' });
  const state = { workspaceId: seeded.workspace.id, apiKey: seeded.apiKey.secret };
  writeFileSync(file, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return { state, valid: true };
}

export async function serveCommand(config: Config, argv: string[]): Promise<void> {
  const { values } = parseCommandArgs(argv, { role: { type: 'string' }, demo: { type: 'boolean' } }, 0);
  const role = values.role ?? 'all';
  if (!(roles as readonly string[]).includes(role))
    throw new UsageError(`--role must be one of ${roles.join(', ')}`);

  const server = await startServer(config, role as Role);
  const shutdown = () => {
    server.ctx.log.info('shutting down');
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);

  if (!server.url) {
    process.stdout.write('\nSignet worker is running (expiry and mail). Press Ctrl+C to stop.\n');
    return;
  }
  const lines = ['', `Signet is running at ${server.url}`, `  API base URL:  ${server.url}/v1`];
  if (values.demo) {
    const demo = await ensureDemoWorkspace(server.ctx);
    if (demo.valid) {
      lines.push(
        `  Demo API key:  ${demo.state.apiKey}   (kept in ${join(config.dataDir, 'demo.json')})`,
        '',
        'Try it:',
        `  curl -H "Authorization: Bearer ${demo.state.apiKey}" "${server.url}/v1/documents?limit=3"`,
      );
    } else {
      lines.push(
        '  The demo API key was revoked. Create a new one with:',
        `  npx signet key create --workspace ${demo.state.workspaceId}`,
      );
    }
  }
  lines.push('', 'Press Ctrl+C to stop.', '');
  process.stdout.write(lines.join('\n'));
}
