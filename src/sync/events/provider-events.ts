// Work after the acknowledgement: provider events in the inbox are routed to the collections they concern
// (Zoom by payload.account_id, Graph by subscription id → drive), become dirty marks (collection, custodian),
// and marks older than the coalescing window become one targeted run per collection. Runs in worker processes.
import type { Connector, Grant, Logger } from '../../connectors/types.ts';
import { isObject } from '../../domain/filters/selection.ts';
import type { Sealer } from '../../domain/seal.ts';
import type { Database } from '../../store/db.ts';
import { GraphSubscriptionRepo } from '../../store/graph-subscriptions.ts';
import {
  EventRoutingRepo,
  EventTargetRepo,
  ProviderEventRepo,
  type ProviderEventRow,
} from '../../store/provider-events.ts';
import { WalletRepo } from '../../store/wallets.ts';

/** The provider account a grant belongs to: Zoom's account_id, Microsoft's tenant id. */
export function providerAccountOf(grant: Grant): string | null {
  if (typeof grant.account_id === 'string' && grant.account_id) return grant.account_id;
  if (typeof grant.tenant_id === 'string' && grant.tenant_id) return grant.tenant_id;
  return null;
}

/**
 * Queues targeted work: a run of `collectionId` limited to these custodians. `queued` when a run will cover
 * them; `busy` when a run that started earlier is active (try again after it); `dropped` when the collection
 * takes no event runs (gone, not auto/arch, needs a person).
 */
export interface TargetedWork {
  queue(collectionId: string, custodians: string[], trigger: 'event'): Promise<'queued' | 'busy' | 'dropped'>;
}

export interface EventDispatcherDeps {
  db: Database;
  connectors: { get(type: string): Connector | undefined; types(): string[] };
  sealer: Sealer;
  log: Logger;
  clock: () => Date;
  coalesceMs: number;
  work: TargetedWork;
}

export interface Target {
  collectionId: string;
  custodian: string;
}

export function createEventDispatcher(deps: EventDispatcherDeps) {
  const inbox = new ProviderEventRepo(deps.db);
  const targets = new EventTargetRepo(deps.db);
  const wallets = new WalletRepo(deps.db);
  const subscriptions = new GraphSubscriptionRepo(deps.db);

  const routing = new EventRoutingRepo(deps.db);
  const liveCollections = (walletIds: string[]) => routing.collectionsOfWallets(walletIds);

  /** Wallets paired with this provider account; wallets paired before their account was recorded learn it here. */
  const walletsOf = async (configType: string, accountId: string): Promise<string[]> => {
    const out: string[] = [];
    for (const w of await wallets.pairedFor(configType, accountId)) {
      let account = w.provider_account_id;
      if (account === null && w.sealed_grant) {
        account = providerAccountOf(deps.sealer.open<Grant>(w.sealed_grant));
        if (account) await wallets.setProviderAccount(w.id, account);
      }
      if (account === accountId) out.push(w.id);
    }
    return out;
  };

  /** Pushed events (Zoom): the connector that reads them says whom and what they concern. */
  const routeWebhook = async (row: ProviderEventRow, connector: Connector): Promise<Target[] | string> => {
    const facts = connector.webhooks!.facts(JSON.parse(row.body));
    if (!facts) return 'not an event Custody acts on';
    if (!facts.custodian) return 'the event names no user';
    if (!facts.accountId) return 'the event names no account';
    const out: Target[] = [];
    for (const c of await liveCollections(await walletsOf(connector.configType, facts.accountId))) {
      if (connector.webhooks!.selects(JSON.parse(c.sync_filters!), facts))
        out.push({ collectionId: c.id, custodian: facts.custodian });
    }
    return out;
  };
  const webhookConnector = (provider: string) =>
    deps.connectors
      .types()
      .map((t) => deps.connectors.get(t)!)
      .find((c) => c.webhooks?.provider === provider);

  const routeGraph = async (row: ProviderEventRow): Promise<Target[] | string> => {
    const sub = await subscriptions.bySubscriptionId(row.route_key);
    if (!sub) return "the subscription is no longer Custody's";
    const out: Target[] = [];
    for (const c of await liveCollections([sub.wallet_id])) {
      const filters = JSON.parse(c.sync_filters!) as unknown;
      if (isObject(filters) && Object.hasOwn(filters, sub.user_id))
        out.push({ collectionId: c.id, custodian: sub.user_id });
    }
    return out;
  };

  /** Routes pending inbox rows to dirty marks; returns how many rows were handled. */
  const route = async (limit = 200): Promise<number> => {
    const rows = await inbox.pending(limit);
    for (const row of rows) {
      const at = deps.clock().toISOString();
      let outcome: string;
      try {
        const pushed = row.provider === 'microsoft' ? undefined : webhookConnector(row.provider);
        const routed =
          row.provider === 'microsoft'
            ? await routeGraph(row)
            : pushed
              ? await routeWebhook(row, pushed)
              : 'no connector reads these events';
        if (typeof routed === 'string') outcome = routed;
        else {
          for (const t of routed) await targets.mark(t.collectionId, t.custodian, at);
          outcome =
            routed.length === 0 ? 'no collection selects it' : `marked ${routed.map((t) => t.collectionId).join(',')}`;
        }
      } catch (err) {
        deps.log.warn({ err, event_id: row.id }, 'routing a provider event failed; it stays pending');
        continue;
      }
      await inbox.markDone(row.id, at, outcome);
    }
    return rows.length;
  };

  /** Turns marks older than the coalescing window into targeted runs; returns how many runs were queued. */
  const flush = async (): Promise<number> => {
    const readyBefore = new Date(deps.clock().getTime() - deps.coalesceMs).toISOString();
    let queued = 0;
    for (const [collectionId, marks] of await targets.ready(readyBefore, 100)) {
      const custodians = marks.map((m) => m.custodian).sort();
      const upTo = marks
        .map((m) => m.last_at)
        .sort()
        .at(-1)!;
      try {
        const result = await deps.work.queue(collectionId, custodians, 'event');
        if (result === 'dropped') await targets.dropCollection(collectionId);
        if (result === 'queued') {
          await targets.clear(collectionId, custodians, upTo);
          queued += 1;
        }
      } catch (err) {
        deps.log.warn({ err, collection_id: collectionId }, 'queueing an event run failed; the marks stay');
      }
    }
    return queued;
  };

  return {
    route,
    flush,
    async tick(): Promise<number> {
      await route();
      return flush();
    },
  };
}

export type EventDispatcher = ReturnType<typeof createEventDispatcher>;
