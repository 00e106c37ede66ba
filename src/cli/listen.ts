// `signet listen --workspace ID --forward-to URL [--events TYPE,...]`: forwards the
// workspace's events to a local URL, signed with a secret printed at start, one line per
// delivery (webhooks/listen.ts). Runs until Ctrl+C. On an embedded database it needs the
// running `signet serve` (the events come from it) and reads through the server's socket.
import type { Config } from '../config.ts';
import { documentEventTypes } from '../documents/events.ts';
import { startListening } from '../webhooks/listen.ts';
import { parseCommandArgs, requireUuid, UsageError } from './args.ts';
import { openContext } from './context.ts';

export async function listenCommand(config: Config, argv: string[]): Promise<void> {
  const { values } = parseCommandArgs(
    argv,
    { workspace: { type: 'string' }, 'forward-to': { type: 'string' }, events: { type: 'string' } },
    [],
  );
  const workspaceId = requireUuid(values.workspace, '--workspace');
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
    onForward: ({ type, eventId, deliveryId, result }) => {
      const outcome = result.ok
        ? `${result.statusCode}`
        : `failed: ${result.errorClass}${result.statusCode ? ` (HTTP ${result.statusCode})` : ''}`;
      process.stdout.write(
        `${new Date().toISOString()}  ${type.padEnd(18)} ${outcome} in ${result.durationMs} ms  event ${eventId}  delivery ${deliveryId}\n`,
      );
    },
    onError: (error) => process.stderr.write(`signet: reading events failed: ${(error as Error).message}\n`),
  });
  process.stdout.write(
    `Ready. Forwarding the events of workspace ${workspaceId}${events.length ? ` (${events.join(', ')})` : ''} to ${forwardTo}\nSigning secret: ${secret}\nPress Ctrl+C to stop.\n`,
  );
  // `on`, not `once`: a repeated signal during the clean-up must not kill it (serve.ts).
  await new Promise<void>((resolve) => {
    process.on('SIGINT', () => resolve());
    process.on('SIGTERM', () => resolve());
  });
  await listener.stop();
  await close();
}
