// The contract of the event stream (event-stream.routes.ts, GET /v1/events/stream): its
// messages, the query and header it takes, and its limits, written from the values the stream
// itself uses (event-stream.ts, config.ts), beside the route that serves it.
import { eventStreamDefaults } from '../config.ts';
import { documentEventTypes } from '../documents/events.ts';
import { answerHeaders, type Operation, one } from '../http/openapi-parts.ts';
import { heartbeatMs, reconnectMs } from './event-stream.ts';
import { eventStreamExample } from './webhooks.examples.ts';

export const streamEventsOperation: Operation = {
  method: 'GET',
  path: '/events/stream',
  operationId: 'streamEvents',
  tag: 'Events',
  summary:
    'The workspace’s events as server-sent events, each with the body its webhook deliveries carry (what `signet listen --api-url` reads)',
  description: [
    `A \`text/event-stream\` that stays open. It starts with \`retry: ${reconnectMs}\` and an \`event: ready\` whose \`data\` is JSON: \`workspaceId\`, \`secret\` (the signing secret of this API key, \`whsec_…\`: the same on every connection of the key, never stored; a new key has a new one) and \`resumedAfter\` (the Last-Event-ID it resumed after, or null).`,
    `Then each event of the workspace as it happens: \`id:\` the event id, \`event:\` its type, \`data:\` the exact JSON body a webhook delivery of that event carries (see \`webhooks\`). A comment line \`: keep-alive\` comes every ${heartbeatMs / 1000} seconds. Pings are never sent.`,
    'Send `Last-Event-ID` (EventSource does) to resume after that event while it is stored; an unknown id starts from now. An event may come twice around a reconnection: its id tells.',
    `The stream ends when the server shuts down or the key is revoked (reconnect: the next answer says why). Refusals come before the stream starts, as JSON. A process serves a workspace at most ${eventStreamDefaults.perWorkspace} streams at once (SIGNET_EVENT_STREAMS_PER_WORKSPACE), and all workspaces at most ${eventStreamDefaults.max} (SIGNET_EVENT_STREAMS_MAX); past either, 429 too-many-streams with Retry-After.`,
  ].join('\n\n'),
  parameters: [
    {
      name: 'types',
      in: 'query',
      required: false,
      schema: { type: 'string', minLength: 1, maxLength: 500 },
      description: `Only these event types, comma-separated (${documentEventTypes.join(', ')}); any other is 400 invalid-query.`,
      example: 'document.signed,document.completed',
    },
    {
      name: 'Last-Event-ID',
      in: 'header',
      required: false,
      schema: { type: 'string' },
      description: 'The id of the last event received: the stream resumes after it.',
    },
  ],
  answers: {
    '200': {
      description: 'The stream (see the description for its messages).',
      headers: answerHeaders,
      content: {
        'text/event-stream': { schema: { type: 'string' }, examples: one('stream', eventStreamExample) },
      },
    },
  },
  errors: ['invalid-query', 'too-many-streams'],
};
