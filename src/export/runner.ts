import type { BlobStore } from '../blobs/types.ts';
import type { Logger } from '../connectors/types.ts';
import type { DocumentReader } from '../search/index.ts';
import { AuditRepo } from '../store/audit.ts';
import { BlobRefRepo } from '../store/blob-refs.ts';
import type { Database } from '../store/db.ts';
import { EventRepo } from '../store/events.ts';
import { ExportRepo, type ExportRow } from '../store/exports.ts';
import { holdLease, MAX_STALLED_ATTEMPTS, RunStopped, workerStop, type HeldLease } from '../sync/execution/lease.ts';
import type { SigningKeys } from './keys.ts';
import { writePackage } from './package.ts';
import type { ExportOptions } from './selection.ts';

export interface ExporterDeps {
  db: Database;
  blobs: BlobStore;
  documents: DocumentReader;
  keys: SigningKeys;
  log: Logger;
  owner: string;
  clock?: () => Date;
  /** Default 60 s; the heartbeat renews it every leaseMs / 4 (at most 2 s) and notices a cancel. */
  leaseMs?: number;
  /**
   * UNIT_STALL_SECONDS in ms: an export whose package grows by nothing this long (a blob read that hangs) is
   * stopped and retried; after MAX_STALLED_ATTEMPTS such attempts it fails. Default 300 s.
   */
  stallMs?: number;
  /** `export.progress` at most this often (plus the last one). Default 1000 ms. */
  progressMs?: number;
}

export interface Exporter {
  /** Claims the export and writes its package; a duplicate delivery is harmless (not claimed: nothing done). */
  run(exportId: string): Promise<{ status: string }>;
  claimable(limit: number): Promise<string[]>;
  /** Stops writing a cancelled export in this process, and waits until it no longer writes. */
  cancel(exportId: string): Promise<void>;
  /** Stops the exports this process is writing and gives them back (another process takes them up at once). */
  stopAll(): Promise<void>;
}

/** Messages a failed export reports: ours, never a provider's or a driver's text with possible secrets. */
function failureMessage(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return msg.replace(/(token|secret|password|key)=\S+/gi, '$1=…').slice(0, 500);
}

