import type { AppContext } from '../context.ts';
import { EventRepo } from '../store/events.ts';
import { RunRepo } from '../store/runs.ts';
import type { CollectionReads } from './collections.ts';

/** The collection event stream's reads: where a connection starts, then the events after a position. */
export function createEventReads(deps: Pick<AppContext, 'db'>, collections: CollectionReads) {
  const events = new EventRepo(deps.db);
  const runs = new RunRepo(deps.db);

  /**
   * The seq to stream after. Without Last-Event-ID: just before the latest run's first event. With it: after it,
   * but never before the previous run's first event (older runs are not replayed).
   */
  async function replayStart(collectionId: string, lastEventId: number | undefined): Promise<number> {
    const [current, previous] = (await runs.list(collectionId, { limit: 2 })).rows;
    const firstOf = async (run: { id: string } | undefined) =>
      run ? await events.firstSeqOfRun(collectionId, run.id) : undefined;
    if (lastEventId === undefined) {
      const first = await firstOf(current);
      // No events of the latest run yet: only what comes next.
      return first !== undefined ? first - 1 : await events.latestSeq(collectionId);
    }
    const floor = (await firstOf(previous)) ?? (await firstOf(current));
    return floor === undefined ? lastEventId : Math.max(lastEventId, floor - 1);
  }

  return {
    /** The caller's collection (404 otherwise) and the seq its stream starts after. */
    async open(accountId: string, collectionId: string, lastEventId: number | undefined) {
      const { collection } = await collections.load(accountId, collectionId);
      return { collectionId: collection.id, after: await replayStart(collection.id, lastEventId) };
    },

    after(collectionId: string, afterSeq: number, limit: number) {
      return events.listForCollection(collectionId, afterSeq, limit);
    },
  };
}
