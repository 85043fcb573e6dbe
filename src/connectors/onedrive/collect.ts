import type { EdriveFilters } from '../../domain/filters/edrive.ts';
import { isObject } from '../../domain/filters/selection.ts';
import type { CollectContext, CollectEvent } from '../types.ts';
import { DriveSync } from './drive-sync.ts';
import { classifyNotFound, isGraphLink, providerMessage } from './graph.ts';
import { cursorsOf, readState, startingState, type ConnectorState } from './state.ts';
import { ProviderError } from '../../sync/provider-http.ts';

/**
 * Collects the drives of the users that are keys of the filters, one after the other. A user without a
 * OneDrive (or who no longer exists) is reported and skipped; any other failure ends the run, which resumes
 * from the last checkpoint.
 */
export function createCollect(graphUrl: string) {
  return async function* collect(ctx: CollectContext): AsyncGenerator<CollectEvent> {
    const filters = (isObject(ctx.filters) ? ctx.filters : {}) as EdriveFilters;
    const previous = readState(ctx.cursors);
    const resumed = readState(ctx.checkpoint);
    const state: ConnectorState = { v: 1, users: {} };
    const validLink = (link: unknown) => isGraphLink(graphUrl, link);

    for (const [userId, selection] of Object.entries(filters)) {
      let st = resumed?.users[userId];
      if (st && (st.phase !== 'round' || st.link === null || validLink(st.link))) {
        state.users[userId] = st;
        if (st.phase !== 'round') continue;
      } else {
        st = startingState(previous?.users[userId], validLink);
        state.users[userId] = st;
      }
      try {
        yield* new DriveSync({ ctx, graphUrl, userId, selection, state: st, snapshot: () => state }).run();
      } catch (error) {
        const missing = classifyNotFound(error);
        if (missing !== 'no_drive' && missing !== 'no_user') throw error;
        st.phase = 'failed';
        const said = error instanceof ProviderError ? providerMessage(error) : '';
        const reason =
          missing === 'no_drive'
            ? `user ${userId} has no provisioned OneDrive${said ? ` (Microsoft Graph: ${said})` : ''}; the other users continue`
            : `user ${userId} does not exist in the tenant; the other users continue`;
        ctx.log.warn({ user_id: userId, missing }, 'OneDrive user skipped');
        yield { type: 'error', reason, sourceId: userId };
        yield { type: 'checkpoint', state };
      }
    }
    yield { type: 'cursors', value: cursorsOf(state, previous) };
  };
}
