import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { createServiceTokens, type ServiceTokens } from './auth/service-tokens.ts';
import { createBlobStore } from './blobs/index.ts';
import { withDbTier } from './blobs/db-tier.ts';
import type { BlobStore } from './blobs/types.ts';
import type { ConnectorRegistry } from './connectors/registry.ts';
import { loadSealer, type Sealer } from './domain/seal.ts';
import { SigningKeys } from './export/keys.ts';
import { createRateLimits, type RateLimits } from './http/rate-limits.ts';
import { openSharedConnections, type SharedConnections } from './store/shared-connections.ts';
import { migrate, openDatabase, type Database } from './store/db.ts';
import type { Metrics } from './metrics.ts';
import { repositories, type Repos } from './store/repos.ts';
import { SmallBlobRepo } from './store/small-blobs.ts';
import type { DeletionGuard } from './sync/deletion/deletion.ts';
import type { EngineApi } from './sync/engine-api.ts';
import type { ProviderSessions } from './sync/providers/provider-session.ts';
import { createReadSide, type ReadSide } from './read/index.ts';
import { createServices, type Services } from './services/index.ts';

/** Everything a request handler, a worker or the CLI needs, built once per process. */
export interface AppContext {
  config: Config;
  db: Database;
  log: Logger;
  sealer: Sealer;
  metrics: Metrics;
  repos: Repos;
  serviceTokens: ServiceTokens;
  rateLimits: RateLimits;
  /** The one Redis client or PostgreSQL pool that the rate limits and the provider budgets share. */
  connections: SharedConnections;
  connectors: ConnectorRegistry;
  blobs: BlobStore;
  engine: EngineApi;
  /** The process's one provider session factory: discovery and sync runs share budgets and token refreshes. */
  providers: ProviderSessions;
  /** Run before any collection is deleted; a guard refuses by throwing (legal holds). */
  deletionGuards: DeletionGuard[];
  /** The installation's Ed25519 keys that sign export manifests (created at first start). */
  signingKeys: SigningKeys;
  /** What the routes answer reads from (src/read/). */
  reads: ReadSide;
  /** What the routes write through (src/services/): one call per request. */
  services: Services;
  close(): Promise<void>;
}

/** The context the composition root builds the engine and provider sessions over. */
export type BaseContext = Omit<AppContext, 'engine' | 'providers' | 'reads' | 'services'>;

export interface ContextOptions {
  metrics: Metrics;
  log: Logger;
  connectors: ConnectorRegistry;
  /** PostgreSQL schema (tests isolate themselves). */
  pgSchema?: string;
  /** An already-open database (tests); otherwise opened from config. */
  db?: Database;
  /** Skip the rate limiter store (CLI). */
  withoutRateLimits?: boolean;
  /** Builds the provider sessions and the sync engine over the finished context (the composition root does). */
  services: (ctx: BaseContext) => Pick<AppContext, 'engine' | 'providers'>;
}

/**
 * DATA_DIR holds the database, the blobs and the key file: one that already exists open to other local users (made
 * by hand, say) is narrowed to its owner, as the folders the service creates are (0700).
 */
function narrowDataDir(dir: string, log: Logger): void {
  let mode: number;
  try {
    mode = fs.statSync(dir).mode;
  } catch {
    return; // not there yet: created 0700 when first needed
  }
  if ((mode & 0o077) === 0) return;
  try {
    fs.chmodSync(dir, 0o700);
  } catch (err) {
    log.warn(
      { data_dir: dir, mode: (mode & 0o777).toString(8), err: (err as Error).message },
      'DATA_DIR is readable by other local users and could not be narrowed to 0700',
    );
  }
}

export async function createContext(config: Config, opts: ContextOptions): Promise<AppContext> {
  narrowDataDir(config.dataDir, opts.log);
  const ownDb = !opts.db;
  const db =
    opts.db ??
    openDatabase({
      url: config.databaseUrl,
      sqlitePath: path.join(config.dataDir, 'custody.db'),
      schema: opts.pgSchema,
      poolSize: config.databasePoolSize,
      preparedStatements: config.databasePreparedStatements,
    });
  await migrate(db, { schema: opts.pgSchema });
  const repos = repositories(db);
  const connections = openSharedConnections({
    redisUrl: config.redisUrl,
    databaseUrl: config.databaseUrl,
    pgSchema: opts.pgSchema,
    poolSize: Math.min(8, config.databasePoolSize),
    preparedStatements: config.databasePreparedStatements,
  });
  const rateLimits = opts.withoutRateLimits
    ? { consume: async () => ({ allowed: true, limit: 0, remaining: 0, resetSeconds: 60 }), close: async () => {} }
    : await createRateLimits(config, connections);
  const sealer = loadSealer({ secretKey: config.secretKey, dataDir: config.dataDir });
  const signingKeys = new SigningKeys(db, sealer);
  await signingKeys.active();
  const base: BaseContext = {
    config,
    db,
    log: opts.log,
    sealer,
    signingKeys,
    metrics: opts.metrics,
    repos,
    serviceTokens: createServiceTokens({ accounts: repos.accounts, tokens: repos.tokens, ttl: config.tokens }),
    rateLimits,
    connections,
    connectors: opts.connectors,
    blobs: blobStoreOf(config, db),
    deletionGuards: [],
    async close() {
      await rateLimits.close();
      await connections.close();
      if (ownDb) await db.destroy();
    },
  };
  const withEngine = Object.assign(base, opts.services(base));
  const reads = createReadSide(withEngine);
  return Object.assign(withEngine, { reads, services: createServices(withEngine, reads) });
}

/** The configured store, with content up to BLOB_DB_MAX_BYTES kept in the database (blobs/db-tier.ts). */
function blobStoreOf(config: Config, db: Database): BlobStore {
  const base = createBlobStore(
    config.blobStore.kind === 's3' ? config.blobStore : { kind: 'fs', root: path.join(config.dataDir, 'blobs') },
  );
  return config.blobDbMaxBytes > 0 ? withDbTier(base, new SmallBlobRepo(db), config.blobDbMaxBytes) : base;
}
