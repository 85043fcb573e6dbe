import type { Selectable } from 'kysely';
import { sql } from 'kysely';
import {
  auditView,
  chainId,
  entryHash,
  GENESIS_HASH,
  verifyChain,
  type AuditView,
  type ChainBreak,
} from '../domain/audit-chain.ts';
import { invalidInput } from '../domain/errors.ts';
import { newId, nowIso } from './ids.ts';
import type { SearchTables } from './schema-search.ts';
import { atomically, type Executor } from './transaction.ts';

export type AuditRow = Selectable<SearchTables['audit_log']>;

/** Non-secret facts only: field names, ids, counts, a reason. Values whose key looks secret are dropped. */
export type AuditDetail = Record<string, string | number | boolean | null | string[]>;

export interface AuditEntry {
  accountId: string | null;
  clientId: string | null;
  /** e.g. workspace.create, collection.delete, legalhold.release, token.refresh, run.start, run.finish */
  action: string;
  targetId: string | null;
  /** The collection the entry concerns (its chain); defaults to the target when that is a collection. */
  collectionId?: string | null;
  /** success | failure for API calls; for runs the run's status (started, succeeded, failed, error, cancelled) */
  outcome: string;
  statusCode?: number | null;
  correlationId?: string | null;
  detail?: AuditDetail | null;
  at?: string;
}

const SECRET_KEY = /(secret|token|password|passcode|pwd|code|grant|authorization|cookie|key)$/i;

function cleanDetail(detail: AuditDetail | null | undefined): string | null {
  if (!detail) return null;
  const kept = Object.entries(detail).filter(([k]) => !SECRET_KEY.test(k));
  return kept.length ? JSON.stringify(Object.fromEntries(kept)) : null;
}

function encodeSeq(seq: number): string {
  return Buffer.from(`a${seq}`).toString('base64url');
}

function decodeSeq(cursor: string | undefined): number | undefined {
  if (!cursor) return undefined;
  const m = /^a(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m) throw invalidInput('cursor is not a cursor this API returned.', 'cursor');
  return Number(m[1]);
}

/** The audit log: append-only. */
export class AuditRepo {
  constructor(private readonly db: Executor) {}

  /**
   * Appends one entry. Entries are never updated or deleted by the service. Build the repository on a transaction
   * to make the entry part of the change it records (run start and finish).
   */
  async record(entry: AuditEntry): Promise<string> {
    const id = newId('aud');
    const collectionId = entry.collectionId ?? (entry.targetId?.startsWith('col_') ? entry.targetId : null);
    const chain = chainId(entry.accountId, collectionId);
    await atomically(this.db, async (trx) => {
      // The upsert locks the chain's head row (PostgreSQL) or takes the write lock (SQLite) before the head is
      // read: appends to one chain are serialised across processes, so the chain stays one line.
      const head = await trx
        .insertInto('audit_chains')
        .values({ chain_id: chain, seq: 0, hash: GENESIS_HASH })
        .onConflict((oc) => oc.column('chain_id').doUpdateSet({ seq: sql<number>`audit_chains.seq` }))
        .returning(['seq', 'hash'])
        .executeTakeFirstOrThrow();
      const row = {
        id,
        at: entry.at ?? nowIso(),
        account_id: entry.accountId,
        client_id: entry.clientId,
        collection_id: collectionId,
        action: entry.action.slice(0, 100),
        target_id: entry.targetId?.slice(0, 200) ?? null,
        outcome: entry.outcome.slice(0, 50),
        status_code: entry.statusCode ?? null,
        correlation_id: entry.correlationId ?? null,
        detail: cleanDetail(entry.detail),
        chain_id: chain,
        chain_seq: Number(head.seq) + 1,
        prev_hash: head.hash,
      };
      const hash = entryHash(auditView({ ...row, hash: null }));
      await trx
        .insertInto('audit_log')
        .values({ ...row, hash })
        .execute();
      await trx.updateTable('audit_chains').set({ seq: row.chain_seq, hash }).where('chain_id', '=', chain).execute();
    });
    return id;
  }

