// A unit's pipeline: the connector's listing runs ahead of the item writer, and the content of small items the
// writer will download is fetched ahead too, a few at a time. The writer still sees every event in the
// connector's order, so a checkpoint is written only after every event before it is (its state is copied when
// the connector yields it: a connector may keep mutating the object it yielded).
import { Readable } from 'node:stream';
import type { CollectEvent, ContentSource, ItemInput } from '../../connectors/types.ts';
import { waitGauges, type LevelGauge } from '../../provider/wait-gauge.ts';

export interface ReadAheadOptions {
  /** Events held ahead of the writer; the listing waits while this many are. */
  maxEvents: number;
  /** Contents fetched ahead at the same time (0: none). The credential's budget still bounds the requests. */
  prefetch: number;
  /** An item of at most this many bytes (as the listing states) is fetched ahead; others when the writer asks. */
  maxItemBytes: number;
  /** Bytes fetched ahead and not yet handed to the writer, at most. */
  maxHeldBytes: number;
  /** Whether the writer will download this item's content (not stored already): only then is it fetched ahead. */
  wanted?(item: ItemInput): Promise<boolean>;
  /** Told of each item and deletion as the listing yields it (ahead of the consumer). */
  listed?(kind: string, sourceId: string): void;
  /** Raised while the consumer waits for the listing's next event (unit-load.ts). */
  starved?: LevelGauge;
}

export const DEFAULT_READ_AHEAD: ReadAheadOptions = {
  maxEvents: 256,
  prefetch: 4,
  maxItemBytes: 1024 * 1024,
  maxHeldBytes: 8 * 1024 * 1024,
};

/**
 * The bench's baseline only (bench/allowance.ts): every unit of this process takes its listing one event at a time,
 * as before the pipeline. Not a setting: nothing else reads or writes it.
 */
export const baseline = { sequential: false };

type Entry = { event: CollectEvent; pending?: Pending } | { error: unknown } | { done: true };

/**
 * The events of `listing(signal)` in their order, listed ahead of the consumer. `listing` gets a signal that is
 * aborted when the consumer stops early (an error in the writer, an abort): its requests in flight stop too.
 */
export async function* readAhead(
  listing: (signal: AbortSignal) => AsyncIterable<CollectEvent>,
  outer: AbortSignal,
  opts: ReadAheadOptions = DEFAULT_READ_AHEAD,
): AsyncGenerator<CollectEvent> {
  const stop = new AbortController();
  const signal = AbortSignal.any([outer, stop.signal]);
  waitGauges.pipelines.add(1);
  const queue: Entry[] = [];
  const prefetcher = new Prefetcher(opts, signal);
  let wakeConsumer: (() => void) | undefined;
  let wakeProducer: (() => void) | undefined;
  const push = (entry: Entry) => {
    queue.push(entry);
    wakeConsumer?.();
  };
  const pump = (async () => {
    try {
      for await (const event of listing(signal)) {
        if (event.type === 'item') opts.listed?.(event.item.kind, event.item.sourceId);
        else if (event.type === 'deleted') opts.listed?.(event.kind, event.sourceId);
        push(prefetcher.take(copied(event)));
        while (queue.length >= opts.maxEvents && !signal.aborted)
          await gauged([waitGauges.listingBlocked], new Promise<void>((resolve) => (wakeProducer = resolve)));
        // Stopped: the consumer, if it still reads, learns why instead of waiting for more.
        if (signal.aborted) return push({ error: signal.reason });
      }
      push({ done: true });
    } catch (error) {
      push({ error });
    }
  })();
  try {
    for (;;) {
      while (queue.length === 0)
        await gauged(
          [waitGauges.writerStarved, opts.starved],
          new Promise<void>((resolve) => (wakeConsumer = resolve)),
        );
      const entry = queue.shift()!;
      wakeProducer?.();
      if ('error' in entry) throw entry.error;
      if ('done' in entry) return;
      yield entry.event;
      // The writer is done with the item: what was fetched ahead for it and not taken is let go.
      if (entry.pending) prefetcher.finish(entry.pending);
    }
  } finally {
    stop.abort(new Error('the unit stopped reading its listing'));
    wakeProducer?.();
    prefetcher.close();
    await pump;
    waitGauges.pipelines.add(-1);
  }
}

/** Counts one more waiter on each of `gauges` until `wait` settles. */
async function gauged(gauges: Array<LevelGauge | undefined>, wait: Promise<void>): Promise<void> {
  for (const gauge of gauges) gauge?.add(1);
  try {
    await wait;
  } finally {
    for (const gauge of gauges) gauge?.add(-1);
  }
}

function copied(event: CollectEvent): CollectEvent {
  if (event.type === 'checkpoint') return { type: 'checkpoint', state: structuredClone(event.state) };
  if (event.type === 'cursors') return { type: 'cursors', value: structuredClone(event.value) };
  if (event.type === 'unit' && event.checkpoint)
    return { ...event, checkpoint: { state: structuredClone(event.checkpoint.state) } };
  return event;
}

