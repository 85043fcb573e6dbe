import crypto from 'node:crypto';
import net from 'node:net';
import type { EventType } from './events.ts';

/** The events an endpoint can subscribe to (fixed contract). */
export const WEBHOOK_EVENT_TYPES = [
  'run.finished',
  'collection.error',
  'hold.placed',
  'hold.released',
  'export.finished',
] as const satisfies readonly EventType[];
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const SIGNATURE_HEADER = 'Custody-Signature';

/** `t=<unix seconds>,v1=<hex HMAC-SHA256(secret as UTF-8, "<t>.<raw body>")>` */
export function signatureHeader(secret: string, unixSeconds: number, rawBody: string): string {
  const mac = crypto
    .createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${unixSeconds}.${rawBody}`)
    .digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/** When to try again after the `attempt`-th failure (1-based), or null when the delivery is given up. */
export interface DeliveryBackoff {
  /** delays after the 1st, 2nd, … failure; the last one repeats */
  delaysMs: readonly number[];
  /** no attempt is started later than this after the event was fanned out */
  giveUpAfterMs: number;
}

export const DEFAULT_DELIVERY_BACKOFF: DeliveryBackoff = {
  delaysMs: [10_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000],
  giveUpAfterMs: 24 * 3600_000,
};

export function nextAttemptDelay(policy: DeliveryBackoff, attempt: number, ageMs: number): number | null {
  const delay = policy.delaysMs[Math.min(attempt, policy.delaysMs.length) - 1] ?? policy.delaysMs.at(-1)!;
  return ageMs + delay > policy.giveUpAfterMs ? null : delay;
}

const blocked = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(prefix, bits, 'ipv4');
}
for (const [prefix, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
  ['64:ff9b::', 96], // NAT64 onto IPv4
] as const) {
  blocked.addSubnet(prefix, bits, 'ipv6');
}

/** Loopback, private, link-local and other non-public addresses (server-side request forgery targets). */
export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return true;
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return blocked.check(mapped[1], 'ipv4');
    return blocked.check(address, 'ipv6');
  }
  return blocked.check(address, 'ipv4');
}
