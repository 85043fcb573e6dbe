import type { EdriveFilters } from '../../domain/filters/edrive.ts';
import { isObject } from '../../domain/filters/selection.ts';
import type { CollectContext, CollectEvent, UnitSpec } from '../types.ts';
import { isPieceFailure } from './items.ts';
import { DriveSync } from './drive-sync.ts';
import { driveOwner, owned, type DriveOwner } from './owner.ts';
import { classifyNotFound, isGraphLink, providerMessage } from './graph.ts';
import { cursorsOf, readState, startingState, type ConnectorState } from './state.ts';
import { ProviderError } from '../../provider/provider-error.ts';

/**
 * Collects the drives of the users that are keys of the filters, one unit after the other. A user without a
 * OneDrive (or who no longer exists) is a failed custodian; a delta page that cannot be read stops that user's
 * listing (it resumes from the previous run's delta link next time); a failed item is that item's failure only.
 */
export function createCollect(graphUrl: string) {
  return async function* collect(ctx: CollectContext): AsyncGenerator<CollectEvent> {
    const filters = (isObject(ctx.filters) ? ctx.filters : {}) as EdriveFilters;
    // A unit job's scope is its user: looked up, where walking every user's filters and cursors made a run of
    // 10,000 units N² (#25). A targeted run keeps every other user's earlier cursor, so it reads them all.
    const users = ctx.scope ? [...new Set(ctx.scope)].filter((u) => Object.hasOwn(filters, u)) : Object.keys(filters);
    const partial = !!ctx.scope && !ctx.units;
    const previous = readState(ctx.cursors, partial ? undefined : users);
    const resumed = readState(ctx.checkpoint);
    const state: ConnectorState = { v: 1, users: {} };
    const validLink = (link: unknown) => isGraphLink(graphUrl, link);
    const unit = (userId: string): UnitSpec => ({ key: userId, kind: 'custodian' });
    for (const userId of users) yield { type: 'unit', unit: unit(userId), status: 'pending' };

    for (const userId of users) {
      const selection = filters[userId];
      let st = resumed?.users[userId];
      if (st && (st.phase !== 'round' || st.link === null || validLink(st.link))) {
        state.users[userId] = st;
        if (st.phase !== 'round') continue;
      } else {
        st = startingState(previous?.users[userId], validLink);
        state.users[userId] = st;
      }
      const userState = st;
      // a directory that cannot answer now leaves the owner as remembered (or unnamed)
      const read = async (fallback?: DriveOwner): Promise<DriveOwner> => {
        const o = await driveOwner(ctx, graphUrl, userId);
        if (o.name === null && o.email === null) return fallback ?? o;
        userState.owner = { name: o.name, email: o.email };
        return o;
      };
      // the owner remembered from the previous run, read again only if the drive has changes
      const remembered: DriveOwner | undefined = st.owner && { id: userId, ...st.owner };
      const owner = remembered ?? (await read());
      const named: UnitSpec = { ...unit(userId), name: owner.name, email: owner.email };
      yield { type: 'unit', unit: named, status: 'running' };
      try {
        yield* owned(
          new DriveSync({ ctx, graphUrl, userId, selection, state: st, snapshot: () => state }).run(),
          owner,
          remembered && (() => read(remembered)),
        );
        yield { type: 'unit', unit: named, status: 'done' };
      } catch (error) {
        const missing = classifyNotFound(error);
        const said = error instanceof ProviderError ? providerMessage(error) : '';
        if (missing === 'no_drive' || missing === 'no_user') {
          const reason =
            missing === 'no_drive'
              ? `user ${userId} has no provisioned OneDrive${said ? ` (Microsoft Graph: ${said})` : ''}; the other users continue`
              : `user ${userId} does not exist in the tenant; the other users continue`;
          ctx.log.warn({ user_id: userId, missing }, 'OneDrive user skipped');
          yield {
            type: 'error',
            reason,
            sourceId: userId,
            kind: 'custodian',
            name: selection.filter_name || userId,
            custodian: userId,
          };
        } else if (isPieceFailure(error)) {
          // The next page of a listing is only reachable through the one that failed: this user's listing stops.
          const reason = `listing the OneDrive of user ${userId} failed: ${error.message}${said ? ` (Microsoft Graph: ${said})` : ''}; it resumes from the previous run's position next time`;
          ctx.log.warn({ user_id: userId, err: error.message }, 'OneDrive listing failed');
          yield {
            type: 'error',
            reason,
            sourceId: userId,
            kind: 'delta_page',
            name: selection.filter_name || userId,
            custodian: userId,
          };
        } else {
          throw error;
        }
        st.phase = 'failed';
        yield { type: 'unit', unit: unit(userId), status: 'failed' };
        yield { type: 'checkpoint', state };
      }
    }
    // A unit job's cursors are its user's alone (the fan-in merges them with the previous run's); a targeted run's
    // keep every other user's. Copying them into each of 10,000 units made a run's cursors N² (#25).
    yield { type: 'cursors', value: cursorsOf(state, previous, partial) };
  };
}