export function createExporter(deps: ExporterDeps): Exporter {
  const clock = deps.clock ?? (() => new Date());
  const leaseMs = deps.leaseMs ?? 60_000;
  const heartbeatMs = Math.max(50, Math.min(2_000, Math.floor(leaseMs / 4)));
  const stallMs = deps.stallMs ?? 300_000;
  const progressMs = deps.progressMs ?? 1000;
  const exports = new ExportRepo(deps.db);
  const local = new Map<string, { lease: HeldLease; done: Promise<unknown> }>();
  /** Aborted by stopAll: an export this process takes up from then on goes back at once. */
  const shutdown = workerStop();

  const finishEvent = async (row: ExportRow, status: string, extra: Record<string, string | number | null>) => {
    await new EventRepo(deps.db).append({
      accountId: row.account_id,
      collectionId: row.collection_id,
      type: 'export.finished',
      data: { export_id: row.id, status },
    });
    await new AuditRepo(deps.db).record({
      accountId: row.account_id,
      clientId: null,
      action: 'export.finish',
      targetId: row.id,
      collectionId: row.collection_id,
      outcome: status,
      detail: { export_id: row.id, ...extra },
    });
  };

  const execute = async (row: ExportRow, signal: AbortSignal, alive: () => void) => {
    let lastProgress = 0;
    const events = new EventRepo(deps.db);
    const result = await writePackage(
      deps,
      {
        id: row.id,
        collection_id: row.collection_id,
        created_at: row.created_at,
        options: JSON.parse(row.options) as ExportOptions,
      },
      {
        signal,
        alive,
        progress: (p) => {
          alive();
          const now = clock().getTime();
          if (p.documents_done < p.documents_total && now - lastProgress < progressMs) return;
          lastProgress = now;
          void events
            .append({
              accountId: row.account_id,
              collectionId: row.collection_id,
              type: 'export.progress',
              data: { export_id: row.id, ...p },
            })
            .catch((err: unknown) => deps.log.warn({ err, export_id: row.id }, 'export progress event not written'));
        },
      },
    );
    const at = clock().toISOString();
    // The package's blob is referenced before the row points at it (the orphan sweep never takes it).
    await new BlobRefRepo(deps.db).acquire(result.sha256, result.size, at);
    const ended = await exports.finish(
      row.id,
      deps.owner,
      {
        status: 'succeeded',
        finished_at: at,
        counts: JSON.stringify(result.counts),
        bytes: result.size,
        sha256: result.sha256,
        audit_seq: result.auditHead.seq,
        audit_hash: result.auditHead.hash,
      },
      row.attempt,
    );
    if (!ended) {
      // Cancelled or deleted meanwhile (a purged collection): the package goes unless something else holds it.
      const refs = new BlobRefRepo(deps.db);
      await refs.release(result.sha256, at);
      await refs.collect(result.sha256, deps.blobs);
      throw new RunStopped('cancelled');
    }
    await finishEvent(row, 'succeeded', {
      documents: result.counts.documents,
      bytes: result.size,
      sha256: result.sha256,
    });
  };

  return {
    async run(exportId) {
      const now = clock();
      const row = await exports.claim(
        exportId,
        deps.owner,
        now.toISOString(),
        new Date(now.getTime() + leaseMs).toISOString(),
      );
      if (!row) return { status: 'not_claimed' };
      if (shutdown.signal.aborted) {
        // claimed while this process stops: another takes it up at once, and this attempt does not count
        await exports.releaseLease(exportId, deps.owner, clock().toISOString(), row.attempt, true);
        return { status: 'not_claimed' };
      }
      const lease = holdLease(
        {
          renew: (_now, until) => exports.heartbeat(exportId, deps.owner, until.toISOString()),
          wasCancelled: async () => (await exports.get(exportId))?.status === 'cancelled',
          release: (at, shutdown) =>
            exports.releaseLease(exportId, deps.owner, at.toISOString(), row.attempt, shutdown),
        },
        { clock, leaseMs, heartbeatMs, stallMs },
        { outer: shutdown.signal, log: deps.log, context: { export_id: exportId, attempt: row.attempt } },
      );
      // A read that hangs and ignores the signal is given up when the watchdog stops the export.
      const done = untilStalled(execute(row, lease.signal, lease.onProgress), lease.signal);
      local.set(exportId, { lease, done });
      try {
        await done;
        return { status: 'succeeded' };
      } catch (err) {
        const stopped =
          err instanceof RunStopped ? err : lease.signal.reason instanceof RunStopped ? lease.signal.reason : undefined;
        const gaveUp = stopped?.why === 'stalled' && row.attempt >= MAX_STALLED_ATTEMPTS;
        if (stopped && !gaveUp) {
          // stalled, or its process shutting down: another attempt takes it over at once
          await lease.end({ release: stopped.why === 'stalled' || stopped.why === 'shutdown' });
          return { status: stopped.why === 'cancelled' ? 'cancelled' : 'interrupted' };
        }
        const message = gaveUp
          ? `the export made no progress for UNIT_STALL_SECONDS on each of its ${row.attempt} attempts`
          : failureMessage(err);
        deps.log.warn({ export_id: exportId, err: message }, 'export failed');
        if (
          await exports.finish(exportId, deps.owner, {
            status: 'failed',
            finished_at: clock().toISOString(),
            error: message,
          })
        )
          await finishEvent(row, 'failed', { reason: message });
        return { status: 'failed' };
      } finally {
        await lease.end();
        local.delete(exportId);
      }
    },
    claimable: (limit) => exports.claimable(clock().toISOString(), limit),
    async cancel(exportId) {
      const mine = local.get(exportId);
      if (!mine) return;
      mine.lease.stop('cancelled');
      await mine.done.catch(() => undefined);
    },
    async stopAll() {
      shutdown.abort();
      for (const e of local.values()) e.lease.stop('shutdown');
      await Promise.all([...local.values()].map((e) => e.done.catch(() => undefined)));
    },
  };
}

/** `work`, or the signal's reason as soon as the watchdog stops it (a cancel or a shutdown waits for the work). */
function untilStalled<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  let onAbort: () => void = () => undefined;
  const stalled = new Promise<never>((_, reject) => {
    onAbort = () => {
      if (signal.reason instanceof RunStopped && signal.reason.why === 'stalled') reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
  stalled.catch(() => undefined);
  return Promise.race([work, stalled]).finally(() => signal.removeEventListener('abort', onAbort));
}
