// Whose data a run collects (`account_owners`), in a stable order (by id) so a resumed run can skip the owners
// it already finished.
import type { ConfFilters } from '../../domain/filters/conf.ts';
import { selectsId } from '../../domain/filters/selection.ts';
import { type CollectEvent } from '../types.ts';
import { isUserGone, pages, scoped, userPath, type ZoomApi } from './api.ts';
import type { Owner } from './items.ts';
import type { UsersPage, ZoomUser } from './wire.ts';
import { NeedsUserActionError } from '../../domain/run-failures.ts';

export interface ResolvedOwners {
  owners: Owner[];
  /** error events for selected users that no longer exist */
  errors: CollectEvent[];
  /** ids of those users */
  gone: string[];
}

/**
 * All minus `excluded`: every active and deactivated user (pending users have not accepted their invitation
 * and own no data). Only `selected`: each selected id, looked up for its email, except those a resumed run
 * already finished (`doneThrough`), which need no lookup.
 */
export async function resolveOwners(
  api: ZoomApi,
  filters: ConfFilters,
  doneThrough: string | null,
  now: () => number,
): Promise<ResolvedOwners> {
  const selection = filters.account_owners;
  const byId = new Map<string, Owner>();
  const errors: CollectEvent[] = [];
  const gone: string[] = [];
  if (selection.all_selected) {
    // Both statuses at once: the run's units wait on this list (the owners are sorted by id below anyway). The
    // first failure is the plan's, and the other listing stops with it.
    const stop = new AbortController();
    const both = api.withSignal(stop.signal);
    const listed = await Promise.all(
      ['active', 'inactive'].map((status) =>
        usersWithStatus(both, status, now).catch((err: unknown) => {
          stop.abort(err);
          throw err;
        }),
      ),
    );
    for (const u of listed.flat())
      if (selectsId(selection, u.id)) byId.set(u.id, { id: u.id, email: u.email, name: nameOf(u) });
  } else {
    for (const { id } of selection.selected) {
      if (byId.has(id) || gone.includes(id)) continue;
      if (doneThrough !== null && id <= doneThrough) {
        byId.set(id, { id, email: '' });
        continue;
      }
      try {
        const user = await scoped('reading a user', () => api.get<ZoomUser>(userPath(id)));
        byId.set(id, { id: user.id ?? id, email: user.email, name: nameOf(user) });
      } catch (err) {
        if (!isUserGone(err)) throw err;
        gone.push(id);
        errors.push({
          type: 'error',
          reason: notFoundReason(id),
          sourceId: id,
          kind: 'custodian',
          name: id,
          custodian: id,
        });
      }
    }
  }
  return { owners: inIdOrder([...byId.values()]), errors, gone };
}

/** Every user of one status (GET /users lists one at a time), page after page. */
async function usersWithStatus(api: ZoomApi, status: string, now: () => number): Promise<ZoomUser[]> {
  const users: ZoomUser[] = [];
  for await (const { page } of pages<UsersPage>(api, 'listing users', '/users', { status, page_size: 300 }, null, now))
    users.push(...(page.users ?? []));
  return users;
}

/** What a person reading a report calls the user: the display name, else first and last name. */
export function nameOf(u: Pick<ZoomUser, 'display_name' | 'first_name' | 'last_name'>): string | null {
  const display = typeof u.display_name === 'string' ? u.display_name.trim() : '';
  if (display) return display;
  const full = [u.first_name, u.last_name].filter((p) => typeof p === 'string' && p.trim()).join(' ');
  return full.trim() || null;
}

/** Owners by id (code unit order): the order a run collects them in, and a resumed run skips by. */
export function inIdOrder(owners: Owner[]): Owner[] {
  return owners.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * A selected owner id Zoom does not know (404 code 1001, or 1010 "not found on this account"): whether it never
 * existed or was deleted cannot be told apart, and only a person can fix the filters, so it is never retried.
 */
export function notFoundReason(id: string): string {
  return `Zoom user ${id} (selected in account_owners) is not found in the Zoom account: nothing collected for them. Remove the id from account_owners or select a user from GET /v1/collections/{id}/users`;
}

/** Ends a run that could not collect some selected owners because Zoom does not know them: a person must act. */
export function ownersNotFound(ids: string[]): NeedsUserActionError {
  const list = ids.slice(0, 5).join(', ') + (ids.length > 5 ? ` and ${ids.length - 5} more` : '');
  return new NeedsUserActionError(
    `Zoom user id${ids.length > 1 ? 's' : ''} ${list} selected in account_owners ${ids.length > 1 ? 'are' : 'is'} not found in the Zoom account; the other owners were collected. Remove ${ids.length > 1 ? 'them' : 'it'} from the filters, then start the collection again`,
  );
}
