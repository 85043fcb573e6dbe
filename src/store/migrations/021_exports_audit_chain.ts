import type { Kysely } from 'kysely';
import { auditView, chainId, entryHash, GENESIS_HASH, type AuditColumns } from '../../domain/audit-chain.ts';

/**
 * Issue 24. The audit log becomes a set of hash chains (one per collection, one per account): `chain_id`,
 * `chain_seq` (position from 1), `prev_hash`, `hash`; `audit_chains` holds each chain's head and is the row an
 * append locks, so that appends to one chain are serialised across processes. `exports`: production packages,
 * run as jobs. `signing_keys`: the installation's Ed25519 keys (private halves sealed).
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const col of ['chain_id', 'prev_hash', 'hash', 'collection_id'])
    await db.schema.alterTable('audit_log').addColumn(col, 'text').execute();
  await db.schema.alterTable('audit_log').addColumn('chain_seq', 'integer').execute();
  await db.schema
    .createTable('audit_chains')
    .addColumn('chain_id', 'text', (c) => c.primaryKey())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .execute();
  // Entries written before this upgrade are chained in the order they were written.
  const heads = new Map<string, { seq: number; hash: string }>();
  for (let after = 0; ;) {
    const rows = (await db
      .selectFrom('audit_log')
      .selectAll()
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(500)
      .execute()) as Array<AuditColumns & { seq: number }>;
    if (rows.length === 0) break;
    for (const r of rows) {
      after = Number(r.seq);
      const collectionId = typeof r.target_id === 'string' && r.target_id.startsWith('col_') ? r.target_id : null;
      const chain = chainId(r.account_id, collectionId);
      const head = heads.get(chain) ?? { seq: 0, hash: GENESIS_HASH };
      const view = auditView({
        ...r,
        collection_id: collectionId,
        chain_seq: head.seq + 1,
        prev_hash: head.hash,
        hash: '',
      });
      const hash = entryHash(view);
      await db
        .updateTable('audit_log')
        .set({ chain_id: chain, chain_seq: head.seq + 1, prev_hash: head.hash, hash, collection_id: collectionId })
        .where('seq', '=', r.seq)
        .execute();
      heads.set(chain, { seq: head.seq + 1, hash });
    }
  }
  for (const [chain, head] of heads)
    await db.insertInto('audit_chains').values({ chain_id: chain, seq: head.seq, hash: head.hash }).execute();
  await db.schema.createIndex('audit_log_chain').unique().on('audit_log').columns(['chain_id', 'chain_seq']).execute();

  await db.schema
    .createTable('exports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('collection_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('options', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'text')
    .addColumn('attempt', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('counts', 'text')
    .addColumn('bytes', 'bigint')
    .addColumn('sha256', 'text')
    .addColumn('error', 'text')
    .addColumn('audit_seq', 'integer')
    .addColumn('audit_hash', 'text')
    .execute();
  await db.schema.createIndex('exports_collection').on('exports').columns(['collection_id', 'created_at']).execute();
  await db.schema.createIndex('exports_status').on('exports').columns(['status']).execute();

  await db.schema
    .createTable('signing_keys')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    .addColumn('public_jwk', 'text', (c) => c.notNull())
    .addColumn('private_sealed', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('retired_at', 'text')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['signing_keys', 'exports', 'audit_chains']) await db.schema.dropTable(t).execute();
  await db.schema.dropIndex('audit_log_chain').execute();
  for (const col of ['chain_id', 'chain_seq', 'prev_hash', 'hash', 'collection_id'])
    await db.schema.alterTable('audit_log').dropColumn(col).execute();
}
