import type { Database } from './db.ts';
import { newId, nowIso } from './ids.ts';
import { decodeCursor, encodeCursor } from './paging.ts';

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
    const after = decodeCursor(opts.cursor);
    let q = this.db.selectFrom('workspaces').selectAll().where('account_id', '=', accountId);
    if (after) {
      q = q.where((eb) => eb.or([eb('created_at', '>', after[0]), eb.and([eb('created_at', '=', after[0]), eb('id', '>', after[1])])]));
    }
    const rows = await q.orderBy('created_at').orderBy('id').limit(opts.limit + 1).execute();
    const page = rows.slice(0, opts.limit);
    const last = page[page.length - 1];
    return { rows: page, cursor: rows.length > opts.limit && last ? encodeCursor(last.created_at, last.id) : null };
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    const res = await this.db.deleteFrom('workspaces').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }
}
