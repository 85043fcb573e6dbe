import type { Selectable } from 'kysely';
import { plainReason } from '../domain/plain-reason.ts';
import { newId } from './ids.ts';
import type { SyncTables } from './schema-sync.ts';
import type { Executor } from './transaction.ts';

export type RunErrorRow = Selectable<SyncTables['run_errors']>;

/** What went wrong in runs, piece by piece: shown on a run (first few) and in the collection's manifest. */
export class RunErrorRepo {
  constructor(private readonly db: Executor) {}

  async add(rows: Omit<RunErrorRow, 'id'>[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db
      .insertInto('run_errors')
      .values(rows.map((r) => ({ id: newId('err'), ...r, reason: plainReason(r.reason) })))
      .execute();
  }

  async ofRun(runId: string, limit: number): Promise<RunErrorRow[]> {
    return this.db
      .selectFrom('run_errors')
      .selectAll()
      .where('run_id', '=', runId)
      .orderBy('at')
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  /** Every error of the collection's runs, oldest first (manifest exceptions). */
  async ofCollection(collectionId: string, offset: number, limit: number): Promise<RunErrorRow[]> {
    return this.db
      .selectFrom('run_errors')
      .selectAll()
      .where('collection_id', '=', collectionId)
      .orderBy('at')
      .orderBy('id')
      .offset(offset)
      .limit(limit)
      .execute();
  }

  async countOfCollection(collectionId: string): Promise<number> {
    const row = await this.db
      .selectFrom('run_errors')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('collection_id', '=', collectionId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
