import { Type } from 'typebox';
import { WEBHOOK_EVENT_TYPES } from '../../../domain/webhooks.ts';
import type { DeliveryRow, EndpointRow } from '../../../read/account.ts';

export const EventTypeSchema = Type.Union(
  WEBHOOK_EVENT_TYPES.map((t) => Type.Literal(t)),
  {
    description:
      'run.finished (data: run_id, collection_id, status), collection.error (collection_id, reason), hold.placed (hold_id, collection_ids, workspace_id), hold.released (hold_id).',
  },
);

export const Endpoint = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  created: Type.String({ format: 'date-time' }),
});

export const Delivery = Type.Object({
  id: Type.String(),
  event_id: Type.String({
    description: 'The `id` in the delivered body; the same event has the same id at every endpoint.',
  }),
  type: Type.String(),
  status: Type.String({
    enum: ['pending', 'succeeded', 'failed'],
    description: '`pending` while attempts remain; `failed` once retries are given up.',
  }),
  attempts: Type.Integer(),
  last_status_code: Type.Union([Type.Integer(), Type.Null()], {
    description: "The receiver's HTTP status of the last attempt; null when it was not reached.",
  }),
  last_error: Type.Union([Type.String(), Type.Null()]),
  next_attempt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  created: Type.String({ format: 'date-time' }),
  delivered: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export function endpointView(e: EndpointRow) {
  return { id: e.id, url: e.url, events: JSON.parse(e.events) as string[], created: e.created_at };
}

export function deliveryView(d: DeliveryRow) {
  return {
    id: d.id,
    event_id: `evt_${d.event_seq}`,
    type: d.event_type,
    status: d.status,
    attempts: d.attempts,
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    next_attempt: d.status === 'pending' ? d.next_attempt_at : null,
    created: d.created_at,
    delivered: d.delivered_at,
  };
}

/** The page size; the query coercion lets `limit=1e309` through as Infinity, which no database accepts as a LIMIT. */
export function pageLimit(limit: number | undefined): number {
  return Number.isSafeInteger(limit) ? Math.min(Math.max(limit!, 1), 200) : 50;
}
