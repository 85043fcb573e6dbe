// Hashing off the caller's thread. SHA-256, MD5 and a provider hash each cost a full pass over the bytes; run one
// after another on the event loop they cap a large download well below disk speed. Here every digest is a "lane"
// on one of a few worker threads; the writer copies each chunk into a small ring of shared-memory slots and
// posts the slot to every lane. Memory per writer is the ring, whatever the blob's size.
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { FromThread, LaneSpec, ToThread } from './hash-worker.ts';
import type { CommittedBlob, Hasher, HasherFactory } from './types.ts';

interface LaneHandler {
  done(seq: number): void;
  digest(value: string): void;
  fail(error: Error): void;
}

// Relative cost per byte (measured: SHA-256 with SHA-NI ~1.4 GB/s, MD5 ~0.65 GB/s), used to balance threads.
const COST: Record<string, number> = { md5: 1.5, sha256: 0.7 };
const MODULE_COST = 0.6;

// The worker runs TypeScript sources: it registers tsx itself, since loader hooks are not inherited by workers.
const BOOT = `
const { workerData, parentPort } = require('node:worker_threads');
import(workerData.tsx).then((m) => m.register()).then(() => import(workerData.entry)).then(() => parentPort.postMessage({ op: 'ready' }));
`;

class HashThread {
  readonly worker: Worker;
  /** Settles once the thread has loaded its code (or has died). */
  readonly ready: Promise<void>;
  load = 0;
  private readonly handlers = new Map<number, LaneHandler>();
  private broken: Error | undefined;

  constructor(private readonly onExit: (thread: HashThread) => void) {
    // The ESM build of tsx's API (its CommonJS build cannot register hooks from a worker).
    const tsx = pathToFileURL(
      createRequire(import.meta.url)
        .resolve('tsx/esm/api')
        .replace(/\.cjs$/, '.mjs'),
    ).href;
    const entry = new URL('./hash-worker.ts', import.meta.url).href;
    this.worker = new Worker(BOOT, { eval: true, workerData: { tsx, entry } });
    this.worker.unref();
    let booted!: () => void;
    this.ready = new Promise((resolve) => (booted = resolve));
    this.worker.on('message', (m: FromThread | { op: 'ready' }) => {
      if (m.op === 'ready') return booted();
      const handler = this.handlers.get(m.id);
      if (!handler) return;
      if (m.op === 'done') handler.done(m.seq);
      else if (m.op === 'digest') handler.digest(m.value);
      else handler.fail(new Error(`hash thread: ${m.message}`));
    });
    const die = (error: Error) => {
      booted();
      this.broken ??= error;
      for (const handler of this.handlers.values()) handler.fail(error);
      this.handlers.clear();
      this.onExit(this);
    };
    this.worker.on('error', die);
    this.worker.on('exit', (code) => die(new Error(`hash thread exited with code ${code}`)));
  }

  open(id: number, spec: LaneSpec, handler: LaneHandler): void {
    if (this.broken) throw this.broken;
    // Keep the process alive while a lane waits on this thread, not after.
    if (this.handlers.size === 0) this.worker.ref();
    this.handlers.set(id, handler);
    this.send({ op: 'open', id, spec });
  }

  send(message: ToThread): void {
    this.worker.postMessage(message);
  }

  close(id: number): void {
    if (!this.handlers.delete(id)) return;
    this.send({ op: 'close', id });
    if (this.handlers.size === 0) this.worker.unref();
  }
}

/** A few long-lived hashing threads shared by every writer of the process. */
export class HashPool {
  private readonly threads: HashThread[] = [];
  private nextId = 1;

  /** One thread per core but the event loop's, 1 to 4: the event loop downloads, writes and feeds them. */
  constructor(readonly size = Math.max(1, Math.min(4, availableParallelism() - 1))) {}

  /**
   * Starts every thread now instead of at the first large blob: a thread costs its memory (and a burst while it
   * loads its code) once per process, so a process that will sync content pays it at boot.
   */
  async warm(): Promise<void> {
    while (this.threads.length < this.size) this.start();
    await Promise.all(this.threads.map((t) => t.ready));
  }

  /** The least loaded thread, starting one while the pool is not full. */
  pick(cost: number): HashThread {
    let thread: HashThread | undefined;
    if (this.threads.length < this.size) {
      thread = this.start();
    } else {
      thread = this.threads.reduce((a, b) => (b.load < a.load ? b : a));
    }
    thread.load += cost;
    return thread;
  }

  private start(): HashThread {
    const thread = new HashThread((dead) => this.threads.splice(this.threads.indexOf(dead) >>> 0, 1));
    this.threads.push(thread);
    return thread;
  }

  newId(): number {
    return this.nextId++;
  }

  /** Stops every thread (tests, shutdown); the pool starts new ones when used again. */
  async close(): Promise<void> {
    const threads = this.threads.splice(0);
    await Promise.all(threads.map((t) => t.worker.terminate()));
  }
}

let shared: HashPool | undefined;

