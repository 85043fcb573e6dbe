/** One server-sent event as the stream delivered it; `data` is the parsed JSON. */
export interface StreamEvent {
  id: string | undefined;
  event: string;
  data: unknown;
}

/**
 * Parses a text/event-stream body (WHATWG HTML §9.2 field rules: `id`, `event`, `data`, comments ignored) into
 * events, one per blank-line-terminated block. Ends when the body ends.
 */
export async function* parseEventStream(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<StreamEvent, void, undefined> {
  // (The cast bridges the DOM and Node typings of TextDecoderStream; both decode UTF-8 bytes to strings.)
  const reader = body
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- needed under the console's DOM typings
    .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
    .getReader();
  let buffer = '';
  let id: string | undefined;
  let event = '';
  let data: string[] = [];
  try {
    for (let ended = false; !ended;) {
      const { value, done } = await reader.read();
      ended = done;
      buffer += value ?? '';
      let newline: number;
      while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
        // A CR that ends the chunk may be the first half of a CRLF split across chunks: wait for the next one.
        if (!ended && newline === buffer.length - 1 && buffer.endsWith('\r')) break;
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
        if (line === '') {
          if (data.length > 0) yield { id, event: event || 'message', data: JSON.parse(data.join('\n')) };
          event = '';
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') id = value;
        else if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
    }
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => {});
  }
}
