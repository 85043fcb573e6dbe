// Per-unit bookkeeping of a run: the reconciliation counts, the exceptions, the retry list, and the
// `run.progress` events. Everything is written inside the session's fenced flush transactions.
import type { CollectEvent, Logger, UnitSpec } from '../../connectors/types.ts';
import type { Database } from '../../store/db.ts';
import { EventRepo, type NewEvent } from '../../store/events.ts';
import { progressData } from '../runs/tally.ts';
import {
  emptyTally,
  UnitRepo,
  type NewException,
  type RunUnitRow,
  type Tally,
  type UnitState,
} from '../../store/units.ts';

/** After this many failed attempts (this run's included) a piece is reported as permanently failed. */
export const MAX_PIECE_ATTEMPTS = 5;
/** `run.progress` at most this often per unit, plus one when the unit ends. */
const PROGRESS_EVERY_MS = 1000;

export interface LedgerScope {
  runId: string;
  collectionId: string;
  accountId: string;
}

interface Failure {
  unitKey: string;
  kind: string;
  sourceId: string;
  name: string;
  piece: unknown;
  reason: string;
}

export type Outcome = 'failed' | 'not_present' | 'not_reached' | 'provider_limit';

export class UnitLedger {
  readonly units = new Map<string, UnitState>();
  private readonly dirty = new Set<string>();
  private readonly ended = new Set<string>();
  private readonly lastProgress = new Map<string, number>();
  private exceptions: NewException[] = [];
  private failures: Failure[] = [];
  private cleared: Array<{ kind: string; sourceId: string }> = [];
  /** what the last write took off the buffers, until its transaction commits or not */
  private taken?: {
    dirty: Set<string>;
    ended: Set<string>;
    lastProgress: Map<string, number>;
    exceptions: NewException[];
    failures: Failure[];
    cleared: Array<{ kind: string; sourceId: string }>;
  };

  /**
   * `retryKeys`: `${kind}\0${sourceId}` of the pieces on the collection's retry list. `foreign`: units another
   * unit job of the run keeps (unit-job.ts): this ledger never writes their rows.
   */
  constructor(
    private readonly scope: LedgerScope,
    private readonly clock: () => Date,
    loaded: RunUnitRow[],
    private readonly retryKeys: Set<string>,
    private readonly foreign: (key: string) => boolean = () => false,
  ) {
    for (const r of loaded) {
      const { run_id: _r, unit_key, collection_id: _c, updated_at: _u, ...rest } = r;
      this.units.set(unit_key, {
        ...rest,
        key: unit_key,
        email: r.email,
        name: r.name,
        kind: r.kind,
        status: r.status,
      });
    }
  }

  unit(key: string, spec?: Partial<UnitSpec>): UnitState {
    let u = this.units.get(key);
    if (!u) {
      u = {
        ...emptyTally(),
        key,
        kind: spec?.kind ?? 'custodian',
        email: spec?.email ?? null,
        name: spec?.name ?? null,
        status: 'running',
      };
      this.units.set(key, u);
      this.dirty.add(key);
    }
    return u;
  }

  announce(spec: UnitSpec, status: 'pending' | 'running' | 'done' | 'failed'): void {
    if (this.foreign(spec.key)) return;
    const u = this.unit(spec.key, spec);
    if (spec.email) u.email = spec.email;
    if (spec.name) u.name = spec.name;
    u.kind = spec.kind;
    // A unit a resumed run re-announces keeps what it reached.
    if (status === 'pending' && u.status !== 'pending') return;
    if (u.status === 'failed' && status === 'done') return;
    u.status = status;
    this.dirty.add(spec.key);
    if (status === 'done' || status === 'failed') this.ended.add(spec.key);
  }

  count(key: string, field: keyof Tally, n = 1): void {
    const u = this.unit(key);
    u[field] += n;
    this.dirty.add(key);
  }

  exception(key: string, e: { sourceId: string; kind: string; name: string; outcome: Outcome; reason: string }): void {
    this.exceptions.push({
      run_id: this.scope.runId,
      collection_id: this.scope.collectionId,
      unit_key: key,
      source_id: e.sourceId,
      kind: e.kind,
      name: e.name.slice(0, 500),
      outcome: e.outcome,
      reason: e.reason.slice(0, 2000),
      at: this.clock().toISOString(),
    });
  }

  /** A piece could not be collected: counted (and listed, unless it was already) and kept as an exception. */
  pieceFailed(key: string, p: { sourceId: string; kind: string; name: string; reason: string }, listed = false): void {
    if (!listed) this.count(key, 'listed');
    this.count(key, 'failed');
    this.exception(key, { ...p, outcome: 'failed' });
  }

  /** A piece is not at the source (deleted, or never there): counted, kept as an exception, off the retry list. */
  notPresent(key: string, p: { sourceId: string; kind: string; name: string; reason: string }, listed = false): void {
    if (!listed) this.count(key, 'listed');
    this.count(key, 'not_present');
    this.exception(key, { ...p, outcome: 'not_present' });
    this.settled(p.kind, p.sourceId);
  }

