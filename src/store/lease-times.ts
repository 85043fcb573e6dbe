// A lease on a run, a unit job or an export is held while its `lease_expires_at` (ISO string) is not before now; a
// claim takes it once that time is past.

/** The expiry of a lease given back at `now`: already past, so a claim in the same millisecond takes it. */
export const lapsedAt = (now: string): string => new Date(Date.parse(now) - 1).toISOString();
