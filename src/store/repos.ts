import type { Database } from './db.ts';
import { AccountRepo } from './accounts.ts';
import { AuditRepo } from './audit.ts';
import { BlobRefRepo } from './blob-refs.ts';
import { CollectionRepo } from './collections.ts';
import { EventRepo } from './events.ts';
import { HoldRepo } from './holds.ts';
import { CursorRepo, ItemRepo } from './items.ts';
import { PairingRepo } from './pairings.ts';
import { RunErrorRepo } from './run-errors.ts';
import { RunRepo } from './runs.ts';
import { TokenRepo } from './tokens.ts';
import { UnitRepo } from './units.ts';
import type { Executor } from './transaction.ts';
import { WalletRepo } from './wallets.ts';
import { WebhookRepo } from './webhooks.ts';
import { WorkspaceRepo } from './workspaces.ts';

/** One repository per aggregate, all built on one executor: the database, or a transaction. */
export interface Repos {
  accounts: AccountRepo;
  tokens: TokenRepo;
  pairings: PairingRepo;
  workspaces: WorkspaceRepo;
  wallets: WalletRepo;
  collections: CollectionRepo;
  runs: RunRepo;
  runErrors: RunErrorRepo;
  items: ItemRepo;
  cursors: CursorRepo;
  blobRefs: BlobRefRepo;
  events: EventRepo;
  webhooks: WebhookRepo;
  units: UnitRepo;
  holds: HoldRepo;
  audit: AuditRepo;
}

export function repositories(ex: Executor): Repos {
  return {
    accounts: new AccountRepo(ex),
    tokens: new TokenRepo(ex),
    pairings: new PairingRepo(ex),
    workspaces: new WorkspaceRepo(ex),
    wallets: new WalletRepo(ex),
    collections: new CollectionRepo(ex),
    runs: new RunRepo(ex),
    runErrors: new RunErrorRepo(ex),
    items: new ItemRepo(ex),
    cursors: new CursorRepo(ex),
    blobRefs: new BlobRefRepo(ex),
    events: new EventRepo(ex),
    webhooks: new WebhookRepo(ex),
    units: new UnitRepo(ex),
    holds: new HoldRepo(ex),
    audit: new AuditRepo(ex),
  };
}

/** Runs `fn` in one transaction with repositories bound to it; `trx` is there for the search index. */
export function withTransaction<T>(db: Database, fn: (repos: Repos, trx: Executor) => Promise<T>): Promise<T> {
  return db.transaction().execute((trx) => fn(repositories(trx), trx));
}
