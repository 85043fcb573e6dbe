import { type Connector, type Logger, type ProviderContext } from '../../connectors/types.ts';
import type { Clock } from '../../provider/budget.ts';
import { createBudgetBackend } from '../../provider/budget-backend.ts';
import { CEILING_TTL_MS, trustedCeiling } from '../../provider/learned-rate.ts';
import { ProviderBudgets, type LearnedRateView } from '../../provider/budget-registry.ts';
import { ProviderBudgetRepo } from '../../store/provider-budgets.ts';
import { WalletRepo } from '../../store/wallets.ts';
import type { Metrics } from '../../metrics.ts';
import { providerOf } from '../../metrics.ts';
import { ProviderHttp } from '../../provider/provider-http.ts';
import { CredentialManager, type CredentialManagerOptions } from './credentials.ts';
import { GrantRevokedError } from '../../domain/run-failures.ts';

/**
 * Budgets are per provider account: Zoom limits an account for all its apps and users, Graph an app per tenant,
 * so wallets paired with the same account (or tenant) share one budget. A wallet whose account was never recorded
 * (paired before it was) keeps a budget of its own.
 */
export function budgetKey(
  connector: Pick<Connector, 'type'>,
  walletId: string,
  providerAccount: string | null,
): string {
  return providerAccount === null ? `${connector.type}:${walletId}` : `${connector.type}:account:${providerAccount}`;
}

export interface LearnedRateDetail {
  /** The connector type the budget belongs to (`conf`, `edrive`). */
  provider: string;
  rate: number;
  /** The lower of a limit the provider stated (while trusted) and the operator's ceiling. */
  ceiling: number | null;
  /** The operator's ceiling (ZOOM_MAX_REQUESTS_PER_SECOND, MS_MAX_RESOURCE_UNITS_PER_SECOND); null when unset. */
  operatorCeiling: number | null;
  learnedAt: string;
}

export interface ProviderSessionsOptions extends CredentialManagerOptions {
  /** The budgets' clock (tests); the system clock otherwise. */
  budgetClock?: Clock;
  metrics?: Metrics;
  /** The fleet-wide budgets (the composition root picks Redis or PostgreSQL); default: this process only. */
  budgets?: ProviderBudgets;
}

export interface OpenSession {
  signal?: AbortSignal;
  /** Bound to the collection (and run) already; a child with `collection_id` and `type` is made otherwise. */
  log?: Logger;
  now?: () => Date;
  /** Told of every provider answer and every wait the provider stated (the unit's liveness). */
  onProgress?: () => void;
}

/**
 * The per-process state shared by every request made with a credential: one request budget per provider account
 * (budgetKey) and one CredentialManager (single-flight refresh, token cache). Built once in the composition root
 * (src/runtime.ts) and handed to the engine and to discovery: two instances in one process would overrun the
 * provider's limits and race on rotating refresh tokens.
 */
export class ProviderSessions {
  readonly credentials: CredentialManager;
  readonly budgets: ProviderBudgets;
  private readonly rates: ProviderBudgetRepo;
  private readonly wallets: WalletRepo;

  constructor(private readonly opts: ProviderSessionsOptions) {
    this.credentials = new CredentialManager(opts);
    this.rates = new ProviderBudgetRepo(opts.db);
    this.wallets = new WalletRepo(opts.db);
    this.budgets =
      opts.budgets ??
      new ProviderBudgets({
        backend: createBudgetBackend({ kind: 'memory' }),
        rates: this.rates,
        clock: opts.budgetClock,
        onError: (err) => opts.log?.warn({ err }, 'provider budget store failed'),
      });
  }

  /**
   * What a connector needs to talk to its provider for one collection: an HTTP client that spends the wallet's
   * budget and applies (and refreshes) its tokens, and the grant's non-secret facts. Throws
   * CredentialsMissingError when the wallet is not paired.
   */
  async open(
    collection: { id: string; wallet_id: string },
    connector: Connector,
    options: OpenSession = {},
  ): Promise<ProviderContext> {
    const walletId = collection.wallet_id;
    // Read the wallet afresh: a re-pairing in any process (possibly with another provider account) must win
    // over a cached grant.
    this.credentials.forget(walletId);
    const grantInfo = await this.credentials.grantInfo(walletId);
    const account = await this.credentials.providerAccount(walletId);
    const log = options.log ?? childLog(this.opts.log, { collection_id: collection.id, type: connector.type });
    const signal = options.signal ?? new AbortController().signal;
    const http = new ProviderHttp({
      budget: this.budgets.get(budgetKey(connector, walletId, account), connector.limits.budget),
      retry: connector.limits.retry,
      quirks: connector.quirks,
      auth: this.credentials.auth(walletId, this.counted(connector)),
      userAgent: connector.userAgent,
      signal,
      log,
      metrics: this.opts.metrics?.provider(providerOf(connector.type)),
      onProgress: options.onProgress,
    });
    return { http, grantInfo, signal, now: options.now ?? (() => new Date()), log };
  }

  /** The connector's token refresh, counted (custody_token_refreshes_total). */
  private counted(connector: Connector): Pick<Connector, 'oauth'> {
    const metrics = this.opts.metrics;
    if (!metrics) return connector;
    const provider = providerOf(connector.type);
    const refresh: Connector['oauth']['refresh'] = async (grant) => {
      try {
        const next = await connector.oauth.refresh(grant);
        metrics.tokenRefresh(provider, 'success');
        return next;
      } catch (err) {
        metrics.tokenRefresh(provider, err instanceof GrantRevokedError ? 'revoked' : 'failure');
        throw err;
      }
    };
    return { oauth: Object.assign(Object.create(connector.oauth) as Connector['oauth'], { refresh }) };
  }

  /**
   * The learned rate of every credential, as every process shares it and as kept across runs (the
   * custody_provider_budget_rate gauge): each process reports the same figure as the run detail.
   */
  async learnedRates(): Promise<LearnedRateView[]> {
    return (await this.rates.list()).map((r) => ({ provider: r.provider, credential: r.credential, rate: r.rate }));
  }

  /** The learned rate of one wallet's provider account, as every process shares it (the run detail), if known yet. */
  async learnedRate(
    connector: Pick<Connector, 'type'> & { limits?: Connector['limits'] },
    walletId: string,
    now = Date.now(),
  ): Promise<LearnedRateDetail | undefined> {
    const account = await this.wallets.providerAccount(walletId);
    const row = await this.rates.row(budgetKey(connector, walletId, account ?? null));
    if (!row) return undefined;
    const operator = connector.limits?.budget.maxRatePerSecond ?? null;
    const stated = trustedCeiling(row, { ceilingTtlMs: CEILING_TTL_MS }, now);
    const ceiling = stated === null ? operator : operator === null ? stated : Math.min(stated, operator);
    return {
      provider: row.provider,
      rate: Math.min(row.rate, operator ?? Infinity),
      ceiling,
      operatorCeiling: operator,
      learnedAt: row.updatedAt,
    };
  }

  async close(): Promise<void> {
    await this.budgets.close();
  }

  /** A wallet was paired again: the next request reads its new grant. */
  forget(walletId: string): void {
    this.credentials.forget(walletId);
  }
}

export function childLog(log: Logger | undefined, bindings: object): Logger {
  const silent: Logger = { info() {}, warn() {}, error() {}, debug() {} };
  if (!log) return silent;
  const withChild = log as Logger & { child?: (b: object) => Logger };
  return typeof withChild.child === 'function' ? withChild.child(bindings) : log;
}
