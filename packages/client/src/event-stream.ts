// Reading server-sent events (text/event-stream, as the HTML standard defines them) for
// `events.stream`: fields per line, a blank line dispatches, `:` lines are comments (the
// server's keep-alives), several `data:` lines join with "\n". The server's reader is
// src/webhooks/sse.ts; the client package has no dependencies and imports nothing from
// the server, so it keeps these few lines of its own.

export interface ServerSentEvent {
  /** The `id:` field; undefined when the message had none. */
  id: string | undefined;
  event: string;
  data: string;
  /** The `retry:` field, in milliseconds, when the message set one. */
  retry: number | undefined;
}

/** Every message of `body`, in order, as its bytes arrive. */
export async function* readServerSentEvents(
  body: AsyncIterable<Uint8Array>,
): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let id: string | undefined;
  let event = '';
  let data: string[] = [];
  let retry: number | undefined;
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    const lines = buffer.split(/\r\n|\r|\n/);
    // The last piece may be a line cut short by the chunk: kept for the next one.
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      if (line === '') {
        if (data.length || event) yield { id, event: event || 'message', data: data.join('\n'), retry };
        id = undefined;
        event = '';
        data = [];
        retry = undefined;
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') id = value;
      else if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
      else if (field === 'retry' && /^\d+$/.test(value)) retry = Number(value);
    }
  }
}
