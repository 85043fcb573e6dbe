import type { CollectContext, CollectEvent, Connector } from '../../connectors/types.ts';
import type { UnitRetryRow } from '../../store/units.ts';
import type { UnitLedger } from './ledger.ts';
import type { ItemWriter } from './item-writer.ts';

/**
 * The collection itself, the same for a run's single unit (collected in place) and for a unit job: every event of
 * the connector's listing into the session, then the pieces earlier runs could not collect that this listing did
 * not reach again, then the final flush. Stops at the first event after the signal is aborted.
 */
export async function collectInto(
  parts: { session: ItemWriter; ledger: UnitLedger; connector: Connector; ctx: CollectContext; signal: AbortSignal },
  retries: UnitRetryRow[],
): Promise<void> {
  const { session, ledger, connector, ctx, signal } = parts;
  const feed = async (events: AsyncIterable<CollectEvent>) => {
    for await (const event of events) {
      if (signal.aborted) throw signal.reason;
      await session.handle(event);
    }
  };
  await feed(connector.collect(ctx));
  const pending = retries.filter((r) => ledger.pending(r.kind, r.source_id));
  if (connector.retryPieces && pending.length > 0)
    await feed(connector.retryPieces({ ...ctx, checkpoint: null }, pending.map(retryPiece)));
  if (signal.aborted) throw signal.reason;
  await session.flush({ final: true });
}

function retryPiece(r: UnitRetryRow) {
  return { unit: r.unit_key, kind: r.kind, sourceId: r.source_id, name: r.name, piece: JSON.parse(r.piece) as unknown };
}
