// Reading server-sent events (text/event-stream) as the HTML standard defines them, in
// the few lines `signet listen --api-url` needs: fields per line, a blank line dispatches,
// `:` lines are comments (keep-alives), several `data:` lines join with "\n".

export interface ServerSentEvent {
  /** The `id:` field; undefined when the message had none. */
  id: string | undefined;
  event: string;
  data: string;
  /** The `retry:` field, in milliseconds, when the message set one. */
  retry: number | undefined;
}

/** Every message of `body`, in order; `onActivity` is called on every chunk (keep-alives too). */
export async function* readServerSentEvents(
  body: AsyncIterable<Uint8Array>,
  onActivity: () => void = () => {},
): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let id: string | undefined;
  let event = '';
  let data: string[] = [];
  let retry: number | undefined;
  for await (const chunk of body) {
    onActivity();
    buffer += decoder.decode(chunk, { stream: true });
    const lines = buffer.split(/\r\n|\r|\n/);
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
