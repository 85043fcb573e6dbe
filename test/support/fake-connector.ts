import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import { defaultRetryConfig } from '../../src/provider/retry.ts';
import {
  type CollectContext,
  type CollectEvent,
  type Connector,
  type ContentSource,
  type Grant,
  type ItemInput,
} from '../../src/connectors/types.ts';
import { httpQuirks } from '../../src/provider/quirks.ts';
import { ContentGoneError } from '../../src/domain/run-failures.ts';

/** One thing at the fake source. */
export interface FakeItem {
  kind: string;
  sourceId: string;
  name?: string;
  custodian?: string | null;
  version?: string | null;
  /** bytes; undefined = an item without content (a folder, a meeting) */
  content?: Buffer;
  /** good (default when content): states the right SHA-1; bad: always wrong; corrupt-once: first download corrupted */
  hash?: 'good' | 'bad' | 'corrupt-once' | 'none';
  /** the first stream breaks after this many bytes */
  breakAfter?: number;
  /** whether open(offset > 0) answers a real partial body (HTTP 206) */
  ranged?: boolean;
  text?: string;
  metadata?: Record<string, unknown>;
  /** every download fails (`fails`), or the source answers that the item is gone (`gone`) */
  download?: 'fails' | 'gone';
}

/** One unit of work: its items, then deletions and errors, then a checkpoint `{unit: i + 1}`. */
export interface FakeUnit {
  items: FakeItem[];
  deleted?: { kind: string; sourceId: string }[];
  errors?: string[];
  /** announced as a unit (pending at the start, running, then done or failed) */
  custodian?: { key: string; kind?: 'custodian' | 'channel'; email?: string; failed?: string };
  /** thrown by the collection after this unit's items (a failure of the whole custodian) */
  throws?: unknown;
  /** failed pieces of this unit's custodian (with `retry`: kept on the retry list) */
  pieceErrors?: { kind: string; sourceId: string; name: string; reason: string; retry?: unknown }[];
  notPresent?: { kind: string; sourceId: string; name: string; reason: string }[];
  excluded?: number;
}

export interface FakeSource {
  units: FakeUnit[];
  /** yielded as `cursors` at the end of the collection */
  cursors?: unknown;
  /** throw this after the given unit's items (a provider outage mid-run) */
  failAfterUnit?: { unit: number; error: Error };
  /** a custodian's end carries the checkpoint past it (as Zoom's owners do) instead of a checkpoint event after it */
  endsCarryCheckpoint?: boolean;
}

export interface FakeCalls {
  collects: { checkpoint: unknown; cursors: unknown; filters: unknown }[];
  /** source id -> offsets open() was called with */
  opens: Map<string, number[]>;
  refreshes: number;
  /** source ids handed to retry() */
  retried: string[];
}

export interface FakeConnectorOptions {
  type?: string;
  source: () => FakeSource;
  /** delay between chunks of a content stream, ms */
  chunkDelayMs?: number;
  chunkSize?: number;
  refresh?: (grant: Grant) => Promise<Grant>;
  /** GET this URL through ctx.http before collecting (exercises credentials) */
  touchApi?: string;
  /** Split runs into one unit job per custodian (Connector.units). */
  split?: boolean;
}

export const FAKE_KINDS = ['file', 'folder', 'meeting', 'chat_message', 'recording_video'] as const;

export function bytesOf(seed: string, size: number): Buffer {
  const out = Buffer.alloc(size);
  let block = crypto.createHash('sha256').update(seed).digest();
  for (let i = 0; i < size; i += block.length) {
    block.copy(out, i, 0, Math.min(block.length, size - i));
    block = crypto.createHash('sha256').update(block).digest();
  }
  return out;
}

export const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
/** Digests that are not Buffers are compared as the provider states them (here: hex). */
function hexSha1() {
  const h = crypto.createHash('sha1');
  return { update: (b: Uint8Array) => h.update(b), digest: () => h.digest('hex') };
}

export const sha1 = (b: Buffer) => crypto.createHash('sha1').update(b).digest('hex');

