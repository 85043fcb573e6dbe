// PATCH-time check of an edrive filter's keys against the paired tenant's directory.
import { escapePointer, isObject } from '../../domain/filters/selection.ts';
import type { FilterIssue, ProviderContext } from '../types.ts';
import { mapLimit } from './children.ts';
import { classifyNotFound } from './graph.ts';

/** More keys than this are not looked up one by one at PATCH time: the run reports unknown users. */
const MAX_CHECKED = 50;

export function checkUserIds(graphUrl: string) {
  return async (ctx: ProviderContext, filters: unknown): Promise<FilterIssue[] | undefined> => {
    if (!isObject(filters)) return undefined;
    const ids = Object.keys(filters);
    if (ids.length === 0 || ids.length > MAX_CHECKED) return undefined;
    const known = await mapLimit(ids, 4, async (id) => {
      try {
        await ctx.http.json(`${graphUrl}/users/${encodeURIComponent(id)}?$select=id`, { signal: ctx.signal });
        return true;
      } catch (error) {
        // Only Graph's "no such user" answer decides; anything else leaves the question to the run.
        if (classifyNotFound(error) === 'no_user') return false;
        throw error;
      }
    });
    return ids
      .filter((_, i) => !known[i])
      .map((id) => ({ pointer: `/${escapePointer(id)}`, message: `user id "${id}" is not a user of the paired tenant: the keys are user ids from GET /v1/collections/{id}/users.` }));
  };
}
