import { AccountRepo } from '../../src/store/accounts.ts';
import { CollectionRepo } from '../../src/store/collections.ts';
import type { Database } from '../../src/store/db.ts';
import type { NewItemRow } from '../../src/store/items.ts';
import { WalletRepo } from '../../src/store/wallets.ts';
import { WorkspaceRepo } from '../../src/store/workspaces.ts';

/** A collection to hold items written straight into the store. */
export async function fixtureCollection(db: Database): Promise<{ accountId: string; collectionId: string }> {
  const accountId = await new AccountRepo(db).ensureAccount('fixture');
  const workspaceId = await new WorkspaceRepo(db).create(accountId, { name: 'ws', description: '' });
  const walletId = await new WalletRepo(db).create(accountId, {
    name: 'w',
    credential_type_name: 'Datasource',
    config_type: 'edrive',
  });
  const collectionId = await new CollectionRepo(db).create(accountId, {
    name: 'c',
    workspace_id: workspaceId,
    wallet_id: walletId,
    type: 'edrive',
  });
  return { accountId, collectionId };
}

/** An item row with every column; `over` sets what a test cares about. */
export function fixtureItem(
  ids: { accountId: string; collectionId: string },
  n: number,
  over: Partial<NewItemRow> = {},
): NewItemRow & { custodian: string | null; text: string | null } {
  const at = '2026-01-01T00:00:00.000Z';
  return {
    id: `itm_${String(n).padStart(6, '0')}`,
    collection_id: ids.collectionId,
    account_id: ids.accountId,
    kind: 'file',
    source_id: `src-${n}`,
    name: `file ${n}`,
    path: `/file ${n}`,
    size: null,
    mime_type: null,
    sha256: null,
    md5: null,
    provider_hash_type: null,
    provider_hash_value: null,
    hash_verified: null,
    created_datetime: at,
    modified_datetime: at,
    collected_datetime: at,
    deleted_at_source: null,
    tombstoned_at: null,
    content_state: 'none',
    holds_ref: 0,
    run_id: 'run_fixture',
    version: null,
    metadata: '{}',
    previous_versions: null,
    first_seen_at: at,
    updated_at: at,
    ...over,
    custodian: over.custodian === undefined ? 'alice' : over.custodian,
    text: over.text ?? null,
  };
}

export async function insertItems(db: Database, rows: NewItemRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 100)
    await db
      .insertInto('items')
      .values(rows.slice(i, i + 100))
      .execute();
}
