import type { AppContext } from '../context.ts';
import type { Connector, ProviderContext } from '../connectors/types.ts';
import { BudgetRegistry } from './budget.ts';
import { CredentialManager } from './credentials.ts';
import { ProviderHttp } from './provider-http.ts';

/**
 * The per-process state shared by every request made with a credential: one request budget per wallet and
 * one CredentialManager (single-flight refresh, token cache). Discovery requests and sync runs of the same
 * process must share these, or they would overrun the provider's limits and race on rotating refresh tokens.
 */
export interface ProviderResources {
  budgets: BudgetRegistry;
  credentials: CredentialManager;
}

const resources = new WeakMap<object, ProviderResources>();

export function providerResources(ctx: Pick<AppContext, 'db' | 'sealer' | 'log'>): ProviderResources {
  let r = resources.get(ctx);
  if (!r) {
    r = { budgets: new BudgetRegistry(), credentials: new CredentialManager({ db: ctx.db, sealer: ctx.sealer, log: ctx.log }) };
    resources.set(ctx, r);
  }
  return r;
}

/** Budgets are per credential: two collections sharing a wallet share its budget. */
export function budgetKey(connector: Pick<Connector, 'type'>, walletId: string): string {
  return `${connector.type}:${walletId}`;
}

/**
 * What a connector needs to talk to its provider for one collection: an HTTP client that spends the wallet's
 * budget and applies (and refreshes) its tokens, and the grant's non-secret facts. Throws
 * CredentialsMissingError when the wallet is not paired.
 */
export async function providerContext(
  ctx: Pick<AppContext, 'db' | 'sealer' | 'log'>,
  collection: { id: string; wallet_id: string },
  connector: Connector,
  signal?: AbortSignal,
): Promise<ProviderContext> {
  const { budgets, credentials } = providerResources(ctx);
  const walletId = collection.wallet_id;
  // Read the wallet afresh: a re-pairing in any process (possibly with another provider account) must win
  // over a cached grant.
  credentials.forget(walletId);
  const grantInfo = await credentials.grantInfo(walletId);
  const log = ctx.log.child({ collection_id: collection.id, type: connector.type });
  const effectiveSignal = signal ?? new AbortController().signal;
  const http = new ProviderHttp({
    budget: budgets.get(budgetKey(connector, walletId), connector.limits.budget),
    retry: connector.limits.retry,
    auth: credentials.auth(walletId, connector),
    userAgent: connector.userAgent,
    signal: effectiveSignal,
    log,
  });
  return { http, grantInfo, signal: effectiveSignal, now: () => new Date(), log };
}