  /** A piece failed: onto (or further along) the retry list. */
  failure(f: Failure): void {
    this.retryKeys.delete(`${f.kind}\u0000${f.sourceId}`);
    this.failures.push(f);
  }

  /** Whether a piece of the retry list is still untouched by this run (neither collected nor failed again). */
  pending(kind: string, sourceId: string): boolean {
    return this.retryKeys.has(`${kind}\u0000${sourceId}`);
  }

  totals(): Tally {
    const t = emptyTally();
    for (const u of this.units.values()) for (const f of Object.keys(t) as (keyof Tally)[]) t[f] += u[f];
    return t;
  }

  /** A piece was collected or is not at the source: off the retry list when it was on it. */
  settled(kind: string, sourceId: string): void {
    if (this.retryKeys.delete(`${kind}\u0000${sourceId}`)) this.cleared.push({ kind, sourceId });
  }

  /**
   * Everything buffered, inside the caller's transaction; `final` emits progress for every changed unit. What it
   * takes off the buffers is kept until `committed()`, so that `rolledBack()` can put it back for another attempt.
   */
  async write(trx: Database, final = false): Promise<void> {
    // taken off the buffers before the first statement: a write that fails midway gives back each entry once
    const { exceptions, failures, cleared } = this;
    this.exceptions = [];
    this.failures = [];
    this.cleared = [];
    this.taken = {
      dirty: new Set(this.dirty),
      ended: new Set(this.ended),
      lastProgress: new Map(this.lastProgress),
      exceptions,
      failures,
      cleared,
    };
    const at = this.clock();
    const iso = at.toISOString();
    const repo = new UnitRepo(trx);
    const dirty = [...this.dirty].filter((k) => !this.foreign(k)).map((k) => this.units.get(k)!);
    if (dirty.length > 0) await repo.save(this.scope.runId, this.scope.collectionId, dirty, iso);
    if (exceptions.length > 0) await repo.addExceptions(exceptions);
    for (const f of failures) {
      await repo.recordFailure(
        {
          collectionId: this.scope.collectionId,
          unitKey: f.unitKey,
          kind: f.kind,
          sourceId: f.sourceId,
          name: f.name,
          piece: f.piece,
          reason: f.reason,
          at: iso,
        },
        MAX_PIECE_ATTEMPTS,
      );
    }
    for (const c of cleared) await repo.clearRetry(this.scope.collectionId, c.kind, c.sourceId);
    const progress: NewEvent<'run.progress'>[] = [];
    for (const u of dirty) {
      const last = this.lastProgress.get(u.key);
      if (!final && !this.ended.has(u.key) && last !== undefined && at.getTime() - last < PROGRESS_EVERY_MS) continue;
      this.lastProgress.set(u.key, at.getTime());
      this.dirty.delete(u.key);
      this.ended.delete(u.key);
      progress.push({
        accountId: this.scope.accountId,
        collectionId: this.scope.collectionId,
        runId: this.scope.runId,
        type: 'run.progress',
        data: progressData(this.scope.runId, u),
        at: iso,
      });
    }
    await new EventRepo(trx).appendMany(progress);
  }

  /** The last write's transaction committed: what it took is written for good. */
  committed(): void {
    this.taken = undefined;
  }

  /**
   * The last write's transaction did not commit: what it took goes back into the buffers, ahead of anything
   * buffered since (a unit marked dirty again stays dirty; progress times are those of the last committed write).
   */
  rolledBack(): void {
    const t = this.taken;
    if (!t) return;
    this.taken = undefined;
    for (const k of t.dirty) this.dirty.add(k);
    for (const k of t.ended) this.ended.add(k);
    this.lastProgress.clear();
    for (const [k, v] of t.lastProgress) this.lastProgress.set(k, v);
    this.exceptions = [...t.exceptions, ...this.exceptions];
    this.failures = [...t.failures, ...this.failures];
    this.cleared = [...t.cleared, ...this.cleared];
  }
}

/** A connector's `error` event: logged with the provider's full answer, counted and kept as the unit's exception. */
export function pieceError(
  ledger: UnitLedger,
  log: Logger,
  scope: Pick<LedgerScope, 'runId' | 'collectionId'>,
  ev: Extract<CollectEvent, { type: 'error' }>,
): void {
  const key = ev.custodian ?? '';
  const kind = ev.kind ?? 'piece';
  const sourceId = ev.sourceId ?? key;
  // the stored reason is plain (domain/plain-reason.ts); the provider's full answer stays here, in the run's log
  log.warn(
    { run_id: scope.runId, collection_id: scope.collectionId, source_id: sourceId, kind, reason: ev.reason },
    'piece failed',
  );
  ledger.pieceFailed(key, { sourceId, kind, name: ev.name ?? sourceId, reason: ev.reason });
  if (ev.retry !== undefined && ev.sourceId)
    ledger.failure({ unitKey: key, kind, sourceId, name: ev.name ?? sourceId, piece: ev.retry, reason: ev.reason });
}
