import type { Selectable } from 'kysely';
import type { CustodyEvent, EventData, EventType } from '../domain/events.ts';
import { nowIso } from './ids.ts';
import type { DB } from './schema.ts';
import type { Executor } from './transaction.ts';

export interface NewEvent<T extends EventType> {
  accountId: string;
  collectionId?: string | null;
  runId?: string | null;
  type: T;
  data: EventData[T];
  at?: string;
}

export type EventHeader = Pick<CustodyEvent, 'seq' | 'type' | 'accountId' | 'createdAt'>;

/** Rows per insert statement of appendMany: 6 parameters each, well under SQLite's and PostgreSQL's limits. */
const APPEND_BATCH = 500;

const eventRow = (event: NewEvent<EventType>) => ({
  account_id: event.accountId,
  collection_id: event.collectionId ?? null,
  run_id: event.runId ?? null,
  type: event.type,
  data: JSON.stringify(event.data),
  created_at: event.at ?? nowIso(),
});

/** The event outbox. Built on a Kysely executor: pass a transaction to make the event part of the change. */
export class EventRepo {
  constructor(private readonly db: Executor) {}

  async append<T extends EventType>(event: NewEvent<T>): Promise<number> {
    const row = await this.db.insertInto('events').values(eventRow(event)).returning('seq').executeTakeFirstOrThrow();
    return Number(row.seq);
  }

  /** Several events in one statement per batch, in this order. */
  async appendMany(events: NewEvent<EventType>[]): Promise<void> {
    for (let i = 0; i < events.length; i += APPEND_BATCH)
      await this.db
        .insertInto('events')
        .values(events.slice(i, i + APPEND_BATCH).map(eventRow))
        .execute();
  }

  /** A collection's events after `afterSeq`, oldest first. */
  async listForCollection(collectionId: string, afterSeq: number, limit = 500): Promise<CustodyEvent[]> {
    const rows = await this.db
      .selectFrom('events')
      .selectAll()
      .where('collection_id', '=', collectionId)
      .where('seq', '>', afterSeq)
      .orderBy('seq')
      .limit(limit)
      .execute();
    return rows.map(toEvent);
  }

  /** The seq of a run's first event in its collection's stream, if it has any. */
  async firstSeqOfRun(collectionId: string, runId: string): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('events')
      .select('seq')
      .where('collection_id', '=', collectionId)
      .where('run_id', '=', runId)
      .orderBy('seq')
      .limit(1)
      .executeTakeFirst();
    return row ? Number(row.seq) : undefined;
  }

  /** The seq of a collection's newest event (0 when it has none). */
  async latestSeq(collectionId: string): Promise<number> {
    const row = await this.db
      .selectFrom('events')
      .select('seq')
      .where('collection_id', '=', collectionId)
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? Number(row.seq) : 0;
  }

  /**
   * Every account's events after `afterSeq`, oldest first, without their data: the webhook dispatcher's feed, which
   * every worker process reads again each pass (its cursor stays behind the newest events), so it reads the data
   * (`dataOf`) only of the events it delivers.
   */
  async headersAfter(afterSeq: number, limit = 500): Promise<EventHeader[]> {
    const rows = await this.db
      .selectFrom('events')
      .select(['seq', 'type', 'account_id', 'created_at'])
      .where('seq', '>', afterSeq)
      .orderBy('seq')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      seq: Number(r.seq),
      type: r.type as EventType,
      accountId: r.account_id,
      createdAt: r.created_at,
    }));
  }

  async dataOf(seq: number): Promise<CustodyEvent['data'] | undefined> {
    const row = await this.db.selectFrom('events').select('data').where('seq', '=', seq).executeTakeFirst();
    return row ? (JSON.parse(row.data) as CustodyEvent['data']) : undefined;
  }
}

function toEvent(row: Selectable<DB['events']>): CustodyEvent {
  return {
    seq: Number(row.seq),
    accountId: row.account_id,
    collectionId: row.collection_id,
    runId: row.run_id,
    type: row.type as EventType,
    data: JSON.parse(row.data) as CustodyEvent['data'],
    createdAt: row.created_at,
  };
}
