// After a run ended: what comes next for its collection. The follow-up the run left `pending` (runs/run-end.ts
// followUp) is queued at once; else the collection's next scheduled run is handed to the job queue for its time.
import { CollectionRepo } from '../../store/collections.ts';
import type { Database } from '../../store/db.ts';
import { RunRepo, type RunRow, type RunTrigger } from '../../store/runs.ts';

export interface NextRunDeps {
  db: Database;
  enqueue(collectionId: string, trigger: RunTrigger): Promise<{ run: RunRow; created: boolean }>;
  scheduleCollection(collectionId: string, at: Date): Promise<void>;
}

export async function scheduleNext(deps: NextRunDeps, collectionId: string): Promise<void> {
  const c = await new CollectionRepo(deps.db).getById(collectionId);
  if (!c || c.deleting_at !== null) return;
  if (c.sync_status === 'pending' && !(await new RunRepo(deps.db).active(collectionId)))
    await deps.enqueue(collectionId, 'start');
  else if (c.next_sync_at) await deps.scheduleCollection(collectionId, new Date(c.next_sync_at));
}
