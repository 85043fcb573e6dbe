import type { Database } from './db.ts';
import { newId, nowIso } from './ids.ts';
import { keysetPage } from './paging.ts';

export class WorkspaceRepo {
  constructor(private db: Database) {}

  async create(accountId: string, input: { name: string; description: string }): Promise<string> {
    const id = newId('ws');
    const at = nowIso();
    await this.db.insertInto('workspaces').values({ id, account_id: accountId, ...input, created_at: at, updated_at: at }).execute();
    return id;
  }

  async get(accountId: string, id: string) {
    return this.db.selectFrom('workspaces').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  }

  async list(accountId: string, opts: { cursor?: string; limit: number }) {
    return keysetPage(this.db.selectFrom('workspaces').selectAll().where('account_id', '=', accountId), opts);
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    const res = await this.db.deleteFrom('workspaces').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }
}
