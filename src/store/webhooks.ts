import type { Selectable } from 'kysely';
import type { Database } from './db.ts';
import { newId } from './ids.ts';
import type { DB } from './schema.ts';

export type EndpointRow = Selectable<DB['webhook_endpoints']>;
export type DeliveryRow = Selectable<DB['webhook_deliveries']>;

const CURSOR = 'dispatcher';

/** Webhook endpoints, their deliveries and the fan-out cursor. Times are ISO strings passed in (the dispatcher's clock). */
export class WebhookRepo {
  constructor(private readonly db: Database) {}

  async createEndpoint(
    accountId: string,
    input: { url: string; events: string[]; sealedSecret: string; at: string },
  ): Promise<EndpointRow> {
    const row: EndpointRow = {
      id: newId('whe'),
      account_id: accountId,
      url: input.url,
      events: JSON.stringify(input.events),
      sealed_secret: input.sealedSecret,
      created_at: input.at,
      deleted_at: null,
    };
    await this.db.insertInto('webhook_endpoints').values(row).execute();
    return row;
  }

  async listEndpoints(
    accountId: string,
    page: { cursor?: string; limit: number },
  ): Promise<{ rows: EndpointRow[]; cursor: string | null }> {
    let q = this.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('deleted_at', 'is', null);
    if (page.cursor) q = q.where('id', '>', page.cursor);
    const rows = await q
      .orderBy('id')
      .limit(page.limit + 1)
      .execute();
    const more = rows.length > page.limit;
    return { rows: rows.slice(0, page.limit), cursor: more ? rows[page.limit - 1].id : null };
  }

  getEndpoint(accountId: string, id: string): Promise<EndpointRow | undefined> {
    return this.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  }

  getEndpointById(id: string): Promise<EndpointRow | undefined> {
    return this.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async deleteEndpoint(accountId: string, id: string, at: string): Promise<boolean> {
    const res = await this.db
      .updateTable('webhook_endpoints')
      .set({ deleted_at: at })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** The account's live endpoints that existed when the event happened. */
  liveEndpoints(accountId: string, createdBefore: string): Promise<EndpointRow[]> {
    return this.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('deleted_at', 'is', null)
      .where('created_at', '<=', createdBefore)
      .execute();
  }

  async cursor(): Promise<number> {
    const row = await this.db.selectFrom('webhook_cursor').select('seq').where('name', '=', CURSOR).executeTakeFirst();
    return row ? Number(row.seq) : 0;
  }

  /** Moves the cursor forward only (several dispatchers may race; the larger value wins). */
  async advanceCursor(seq: number): Promise<void> {
    await this.db
      .insertInto('webhook_cursor')
      .values({ name: CURSOR, seq })
      .onConflict((oc) => oc.column('name').doUpdateSet({ seq }).where('webhook_cursor.seq', '<', seq))
      .execute();
  }

  /** One delivery per (endpoint, event): a second insert of the same pair is a no-op. */
  async enqueue(input: {
    endpointId: string;
    eventSeq: number;
    eventType: string;
    body: string;
    at: string;
  }): Promise<void> {
    await this.db
      .insertInto('webhook_deliveries')
      .values({
        id: newId('dlv'),
        endpoint_id: input.endpointId,
        event_seq: input.eventSeq,
        event_type: input.eventType,
        body: input.body,
        status: 'pending',
        attempts: 0,
        next_attempt_at: input.at,
        lease_until: null,
        last_status_code: null,
        last_error: null,
        created_at: input.at,
        updated_at: input.at,
        delivered_at: null,
      })
      .onConflict((oc) => oc.columns(['endpoint_id', 'event_seq']).doNothing())
      .execute();
  }

  /** Claims up to `limit` due deliveries with a lease: a row is sent by one process at a time. */
  async claimDue(now: string, leaseUntil: string, limit: number): Promise<DeliveryRow[]> {
    const due = await this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .orderBy('next_attempt_at')
      .limit(limit)
      .execute();
    const claimed: DeliveryRow[] = [];
    for (const row of due) {
      const res = await this.db
        .updateTable('webhook_deliveries')
        .set({ lease_until: leaseUntil })
        .where('id', '=', row.id)
        .where('status', '=', 'pending')
        .where((eb) =>
          row.lease_until === null ? eb('lease_until', 'is', null) : eb('lease_until', '=', row.lease_until),
        )
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) === 1) claimed.push({ ...row, lease_until: leaseUntil });
    }
    return claimed;
  }

  /** Records an attempt: `next` null = done (succeeded or given up), else pending again at `next`. */
  async recordAttempt(
    row: DeliveryRow,
    outcome: {
      status: 'succeeded' | 'failed' | 'pending';
      statusCode: number | null;
      error: string | null;
      at: string;
      next: string | null;
    },
  ): Promise<void> {
    await this.db
      .updateTable('webhook_deliveries')
      .set({
        status: outcome.status,
        attempts: row.attempts + 1,
        last_status_code: outcome.statusCode,
        last_error: outcome.error,
        updated_at: outcome.at,
        lease_until: null,
        next_attempt_at: outcome.next ?? row.next_attempt_at,
        delivered_at: outcome.status === 'succeeded' ? outcome.at : null,
      })
      .where('id', '=', row.id)
      .where('lease_until', '=', row.lease_until)
      .execute();
  }

  /** Oldest event first; the cursor is the last event's seq. */
  async listDeliveries(
    endpointId: string,
    page: { cursor?: string; limit: number },
  ): Promise<{ rows: DeliveryRow[]; cursor: string | null }> {
    let q = this.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId);
    if (page.cursor && /^\d+$/.test(page.cursor)) q = q.where('event_seq', '>', Number(page.cursor));
    const rows = await q
      .orderBy('event_seq')
      .limit(page.limit + 1)
      .execute();
    const more = rows.length > page.limit;
    return { rows: rows.slice(0, page.limit), cursor: more ? String(rows[page.limit - 1].event_seq) : null };
  }
}
