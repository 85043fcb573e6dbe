import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { withDbTier } from '../../src/blobs/db-tier.ts';
import { createFsBlobStore, type FsBlobStore } from '../../src/blobs/fs.ts';
import { SmallBlobRepo } from '../../src/store/small-blobs.ts';
import type { TestDatabase } from './databases.ts';
import pino from 'pino';
import type { BlobStore } from '../../src/blobs/types.ts';
import type { Connector, Grant } from '../../src/connectors/types.ts';
import { createSealer, type Sealer } from '../../src/domain/seal.ts';
import { AccountRepo } from '../../src/store/accounts.ts';
import { CollectionRepo } from '../../src/store/collections.ts';
import type { Database } from '../../src/store/db.ts';
import { WalletRepo } from '../../src/store/wallets.ts';
import { WorkspaceRepo } from '../../src/store/workspaces.ts';
import { parseUnitJobId } from '../../src/sync/jobs/registry.ts';
import { createSyncEngine, type EngineTuning, type SyncEngine } from '../../src/sync/engine.ts';
import { createDocumentReader } from '../../src/search/index.ts';
import { ProviderSessions } from '../../src/sync/providers/provider-session.ts';

export const testSealer: Sealer = createSealer('sync-test-key'.padEnd(40, 'k'));
export const silentLog = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

export interface Seeded {
  accountId: string;
  workspaceId: string;
  walletId: string;
  collectionId: string;
}

/** An account, workspace, paired wallet and a collection with saved filters (status `created`, as after a PATCH). */
export async function seedCollection(
  db: Database,
  opts: {
    type?: string;
    typeSync?: 'one' | 'auto' | 'arch';
    filters?: unknown;
    grant?: Grant | null;
    account?: string;
    sealer?: Sealer;
  } = {},
): Promise<Seeded> {
  const sealer = opts.sealer ?? testSealer;
  const type = opts.type ?? 'fake';
  const accountId = await new AccountRepo(db).ensureAccount(opts.account ?? 'acme');
  const workspaceId = await new WorkspaceRepo(db).create(accountId, { name: 'ws', description: 'd' });
  const wallets = new WalletRepo(db);
  const walletId = await wallets.create(accountId, {
    name: 'w',
    credential_type_name: 'Datasource',
    config_type: type,
  });
  const grant =
    opts.grant === undefined
      ? { access_token: 'a0', refresh_token: 'r0', expires_at: new Date(Date.now() + 3600_000).toISOString() }
      : opts.grant;
  if (grant) await wallets.setGrant(walletId, sealer.seal(grant));
  const collections = new CollectionRepo(db);
  const collectionId = await collections.create(accountId, {
    name: 'c',
    workspace_id: workspaceId,
    wallet_id: walletId,
    type,
  });
  await collections.update(collectionId, {
    sync_filters: JSON.stringify(opts.filters ?? { everything: true }),
    filters_updated_at: new Date().toISOString(),
    type_sync: opts.typeSync ?? 'one',
  });
  return { accountId, workspaceId, walletId, collectionId };
}

export function engineFor(
  db: Database,
  blobs: BlobStore,
  connectors: Connector[],
  extra: {
    tuning?: EngineTuning;
    isHeld?: (id: string) => Promise<boolean>;
    clock?: () => Date;
    workers?: 'inline' | 'none';
    intervalMinutes?: number;
    unitStallSeconds?: number;
  } = {},
): SyncEngine {
  const byType = new Map(connectors.map((c) => [c.type, c]));
  return createSyncEngine({
    db,
    sessions: new ProviderSessions({ db, sealer: testSealer, log: silentLog, clock: extra.clock }),
    blobs,
    documents: createDocumentReader(),
    connectors: { get: (t) => byType.get(t) },
    config: {
      sync: {
        intervalMinutes: extra.intervalMinutes ?? 30,
        workers: extra.workers ?? 'inline',
        concurrency: 2,
        ...(extra.unitStallSeconds !== undefined && { unitStallSeconds: extra.unitStallSeconds }),
      },
    },
    log: silentLog,
    clock: extra.clock,
    isHeld: extra.isHeld,
    tuning: { leaseMs: 2000, pollMs: 50, ...extra.tuning },
  });
}

/** Starts the collection and executes its run in this process; returns the outcome. */
export async function syncOnce(engine: SyncEngine, collectionId: string) {
  const { runId } = await engine.start(collectionId);
  const outcome = await engine.runOnce(runId);
  if (outcome.status !== 'fanned_out') return { runId, outcome };
  await runUnits(engine, runId);
  const run = await engine.latestRun(collectionId);
  return { runId, outcome: { status: run?.status ?? 'not_claimed', error: null } };
}

/** A run split into unit jobs: executes them here, one after the other, until the last one ends the run. */
export async function runUnits(engine: SyncEngine, runId: string): Promise<void> {
  for (;;) {
    const units = (await engine.claimableRunIds(1000)).map(parseUnitJobId).filter((u) => u?.run_id === runId);
    if (units.length === 0) return;
    for (const u of units) await engine.runUnit(runId, u!.unit_key);
  }
}

/**
 * A migrated database and a fresh blob store for the enclosing describe block, opened before its tests and closed
 * after them. `use` receives them (assign them to the block's variables); `dir` is the blob store's root. The store
 * is the service's default: content up to BLOB_DB_MAX_BYTES's default (16 KiB) kept in the database, the rest as
 * files. `files: true`: every blob a file (tests of the file layer itself).
 */
export function useSyncStore(
  database: TestDatabase,
  use: (store: { db: Database; blobs: FsBlobStore; dir: string }) => void,
  opts: { files?: boolean } = {},
): void {
  let close: () => Promise<void>;
  let dir: string;
  beforeAll(async () => {
    const opened = await database.open();
    close = opened.close;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-sync-'));
    const files = createFsBlobStore({ root: dir });
    // the tiered store keeps its identity (the engine finds the tier by it); where a file would live is the file layer's
    const blobs = opts.files
      ? files
      : Object.assign(withDbTier(files, new SmallBlobRepo(opened.db), 16_384), {
          root: files.root,
          pathFor: (sha256: string) => files.pathFor(sha256),
        });
    use({ db: opened.db, blobs: blobs as FsBlobStore, dir });
  });
  afterAll(async () => {
    await close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
}
