// What executing a run needs from the process: shared by the rooms of sync/ that execute and end runs
// (execution/, runs/run-end.ts), and built once by the engine (engine.ts). Types only.
import type { BlobStore } from '../blobs/types.ts';
import type { Connector, Logger } from '../connectors/types.ts';
import type { RunBackoff } from '../domain/run-outcome.ts';
import type { DocumentReader } from '../search/index.ts';
import type { Database } from '../store/db.ts';
import type { ProviderSessions } from './providers/provider-session.ts';

export interface RunnerDeps {
  db: Database;
  blobs: BlobStore;
  documents: DocumentReader;
  connectors: { get(type: string): Connector | undefined };
  sessions: ProviderSessions;
  log: Logger;
  clock: () => Date;
  isHeld(collectionId: string): Promise<boolean>;
  /** An injected hold check (SyncEngineDeps.isHeld), OR-ed with the table inside each flush (item-writer.ts). */
  heldOverride?(collectionId: string): Promise<boolean>;
  intervalMinutes: number;
  retry: RunBackoff;
}
