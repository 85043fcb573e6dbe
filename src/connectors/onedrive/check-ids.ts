// PATCH-time check of an edrive filter's keys against the paired tenant's directory.
import { escapePointer, isObject } from '../../domain/filters/selection.ts';
import type { FilterIssue, ProviderContext } from '../types.ts';
import { mapLimit } from './children.ts';
import { ProviderError } from '../../provider/provider-error.ts';
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
    const issues: FilterIssue[] = ids
      .filter((_, i) => !known[i])
      .map((id) => ({
        pointer: `/${escapePointer(id)}`,
        message: `user id "${id}" is not a user of the paired tenant: the keys are user ids from GET /v1/collections/{id}/users.`,
      }));
    return [
      ...issues,
      ...(await checkFolderIds(
        graphUrl,
        ctx,
        filters,
        ids.filter((_, i) => known[i]),
      )),
    ];
  };
}

/** The folder ids a known user's selection names must be items of that user's drive (404: not there, whatever the code). */
async function checkFolderIds(
  graphUrl: string,
  ctx: ProviderContext,
  filters: Record<string, unknown>,
  users: string[],
): Promise<FilterIssue[]> {
  const refs: Array<{ user: string; id: string; pointer: string }> = [];
  for (const user of users) {
    const value = filters[user];
    if (!isObject(value)) continue;
    for (const list of ['selected', 'excluded'] as const) {
      const entries = value[list];
      if (!Array.isArray(entries)) continue;
      entries.forEach((e, i) => {
        if (isObject(e) && typeof e.id === 'string')
          refs.push({ user, id: e.id, pointer: `/${escapePointer(user)}/${list}/${i}/id` });
      });
    }
  }
  if (refs.length === 0 || refs.length > MAX_CHECKED) return [];
  const found = await mapLimit(refs, 4, async (r) => {
    try {
      await ctx.http.json(
        `${graphUrl}/users/${encodeURIComponent(r.user)}/drive/items/${encodeURIComponent(r.id)}?$select=id`,
        { signal: ctx.signal },
      );
      return true;
    } catch (error) {
      // A user without a drive is the run's to report; any other 404 means no such item.
      if (
        error instanceof ProviderError &&
        error.code === 'http_error' &&
        error.status === 404 &&
        classifyNotFound(error) !== 'no_drive'
      )
        return false;
      throw error;
    }
  });
  return refs
    .filter((_, i) => !found[i])
    .map((r) => ({
      pointer: r.pointer,
      message: `folder id "${r.id}" is not in this user's drive: folder ids come from GET /v1/collections/{id}/folders?user_id=…`,
    }));
}
