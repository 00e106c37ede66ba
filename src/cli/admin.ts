// Admin commands: workspaces, API keys and seeding. Each goes through the same service
// functions the web application will use.
import type { Config } from '../config.ts';
import { seedWorkspace } from '../demo/seed.ts';
import { isApiKeyScope } from '../keys/api-key-scope.ts';
import { createApiKey, listApiKeys, revokeApiKey } from '../keys/keys.service.ts';
import { createWorkspace, isPlan, setWorkspacePlan } from '../workspaces/workspaces.service.ts';
import { parseCommandArgs, parseCount, requireText, requireUuid, UsageError } from './args.ts';
import { print, withContext } from './context.ts';
import { createProgressBar } from './progress.ts';

const json = { json: { type: 'boolean' } } as const;

function requirePlan(value: string | undefined): 'free' | 'max' {
  if (!value || !isPlan(value)) throw new UsageError('plan must be max or free');
  return value;
}

export async function workspaceCommand(config: Config, argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub === 'create') {
    const { values } = parseCommandArgs(
      rest,
      { name: { type: 'string' }, plan: { type: 'string' }, ...json },
      [],
    );
    const name = requireText(values.name, '--name');
    const plan = requirePlan(values.plan ?? 'max');
    const workspace = await withContext(config, 'workspace create', (ctx) =>
      createWorkspace(ctx, { name, plan }),
    );
    print(
      !!values.json,
      workspace,
      `Created workspace ${workspace.id} (${workspace.name}, plan ${workspace.plan})`,
    );
    return;
  }
  if (sub === 'set-plan') {
    const { values, positionals } = parseCommandArgs(rest, { ...json }, ['WORKSPACE_ID', 'PLAN']);
    const id = requireUuid(positionals[0], 'workspace id');
    const plan = requirePlan(positionals[1]);
    const workspace = await withContext(config, 'workspace set-plan', (ctx) =>
      setWorkspacePlan(ctx, id, plan),
    );
    print(!!values.json, workspace, `Workspace ${workspace.id} is now on plan ${workspace.plan}`);
    return;
  }
  throw new UsageError('usage: signet workspace create --name NAME [--plan max|free] | set-plan ID max|free');
}

export async function keyCommand(config: Config, argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub === 'create') {
    const { values } = parseCommandArgs(
      rest,
      { workspace: { type: 'string' }, name: { type: 'string' }, scope: { type: 'string' }, ...json },
      [],
    );
    const workspaceId = requireUuid(values.workspace, '--workspace');
    const name = requireText(values.name ?? 'API key', '--name');
    const scope = values.scope ?? 'read';
    if (!isApiKeyScope(scope)) throw new UsageError('--scope must be read or write');
    const key = await withContext(config, 'key create', (ctx) =>
      createApiKey(ctx, { workspaceId, name, scope }),
    );
    print(
      !!values.json,
      key,
      `Created ${scope === 'write' ? 'read-and-write' : 'read-only'} API key ${key.id} (${key.name})\n\n  ${key.secret}\n\nStore it now: it is shown only once.`,
    );
    return;
  }
  if (sub === 'list') {
    const { values } = parseCommandArgs(rest, { workspace: { type: 'string' }, ...json }, []);
    const workspaceId = requireUuid(values.workspace, '--workspace');
    const keys = await withContext(config, 'key list', (ctx) => listApiKeys(ctx, workspaceId));
    const lines = keys.map(
      (k) =>
        `${k.id}  …${k.hint}  ${k.scope.padEnd(5)}  ${k.revokedAt ? `revoked ${k.revokedAt}` : 'active'}  ${k.createdAt}  ${k.name}`,
    );
    print(!!values.json, keys, lines.length ? lines.join('\n') : 'No API keys.');
    return;
  }
  if (sub === 'revoke') {
    const { values, positionals } = parseCommandArgs(rest, { ...json }, ['KEY_ID']);
    const keyId = requireUuid(positionals[0], 'key id');
    const key = await withContext(config, 'key revoke', (ctx) => revokeApiKey(ctx, keyId));
    print(!!values.json, key, `Revoked API key ${key.id} (${key.name})`);
    return;
  }
  throw new UsageError(
    'usage: signet key create --workspace ID [--name NAME] [--scope read|write] | list --workspace ID | revoke KEY_ID',
  );
}

export async function seedCommand(config: Config, argv: string[]): Promise<void> {
  const { values } = parseCommandArgs(argv, { documents: { type: 'string' }, ...json }, []);
  const documents = parseCount(values.documents, '--documents', 100, 10_000_000, 1);
  const bar = createProgressBar(process.stderr, documents);
  const result = await withContext(config, 'seed', (ctx) =>
    seedWorkspace(ctx, { documents, name: 'Seeded workspace', onProgress: (done) => bar.update(done) }),
  );
  bar.done();
  print(
    !!values.json,
    { workspaceId: result.workspace.id, apiKey: result.apiKey.secret, documents: result.documents },
    `Seeded workspace ${result.workspace.id} with ${result.documents} documents\nAPI key: ${result.apiKey.secret}`,
  );
}
