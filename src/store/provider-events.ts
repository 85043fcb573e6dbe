import type { Selectable } from 'kysely';
import type { Database } from './db.ts';
import { newId } from './ids.ts';
import type { DB } from './schema.ts';

export type ProviderEventRow = Selectable<DB['provider_events']>;

export interface NewProviderEvent {
  provider: 'zoom' | 'microsoft';
  dedupKey: string;
  eventType: string;
  routeKey: string;
  body: unknown;
  at: string;
}

/** The inbox of provider change events (migration 012). Repeated deliveries of one change are stored once. */
export class ProviderEventRepo {
  constructor(private readonly db: Database) {}

  /** Stores the event unless its dedup key is known; a known one only counts the delivery. Returns whether it was new. */
  async record(e: NewProviderEvent): Promise<boolean> {
    const inserted = await this.db
      .insertInto('provider_events')
      .values({
        id: newId('pev'),
        provider: e.provider,
        dedup_key: e.dedupKey,
        event_type: e.eventType,
        route_key: e.routeKey,
        body: JSON.stringify(e.body),
        received_at: e.at,
        status: 'pending',
        processed_at: null,
        outcome: null,
      })
      .onConflict((oc) =>
        oc
          .columns(['provider', 'dedup_key'])
          .doUpdateSet((eb) => ({ deliveries: eb('provider_events.deliveries', '+', 1) })),
      )
      .returning(['id', 'deliveries'])
      .executeTakeFirstOrThrow();
    return Number(inserted.deliveries) === 1;
  }

  async pending(limit: number): Promise<ProviderEventRow[]> {
    return this.db
      .selectFrom('provider_events')
      .selectAll()
      .where('status', '=', 'pending')
      .orderBy('received_at')
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  async markDone(id: string, at: string, outcome: string): Promise<void> {
    await this.db
      .updateTable('provider_events')
      .set({ status: 'done', processed_at: at, outcome: outcome.slice(0, 500) })
      .where('id', '=', id)
      .execute();
  }

  async byProvider(provider: string): Promise<ProviderEventRow[]> {
    return this.db
      .selectFrom('provider_events')
      .selectAll()
      .where('provider', '=', provider)
      .orderBy('received_at')
      .execute();
  }
}

/** Dirty marks waiting for a targeted run: one row per (collection, custodian), however many events. */
export class EventTargetRepo {
  constructor(private readonly db: Database) {}

  async mark(collectionId: string, custodian: string, at: string): Promise<void> {
    await this.db
      .insertInto('event_targets')
      .values({ collection_id: collectionId, custodian, first_at: at, last_at: at })
      .onConflict((oc) => oc.columns(['collection_id', 'custodian']).doUpdateSet({ last_at: at }))
      .execute();
  }

  /** Collections with a mark older than `readyBefore` (the coalescing window has passed), and all their marks. */
  async ready(readyBefore: string, limit: number): Promise<Map<string, { custodian: string; last_at: string }[]>> {
    const ids = await this.db
      .selectFrom('event_targets')
      .select('collection_id')
      .where('first_at', '<=', readyBefore)
      .groupBy('collection_id')
      .orderBy('collection_id')
      .limit(limit)
      .execute();
    const out = new Map<string, { custodian: string; last_at: string }[]>();
    if (ids.length === 0) return out;
    const rows = await this.db
      .selectFrom('event_targets')
      .select(['collection_id', 'custodian', 'last_at'])
      .where(
        'collection_id',
        'in',
        ids.map((r) => r.collection_id),
      )
      .execute();
    for (const r of rows)
      out.set(r.collection_id, [...(out.get(r.collection_id) ?? []), { custodian: r.custodian, last_at: r.last_at }]);
    return out;
  }

  /** Removes the marks a queued run covers; a mark touched again after `upTo` stays for the next run. */
  async clear(collectionId: string, custodians: string[], upTo: string): Promise<void> {
    if (custodians.length === 0) return;
    await this.db
      .deleteFrom('event_targets')
      .where('collection_id', '=', collectionId)
      .where('custodian', 'in', custodians)
      .where('last_at', '<=', upTo)
      .execute();
  }

  async dropCollection(collectionId: string): Promise<void> {
    await this.db.deleteFrom('event_targets').where('collection_id', '=', collectionId).execute();
  }

  async all() {
    return this.db.selectFrom('event_targets').selectAll().orderBy('collection_id').orderBy('custodian').execute();
  }
}

/** The collections provider events may concern: auto/arch, live, with filters, of these wallets (or paired ones). */
export class EventRoutingRepo {
  constructor(private readonly db: Database) {}

  async collectionsOfWallets(walletIds: string[]): Promise<Array<{ id: string; sync_filters: string | null }>> {
    if (walletIds.length === 0) return [];
    return this.db
      .selectFrom('collections')
      .select(['id', 'sync_filters'])
      .where('wallet_id', 'in', walletIds)
      .where('type_sync', 'in', ['auto', 'arch'])
      .where('deleting_at', 'is', null)
      .where('sync_filters', 'is not', null)
      .execute();
  }

  /** Every live auto/arch collection with filters whose wallet is paired (the subscription manager's input). */
  async pairedEventCollections(): Promise<
    Array<{ id: string; type: string; wallet_id: string; sync_filters: string | null }>
  > {
    return this.db
      .selectFrom('collections')
      .innerJoin('wallets', 'wallets.id', 'collections.wallet_id')
      .select(['collections.id', 'collections.type', 'collections.wallet_id', 'collections.sync_filters'])
      .where('collections.type_sync', 'in', ['auto', 'arch'])
      .where('collections.deleting_at', 'is', null)
      .where('collections.sync_filters', 'is not', null)
      .where('wallets.sealed_grant', 'is not', null)
      .execute();
  }
}
