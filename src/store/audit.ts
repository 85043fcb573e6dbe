import type { Selectable } from 'kysely';
import { badRequest } from '../domain/errors.ts';
import { newId, nowIso } from './ids.ts';
import type { SearchTables } from './schema-search.ts';
import type { Executor } from './transaction.ts';

export type AuditRow = Selectable<SearchTables['audit_log']>;

/** Non-secret facts only: field names, ids, counts, a reason. Values whose key looks secret are dropped. */
export type AuditDetail = Record<string, string | number | boolean | null | string[]>;

export interface AuditEntry {
  accountId: string | null;
  clientId: string | null;
  /** e.g. workspace.create, collection.delete, legalhold.release, token.refresh, run.start, run.finish */
  action: string;
  targetId: string | null;
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
  if (!m) throw badRequest('cursor is not a cursor this API returned.', '/querystring/cursor');
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
    await this.db
      .insertInto('audit_log')
      .values({
        id,
        at: entry.at ?? nowIso(),
        account_id: entry.accountId,
        client_id: entry.clientId,
        action: entry.action.slice(0, 100),
        target_id: entry.targetId?.slice(0, 200) ?? null,
        outcome: entry.outcome.slice(0, 50),
        status_code: entry.statusCode ?? null,
        correlation_id: entry.correlationId ?? null,
        detail: cleanDetail(entry.detail),
      })
      .execute();
    return id;
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
    const rows = await q.orderBy('seq', 'desc').limit(opts.limit + 1).execute();
    const page = rows.slice(0, opts.limit);
    const last = page[page.length - 1];
    return { rows: page, cursor: rows.length > opts.limit && last ? encodeSeq(Number(last.seq)) : null };
  }
}
