import crypto from 'node:crypto';
import os from 'node:os';
import { type Connector, type Grant, type Logger } from '../../connectors/types.ts';
import type { Sealer } from '../../domain/seal.ts';
import type { Database } from '../../store/db.ts';
import { RefreshLockRepo } from '../../store/refresh-locks.ts';
import { WalletRepo } from '../../store/wallets.ts';
import type { ProviderAuth } from '../../provider/http-options.ts';
import { CredentialsMissingError, GrantRevokedError } from '../../domain/run-failures.ts';

export interface CredentialManagerOptions {
  db: Database;
  sealer: Sealer;
  log?: Logger;
  clock?: () => Date;
  /** Refresh this long before `expires_at`. Default 60 s. */
  skewMs?: number;
  /**
   * Lifetime of the cross-process refresh lock. The holder renews it every lockMs / 3 while its refresh is in
   * flight, so it only lapses when the holder died (or stalled that long). Default 30 s.
   */
  lockMs?: number;
  /**
   * Overall deadline of one refresh, the connector's own retries included (Zoom's worst case is about 3 minutes:
   * three attempts with 30 s header and body timeouts). Past it the caller gets an error; the call keeps the lock
   * (for at most one more deadline) and a grant it still returns is persisted. Default 240 s.
   */
  refreshDeadlineMs?: number;
  /** How often a process waiting for another one's refresh looks again. Default 100 ms. */
  pollMs?: number;
  /** Give up waiting for another process's refresh after this long. Default refreshDeadlineMs + lockMs. */
  waitMs?: number;
}

interface Entry {
  version: number;
  grant: Grant;
}

const SECRET_KEY = /token|secret|password|assertion|verifier|code|key/i;

/** The grant minus anything secret: what connectors may read (tenant id, account id, scopes). */
export function grantInfoOf(grant: Grant): Record<string, unknown> {
  return Object.fromEntries(Object.entries(grant).filter(([k]) => !SECRET_KEY.test(k)));
}

/**
 * Hands ProviderHttp its tokens. Refreshes before expiry and after a 401, once per credential: in-process
 * through a promise map, across processes through a lock row (so that two processes never both spend a
 * rotating refresh token: the provider would refuse the second one) and WalletRepo.swapGrant's version
 * compare-and-swap. A rotated grant is persisted before its token is used. Tokens never reach a log.
 */
export class CredentialManager {
  private readonly wallets: WalletRepo;
  private readonly locks: RefreshLockRepo;
  private readonly cache = new Map<string, Entry>();
  /** The provider account of each wallet, as read with its grant (wallets.provider_account_id). */
  private readonly accounts = new Map<string, string | null>();
  private readonly inflight = new Map<string, Promise<Entry>>();
  private readonly clock: () => Date;
  private readonly skewMs: number;
  private readonly lockMs: number;
  private readonly refreshDeadlineMs: number;
  private readonly pollMs: number;
  private readonly waitMs: number;
  private readonly owner = `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString('hex')}`;

  constructor(private readonly opts: CredentialManagerOptions) {
    this.wallets = new WalletRepo(opts.db);
    this.locks = new RefreshLockRepo(opts.db);
    this.clock = opts.clock ?? (() => new Date());
    this.skewMs = opts.skewMs ?? 60_000;
    this.lockMs = opts.lockMs ?? 30_000;
    this.refreshDeadlineMs = opts.refreshDeadlineMs ?? 240_000;
    this.pollMs = opts.pollMs ?? 100;
    // A waiter outlasts the holder's deadline plus the lapse of a dead holder's lock.
    this.waitMs = opts.waitMs ?? this.refreshDeadlineMs + this.lockMs;
  }

  auth(walletId: string, connector: Pick<Connector, 'oauth'>): ProviderAuth {
    return {
      token: async () => {
        let entry = this.cache.get(walletId) ?? (await this.load(walletId));
        if (this.expiring(entry.grant)) entry = await this.refreshOnce(walletId, connector, entry.grant.access_token);
        return accessToken(entry.grant);
      },
      refresh: async (rejected) => {
        const current = await this.load(walletId);
        if (current.grant.access_token !== rejected && !this.expiring(current.grant)) return accessToken(current.grant);
        return accessToken((await this.refreshOnce(walletId, connector, rejected)).grant);
      },
      current: () => {
        const entry = this.cache.get(walletId);
        return entry && !this.expiring(entry.grant) ? accessToken(entry.grant) : undefined;
      },
    };
  }