/** The process's hashing threads, started on first use. */
export function sharedHashPool(): HashPool {
  shared ??= new HashPool();
  return shared;
}

interface Slot {
  bytes: Uint8Array<SharedArrayBuffer>;
  /** lanes that have not yet hashed this slot */
  busy: number;
  freed?: () => void;
}

interface Lane {
  name: string;
  thread: HashThread;
  id: number;
  cost: number;
  digest: Promise<string>;
}

/** SHA-256, MD5 and the threaded extra hashers on pool threads; extra hashers without a module on this thread. */
export class ThreadedDigests {
  private readonly slots: Slot[];
  private readonly lanes: Lane[] = [];
  private readonly local: [string, Hasher][] = [];
  private current = 0;
  private fill = 0;
  private seq = 0;
  private size = 0;
  private failure: Error | undefined;
  private closed = false;

  constructor(pool: HashPool, hashers: Record<string, HasherFactory>, slotBytes: number, ringSlots = 4) {
    this.slots = Array.from({ length: ringSlots }, () => ({
      bytes: new Uint8Array(new SharedArrayBuffer(slotBytes)),
      busy: 0,
    }));
    const specs: { name: string; spec: LaneSpec; cost: number }[] = [
      { name: 'sha256', spec: { kind: 'digest', algorithm: 'sha256' }, cost: COST.sha256 },
      { name: 'md5', spec: { kind: 'digest', algorithm: 'md5' }, cost: COST.md5 },
    ];
    for (const [name, factory] of Object.entries(hashers)) {
      if (factory.threaded)
        specs.push({ name: `extra:${name}`, spec: { kind: 'module', ...factory.threaded }, cost: MODULE_COST });
      else this.local.push([name, factory()]);
    }
    // Heaviest first onto the least loaded thread keeps the slowest thread as light as it can be.
    specs.sort((a, b) => b.cost - a.cost);
    for (const { name, spec, cost } of specs) {
      const thread = pool.pick(cost);
      const id = pool.newId();
      let resolve!: (value: string) => void;
      let reject!: (error: Error) => void;
      const digest = new Promise<string>((res, rej) => ((resolve = res), (reject = rej)));
      digest.catch(() => undefined);
      thread.open(id, spec, {
        done: (seq) => this.release(this.slots[seq % this.slots.length]),
        digest: resolve,
        fail: (error) => {
          this.fail(error);
          reject(error);
        },
      });
      this.lanes.push({ name, thread, id, cost, digest });
    }
  }

  async update(chunk: Uint8Array): Promise<void> {
    this.check();
    for (const [, hasher] of this.local) hasher.update(chunk);
    this.size += chunk.length;
    let offset = 0;
    while (offset < chunk.length) {
      const slot = this.slots[this.current];
      if (slot.busy > 0) await new Promise<void>((resolve) => (slot.freed = resolve));
      this.check();
      const n = Math.min(slot.bytes.length - this.fill, chunk.length - offset);
      slot.bytes.set(chunk.subarray(offset, offset + n), this.fill);
      this.fill += n;
      offset += n;
      if (this.fill === slot.bytes.length) this.dispatch();
    }
  }

  async finish(): Promise<CommittedBlob> {
    this.check();
    if (this.fill > 0) this.dispatch();
    for (const lane of this.lanes) lane.thread.send({ op: 'finish', id: lane.id });
    try {
      const values = await Promise.all(this.lanes.map((l) => l.digest));
      const byName = new Map(this.lanes.map((l, i) => [l.name, values[i]]));
      const blob: CommittedBlob = { sha256: byName.get('sha256')!, md5: byName.get('md5')!, size: this.size };
      const extra: Record<string, string> = {};
      for (const [name, value] of byName) if (name.startsWith('extra:')) extra[name.slice(6)] = value;
      for (const [name, hasher] of this.local) {
        const digest = hasher.digest();
        extra[name] = typeof digest === 'string' ? digest : digest.toString('base64');
      }
      if (Object.keys(extra).length > 0) blob.extra = extra;
      return blob;
    } finally {
      this.close();
    }
  }

  /** Releases the lanes; safe to call more than once. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const lane of this.lanes) {
      lane.thread.close(lane.id);
      lane.thread.load -= lane.cost;
    }
  }

  private dispatch(): void {
    const slot = this.slots[this.current];
    slot.busy = this.lanes.length;
    for (const lane of this.lanes)
      lane.thread.send({ op: 'update', id: lane.id, buffer: slot.bytes.buffer, length: this.fill, seq: this.seq });
    this.seq += 1;
    this.current = this.seq % this.slots.length;
    this.fill = 0;
  }

  private release(slot: Slot): void {
    slot.busy -= 1;
    if (slot.busy === 0) {
      const freed = slot.freed;
      slot.freed = undefined;
      freed?.();
    }
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const slot of this.slots) {
      const freed = slot.freed;
      slot.freed = undefined;
      freed?.();
    }
  }

  private check(): void {
    if (this.failure) throw this.failure;
    if (this.closed) throw new Error('digests already finished');
  }
}
