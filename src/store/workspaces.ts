import { newId, nowIso } from './ids.ts';
import { keysetPage } from './paging.ts';
import type { Executor } from './transaction.ts';

export class WorkspaceRepo {
  constructor(private readonly db: Executor) {}

  async create(accountId: string, input: { name: string; description: string }): Promise<string> {
    const id = newId('ws');
    const at = nowIso();
    await this.db
      .insertInto('workspaces')
      .values({ id, account_id: accountId, ...input, created_at: at, updated_at: at })
      .execute();
    return id;
  }

  async get(accountId: string, id: string) {
    return this.db
      .selectFrom('workspaces')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('deleting_at', 'is', null)
      .executeTakeFirst();
  }

  async list(accountId: string, opts: { cursor?: string; limit: number }) {
    return keysetPage(
      this.db.selectFrom('workspaces').selectAll().where('account_id', '=', accountId).where('deleting_at', 'is', null),
      opts,
    );
  }

  /** Starts a workspace deletion (sync/deletion/deletion.ts); false when it is unknown or already being deleted. */
  async markDeleting(accountId: string, id: string): Promise<boolean> {
    const rows = await this.db
      .updateTable('workspaces')
      .set({ deleting_at: nowIso() })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('deleting_at', 'is', null)
      .returning('id')
      .execute();
    return rows.length > 0;
  }

  /** Workspaces whose deletion started but did not finish (a process stopped midway). */
  async deletingIds(): Promise<string[]> {
    const rows = await this.db.selectFrom('workspaces').select('id').where('deleting_at', 'is not', null).execute();
    return rows.map((r) => r.id);
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('workspaces').where('id', '=', id).execute();
  }
}
