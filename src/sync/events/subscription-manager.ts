// Keeps one provider change subscription per (wallet, custodian) that an auto/arch collection selects (Graph
// drive subscriptions): creates missing ones, renews at half-life, re-creates lost ones (renewal 404), and
// deletes those no collection needs any more. Runs in worker processes; every decision uses the injected clock.
import type { Connector, Logger, ProviderContext } from '../../connectors/types.ts';
import { isObject } from '../../domain/filters/selection.ts';
import { randomToken, type Sealer } from '../../domain/seal.ts';
import type { Database } from '../../store/db.ts';
import { GraphSubscriptionRepo, type GraphSubscriptionRow } from '../../store/graph-subscriptions.ts';
import { EventRoutingRepo, EventTargetRepo } from '../../store/provider-events.ts';
import { WalletRepo } from '../../store/wallets.ts';
import type { ProviderSessions } from '../providers/provider-session.ts';

export interface SubscriptionManagerDeps {
  db: Database;
  sealer: Sealer;
  connectors: { get(type: string): Connector | undefined };
  /** The process's provider sessions: subscriptions spend the wallet's budget and share its token refresh. */
  sessions: Pick<ProviderSessions, 'open'>;
  log: Logger;
  clock: () => Date;
  /** `$PUBLIC_URL/v1/webhooks/microsoft`, read at each pass. */
  notificationUrl(): string;
  lifetimeMinutes: number;
}

interface Need {
  walletId: string;
  userId: string;
  connector: Connector;
  collectionIds: string[];
}

const key = (walletId: string, userId: string) => `${walletId}\u0000${userId}`;

export function createSubscriptionManager(deps: SubscriptionManagerDeps) {
  const repo = new GraphSubscriptionRepo(deps.db);
  const targets = new EventTargetRepo(deps.db);
  const lifetimeMs = deps.lifetimeMinutes * 60_000;
  const iso = (ms: number) => new Date(ms).toISOString();

  const needs = async (): Promise<Map<string, Need>> => {
    const rows = await new EventRoutingRepo(deps.db).pairedEventCollections();
    const out = new Map<string, Need>();
    for (const c of rows) {
      const connector = deps.connectors.get(c.type);
      if (!connector?.subscriptions) continue;
      const filters = JSON.parse(c.sync_filters!) as unknown;
      if (!isObject(filters)) continue;
      for (const userId of Object.keys(filters)) {
        const k = key(c.wallet_id, userId);
        const need = out.get(k) ?? { walletId: c.wallet_id, userId, connector, collectionIds: [] };
        need.collectionIds.push(c.id);
        out.set(k, need);
      }
    }
    return out;
  };

  const contextFor = (walletId: string, connector: Connector): Promise<ProviderContext> =>
    deps.sessions.open({ id: `subscriptions:${walletId}`, wallet_id: walletId }, connector, {
      log: deps.log,
      now: deps.clock,
    });

  /** A (re)created subscription may have missed changes: the drive's delta runs for the collections selecting it. */
  const catchUp = async (need: Need) => {
    const at = deps.clock().toISOString();
    for (const id of need.collectionIds) await targets.mark(id, need.userId, at);
  };

  const create = async (row: GraphSubscriptionRow, need: Need, ctx: ProviderContext) => {
    const created = await need.connector.subscriptions!.create(ctx, {
      userId: need.userId,
      notificationUrl: deps.notificationUrl(),
      clientState: deps.sealer.open<string>(row.sealed_client_state),
      expiresAt: iso(deps.clock().getTime() + lifetimeMs),
    });
    await repo.update(
      row.id,
      { subscription_id: created.id, expires_at: created.expiresAt, last_error: null },
      deps.clock().toISOString(),
    );
    return created.id;
  };

  const keep = async (row: GraphSubscriptionRow, need: Need): Promise<string> => {
    const ctx = await contextFor(need.walletId, need.connector);
    const now = deps.clock().getTime();
    // The grant cannot subscribe (a missing permission, or switched off): no attempt; the drive is polled instead.
    if (need.connector.subscriptions!.usable && !need.connector.subscriptions!.usable(ctx.grantInfo)) {
      if (row.subscription_id !== null) {
        await need.connector.subscriptions!.remove(ctx, row.subscription_id);
        await repo.update(
          row.id,
          { subscription_id: null, expires_at: null, last_error: null },
          deps.clock().toISOString(),
        );
      }
      return 'polling';
    }
    if (row.subscription_id === null) {
      await create(row, need, ctx);
      if (row.expires_at !== null) await catchUp(need);
      return 'created';
    }
    const expires = row.expires_at ? Date.parse(row.expires_at) : 0;
    if (expires - now > lifetimeMs / 2) return 'kept';
    const renewed = await need.connector.subscriptions!.renew(ctx, row.subscription_id, iso(now + lifetimeMs));
    if (renewed === 'gone') {
      await repo.update(row.id, { subscription_id: null }, deps.clock().toISOString());
      await create(row, need, ctx);
      await catchUp(need);
      return 'recreated';
    }
    await repo.update(row.id, { expires_at: renewed.expiresAt, last_error: null }, deps.clock().toISOString());
    return 'renewed';
  };

  const drop = async (row: GraphSubscriptionRow) => {
    if (row.subscription_id !== null) {
      const wallet = await new WalletRepo(deps.db).getById(row.wallet_id);
      const connector = wallet ? deps.connectors.get(wallet.config_type) : undefined;
      // An unpaired or deleted wallet cannot call Graph: the subscription lapses on its own at expiry.
      if (connector?.subscriptions && wallet?.sealed_grant)
        await connector.subscriptions.remove(await contextFor(row.wallet_id, connector), row.subscription_id);
    }
    await repo.delete(row.id);
  };

  /** One pass; returns what happened to each drive (tests and logs). */
  const tick = async (): Promise<Record<string, string>> => {
    const wanted = await needs();
    const outcome: Record<string, string> = {};
    const rows = new Map((await repo.all()).map((r) => [key(r.wallet_id, r.user_id), r]));
    for (const [k, need] of wanted) {
      if (!rows.has(k))
        rows.set(
          k,
          await repo.ensure(need.walletId, need.userId, deps.sealer.seal(randomToken(32)), deps.clock().toISOString()),
        );
    }
    for (const [k, row] of rows) {
      const need = wanted.get(k);
      const label = `${row.wallet_id}/${row.user_id}`;
      try {
        if (need) outcome[label] = await keep(row, need);
        else {
          await drop(row);
          outcome[label] = 'deleted';
        }
      } catch (err) {
        outcome[label] = 'failed';
        const message = (err instanceof Error ? err.message : String(err)).slice(0, 500);
        await repo.update(row.id, { last_error: message }, deps.clock().toISOString()).catch(() => undefined);
        deps.log.warn(
          { wallet_id: row.wallet_id, user_id: row.user_id, err: message },
          'keeping a change subscription failed; next pass retries',
        );
      }
    }
    return outcome;
  };

  return { tick };
}

export type SubscriptionManager = ReturnType<typeof createSubscriptionManager>;
