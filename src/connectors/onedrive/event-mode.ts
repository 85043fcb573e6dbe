// How a OneDrive collection learns of changes (../shared/reference/microsoft-graph-api.md, Correction G1):
// Graph accepts a drive subscription only from an app holding Files.ReadWrite.All (application permission), which
// app-only tokens list in their `roles` claim. Without it no subscription is attempted: each selected drive's
// delta is polled instead, at an interval the tenant's request budget allows.

/** The application permission Graph's table lists for driveItem (OneDrive for Business) subscriptions. */
export const SUBSCRIPTION_ROLE = 'Files.ReadWrite.All';

/** MS_CHANGE_NOTIFICATIONS: `auto` (subscriptions when the app may, else polling) or `off` (always polling). */
export type ChangeNotifications = 'auto' | 'off';

/** A poll of an unchanged drive is one delta call: one resource unit with a token (reference §1, §3). */
const RU_PER_POLL = 1;
/** Share of the tenant's budget that polling may use; the rest is for the runs themselves. */
const POLLING_SHARE = 0.05;
const MIN_INTERVAL_MINUTES = 5;

export interface EventMode {
  event_mode: 'subscription' | 'polling';
  /** Minutes between two polls of each selected drive (polling only). */
  polling_interval_minutes?: number;
  reason: string;
}

/** The roles an app-only token names (kept with the grant), or undefined when the grant does not say. */
export function grantedRoles(grantInfo: Record<string, unknown>): string[] | undefined {
  const roles = grantInfo.roles;
  return Array.isArray(roles) && roles.every((r) => typeof r === 'string') ? roles : undefined;
}

/** Whether drive subscriptions may be tried: not switched off, and the app holds the permission (or cannot tell). */
export function subscriptionsUsable(grantInfo: Record<string, unknown>, setting: ChangeNotifications): boolean {
  if (setting === 'off') return false;
  const roles = grantedRoles(grantInfo);
  return roles === undefined || roles.includes(SUBSCRIPTION_ROLE);
}

/**
 * Minutes between polls of each of `drives` drives so that polling spends at most a small share of a budget of
 * `ratePerSecond` resource units per second: with 20 RU/s (the smallest tenant tier) 60 polls a minute, so
 * 300 drives are polled every 5 minutes and 3,000 every 50.
 */
export function pollingIntervalMinutes(drives: number, ratePerSecond: number): number {
  const pollsPerMinute = Math.max(1, (ratePerSecond * 60 * POLLING_SHARE) / RU_PER_POLL);
  return Math.max(MIN_INTERVAL_MINUTES, Math.ceil(Math.max(1, drives) / pollsPerMinute));
}

export function eventMode(
  grantInfo: Record<string, unknown>,
  setting: ChangeNotifications,
  drives: number,
  ratePerSecond: number,
): EventMode {
  if (subscriptionsUsable(grantInfo, setting))
    return { event_mode: 'subscription', reason: 'Graph change notifications on each selected drive' };
  const reason =
    setting === 'off'
      ? 'MS_CHANGE_NOTIFICATIONS=off'
      : `the app registration does not hold the application permission ${SUBSCRIPTION_ROLE}, which Graph requires for drive subscriptions`;
  return { event_mode: 'polling', polling_interval_minutes: pollingIntervalMinutes(drives, ratePerSecond), reason };
}
