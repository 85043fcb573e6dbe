import crypto from 'node:crypto';
import canonicalize from 'canonicalize';

/** The previous hash of a chain's first entry. */
export const GENESIS_HASH = '0'.repeat(64);

/** The stored columns an entry's served form is made of. */
export interface AuditColumns {
  id: string;
  at: string;
  account_id: string | null;
  client_id: string | null;
  collection_id: string | null;
  action: string;
  target_id: string | null;
  outcome: string;
  status_code: number | null;
  correlation_id: string | null;
  detail: string | null;
  chain_seq: number | null;
  prev_hash: string | null;
  hash: string | null;
}

/** An entry as `GET /v1/audit` serves it; `hash` is over everything else (issue 24). */
export function auditView(r: AuditColumns) {
  return {
    id: r.id,
    datetime: r.at,
    account_id: r.account_id ?? '',
    client_id: r.client_id,
    collection_id: r.collection_id,
    action: r.action,
    target_id: r.target_id,
    outcome: r.outcome,
    status_code: r.status_code === null ? null : Number(r.status_code),
    correlation_id: r.correlation_id,
    detail: r.detail ? (JSON.parse(r.detail) as Record<string, unknown>) : null,
    seq: r.chain_seq === null ? 0 : Number(r.chain_seq),
    prev_hash: r.prev_hash ?? '',
    hash: r.hash ?? '',
  };
}

export type AuditView = ReturnType<typeof auditView>;

/** Lowercase hex SHA-256 of the RFC 8785 canonical JSON of the served entry without `hash`. */
export function entryHash(view: Omit<AuditView, 'hash'> & { hash?: string }): string {
  const { hash: _omit, ...rest } = view;
  const text = canonicalize(rest);
  if (text === undefined) throw new TypeError('audit entry cannot be canonicalised');
  return crypto.createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The chain an entry belongs to: its collection's when it concerns one, else its account's. */
export function chainId(accountId: string | null, collectionId: string | null): string {
  return collectionId ? `collection:${collectionId}` : `account:${accountId ?? ''}`;
}

export interface ChainBreak {
  seq: number;
  id: string | null;
  reason: string;
}

/**
 * Checks a chain given oldest first: positions 1..n without gaps, each `prev_hash` the previous `hash`, each `hash`
 * recomputed from the entry. `head`: a head known from elsewhere (a signed export, the chain's head row) that the
 * chain must still contain, so that deleting the newest entries is detected too.
 */
export function verifyChain(
  entries: AuditView[],
  heads: Array<{ seq: number; hash: string; what: string }> = [],
): ChainBreak | null {
  let prev = GENESIS_HASH;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (e.seq !== i + 1)
      return { seq: i + 1, id: e.id, reason: `entry ${i + 1} is missing or out of order (found seq ${e.seq})` };
    if (e.prev_hash !== prev)
      return { seq: e.seq, id: e.id, reason: `entry ${e.seq} does not follow the previous entry (prev_hash differs)` };
    if (entryHash(e) !== e.hash)
      return { seq: e.seq, id: e.id, reason: `entry ${e.seq} was altered (its hash does not match its content)` };
    prev = e.hash;
  }
  for (const h of heads) {
    const at = entries[h.seq - 1];
    if (!at)
      return { seq: h.seq, id: null, reason: `entry ${h.seq} named by ${h.what} is missing (newest entries deleted)` };
    if (at.hash !== h.hash)
      return { seq: h.seq, id: at.id, reason: `entry ${h.seq} differs from the one ${h.what} names` };
  }
  return null;
}
