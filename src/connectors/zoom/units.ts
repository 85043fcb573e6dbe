// A run fanned out: one unit per owner. Channels are collected by the first owner's unit that claims them.
import { chatScope, enabledContent, type ConfFilters } from '../../domain/filters/conf.ts';
import type { CollectContext, CollectEvent, UnitPlanner } from '../types.ts';
import { ZoomApi } from './api.ts';
import { resolveOwners } from './owners.ts';
import { earliestSince, expectedSince } from './run.ts';
import { CURSORS_VERSION, readCursors } from './state.ts';
import { assertScopes } from './scopes.ts';
import { summariesAhead } from './summaries.ts';
import { ownerPreservation, preservationOfRun } from './preservation.ts';

export function zoomUnits(apiUrl: string, lookbackDays: number): UnitPlanner {
  return {
    async plan(ctx: CollectContext) {
      const filters = ctx.filters as ConfFilters;
      assertScopes(ctx.grantInfo, filters);
      const api = new ZoomApi(ctx.http, apiUrl, ctx.signal);
      const now = () => ctx.now().getTime();
      const startedAt = now();
      const cursors = readCursors(ctx.cursors);
      // The account's summaries are listed once for the whole run, while the owners are; each unit gets its owner's.
      const summaries = summariesAhead(api, {
        guess: ctx.scope ? null : expectedSince(startedAt, lookbackDays, cursors, filters),
        to: startedAt,
        selected: enabledContent(filters).has('AI-meeting-notes'),
        now,
      });
      const resolved = await resolveOwners(api, filters, null, now).catch((err: unknown) => {
        summaries.cancel();
        throw err;
      });
      const scope = ctx.scope ? new Set(ctx.scope.map((s) => s.toLowerCase())) : null;
      const inScope = (id: string, email?: string | null) =>
        !scope || scope.has(id.toLowerCase()) || (!!email && scope.has(email.toLowerCase()));
      // An owner Zoom does not know gets a unit of its own that fails at once asking for a person (the run ends
      // `error`), while the other units collect.
      const events: CollectEvent[] = [];
      const notFound = resolved.gone
        .filter((g) => inScope(g))
        .map((id) => ({ key: id, kind: 'custodian' as const, email: null, data: { not_found: true } }));
      const owners = resolved.owners.filter((o) => inScope(o.id, o.email));
      const from = earliestSince(
        startedAt,
        lookbackDays,
        cursors,
        owners.map((o) => o.id),
      );
      const listed = await summaries.of(owners, from);
      events.push(...listed.events);
      // The chat report sessions and legal-hold matters a preservation grant reaches, listed once too.
      const held = await preservationOfRun(api, {
        grantInfo: ctx.grantInfo,
        filters,
        owners: resolved.owners,
        from,
        startedAt,
        now,
      });
      events.push(...held.events);
      const units = owners.map((o) => ({
        key: o.id,
        kind: 'custodian' as const,
        email: o.email || null,
        name: o.name ?? null,
        data: {
          ...(listed.index && { summaries: { [o.id]: listed.index[o.id] ?? [] } }),
          preservation: ownerPreservation(held.index, o.id),
        },
      }));
      return { units: [...units, ...notFound], events };
    },
    unreached(filters, claimed) {
      const channels = chatScope(filters as ConfFilters).channels;
      // all channels (but some): which exist is not known here, and each is reached through any member owner
      if (!channels || channels.all_selected) return [];
      const reached = new Set(claimed);
      return [...new Set(channels.selected.map((c) => c.id))]
        .filter((id) => !reached.has(id))
        .map((id) => ({
          key: id,
          kind: 'channel' as const,
          reason: `Zoom channel ${id} was selected but not reached: no selected account owner whose collection got as far as their channels is a member of it, or it does not exist (select a member in account_owners; a member whose collection failed is reported on their own unit)`,
        }));
    },
    mergeCursors(previous, parts, partial) {
      const before = readCursors(previous);
      const owners: Record<string, number> = partial ? { ...before.owners } : {};
      const channels: Record<string, number> = { ...before.channels };
      for (const { unit, cursors } of parts) {
        const part = cursors === null ? null : readCursors(cursors);
        const mark = part?.owners[unit] ?? before.owners[unit];
        if (mark !== undefined) owners[unit] = mark;
        // A unit's part holds the channels it collected (a part an older version wrote also carries every other
        // channel, unchanged: skipped here).
        for (const [id, m] of Object.entries(part?.channels ?? {})) if (m !== before.channels[id]) channels[id] = m;
      }
      return { v: CURSORS_VERSION, owners, channels };
    },
  };
}
