import type { Logger } from 'pino';
import type { Sealer } from '../domain/seal.ts';
import {
  DEFAULT_DELIVERY_BACKOFF,
  nextAttemptDelay,
  SIGNATURE_HEADER,
  signatureHeader,
  WEBHOOK_EVENT_TYPES,
  type DeliveryBackoff,
} from '../domain/webhooks.ts';
import type { EventRepo } from '../store/events.ts';
import type { DeliveryRow, WebhookRepo } from '../store/webhooks.ts';
import type { WebhookSender } from './send.ts';

export interface DispatcherDeps {
  webhooks: WebhookRepo;
  events: EventRepo;
  sealer: Sealer;
  sender: WebhookSender;
  log: Logger;
  /** ms since the epoch */
  now?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  policy?: DeliveryBackoff;
  pollMs?: number;
  /**
   * Outbox rows get their seq before their transaction commits, so a lower seq can appear after a higher one was
   * read. The cursor stays this far behind; events inside the window are re-read (enqueueing is idempotent).
   */
  settleMs?: number;
  leaseMs?: number;
  batch?: number;
}

const SUBSCRIBABLE = new Set<string>(WEBHOOK_EVENT_TYPES);

/**
 * Reads the event outbox and delivers each subscribed event to each of the account's endpoints, signed, with
 * retries. Runs in worker processes, any number of them: deliveries are unique per (endpoint, event) and each
 * attempt is made under a lease. It never touches a run: a slow or failing receiver only delays its own deliveries.
 */
export function createDispatcher(deps: DispatcherDeps) {
  const now = deps.now ?? Date.now;
  const policy = deps.policy ?? DEFAULT_DELIVERY_BACKOFF;
  const settleMs = deps.settleMs ?? 30_000;
  const leaseMs = deps.leaseMs ?? 60_000;
  const batch = deps.batch ?? 50;
  const sleep =
    deps.sleep ??
    ((ms, signal) =>
      new Promise<void>((resolve) => {
        // The stop signal lives as long as the dispatcher: each pass's listener goes when its wait ends.
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        signal.addEventListener('abort', done, { once: true });
      }));
  const iso = (ms: number) => new Date(ms).toISOString();

  async function fanOut(): Promise<void> {
    const from = await deps.webhooks.cursor();
    const events = await deps.events.headersAfter(from, 500);
    const settledBefore = iso(now() - settleMs);
    let settled = from;
    let settling = true;
    for (const event of events) {
      if (SUBSCRIBABLE.has(event.type)) {
        let data: unknown;
        for (const endpoint of await deps.webhooks.liveEndpoints(event.accountId, event.createdAt)) {
          if (!(JSON.parse(endpoint.events) as string[]).includes(event.type)) continue;
          data ??= await deps.events.dataOf(event.seq);
          const body = JSON.stringify({
            id: `evt_${event.seq}`,
            type: event.type,
            created: event.createdAt,
            data,
          });
          await deps.webhooks.enqueue({
            endpointId: endpoint.id,
            eventSeq: event.seq,
            eventType: event.type,
            body,
            at: iso(now()),
          });
        }
      }
      if (settling && event.createdAt < settledBefore) settled = event.seq;
      else settling = false;
    }
    if (settled > from) await deps.webhooks.advanceCursor(settled);
  }

  async function attempt(row: DeliveryRow): Promise<void> {
    const endpoint = await deps.webhooks.getEndpointById(row.endpoint_id);
    const at = now();
    if (!endpoint || endpoint.deleted_at) {
      return deps.webhooks.recordAttempt(row, {
        status: 'failed',
        statusCode: null,
        error: 'the endpoint was deleted',
        at: iso(at),
        next: null,
      });
    }
    const secret = deps.sealer.open<string>(endpoint.sealed_secret);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'Custody-Webhooks/1',
      [SIGNATURE_HEADER]: signatureHeader(secret, Math.floor(at / 1000), row.body),
    };
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      statusCode = await deps.sender.post(endpoint.url, headers, row.body);
      if (statusCode < 200 || statusCode >= 300) error = `the receiver answered ${statusCode}`;
    } catch (err) {
      error = (err as Error).message || String(err);
    }
    const done = now();
    if (!error)
      return deps.webhooks.recordAttempt(row, {
        status: 'succeeded',
        statusCode,
        error: null,
        at: iso(done),
        next: null,
      });
    const delay = nextAttemptDelay(policy, row.attempts + 1, done - Date.parse(row.created_at));
    deps.log.info(
      {
        delivery_id: row.id,
        endpoint_id: row.endpoint_id,
        attempt: row.attempts + 1,
        status: statusCode,
        error,
        retry_in_ms: delay,
      },
      'webhook delivery failed',
    );
    await deps.webhooks.recordAttempt(row, {
      status: delay === null ? 'failed' : 'pending',
      statusCode,
      error,
      at: iso(done),
      next: delay === null ? null : iso(done + delay),
    });
  }

  async function deliverDue(): Promise<number> {
    const t = now();
    const claimed = await deps.webhooks.claimDue(iso(t), iso(t + leaseMs), batch);
    await Promise.all(
      claimed.map((row) =>
        attempt(row).catch((err) =>
          deps.log.warn({ err, delivery_id: row.id }, 'webhook delivery could not be recorded'),
        ),
      ),
    );
    return claimed.length;
  }

  /** One pass: fan new events out, then send what is due. */
  async function tick(): Promise<void> {
    await fanOut();
    while ((await deliverDue()) === batch);
  }

  let loop: Promise<void> | undefined;
  const stopping = new AbortController();
  return {
    tick,
    start() {
      loop ??= (async () => {
        while (!stopping.signal.aborted) {
          try {
            await tick();
          } catch (err) {
            deps.log.warn({ err }, 'webhook dispatcher pass failed');
          }
          await sleep(deps.pollMs ?? 1000, stopping.signal);
        }
      })();
    },
    async stop() {
      stopping.abort();
      await loop;
      await deps.sender.close();
    },
  };
}
