// A run fanned out: one unit per user (the keys of the filters).
import { isObject } from '../../domain/filters/selection.ts';
import type { UnitPlanner } from '../types.ts';
import { readState, type UserState } from './state.ts';

export const onedriveUnits: UnitPlanner = {
  async plan(ctx) {
    const users = Object.keys(isObject(ctx.filters) ? ctx.filters : {});
    const scope = ctx.scope ? new Set(ctx.scope) : null;
    return {
      units: users.filter((u) => !scope || scope.has(u)).map((key) => ({ key, kind: 'custodian' as const })),
      events: [],
    };
  },
  mergeCursors(previous, parts, partial) {
    const before = readState(previous);
    const users: Record<string, UserState> = {};
    if (partial) for (const [id, st] of Object.entries(before?.users ?? {})) if (st.phase === 'done') users[id] = st;
    for (const { unit, cursors } of parts) {
      const st = readState(cursors)?.users[unit] ?? before?.users[unit];
      if (st?.phase === 'done') users[unit] = st;
    }
    return { v: 1, users };
  },
};
