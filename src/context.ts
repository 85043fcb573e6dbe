import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { createServiceTokens, type ServiceTokens } from './auth/service-tokens.ts';
import { createBlobStore } from './blobs/index.ts';
import type { BlobStore } from './blobs/types.ts';
import type { ConnectorRegistry } from './connectors/registry.ts';
import { loadSealer, type Sealer } from './domain/seal.ts';
import { createRateLimits, type RateLimits } from './http/rate-limits.ts';
import { AccountRepo } from './store/accounts.ts';
import { CollectionRepo } from './store/collections.ts';
import { migrate, openDatabase, type Database } from './store/db.ts';
import { TokenRepo } from './store/tokens.ts';
import { WalletRepo } from './store/wallets.ts';
import { WorkspaceRepo } from './store/workspaces.ts';
import type { DeletionGuard } from './sync/deletion.ts';
import type { EngineApi } from './sync/engine-api.ts';

export interface Repos {
  accounts: AccountRepo;
  tokens: TokenRepo;
  workspaces: WorkspaceRepo;
  wallets: WalletRepo;
  collections: CollectionRepo;
}

/** Everything a request handler, a worker or the CLI needs, built once per process. */
export interface AppContext {
  config: Config;
  db: Database;
  log: Logger;
  sealer: Sealer;
  repos: Repos;
  serviceTokens: ServiceTokens;
  rateLimits: RateLimits;
  connectors: ConnectorRegistry;
  blobs: BlobStore;
  engine: EngineApi;
  /** Run before any collection is deleted; a guard refuses by throwing (legal holds). */
  deletionGuards: DeletionGuard[];
  close(): Promise<void>;
}

export interface ContextOptions {
  log: Logger;
  connectors: ConnectorRegistry;
  /** PostgreSQL schema (tests isolate themselves). */
  pgSchema?: string;
  /** An already-open database (tests); otherwise opened from config. */
  db?: Database;
  /** Skip the rate limiter store (CLI). */
  withoutRateLimits?: boolean;
  /** Builds the sync engine over the finished context. */
  engine: (ctx: Omit<AppContext, 'engine'>) => EngineApi;
}

export function repositories(db: Database): Repos {
  return {
    accounts: new AccountRepo(db),
    tokens: new TokenRepo(db),
    workspaces: new WorkspaceRepo(db),
    wallets: new WalletRepo(db),
    collections: new CollectionRepo(db),
  };
}

export async function createContext(config: Config, opts: ContextOptions): Promise<AppContext> {
  const ownDb = !opts.db;
  const db =
    opts.db ?? openDatabase({ url: config.databaseUrl, sqlitePath: path.join(config.dataDir, 'custody.db'), schema: opts.pgSchema });
  await migrate(db);
  const repos = repositories(db);
  const rateLimits = opts.withoutRateLimits
    ? { consume: async () => ({ allowed: true, limit: 0, remaining: 0, resetSeconds: 60 }), close: async () => {} }
    : await createRateLimits(config, opts.pgSchema);
  const base: Omit<AppContext, 'engine'> = {
    config,
    db,
    log: opts.log,
    sealer: loadSealer({ secretKey: config.secretKey, dataDir: config.dataDir }),
    repos,
    serviceTokens: createServiceTokens({ accounts: repos.accounts, tokens: repos.tokens, ttl: config.tokens }),
    rateLimits,
    connectors: opts.connectors,
    blobs: createBlobStore({ kind: 'fs', root: path.join(config.dataDir, 'blobs') }),
    deletionGuards: [],
    async close() {
      await rateLimits.close();
      if (ownDb) await db.destroy();
    },
  };
  return Object.assign(base, { engine: opts.engine(base) });
}
