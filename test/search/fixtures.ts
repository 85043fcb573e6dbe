import crypto from 'node:crypto';
import type { Database } from '../../src/store/db.ts';
import { indexItem } from '../../src/search/index.ts';

/**
 * Writes accounts, workspaces, collections and items straight into the database, and indexes each item in the
 * same transaction as the item, the way the sync engine does. Used until (and beside) the engine's own tests.
 */
export interface ItemSpec {
  kind: string;
  name: string;
  path?: string;
  custodian?: string | null;
  /** the custodian's e-mail as collected (null: none) */
  custodianEmail?: string | null;
  text?: string | null;
  content?: string | null;
  metadata?: Record<string, unknown>;
  modified?: string | null;
  created?: string | null;
  tombstoned?: boolean;
}

const id = (p: string) => `${p}_${crypto.randomBytes(12).toString('hex')}`;
const now = () => new Date().toISOString();

export async function seedAccount(
  db: Database,
  name = `acct-${crypto.randomBytes(4).toString('hex')}`,
): Promise<string> {
  const accountId = id('acc');
  await db.insertInto('accounts').values({ id: accountId, name, created_at: now() }).execute();
  return accountId;
}

export async function seedWorkspace(db: Database, accountId: string): Promise<string> {
  const wsId = id('ws');
  await db
    .insertInto('workspaces')
    .values({ id: wsId, account_id: accountId, name: 'ws', description: '', created_at: now(), updated_at: now() })
    .execute();
  return wsId;
}

export async function seedCollection(
  db: Database,
  accountId: string,
  workspaceId: string,
  type = 'conf',
): Promise<string> {
  const walletId = id('wal');
  await db
    .insertInto('wallets')
    .values({
      id: walletId,
      account_id: accountId,
      name: 'w',
      credential_type_name: 'Datasource',
      config_type: type,
      sealed_grant: null,
      paired_at: null,
      created_at: now(),
    })
    .execute();
  const colId = id('col');
  await db
    .insertInto('collections')
    .values({
      id: colId,
      account_id: accountId,
      workspace_id: workspaceId,
      wallet_id: walletId,
      name: 'c',
      type,
      sync_status: 'synced',
      status_reason: null,
      type_sync: 'one',
      sync_filters: null,
      filters_updated_at: null,
      next_sync_at: null,
      created_at: now(),
      updated_at: now(),
    })
    .execute();
  return colId;
}

/** A new account with one workspace holding one collection of `type`. */
export async function seedAccountCollection(db: Database, type = 'conf'): Promise<{ acc: string; col: string }> {
  const acc = await seedAccount(db);
  return { acc, col: await seedCollection(db, acc, await seedWorkspace(db, acc), type) };
}

export async function seedItem(db: Database, accountId: string, collectionId: string, spec: ItemSpec): Promise<string> {
  const itemId = id('itm');
  const at = now();
  const row = {
    id: itemId,
    collection_id: collectionId,
    account_id: accountId,
    kind: spec.kind,
    source_id: id('src'),
    name: spec.name,
    path: spec.path ?? `/${spec.name}`,
    custodian: spec.custodian === undefined ? 'alice@example.com' : spec.custodian,
    custodian_email: spec.custodianEmail ?? null,
    size: spec.content ? Buffer.byteLength(spec.content) : null,
    mime_type: null,
    sha256: null,
    md5: null,
    provider_hash_type: null,
    provider_hash_value: null,
    hash_verified: null,
    created_datetime: spec.created ?? null,
    modified_datetime: spec.modified ?? null,
    collected_datetime: at,
    deleted_at_source: spec.tombstoned ? at : null,
    tombstoned_at: spec.tombstoned ? at : null,
    content_state: spec.content ? 'stored' : 'none',
    holds_ref: 0,
    run_id: 'run_fixture',
    version: null,
    metadata: JSON.stringify(spec.metadata ?? {}),
    text: spec.text ?? null,
    previous_versions: null,
    first_seen_at: at,
    updated_at: at,
  };
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('items').values(row).execute();
    await indexItem(trx, row, spec.content ?? null);
  });
  return itemId;
}
