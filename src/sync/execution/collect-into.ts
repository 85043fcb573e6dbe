import type { CollectContext, CollectEvent, Connector, ItemInput } from '../../connectors/types.ts';
import type { Database } from '../../store/db.ts';
import { ItemRepo } from '../../store/items.ts';
import type { UnitRetryRow } from '../../store/units.ts';
import type { UnitLedger } from './ledger.ts';
import { writerTuning, type ItemWriter } from './item-writer.ts';
import { KeyLookups } from './key-lookups.ts';
import type { UnitLoad } from './unit-load.ts';
import { baseline, DEFAULT_READ_AHEAD, readAhead, type ReadAheadOptions } from './read-ahead.ts';

const LOOKUP_BATCH = 200;

export interface CollectParts {
  session: ItemWriter;
  ledger: UnitLedger;
  connector: Connector;
  ctx: CollectContext;
  signal: AbortSignal;
  /** Where the writer looks items up: contents are fetched ahead only for items it will download. Absent: none are. */
  db?: Database;
  /** Where the unit waits, for the unit worker (unit-load.ts). */
  load?: UnitLoad;
  /** The pipeline's bounds (tests; `sequential: true` is the one-event-at-a-time loop, the bench's baseline). */
  readAhead?: Partial<ReadAheadOptions> & { sequential?: boolean };
}

/**
 * The collection itself, the same for a run's single unit (collected in place) and for a unit job: every event of
 * the connector's listing into the session, then the pieces earlier runs could not collect that this listing did
 * not reach again, then the final flush. Stops at the first event after the signal is aborted. The listing runs
 * ahead of the writer (read-ahead.ts), so the provider answers the next listing request while the writer
 * downloads and records; the writer still takes the events one by one, in order.
 */
export async function collectInto(parts: CollectParts, retries: UnitRetryRow[]): Promise<void> {
  const { session, ledger, connector, ctx, signal } = parts;
  const tuning = { ...DEFAULT_READ_AHEAD, ...parts.readAhead, starved: parts.load?.starved };
  const db = parts.db;
  const items = db ? new ItemRepo(db) : undefined;
  // The read-ahead's own lookups (a hint: a stale answer costs one content fetched ahead for nothing).
  const ahead = items && new KeyLookups((keys) => items.findManyByKeys(ctx.collectionId, keys), LOOKUP_BATCH);
  const listed = (kind: string, sourceId: string) => {
    session.expect(kind, sourceId);
    ahead?.expect(kind, sourceId);
  };
  const options: ReadAheadOptions = ahead
    ? { ...tuning, listed, wanted: contentWanted(writerTuning.inline ? oneByOne(items, ctx.collectionId) : ahead) }
    : { ...tuning, listed, prefetch: 0 };
  const feed = async (listing: (ctx: CollectContext) => AsyncIterable<CollectEvent>) => {
    const events =
      (parts.readAhead?.sequential ?? baseline.sequential)
        ? listing(ctx)
        : readAhead((stop) => listing(stop === ctx.signal ? ctx : { ...ctx, signal: stop }), ctx.signal, options);
    for await (const event of events) {
      if (signal.aborted) throw signal.reason;
      await session.handle(event);
    }
  };
  await feed((c) => connector.collect(c));
  const pending = retries.filter((r) => ledger.pending(r.kind, r.source_id));
  if (connector.retryPieces && pending.length > 0) {
    const retryPieces = connector.retryPieces.bind(connector);
    await feed((c) => retryPieces({ ...c, checkpoint: null }, pending.map(retryPiece)));
  }
  if (signal.aborted) throw signal.reason;
  await session.flush({ final: true });
}

/** The bench's baseline (writerTuning.inline): one statement per key, as before key-lookups.ts. */
function oneByOne(items: ItemRepo, collectionId: string): Pick<KeyLookups, 'take'> {
  return { take: (kind, sourceId) => items.findByKey(collectionId, kind, sourceId) };
}

/**
 * Whether the writer will download this item's content: it does unless the item is stored with this version
 * already (item-writer.ts onItem). Errs towards yes: a content fetched ahead that the writer does not take costs one
 * request, nothing else.
 */
function contentWanted(ahead: Pick<KeyLookups, 'take'>): (item: ItemInput) => Promise<boolean> {
  return async (item) => {
    const version = item.version ?? null;
    if (version === null) return true;
    const existing = await ahead.take(item.kind, item.sourceId);
    return !existing || !!existing.tombstoned_at || existing.version !== version || existing.content_state !== 'stored';
  };
}

function retryPiece(r: UnitRetryRow) {
  return { unit: r.unit_key, kind: r.kind, sourceId: r.source_id, name: r.name, piece: JSON.parse(r.piece) as unknown };
}
