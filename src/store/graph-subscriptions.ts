import type { Selectable } from 'kysely';
import type { Database } from './db.ts';
import { newId } from './ids.ts';
import type { DB } from './schema.ts';

export type GraphSubscriptionRow = Selectable<DB['graph_subscriptions']>;

/** One Graph subscription per (wallet, drive owner) (migration 012). */
export class GraphSubscriptionRepo {
  constructor(private readonly db: Database) {}

  async all(): Promise<GraphSubscriptionRow[]> {
    return this.db.selectFrom('graph_subscriptions').selectAll().orderBy('wallet_id').orderBy('user_id').execute();
  }

  async bySubscriptionId(subscriptionId: string): Promise<GraphSubscriptionRow | undefined> {
    return this.db
      .selectFrom('graph_subscriptions')
      .selectAll()
      .where('subscription_id', '=', subscriptionId)
      .executeTakeFirst();
  }

  /** The rows of these Graph subscription ids, in one query (a notification batch is looked up at once). */
  async bySubscriptionIds(subscriptionIds: string[]): Promise<Map<string, GraphSubscriptionRow>> {
    const ids = [...new Set(subscriptionIds)];
    if (ids.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('graph_subscriptions')
      .selectAll()
      .where('subscription_id', 'in', ids)
      .execute();
    return new Map(rows.map((r) => [r.subscription_id!, r]));
  }

  /** The row for a drive, created (without a Graph subscription yet) when absent. */
  async ensure(walletId: string, userId: string, sealedClientState: string, at: string): Promise<GraphSubscriptionRow> {
    await this.db
      .insertInto('graph_subscriptions')
      .values({
        id: newId('gsub'),
        wallet_id: walletId,
        user_id: userId,
        subscription_id: null,
        sealed_client_state: sealedClientState,
        expires_at: null,
        last_error: null,
        created_at: at,
        updated_at: at,
      })
      .onConflict((oc) => oc.columns(['wallet_id', 'user_id']).doNothing())
      .execute();
    return this.db
      .selectFrom('graph_subscriptions')
      .selectAll()
      .where('wallet_id', '=', walletId)
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
  }

  async update(
    id: string,
    patch: Partial<Pick<GraphSubscriptionRow, 'subscription_id' | 'expires_at' | 'last_error'>>,
    at: string,
  ): Promise<void> {
    await this.db
      .updateTable('graph_subscriptions')
      .set({ ...patch, updated_at: at })
      .where('id', '=', id)
      .execute();
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('graph_subscriptions').where('id', '=', id).execute();
  }
}