  async grantInfo(walletId: string): Promise<Record<string, unknown>> {
    return grantInfoOf((this.cache.get(walletId) ?? (await this.load(walletId))).grant);
  }

  /** The provider account the wallet is paired with (Zoom account, Microsoft tenant); null when not recorded. */
  async providerAccount(walletId: string): Promise<string | null> {
    if (!this.accounts.has(walletId)) await this.load(walletId);
    return this.accounts.get(walletId) ?? null;
  }

  /** Forgets cached grants (after a re-pairing in this process). */
  forget(walletId: string): void {
    this.cache.delete(walletId);
    this.accounts.delete(walletId);
  }

  private expiring(grant: Grant): boolean {
    if (!grant.access_token) return true;
    if (!grant.expires_at) return false;
    return Date.parse(grant.expires_at) - this.skewMs <= this.clock().getTime();
  }

  private async load(walletId: string): Promise<Entry> {
    const row = await this.wallets.getById(walletId);
    if (!row?.sealed_grant) throw new CredentialsMissingError(`wallet ${walletId} has no paired credentials`);
    const entry = { version: row.grant_version, grant: this.opts.sealer.open<Grant>(row.sealed_grant) };
    this.cache.set(walletId, entry);
    this.accounts.set(walletId, row.provider_account_id);
    return entry;
  }

  private refreshOnce(
    walletId: string,
    connector: Pick<Connector, 'oauth'>,
    stale: string | undefined,
  ): Promise<Entry> {
    let flight = this.inflight.get(walletId);
    if (!flight) {
      flight = this.refreshAcrossProcesses(walletId, connector, stale).finally(() => this.inflight.delete(walletId));
      this.inflight.set(walletId, flight);
    }
    return flight;
  }

  private async refreshAcrossProcesses(
    walletId: string,
    connector: Pick<Connector, 'oauth'>,
    stale: string | undefined,
  ): Promise<Entry> {
    const deadline = this.clock().getTime() + this.waitMs;
    for (;;) {
      const seen = await this.load(walletId);
      // Another process (or an earlier flight) already replaced the token that prompted this refresh.
      if (seen.grant.access_token !== stale && !this.expiring(seen.grant)) return seen;
      if (await this.lock(walletId)) {
        let handedOver = false;
        try {
          const entry = await this.refreshLocked(walletId, connector, seen);
          if (entry) return entry;
        } catch (err) {
          // A refresh past its deadline still runs and releases the lock itself when it settles.
          handedOver = err instanceof RefreshDeadlineError;
          throw err;
        } finally {
          if (!handedOver) await this.unlock(walletId);
        }
        continue;
      }
      if (this.clock().getTime() > deadline)
        throw new Error(`timed out waiting for another process to refresh wallet ${walletId}`);
      await new Promise((r) => setTimeout(r, this.pollMs));
    }
  }

  /** Under the lock. Returns undefined when the grant changed meanwhile and the caller must look again. */
  private async refreshLocked(
    walletId: string,
    connector: Pick<Connector, 'oauth'>,
    seen: Entry,
  ): Promise<Entry | undefined> {
    const current = await this.load(walletId);
    if (current.version !== seen.version) return undefined;
    let next: Grant;
    try {
      next = await this.refreshWithLock(walletId, connector, current);
    } catch (err) {
      // invalid_grant is not proof of revocation: a re-pairing, or another process that spent the rotating refresh
      // token after our lock lapsed, replaces the grant. Look at it (waiting for a lock holder to finish first).
      if (err instanceof GrantRevokedError && (await this.replacedMeanwhile(walletId, current.version)))
        return undefined;
      this.opts.log?.warn(
        { wallet_id: walletId, grant_version: current.version, err_name: (err as Error).name },
        'token refresh failed',
      );
      throw err;
    }
    return this.persist(walletId, current.version, next);
  }

