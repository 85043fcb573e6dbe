// PATCH-time check of a conf filter's owner ids against the paired Zoom account (as edrive checks its user ids).
import type { ConfFilters } from '../../domain/filters/conf.ts';
import type { FilterIssue, ProviderContext } from '../types.ts';
import { isUserGone, scoped, userPath, ZoomApi } from './api.ts';

/** More ids than this are not looked up one by one at PATCH time: the run reports the unknown ones. */
const MAX_CHECKED = 50;

export function checkOwnerIds(apiUrl: string) {
  return async (ctx: ProviderContext, raw: unknown): Promise<FilterIssue[] | undefined> => {
    const owners = (raw as ConfFilters).account_owners;
    const refs = (['selected', 'excluded'] as const).flatMap((list) =>
      owners[list].map((e, i) => ({ id: e.id, pointer: `/account_owners/${list}/${i}/id` })),
    );
    const ids = [...new Set(refs.map((r) => r.id))];
    if (ids.length === 0) return [];
    if (ids.length > MAX_CHECKED) return undefined;
    const api = new ZoomApi(ctx.http, apiUrl, ctx.signal);
    const unknown = new Set<string>();
    // One at a time: a PATCH is not worth a burst against the account's shared rate limit.
    for (const id of ids) {
      try {
        await scoped('reading a user', () => api.get(userPath(id)));
      } catch (err) {
        // Only Zoom's "no such user" answer decides; anything else leaves the question to the run.
        if (!isUserGone(err)) throw err;
        unknown.add(id);
      }
    }
    return refs
      .filter((r) => unknown.has(r.id))
      .map((r) => ({
        pointer: r.pointer,
        message: `Zoom user id "${r.id}" is not found in the paired Zoom account: owner ids come from GET /v1/collections/{id}/users.`,
      }));
  };
}
