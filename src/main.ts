// The `signet` command: parse argv and dispatch. Usage mistakes print one line and exit
// 2; failures print one line and exit 1; nothing prints a stack trace at an operator.
// `signet --help` prints every command, `signet COMMAND --help` that command's lines. A
// command's modules are imported when it runs, so none pays for another's.
import { enableCompileCache } from 'node:module';
import { parseCommandArgs, UsageError } from './cli/args.ts';
import { ConfigError, loadConfig } from './config.ts';
import { DocumentActionError } from './documents/lifecycle.ts';
import { ApiError } from './http/errors.ts';
import { InputError } from './input-error.ts';
import { signetVersion } from './version.ts';

// Node keeps the code it compiles (TypeScript stripped included) in its compile cache (the
// system's temporary folder, or NODE_COMPILE_CACHE; NODE_DISABLE_COMPILE_CACHE=1 turns it
// off), so a start after the first does not compile the server's ~1,700 modules again. It
// applies to modules loaded from here on: each command's modules are imported when it runs.
enableCompileCache();

/** Every command's usage lines (the event types come from the documents' events table). */
async function usageText(): Promise<string> {
  const { documentEventTypes } = await import('./documents/events.ts');
  return `usage: signet <command>

  serve [--role all|api|worker] [--demo]   run the service (migrates first)
  migrate                             bring the database schema up to date
  workspace create --name NAME [--plan max|free] [--json]
  workspace set-plan ID max|free [--json]
  key create --workspace ID [--name NAME] [--json]
  key list --workspace ID [--json]
  key revoke KEY_ID [--json]
  seed [--documents N] [--json]      a Max workspace with a key and N sample documents
  document create --workspace ID --title T --recipient "email,Full Name,signer|viewer,ORDER[,email-code]" ...
                  [--price "item,qty,unitPrice,vatRate[,month,12]"] ... [--currency EUR]
                  [--prices-include-vat] [--body TEXT] [--expires-in 30d] [--remind-every 3d]
                  [--file contract.pdf [--fields fields.json]] [--json]
                  fields.json: [{"recipient": EMAIL, "type": "signature|initials|date|name|email|
                  text|checkbox", "page": 1, "x": 72, "y": 90, "width": 180, "height": 40,
                  "required": true, "label": null, "maxLength": null}, ...] in PDF points from the
                  bottom-left of the page as displayed; --file is read to at most
                  SIGNET_MAX_UPLOAD_BYTES and --fields to at most 1 MB (a pipe or device too)
  document fields ID --fields fields.json [--json]   replace a draft's fields ([] removes them)
  document send ID [--json]
  document download ID [--kind sealed|original] --out FILE [--force] [--json]
                  write the document's stored PDF (default: the sealed one) to FILE
  trigger EVENT_TYPE --workspace ID [--json]   drive a sample document until EVENT_TYPE happens
          EVENT_TYPE: ${documentEventTypes.join(', ')}
  verify FILE [--json]                whether FILE was sealed by this Signet and is unchanged since
                                      (the exact bytes it issued); exit 0: sealed here, unchanged;
                                      1: changed after sealing (appended, altered, the seal's
                                      container or time-stamp altered, removed or replaced), or not
                                      sealed here; 2: not a PDF, or a usage error
  seal show [--json]                  the certificate that seals completed documents: subject, issuer,
                                      serial, SHA-256 fingerprint, validity, where it comes from;
                                      and every self-signed seal stored, current or retired
  seal rotate [--key-lost] [--json]   retire the self-signed seal and make a new one (files it sealed
                                      still verify); prints the new certificate's fingerprint.
                                      --key-lost: the key that encrypted the current seal is lost,
                                      and the new seal is encrypted with the one configured now
  mail list [--workspace ID] [--document ID] [--to EMAIL] [--limit N] [--json]
  webhook test ENDPOINT_ID [--json]       send a signed ping now and print the outcome
  webhook deliveries ENDPOINT_ID [--limit N] [--json]   the endpoint's recent deliveries
  user create --email EMAIL --password-stdin [--workspace ID] [--role owner|member]
              [--workspace-name NAME] [--json]   a web application login (password on stdin)
  user reset-password --email EMAIL [--password-stdin] [--json]   print a one-time link (1 hour) to
              set a new password, or set the one on stdin; either way every session of it ends
  listen --api-url URL --api-key KEY --forward-to URL [--events TYPE,...]
         forward the key's workspace's events from a running server, signed, to a local URL (no
         database needed; the key may come from SIGNET_API_KEY; the same signing secret every run)
  listen --workspace ID --forward-to URL [--events TYPE,...]   the same, read from this server's
         database (operators; a new signing secret every run)
  openapi [--server URL]              print the API's OpenAPI 3.1 document (default server: SIGNET_PUBLIC_URL/v1)
  backup FILE [--json]                a consistent snapshot of the embedded database (works while serving)
  restore FILE [--force] [--json]     load a backup into SIGNET_DATA_DIR (the server must be stopped)

Every command that uses the embedded database works while \`signet serve\` runs: it goes
through the server. Configuration comes from the environment: see docs/deployment.md.`;
}

