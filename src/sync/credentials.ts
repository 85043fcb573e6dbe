import crypto from 'node:crypto';
import os from 'node:os';
import { GrantRevokedError, type Connector, type Grant, type Logger } from '../connectors/types.ts';
import type { Sealer } from '../domain/seal.ts';
import type { Database } from '../store/db.ts';
import { WalletRepo } from '../store/wallets.ts';
import type { ProviderAuth } from './provider-http.ts';

export interface CredentialManagerOptions {
  db: Database;
  sealer: Sealer;
  log?: Logger;
  clock?: () => Date;
  /** Refresh this long before `expires_at`. Default 60 s. */
  skewMs?: number;
  /** How long a refresh may hold the cross-process lock before others may take over. Default 30 s. */
  lockMs?: number;
  /** How often a process waiting for another one's refresh looks again. Default 100 ms. */
  pollMs?: number;
  /** Give up waiting for a refresh after this long. Default 60 s. */
  waitMs?: number;
}

interface Entry {
  version: number;
  grant: Grant;
}

export class CredentialsMissingError extends Error {
  override name = 'CredentialsMissingError';
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
  private readonly cache = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<Entry>>();
  private readonly clock: () => Date;
  private readonly skewMs: number;
  private readonly lockMs: number;
  private readonly pollMs: number;
  private readonly waitMs: number;
  private readonly owner = `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString('hex')}`;

  constructor(private readonly opts: CredentialManagerOptions) {
    this.wallets = new WalletRepo(opts.db);
    this.clock = opts.clock ?? (() => new Date());
    this.skewMs = opts.skewMs ?? 60_000;
    this.lockMs = opts.lockMs ?? 30_000;
    this.pollMs = opts.pollMs ?? 100;
    this.waitMs = opts.waitMs ?? 60_000;
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
    };
  }

  async grantInfo(walletId: string): Promise<Record<string, unknown>> {
    return grantInfoOf((this.cache.get(walletId) ?? (await this.load(walletId))).grant);
  }

  /** Forgets cached grants (after a re-pairing in this process). */
  forget(walletId: string): void {
    this.cache.delete(walletId);
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
    return entry;
  }

  private refreshOnce(walletId: string, connector: Pick<Connector, 'oauth'>, stale: string | undefined): Promise<Entry> {
    let flight = this.inflight.get(walletId);
    if (!flight) {
      flight = this.refreshAcrossProcesses(walletId, connector, stale).finally(() => this.inflight.delete(walletId));
      this.inflight.set(walletId, flight);
    }
    return flight;
  }

  private async refreshAcrossProcesses(walletId: string, connector: Pick<Connector, 'oauth'>, stale: string | undefined): Promise<Entry> {
    const deadline = this.clock().getTime() + this.waitMs;
    for (;;) {
      const seen = await this.load(walletId);
      // Another process (or an earlier flight) already replaced the token that prompted this refresh.
      if (seen.grant.access_token !== stale && !this.expiring(seen.grant)) return seen;
      if (await this.lock(walletId)) {
        try {
          const entry = await this.refreshLocked(walletId, connector, seen);
          if (entry) return entry;
        } finally {
          await this.unlock(walletId);
        }
        continue;
      }
      if (this.clock().getTime() > deadline) throw new Error(`timed out waiting for another process to refresh wallet ${walletId}`);
      await new Promise((r) => setTimeout(r, this.pollMs));
    }
  }

  /** Under the lock. Returns undefined when the grant changed meanwhile and the caller must look again. */
  private async refreshLocked(walletId: string, connector: Pick<Connector, 'oauth'>, seen: Entry): Promise<Entry | undefined> {
    const current = await this.load(walletId);
    if (current.version !== seen.version) return undefined;
    let next: Grant;
    try {
      next = await connector.oauth.refresh(current.grant);
    } catch (err) {
      // A re-pairing that landed while we asked the provider makes the refusal irrelevant.
      if (err instanceof GrantRevokedError && (await this.load(walletId)).version !== current.version) return undefined;
      this.opts.log?.warn({ wallet_id: walletId, grant_version: current.version, err_name: (err as Error).name }, 'token refresh failed');
      throw err;
    }
    if (!(await this.wallets.swapGrant(walletId, current.version, this.opts.sealer.seal(next)))) return undefined;
    const entry = { version: current.version + 1, grant: next };
    this.cache.set(walletId, entry);
    this.opts.log?.info({ wallet_id: walletId, grant_version: entry.version }, 'provider token refreshed');
    return entry;
  }

  private async lock(walletId: string): Promise<boolean> {
    const now = this.clock();
    const expires = new Date(now.getTime() + this.lockMs).toISOString();
    const { db } = this.opts;
    const inserted = await db
      .insertInto('credential_refresh_locks')
      .values({ wallet_id: walletId, owner: this.owner, expires_at: expires })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return true;
    // Take over a lock whose holder died mid-refresh.
    const taken = await db
      .updateTable('credential_refresh_locks')
      .set({ owner: this.owner, expires_at: expires })
      .where('wallet_id', '=', walletId)
      .where('expires_at', '<', now.toISOString())
      .executeTakeFirst();
    return Number(taken.numUpdatedRows) === 1;
  }

  private async unlock(walletId: string): Promise<void> {
    await this.opts.db.deleteFrom('credential_refresh_locks').where('wallet_id', '=', walletId).where('owner', '=', this.owner).execute();
  }
}

function accessToken(grant: Grant): string {
  if (!grant.access_token) throw new CredentialsMissingError('the stored grant has no access token');
  return grant.access_token;
}
