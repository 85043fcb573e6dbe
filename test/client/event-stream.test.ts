import { describe, expect, it } from 'vitest';
import { parseEventStream, type StreamEvent } from '../../client/src/index.ts';

/** A body delivered in the given chunks, as a network would split it. */
function body(chunks: string[]): ReadableStream<Uint8Array> {
  const bytes = chunks.map((c) => new TextEncoder().encode(c));
  return new ReadableStream({
    start(controller) {
      for (const b of bytes) controller.enqueue(b);
      controller.close();
    },
  });
}

async function parse(chunks: string[]): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of parseEventStream(body(chunks))) out.push(e);
  return out;
}

describe('the text/event-stream parser (WHATWG field rules)', () => {
  it('reads id, event and JSON data, skipping comments', async () => {
    const text =
      ': heartbeat\n\nid: 7\nevent: run.started\ndata: {"run_id":"r1","collection_id":"c1"}\n\n: heartbeat\n\n';
    expect(await parse([text])).toEqual([
      { id: '7', event: 'run.started', data: { run_id: 'r1', collection_id: 'c1' } },
    ]);
  });

  it('joins data lines with newlines, accepts CRLF and CR line ends, and a field without the space', async () => {
    const text =
      'id:1\r\nevent:run.progress\r\ndata: {"a":\r\ndata: 1}\r\n\r\nid: 2\revent: run.finished\rdata: {"status":"succeeded"}\r\r';
    expect(await parse([text])).toEqual([
      { id: '1', event: 'run.progress', data: { a: 1 } },
      { id: '2', event: 'run.finished', data: { status: 'succeeded' } },
    ]);
  });

  it('reassembles events split anywhere across chunks, multi-byte characters included', async () => {
    const text = 'id: 3\nevent: collection.error\ndata: {"reason":"Zugriff verweigert für Zoë"}\n\n';
    const bytes = new TextEncoder().encode(text);
    for (const cut of [1, 5, 20, 48, 49, 50, bytes.length - 1]) {
      const parts = [bytes.slice(0, cut), bytes.slice(cut)];
      const events: StreamEvent[] = [];
      const stream = new ReadableStream<Uint8Array>({
        start(c) {
          for (const p of parts) c.enqueue(p);
          c.close();
        },
      });
      for await (const e of parseEventStream(stream)) events.push(e);
      expect(events).toEqual([{ id: '3', event: 'collection.error', data: { reason: 'Zugriff verweigert für Zoë' } }]);
    }
  });

  it('takes a CRLF split between two chunks as one line end', async () => {
    expect(await parse(['event: run.started\r', '\ndata: {"n":1}\r', '\n\r', '\n'])).toEqual([
      { id: undefined, event: 'run.started', data: { n: 1 } },
    ]);
  });

  it('keeps the last id for events without one, names unnamed events "message", and drops an unterminated last block', async () => {
    const events = await parse(['id: 9\ndata: {"n":1}\n\n', 'data: {"n":2}\n\n', 'id: 10\ndata: {"n":3}']);
    expect(events).toEqual([
      { id: '9', event: 'message', data: { n: 1 } },
      { id: '9', event: 'message', data: { n: 2 } },
    ]);
  });
});