interface Fetched {
  chunks: Buffer[];
  /** The body broke after `chunks` (the writer resumes from there with a request of its own). */
  broken?: unknown;
}

interface Pending {
  item: ItemInput;
  source: ContentSource;
  bytes: number;
  state: 'queued' | 'running' | 'done';
  /** Its bytes count in `held` (from the start of its fetch until the writer took it or let it go). */
  counted: boolean;
  result?: Promise<Fetched | { error: unknown } | undefined>;
}

/** Fetches small contents ahead, in listing order, `opts.prefetch` at a time and within `opts.maxHeldBytes`. */
class Prefetcher {
  private readonly queued: Pending[] = [];
  private running = 0;
  private held = 0;

  constructor(
    private readonly opts: ReadAheadOptions,
    private readonly signal: AbortSignal,
  ) {}

  /** The entry the writer gets: an item whose content may be fetched ahead gets a source that may be. */
  take(event: CollectEvent): Entry {
    if (event.type !== 'item' || !event.content || this.opts.prefetch <= 0) return { event };
    const size = event.item.size;
    if (typeof size !== 'number' || size < 0 || size > this.opts.maxItemBytes) return { event };
    const pending: Pending = { item: event.item, source: event.content, bytes: size, state: 'queued', counted: false };
    this.queued.push(pending);
    this.next();
    return { event: { ...event, content: this.handOver(pending) }, pending };
  }

  /** The writer took this content or will not: it is no longer held (idempotent). */
  finish(pending: Pending): void {
    pending.state = 'done';
    const at = this.queued.indexOf(pending);
    if (at >= 0) this.queued.splice(at, 1);
    if (pending.counted) {
      pending.counted = false;
      this.held -= pending.bytes;
    }
    this.next();
  }

  close(): void {
    for (const p of this.queued) p.state = 'done';
    this.queued.length = 0;
  }

  private handOver(pending: Pending): ContentSource {
    const { source } = pending;
    let taken = false;
    return {
      ...source,
      open: async (offset, signal) => {
        if (offset !== 0 || taken) return source.open(offset, signal);
        taken = true;
        if (pending.result === undefined) {
          // Not started yet: it never will be; the writer streams it as it would have.
          this.finish(pending);
          return source.open(offset, signal);
        }
        const result = await pending.result;
        this.finish(pending);
        if (result === undefined) return source.open(offset, signal);
        if ('error' in result) throw result.error;
        return { body: replay(result), partial: false };
      },
    };
  }

  private next(): void {
    while (this.running < this.opts.prefetch && !this.signal.aborted) {
      const pending = this.queued.find((p) => p.state === 'queued');
      if (!pending || this.held + pending.bytes > this.opts.maxHeldBytes) return;
      pending.state = 'running';
      pending.counted = true;
      this.held += pending.bytes;
      this.running += 1;
      pending.result = this.fetch(pending).then(
        (result) => {
          this.running -= 1;
          if (result === undefined) this.finish(pending);
          else this.next();
          return result;
        },
        () => {
          this.running -= 1;
          this.finish(pending);
          return undefined;
        },
      );
    }
  }

  /** The whole content in memory, or why opening it failed; undefined: the writer opens it itself. */
  private async fetch(pending: Pending): Promise<Fetched | { error: unknown } | undefined> {
    try {
      if (this.opts.wanted && !(await this.opts.wanted(pending.item))) return undefined;
      if (pending.state !== 'running' || this.signal.aborted) return undefined;
    } catch {
      return undefined;
    }
    let opened: { body: Readable; partial: boolean };
    try {
      opened = await pending.source.open(0, this.signal);
    } catch (error) {
      // The writer's first open would have failed the same way: it sees this failure, and decides as it would have.
      return this.signal.aborted ? undefined : { error };
    }
    const chunks: Buffer[] = [];
    let bytes = 0;
    try {
      for await (const chunk of opened.body as AsyncIterable<Uint8Array | string>) {
        const b = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk);
        bytes += b.length;
        // Longer than the listing said: not held in memory; the writer streams it.
        if (bytes > Math.max(pending.bytes, this.opts.maxItemBytes)) {
          opened.body.destroy();
          return undefined;
        }
        chunks.push(b);
      }
      return { chunks };
    } catch (broken) {
      if (this.signal.aborted) return undefined;
      return { chunks, broken };
    } finally {
      if (!opened.body.destroyed) opened.body.destroy();
    }
  }
}

/** The bytes fetched ahead as the stream the writer would have read (breaking where the real one broke). */
function replay(fetched: Fetched): Readable {
  return Readable.from(
    (async function* () {
      yield* fetched.chunks;
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows what the real stream threw, as it was
      if (fetched.broken !== undefined) throw fetched.broken;
    })(),
    { objectMode: false },
  );
}
