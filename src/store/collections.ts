import type { Selectable } from 'kysely';
import type { Database } from './db.ts';
import { newId, nowIso } from './ids.ts';
import { keysetPage } from './paging.ts';
import type { CoreTables } from './schema.ts';
import type { SyncStatus } from '../domain/sync-state.ts';

export type CollectionRow = Selectable<CoreTables['collections']>;

export class CollectionRepo {
  constructor(private db: Database) {}

  async create(accountId: string, input: { name: string; workspace_id: string; wallet_id: string; type: string }): Promise<string> {
    const id = newId('col');
    const at = nowIso();
    await this.db
      .insertInto('collections')
      .values({
        id,
        account_id: accountId,
        ...input,
        sync_status: 'created',
        status_reason: null,
        type_sync: 'one',
        sync_filters: null,
        filters_updated_at: null,
        next_sync_at: null,
        created_at: at,
        updated_at: at,
      })
      .execute();
    return id;
  }

  /** A collection being deleted (deleting_at set) is not found, here and in getById and listByWorkspace. */
  async get(accountId: string, id: string): Promise<CollectionRow | undefined> {
    return this.db.selectFrom('collections').selectAll().where('id', '=', id).where('account_id', '=', accountId).where('deleting_at', 'is', null).executeTakeFirst();
  }

  async getById(id: string): Promise<CollectionRow | undefined> {
    return this.db.selectFrom('collections').selectAll().where('id', '=', id).where('deleting_at', 'is', null).executeTakeFirst();
  }

  async listByWorkspace(accountId: string, workspaceId: string, opts: { cursor?: string; limit: number }) {
    return keysetPage(
      this.db.selectFrom('collections').selectAll().where('account_id', '=', accountId).where('workspace_id', '=', workspaceId).where('deleting_at', 'is', null),
      opts,
    );
  }

  /** Collections whose deletion started but did not finish (a process stopped midway). */
  async deletingIds(): Promise<string[]> {
    const rows = await this.db.selectFrom('collections').select('id').where('deleting_at', 'is not', null).orderBy('id').execute();
    return rows.map((r) => r.id);
  }

  async idsByWorkspace(workspaceId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('collections').select('id').where('workspace_id', '=', workspaceId).execute();
    return rows.map((r) => r.id);
  }

  async update(
    id: string,
    patch: Partial<Pick<CollectionRow, 'sync_filters' | 'filters_updated_at' | 'type_sync' | 'next_sync_at' | 'status_reason'>>,
  ): Promise<void> {
    await this.db.updateTable('collections').set({ ...patch, updated_at: nowIso() }).where('id', '=', id).execute();
  }

  /**
   * Inside a transaction that queues or starts a run: whether the collection still exists and is not being
   * deleted. A no-op write, so that it takes the row lock on PostgreSQL (which waits for a deletion marking the
   * row, sync/deletion.ts) and the write lock on SQLite: a deletion either sees the run and cancels it, or the
   * run is refused.
   */
  async lockLive(id: string): Promise<boolean> {
    const res = await this.db
      .updateTable('collections')
      .set((eb) => ({ updated_at: eb.ref('updated_at') }))
      .where('id', '=', id)
      .where('deleting_at', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Moves the status only if it still is `from` (compare-and-swap); returns whether it moved. */
  async transition(id: string, from: SyncStatus, to: SyncStatus, reason: string | null = null): Promise<boolean> {
    const res = await this.db
      .updateTable('collections')
      .set({ sync_status: to, status_reason: reason, updated_at: nowIso() })
      .where('id', '=', id)
      .where('sync_status', '=', from)
      .where('deleting_at', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('collections').where('id', '=', id).execute();
  }
}
