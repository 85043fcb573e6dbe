// Graph change notifications for drives (reference provider-events.md §2.5/§2.6): a bare "something changed
// under this root" tap; delta says what. Parsed leniently: every field may be missing.
import crypto from 'node:crypto';
import { storable } from '../../domain/text.ts';

export interface DriveNotification {
  subscriptionId: string;
  clientState: string | null;
  /** `reauthorizationRequired` for a lifecycle notification; null for a change notification. */
  lifecycleEvent: string | null;
  /** The notification as received (no item data in it), kept as evidence. */
  raw: Record<string, unknown>;
}

const rec = (v: unknown): Record<string, unknown> | null =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

/** Ids are stored and looked up: one the database cannot store (NUL, a lone surrogate) names no subscription of Custody's. */
const usableId = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 200 && storable(v);

/** The notifications of one POST; entries without a usable subscriptionId are dropped. */
export function driveNotifications(body: unknown): DriveNotification[] {
  const value = rec(body)?.value;
  if (!Array.isArray(value)) return [];
  const out: DriveNotification[] = [];
  for (const entry of value.slice(0, 1000)) {
    const n = rec(entry);
    if (!n || !usableId(n.subscriptionId)) continue;
    out.push({
      subscriptionId: n.subscriptionId,
      clientState: typeof n.clientState === 'string' ? n.clientState : null,
      lifecycleEvent: typeof n.lifecycleEvent === 'string' ? n.lifecycleEvent : null,
      raw: n,
    });
  }
  return out;
}

/**
 * Repeated deliveries of one notification share its `id` when Graph sends one. Without an id, identical bodies
 * within the same 10 seconds count as one: a later identical tap is a new change and must not be dropped (delta
 * makes an extra tap harmless, a lost one is not).
 */
export function notificationDedupKey(n: DriveNotification, receivedMs: number): string {
  if (usableId(n.raw.id)) return `${n.subscriptionId}:${n.raw.id}`;
  const digest = crypto.createHash('sha256').update(JSON.stringify(n.raw)).digest('hex');
  return `${n.subscriptionId}:${digest}:${Math.floor(receivedMs / 10_000)}`;
}