  /** A chain's entries, oldest first, as served. */
  async chain(chain: string): Promise<AuditView[]> {
    const rows = await this.db
      .selectFrom('audit_log')
      .selectAll()
      .where('chain_id', '=', chain)
      .orderBy('chain_seq')
      .execute();
    return rows.map(auditView);
  }

  async head(chain: string): Promise<{ seq: number; hash: string } | undefined> {
    const row = await this.db
      .selectFrom('audit_chains')
      .select(['seq', 'hash'])
      .where('chain_id', '=', chain)
      .executeTakeFirst();
    return row ? { seq: Number(row.seq), hash: row.hash } : undefined;
  }

  /**
   * Verifies the account's chains (or one collection's): links, positions and hashes, and that the heads recorded
   * elsewhere (the chain's head row, every export's signed audit head) are still there.
   */
  async verify(
    accountId: string,
    collectionId?: string,
  ): Promise<{
    valid: boolean;
    entries: number;
    head_hash: string;
    broken_at: (ChainBreak & { collection_id: string | null }) | null;
  }> {
    let chains: string[];
    if (collectionId) chains = [chainId(accountId, collectionId)];
    else {
      const fromLog = await this.db
        .selectFrom('audit_log')
        .select('chain_id')
        .distinct()
        .where('account_id', '=', accountId)
        .execute();
      const fromExports = await this.db
        .selectFrom('exports')
        .select('collection_id')
        .distinct()
        .where('account_id', '=', accountId)
        .execute();
      const fromCollections = await this.db
        .selectFrom('collections')
        .select('id')
        .where('account_id', '=', accountId)
        .execute();
      chains = [
        ...new Set([
          chainId(accountId, null),
          ...fromLog.map((r) => r.chain_id ?? ''),
          ...fromExports.map((r) => chainId(accountId, r.collection_id)),
          ...fromCollections.map((r) => chainId(accountId, r.id)),
        ]),
      ]
        .filter(Boolean)
        .sort();
    }
    let entries = 0;
    let headHash = GENESIS_HASH;
    for (const chain of chains) {
      const list = await this.chain(chain);
      entries += list.length;
      const col = chain.startsWith('collection:') ? chain.slice('collection:'.length) : null;
      const heads: Array<{ seq: number; hash: string; what: string }> = [];
      const recorded = await this.head(chain);
      if (recorded && recorded.seq > 0) heads.push({ ...recorded, what: 'the chain head record' });
      if (col) {
        const signed = await this.db
          .selectFrom('exports')
          .select(['id', 'audit_seq', 'audit_hash'])
          .where('collection_id', '=', col)
          .where('audit_seq', 'is not', null)
          .execute();
        for (const s of signed)
          heads.push({ seq: Number(s.audit_seq), hash: s.audit_hash ?? '', what: `export ${s.id}` });
      }
      if (chain === chainId(accountId, collectionId ?? null)) headHash = list[list.length - 1]?.hash ?? GENESIS_HASH;
      const broken = verifyChain(list, heads);
      if (broken) return { valid: false, entries, head_hash: headHash, broken_at: { ...broken, collection_id: col } };
    }
    return { valid: true, entries, head_hash: headHash, broken_at: null };
  }

  /** The account's entries, newest first. */
  async list(
    accountId: string,
    opts: { cursor?: string; limit: number; action?: string; target?: string },
  ): Promise<{ rows: AuditRow[]; cursor: string | null }> {
    const before = decodeSeq(opts.cursor);
    let q = this.db.selectFrom('audit_log').selectAll().where('account_id', '=', accountId);
    if (opts.action) q = q.where('action', '=', opts.action);
    if (opts.target) q = q.where('target_id', '=', opts.target);
    if (before !== undefined) q = q.where('seq', '<', before);
    const rows = await q
      .orderBy('seq', 'desc')
      .limit(opts.limit + 1)
      .execute();
    const page = rows.slice(0, opts.limit);
    const last = page[page.length - 1];
    return { rows: page, cursor: rows.length > opts.limit && last ? encodeSeq(Number(last.seq)) : null };
  }
}
