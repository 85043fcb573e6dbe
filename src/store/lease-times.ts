// A lease on a run, a unit job or an export is held while its `lease_expires_at` (ISO string) is not before now; a
// claim takes it once that time is past.
import { sql } from 'kysely';

/** The expiry of a lease given back at `now`: already past, so a claim in the same millisecond takes it. */
export const lapsedAt = (now: string): string => new Date(Date.parse(now) - 1).toISOString();

/**
 * What a release writes on the leased row (a run, a unit job, an export): a lapsed lease, and with `uncount` (stopped
 * by a shutdown, not by the work) the attempt its claim counted given back.
 */
export const releasedLease = (now: string, uncount: boolean) => ({
  lease_expires_at: lapsedAt(now),
  ...(uncount && { attempt: sql<number>`attempt - 1` }),
});