  /** Stores a refreshed grant unless someone replaced the one it came from; undefined when someone did. */
  private async persist(walletId: string, version: number, next: Grant): Promise<Entry | undefined> {
    if (!(await this.wallets.swapGrant(walletId, version, this.opts.sealer.seal(next)))) return undefined;
    const entry = { version: version + 1, grant: next };
    this.cache.set(walletId, entry);
    this.opts.log?.info({ wallet_id: walletId, grant_version: entry.version }, 'provider token refreshed');
    return entry;
  }

  /**
   * The provider call, with the lock renewed while it is in flight and an overall deadline. A refresh that
   * outlives the deadline has likely spent the refresh token already: it keeps the lock (renewed for up to one
   * more deadline) until it settles, its grant is persisted when it comes, and only then is the lock released.
   */
  private async refreshWithLock(walletId: string, connector: Pick<Connector, 'oauth'>, current: Entry): Promise<Grant> {
    const call = connector.oauth.refresh(current.grant);
    const renew = setInterval(
      () => {
        this.renew(walletId).catch((err: unknown) =>
          this.opts.log?.warn({ wallet_id: walletId, err_name: (err as Error).name }, 'refresh lock renewal failed'),
        );
      },
      Math.max(10, Math.floor(this.lockMs / 3)),
    );
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      call.then(
        (grant) => ({ grant }),
        (error: unknown) => ({ error }),
      ),
      new Promise<{ late: true }>((resolve) => {
        timer = setTimeout(() => resolve({ late: true }), this.refreshDeadlineMs);
      }),
    ]);
    clearTimeout(timer);
    if ('grant' in outcome) {
      clearInterval(renew);
      return outcome.grant;
    }
    if ('error' in outcome) {
      clearInterval(renew);
      throw outcome.error;
    }
    const giveUp = setTimeout(() => clearInterval(renew), this.refreshDeadlineMs);
    void call
      .then((late) => this.persist(walletId, current.version, late))
      .catch(() => undefined)
      .finally(() => {
        clearInterval(renew);
        clearTimeout(giveUp);
        return this.unlock(walletId).catch(() => undefined);
      });
    throw new RefreshDeadlineError(this.refreshDeadlineMs);
  }

  /**
   * After invalid_grant: whether the grant was replaced since `version`. While another process holds the lock
   * (it took over after ours lapsed and may be storing what it got), wait for it, up to waitMs.
   */
  private async replacedMeanwhile(walletId: string, version: number): Promise<boolean> {
    const deadline = this.clock().getTime() + this.waitMs;
    for (;;) {
      // The lock first, then the grant: a holder stores its grant before it lets go of the lock, so a lock seen free
      // and a grant read after it cannot miss a grant stored in between (read the other way round, a grant stored
      // and the lock released between the two reads looked like a revocation).
      const holder = await this.locks.holder(walletId);
      this.cache.delete(walletId);
      if ((await this.load(walletId)).version !== version) return true;
      const othersBusy =
        holder && holder.owner !== this.owner && Date.parse(holder.expires_at) > this.clock().getTime();
      if (!othersBusy || this.clock().getTime() > deadline) return false;
      await new Promise((r) => setTimeout(r, this.pollMs));
    }
  }

  private async lock(walletId: string): Promise<boolean> {
    const now = this.clock();
    return this.locks.take(
      walletId,
      this.owner,
      new Date(now.getTime() + this.lockMs).toISOString(),
      now.toISOString(),
    );
  }

  /** Extends our lock; false when it is no longer ours. */
  private async renew(walletId: string): Promise<boolean> {
    return this.locks.renew(walletId, this.owner, new Date(this.clock().getTime() + this.lockMs).toISOString());
  }

  private async unlock(walletId: string): Promise<void> {
    await this.locks.release(walletId, this.owner);
  }
}

class RefreshDeadlineError extends Error {
  override name = 'RefreshDeadlineError';
  constructor(ms: number) {
    super(`the token refresh did not finish within ${Math.round(ms / 1000)} s`);
  }
}

function accessToken(grant: Grant): string {
  if (!grant.access_token) throw new CredentialsMissingError('the stored grant has no access token');
  return grant.access_token;
}
