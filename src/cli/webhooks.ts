// Webhook commands: `signet webhook test ENDPOINT_ID` sends a ping now and prints its
// outcome; `signet webhook deliveries ENDPOINT_ID` prints the endpoint's delivery log.
import type { Config } from '../config.ts';
import { listEndpointDeliveries, sendPing } from '../webhooks/deliveries.service.ts';
import { workspaceOfEndpoint } from '../webhooks/endpoints.service.ts';
import { parseCommandArgs, parseCount, requireUuid, UsageError } from './args.ts';
import { print, withContext } from './context.ts';

export async function webhookCommand(config: Config, argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub === 'test') {
    const { values, positionals } = parseCommandArgs(rest, { json: { type: 'boolean' } }, ['ENDPOINT_ID']);
    const id = requireUuid(positionals[0], 'endpoint id');
    const result = await withContext(config, 'webhook test', async (ctx) =>
      sendPing(ctx, await workspaceOfEndpoint(ctx, id), id),
    );
    const outcome = result.ok
      ? `delivered (HTTP ${result.statusCode}) in ${result.durationMs} ms`
      : `failed: ${result.errorClass}${result.statusCode ? ` (HTTP ${result.statusCode})` : ''} after ${result.durationMs} ms${result.refusal ? `: ${result.refusal}` : ''}`;
    print(!!values.json, result, `Ping ${result.deliveryId}: ${outcome}`);
    if (result.errorClass === 'blocked') {
      // This command sends the ping from its own process, with its own environment.
      process.stderr.write(
        `signet: webhooks go only to public https addresses on port 443. For local development, set SIGNET_WEBHOOK_ALLOW_UNSAFE=1 in the environment of the process that sends: this command sends the ping itself${config.webhooks.allowUnsafe ? '' : ' (it is not set here)'}, and signet serve sends every other delivery.\n`,
      );
    }
    if (!result.ok) process.exitCode = 1;
    return;
  }
  if (sub === 'deliveries') {
    const { values, positionals } = parseCommandArgs(
      rest,
      { json: { type: 'boolean' }, limit: { type: 'string' } },
      ['ENDPOINT_ID'],
    );
    const id = requireUuid(positionals[0], 'endpoint id');
    const limit = parseCount(values.limit, '--limit', 20, 500);
    const deliveries = await withContext(config, 'webhook deliveries', async (ctx) =>
      listEndpointDeliveries(ctx, await workspaceOfEndpoint(ctx, id), id, limit),
    );
    const human = deliveries.map((d) => {
      const codes = d.attemptLog.map((a) => a.statusCode ?? a.errorClass).join(', ');
      return `${d.createdAt}  ${d.eventType.padEnd(18)} ${d.status.padEnd(9)} attempts ${d.attempts}  [${codes}]  ${d.id}`;
    });
    print(!!values.json, deliveries, human.length ? human.join('\n') : 'No deliveries.');
    return;
  }
  throw new UsageError('usage: signet webhook test ENDPOINT_ID | deliveries ENDPOINT_ID [--limit N]');
}