export function createFakeConnector(opts: FakeConnectorOptions): Connector & { calls: FakeCalls } {
  const calls: FakeCalls = { collects: [], opens: new Map(), refreshes: 0, retried: [] };
  const chunkSize = opts.chunkSize ?? 16 * 1024;
  const downloads = new Map<string, number>();

  const stream = (bytes: Buffer, from: number, breakAt: number | undefined, signal: AbortSignal): Readable => {
    const delay = opts.chunkDelayMs ?? 0;
    async function* chunks() {
      for (let i = from; i < bytes.length; i += chunkSize) {
        if (signal.aborted) throw signal.reason;
        if (delay) await new Promise((r) => setTimeout(r, delay));
        const end = Math.min(bytes.length, i + chunkSize);
        if (breakAt !== undefined && end > breakAt) {
          if (breakAt > i) yield bytes.subarray(i, breakAt);
          throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
        }
        yield bytes.subarray(i, end);
      }
    }
    return Readable.from(chunks(), { objectMode: false });
  };

  const contentOf = (item: FakeItem): ContentSource | undefined => {
    if (!item.content) return undefined;
    const bytes = item.content;
    const hash = item.hash ?? 'good';
    return {
      async open(offset, signal) {
        const opens = calls.opens.get(item.sourceId) ?? [];
        opens.push(offset);
        calls.opens.set(item.sourceId, opens);
        const n = (downloads.get(item.sourceId) ?? 0) + 1;
        downloads.set(item.sourceId, n);
        if (item.download === 'gone') throw new ContentGoneError('404 at the source');
        if (item.download === 'fails') throw new Error('the source answered 500 every time');
        let body = bytes;
        if (hash === 'corrupt-once' && n === 1) {
          body = Buffer.from(bytes);
          body[0] = body[0] ^ 0xff;
        }
        const partial = offset > 0 && item.ranged === true;
        const breakAt = n === 1 ? item.breakAfter : undefined;
        return { body: stream(body, partial ? offset : 0, breakAt, signal), partial };
      },
      providerHash:
        hash === 'none'
          ? undefined
          : { type: 'sha1Hash', value: hash === 'bad' ? '0'.repeat(40) : sha1(bytes), create: hexSha1 },
    };
  };

  const inputOf = (item: FakeItem, u: number): ItemInput => ({
    kind: item.kind,
    sourceId: item.sourceId,
    name: item.name ?? item.sourceId,
    path: `/fake/${item.name ?? item.sourceId}`,
    custodian: item.custodian ?? 'user-1',
    size: item.content?.length ?? null,
    mimeType: item.content ? 'application/octet-stream' : null,
    createdAt: '2024-01-01T00:00:00.000Z',
    modifiedAt: '2024-01-02T00:00:00.000Z',
    version: item.version === undefined ? 'v1' : item.version,
    text: item.text ?? null,
    metadata: item.metadata ?? { unit: u },
  });

  return {
    type: opts.type ?? 'fake',
    configType: opts.type ?? 'fake',
    kinds: FAKE_KINDS,
    userAgent: 'custody-test',
    quirks: httpQuirks,
    limits: {
      budget: { ratePerSecond: 1000, concurrency: 8 },
      retry: { ...defaultRetryConfig, maxAttempts: 2, baseDelayMs: 1 },
    },
    validateFilters: () => [],
    discovery: {},
    oauth: {
      authorizationResponse: 'json',
      scopes: {},
      authorizationUrl: () => 'http://127.0.0.1/authorize',
      completeCallback: async () => ({ access_token: 'a0', refresh_token: 'r0' }),
      async refresh(grant) {
        calls.refreshes += 1;
        if (opts.refresh) return opts.refresh(grant);
        return {
          ...grant,
          access_token: `a${calls.refreshes}`,
          expires_at: new Date(Date.now() + 3600_000).toISOString(),
        };
      },
    },
    calls,
    async *collect(ctx: CollectContext): AsyncIterable<CollectEvent> {
      calls.collects.push({ checkpoint: ctx.checkpoint, cursors: ctx.cursors, filters: ctx.filters });
      if (opts.touchApi) await ctx.http.json(opts.touchApi);
      const source = opts.source();
      const start = (ctx.checkpoint as { unit?: number } | null)?.unit ?? 0;
      // One unit of a run split into units (opts.split): only that custodian.
      const inScope = (unit: FakeUnit) =>
        !opts.split || !ctx.scope || ctx.scope.includes(unit.custodian?.key ?? 'user-1');
      if (start === 0) {
        for (const unit of source.units)
          if (unit.custodian && inScope(unit)) yield unitEvent(unit.custodian, 'pending');
      }
      for (let u = start; u < source.units.length; u++) {
        const unit = source.units[u];
        if (!inScope(unit)) continue;
        if (unit.custodian) yield unitEvent(unit.custodian, 'running');
        if (unit.custodian?.failed) {
          yield {
            type: 'error',
            reason: unit.custodian.failed,
            kind: 'custodian',
            sourceId: unit.custodian.key,
            custodian: unit.custodian.key,
          };
          yield unitEvent(unit.custodian, 'failed');
          yield { type: 'checkpoint', state: { unit: u + 1 } };
          continue;
        }
        for (const item of unit.items) yield { type: 'item', item: inputOf(item, u), content: contentOf(item) };
        if (source.failAfterUnit?.unit === u) throw source.failAfterUnit.error;
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- the fake throws whatever the test hands it (non-Errors included)
        if (unit.throws) throw unit.throws;
        for (const d of unit.deleted ?? []) yield { type: 'deleted', kind: d.kind, sourceId: d.sourceId };
        for (const reason of unit.errors ?? []) yield { type: 'error', reason };
        const custodian = unit.custodian?.key ?? 'user-1';
        for (const e of unit.pieceErrors ?? []) yield { type: 'error', ...e, custodian };
        for (const n of unit.notPresent ?? []) yield { type: 'not_present', ...n, custodian };
        if (unit.excluded) yield { type: 'excluded', custodian, count: unit.excluded };
        const past = { state: { unit: u + 1 } };
        if (unit.custodian && source.endsCarryCheckpoint) {
          yield { ...unitEvent(unit.custodian, 'done'), checkpoint: past } as CollectEvent;
          continue;
        }
        if (unit.custodian) yield unitEvent(unit.custodian, 'done');
        yield { type: 'checkpoint', ...past };
      }
      if (source.cursors !== undefined)
        yield { type: 'cursors', value: ctx.scope && opts.split ? { [ctx.scope[0]]: source.cursors } : source.cursors };
    },
    ...(opts.split && {
      /** One unit per custodian; cursors `{[custodian]: value}`, merged per custodian. */
      units: {
        async plan(ctx: CollectContext) {
          const units = opts
            .source()
            .units.flatMap((u) =>
              u.custodian
                ? [{ key: u.custodian.key, kind: u.custodian.kind ?? 'custodian', email: u.custodian.email ?? null }]
                : [],
            );
          return { units: units.filter((u) => !ctx.scope || ctx.scope.includes(u.key)), events: [] };
        },
        mergeCursors(previous: unknown, parts: Array<{ unit: string; cursors: unknown }>) {
          const merged: Record<string, unknown> = { ...((previous as Record<string, unknown> | null) ?? {}) };
          for (const p of parts) if (p.cursors) merged[p.unit] = (p.cursors as Record<string, unknown>)[p.unit];
          return merged;
        },
      },
    }),
    /** The retry list: each piece as the source has it now (a piece error of a unit that still has it fails again). */
    async *retryPieces(_ctx, pieces) {
      calls.retried.push(...pieces.map((p) => p.sourceId));
      const source = opts.source();
      for (const p of pieces) {
        const u = source.units.findIndex((unit) =>
          unit.items.some((i) => i.kind === p.kind && i.sourceId === p.sourceId),
        );
        const item =
          u >= 0 ? source.units[u].items.find((i) => i.kind === p.kind && i.sourceId === p.sourceId) : undefined;
        if (item) {
          yield { type: 'item', item: inputOf(item, u), content: contentOf(item) };
          continue;
        }
        const error = source.units
          .flatMap((unit) => unit.pieceErrors ?? [])
          .find((e) => e.kind === p.kind && e.sourceId === p.sourceId);
        if (error) yield { type: 'error', ...error, custodian: p.unit };
        else
          yield {
            type: 'item',
            item: {
              kind: p.kind,
              sourceId: p.sourceId,
              name: p.name,
              path: `/fake/${p.name}`,
              custodian: p.unit,
              metadata: { retried: true },
            },
          };
      }
    },
  };
}

function unitEvent(
  c: NonNullable<FakeUnit['custodian']>,
  status: 'pending' | 'running' | 'done' | 'failed',
): CollectEvent {
  return { type: 'unit', unit: { key: c.key, kind: c.kind ?? 'custodian', email: c.email ?? null }, status };
}
