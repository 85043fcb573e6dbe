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
    return this.db
      .selectFrom('workspaces')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('deleting_at', 'is', null)
      .executeTakeFirst();
  }

  async list(accountId: string, opts: { cursor?: string; limit: number }) {
    return keysetPage(this.db.selectFrom('workspaces').selectAll().where('account_id', '=', accountId).where('deleting_at', 'is', null), opts);
  }
}