/** The usage lines of one command: its own lines and their continuations. */
function commandUsage(usage: string, command: string): string | null {
  const lines = usage.split('\n');
  const picked: string[] = [];
  let inCommand = false;
  for (const line of lines) {
    if (/^ {2}\S/.test(line)) inCommand = line.startsWith(`  ${command} `) || line === `  ${command}`;
    else if (!/^ {3,}\S/.test(line)) inCommand = false;
    if (inCommand) picked.push(/^ {2}\S/.test(line) ? `  signet ${line.slice(2)}` : `       ${line}`);
  }
  return picked.length ? `usage:\n${picked.join('\n')}` : null;
}

const helpFlags = ['--help', '-h'];

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || helpFlags.includes(command)) {
    process.stdout.write(`${await usageText()}\n`);
    return;
  }
  if (command === '--version' || command === '-v') {
    process.stdout.write(`signet ${signetVersion}\n`);
    return;
  }
  if (rest.some((arg) => helpFlags.includes(arg))) {
    const help = commandUsage(await usageText(), command);
    if (!help) throw new UsageError(`unknown command "${command}" (see signet --help)`);
    process.stdout.write(`${help}\n`);
    return;
  }
  const config = loadConfig();
  switch (command) {
    case 'serve':
      return (await import('./cli/serve.ts')).serveCommand(config, rest);
    case 'migrate':
      return (await import('./cli/context.ts')).migrateCommand(config, rest);
    case 'workspace':
      return (await import('./cli/admin.ts')).workspaceCommand(config, rest);
    case 'key':
      return (await import('./cli/admin.ts')).keyCommand(config, rest);
    case 'seed':
      return (await import('./cli/admin.ts')).seedCommand(config, rest);
    case 'document':
      return (await import('./cli/documents.ts')).documentCommand(config, rest);
    case 'trigger':
      return (await import('./cli/documents.ts')).triggerCommand(config, rest);
    case 'mail':
      return (await import('./cli/documents.ts')).mailCommand(config, rest);
    case 'verify':
      return (await import('./cli/seal.ts')).verifyCommand(config, rest);
    case 'seal':
      return (await import('./cli/seal.ts')).sealCommand(config, rest);
    case 'webhook':
      return (await import('./cli/webhooks.ts')).webhookCommand(config, rest);
    case 'user':
      return (await import('./cli/users.ts')).userCommand(config, rest);
    case 'listen':
      return (await import('./cli/listen.ts')).listenCommand(config, rest);
    case 'openapi': {
      const { values } = parseCommandArgs(rest, { server: { type: 'string' } }, []);
      const serverUrl = values.server ?? `${config.publicUrl}/v1`;
      const { buildOpenApiDocument } = await import('./api/openapi.ts');
      const document = buildOpenApiDocument({ serverUrl, version: signetVersion });
      process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
      return;
    }
    case 'backup':
      return (await import('./cli/backup.ts')).backupCommand(config, rest);
    case 'restore':
      return (await import('./cli/backup.ts')).restoreCommand(config, rest);
    default:
      throw new UsageError(`unknown command "${command}" (see signet --help)`);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError || error instanceof ConfigError || error instanceof InputError) {
    process.stderr.write(`signet: ${error.message}\n`);
    process.exit(2);
  }
  if (error instanceof ApiError) {
    const messages: Partial<Record<string, string>> = {
      'not-found': 'no such record',
      'limit-reached': 'the workspace already has the maximum number of active API keys (10)',
    };
    process.stderr.write(`signet: ${messages[error.code] ?? error.code}\n`);
    process.exit(1);
  }
  if (error instanceof DocumentActionError) {
    process.stderr.write(`signet: ${error.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`signet: ${(error as Error)?.message ?? String(error)}\n`);
  process.exit(1);
});
