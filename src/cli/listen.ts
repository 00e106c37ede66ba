// `signet listen`: forwards a workspace's events to a local URL, signed like deliveries,
// one line per delivery. Runs until Ctrl+C. Two ways to reach the events:
// - `--api-url URL --api-key KEY` (or SIGNET_API_KEY): over HTTP from a running server's
//   GET /v1/events/stream (webhooks/listen-remote.ts), as an integrator does; no database,
//   and the signing secret is the same for that key on every run;
// - `--workspace ID` (operator): from the database itself (webhooks/listen.ts), with a new
//   secret each run; on an embedded database it needs the running `signet serve` and reads
//   through the server's socket.
import type { Config } from '../config.ts';
import { documentEventTypes } from '../documents/events.ts';
import { startListening } from '../webhooks/listen.ts';
import { ListenRefused, listenRemotely } from '../webhooks/listen-remote.ts';
import type { AttemptResult } from '../webhooks/sender.ts';
import { parseCommandArgs, requireUuid, UsageError } from './args.ts';
import { openContext } from './context.ts';

function printForward({
  type,
  eventId,
  deliveryId,
  result,
}: {
  eventId: string;
  type: string;
  deliveryId: string;
  result: AttemptResult;
}): void {
  const outcome = result.ok
    ? `${result.statusCode}`
    : `failed: ${result.errorClass}${result.statusCode ? ` (HTTP ${result.statusCode})` : ''}`;
  process.stdout.write(
    `${new Date().toISOString()}  ${type.padEnd(18)} ${outcome} in ${result.durationMs} ms  event ${eventId}  delivery ${deliveryId}\n`,
  );
}

/** Resolves at the first SIGINT or SIGTERM. */
function interrupted(): Promise<void> {
  // `on`, not `once`: a repeated signal during the clean-up must not kill it (serve.ts).
  return new Promise<void>((resolve) => {
    process.on('SIGINT', () => resolve());
    process.on('SIGTERM', () => resolve());
  });
}

export async function listenCommand(config: Config, argv: string[]): Promise<void> {
  const { values } = parseCommandArgs(
    argv,
    {
      workspace: { type: 'string' },
      'api-url': { type: 'string' },
      'api-key': { type: 'string' },
      'forward-to': { type: 'string' },
      events: { type: 'string' },
    },
    [],
  );
  const forwardTo = values['forward-to'] ?? '';
  if (!URL.canParse(forwardTo) || !/^https?:$/.test(new URL(forwardTo).protocol)) {
    throw new UsageError('--forward-to must be an http(s) URL, such as http://localhost:4000/hooks');
  }
  const events = (values.events ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const unknown = events.find((e) => !(documentEventTypes as readonly string[]).includes(e));
  if (unknown)
    throw new UsageError(`unknown event type "${unknown}" (one of ${documentEventTypes.join(', ')})`);
  const which = events.length ? ` (${events.join(', ')})` : '';

  if (values['api-url'] !== undefined) {
    if (values.workspace !== undefined)
      throw new UsageError('use --api-url with an API key, or --workspace on the server, not both');
    const apiUrl = values['api-url'];
    if (!URL.canParse(apiUrl) || !/^https?:$/.test(new URL(apiUrl).protocol))
      throw new UsageError('--api-url must be an http(s) URL, such as https://sign.example.com/v1');
    const apiKey = values['api-key'] ?? config.apiKey ?? '';
    if (!apiKey) throw new UsageError('--api-url needs an API key: --api-key KEY, or SIGNET_API_KEY');
    return listenOverHttp(config, { apiUrl, apiKey, forwardTo, events, which });
  }
  if (values['api-key'] !== undefined) throw new UsageError('--api-key needs --api-url');

  const workspaceId = requireUuid(values.workspace, '--workspace');
  const { ctx, database, close } = await openContext(config, 'listen');
  if (database.share) {
    await close();
    throw new UsageError(
      'signet listen reads the events of a running server: start signet serve on this data folder first',
    );
  }
  const secret = `whsec_${ctx.ids.randomBytes(32).toString('base64url')}`;
  const listener = startListening(ctx, {
    workspaceId,
    forwardTo,
    events,
    secret,
    onForward: printForward,
    onError: (error) => process.stderr.write(`signet: reading events failed: ${(error as Error).message}\n`),
  });
  process.stdout.write(
    `Ready. Forwarding the events of workspace ${workspaceId}${which} to ${forwardTo}\nSigning secret: ${secret}\nPress Ctrl+C to stop.\n`,
  );
  await interrupted();
  await listener.stop();
  await close();
}

async function listenOverHttp(
  config: Config,
  input: { apiUrl: string; apiKey: string; forwardTo: string; events: string[]; which: string },
): Promise<void> {
  const stop = new AbortController();
  void interrupted().then(() => stop.abort());
  let printedSecret: string | null = null;
  try {
    await listenRemotely(
      {
        apiUrl: input.apiUrl,
        apiKey: input.apiKey,
        forwardTo: input.forwardTo,
        events: input.events,
        webhooks: config.webhooks,
        onReady: ({ workspaceId, secret, reconnected }) => {
          if (reconnected && secret === printedSecret) {
            process.stderr.write('signet: reconnected\n');
            return;
          }
          printedSecret = secret;
          process.stdout.write(
            `Ready. Forwarding the events of workspace ${workspaceId}${input.which} to ${input.forwardTo}\nSigning secret: ${secret}\nPress Ctrl+C to stop.\n`,
          );
        },
        onForward: printForward,
        onRetry: (reason, inMs) =>
          process.stderr.write(
            `signet: the event stream dropped (${reason}); reconnecting in ${Math.round(inMs / 1000)} s\n`,
          ),
      },
      stop.signal,
    );
  } catch (error) {
    if (error instanceof ListenRefused) throw new Error(error.message);
    throw error;
  }
}
