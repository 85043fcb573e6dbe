// What a run's start and end leave behind, in the transaction that moves its status: the audit log's `run.start`
// and `run.finish`, and the event outbox's `run.started` and `run.finished`.
import type { FinalRunStatus } from '../domain/run-state.ts';
import { AuditRepo } from './audit.ts';
import { EventRepo } from './events.ts';
import type { RunRow } from './runs.ts';
import type { Executor } from './transaction.ts';

/** The first claim of a run (the one that sets `started_at`): `run.start` (audit) and `run.started` (event outbox). */
export async function recordRunStarted(trx: Executor, row: RunRow, now: string): Promise<void> {
  await new AuditRepo(trx).record({
    accountId: row.account_id,
    clientId: null,
    action: 'run.start',
    targetId: row.collection_id,
    outcome: 'started',
    detail: { run_id: row.id, trigger: row.trigger },
    at: now,
  });
  await new EventRepo(trx).append({
    accountId: row.account_id,
    collectionId: row.collection_id,
    runId: row.id,
    type: 'run.started',
    data: { run_id: row.id, collection_id: row.collection_id },
    at: now,
  });
}

/**
 * `run.finish` (audit) and `run.finished` (event outbox): outcome = the run's final status. Always inside the
 * transaction that sets that status.
 */
export async function recordRunFinished(
  trx: Executor,
  run: Pick<RunRow, 'id' | 'account_id' | 'collection_id'>,
  status: FinalRunStatus,
  at: string,
  reason: string | null,
) {
  await new EventRepo(trx).append({
    accountId: run.account_id,
    collectionId: run.collection_id,
    runId: run.id,
    type: 'run.finished',
    data: { run_id: run.id, collection_id: run.collection_id, status },
    at,
  });
  await new AuditRepo(trx).record({
    accountId: run.account_id,
    clientId: null,
    action: 'run.finish',
    targetId: run.collection_id,
    outcome: status,
    detail: { run_id: run.id, ...(reason !== null && { reason: reason.slice(0, 500) }) },
    at,
  });
}
