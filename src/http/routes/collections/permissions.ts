import type { PermissionGap } from '../../../connectors/types.ts';

/** The collection view's `missing_scopes` (and the `collection.scopes_missing` event's, without pointer and message). */
export function missingScopesView(gaps: PermissionGap[]) {
  return gaps.map((g) => ({ scope: g.permission, feature: g.feature, pointer: g.pointer, message: g.message }));
}
