// A hashing thread: holds any number of running digests ("lanes"), each fed slices of shared memory in order.
import { createHash } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import type { Hasher, HasherModule } from './types.ts';

export type LaneSpec = { kind: 'digest'; algorithm: 'sha256' | 'md5' } | ({ kind: 'module' } & HasherModule);

export type ToThread =
  | { op: 'open'; id: number; spec: LaneSpec }
  | { op: 'update'; id: number; buffer: SharedArrayBuffer; length: number; seq: number }
  | { op: 'finish'; id: number }
  | { op: 'close'; id: number };

export type FromThread =
  | { op: 'done'; id: number; seq: number }
  | { op: 'digest'; id: number; value: string }
  | { op: 'error'; id: number; message: string };

async function build(spec: LaneSpec): Promise<{ hasher: Hasher; encoding: 'hex' | 'base64' }> {
  if (spec.kind === 'digest') return { hasher: createHash(spec.algorithm), encoding: 'hex' };
  const loaded = (await import(spec.module)) as Record<string, new (...args: unknown[]) => Hasher>;
  const Ctor = loaded[spec.exportName];
  if (typeof Ctor !== 'function') throw new Error(`${spec.module} has no export ${spec.exportName}`);
  return { hasher: new Ctor(...(spec.args ?? [])), encoding: 'base64' };
}

const port = parentPort;
if (port) {
  type Lane = { hasher: Hasher; encoding: 'hex' | 'base64' };
  // One promise chain per lane keeps its messages in order while a module hasher is still being imported.
  const lanes = new Map<number, Promise<Lane>>();
  const post = (message: FromThread) => port.postMessage(message);
  // A failed lane reports once, then stalls: later messages for it are dropped until it is closed.
  const failed = (id: number) => (error: unknown) => {
    post({ op: 'error', id, message: error instanceof Error ? error.message : String(error) });
    return new Promise<never>(() => undefined);
  };
  const step = (id: number, work: (lane: Lane) => void) => {
    const lane = lanes.get(id);
    if (lane) lanes.set(id, lane.then((l) => (work(l), l)).catch(failed(id)));
  };
  port.on('message', (message: ToThread) => {
    switch (message.op) {
      case 'open':
        lanes.set(message.id, build(message.spec).catch(failed(message.id)));
        return;
      case 'update':
        return step(message.id, ({ hasher }) => {
          hasher.update(new Uint8Array(message.buffer, 0, message.length));
          post({ op: 'done', id: message.id, seq: message.seq });
        });
      case 'finish':
        return step(message.id, ({ hasher, encoding }) => {
          const digest = hasher.digest();
          lanes.delete(message.id);
          post({
            op: 'digest',
            id: message.id,
            value: typeof digest === 'string' ? digest : digest.toString(encoding),
          });
        });
      case 'close':
        lanes.delete(message.id);
        return;
      default: {
        const unknown: never = message;
        throw new Error(`unknown hash thread message ${JSON.stringify(unknown)}`);
      }
    }
  });
}
