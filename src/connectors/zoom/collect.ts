// collect(): owners in id order; for each, recordings, then one-to-one chats, then channels, as the filters
// allow. A checkpoint follows every meeting, every page of messages and every finished unit; cursors (one mark
// per owner and per channel) let the next run start where this one began, less a small overlap.
import { chatScope, enabledContent, type ConfFilters } from '../../domain/filters/conf.ts';
import type { CollectContext, CollectEvent, UnitSpec } from '../types.ts';
import { ProviderError } from '../../provider/provider-error.ts';
import { isUserGone, ZoomApi } from './api.ts';
import { chatListingsAhead, collectChannels, collectOneToOne, type ChatFirsts } from './chats.ts';
import type { Owner } from './items.ts';
import { collectRecordings } from './meetings.ts';
import { inIdOrder, ownersNotFound, resolveOwners, type ResolvedOwners } from './owners.ts';
import { assertScopes } from './scopes.ts';
import { preservationOfRun, readPreservationIndex, type PreservationIndex } from './preservation.ts';
import { collectLegalHold } from './legal-hold.ts';
import { collectReports } from './chat-reports.ts';
import { createRun, earliestSince, expectedSince, type ZoomRun } from './run.ts';
import { readSummaryIndex, summariesAhead, type SummaryIndex } from './summaries.ts';
import {
  CURSORS_VERSION,
  freshState,
  PHASES,
  readCursors,
  readState,
  type Cursors,
  type Phase,
  type Position,
  type RunState,
} from './state.ts';

export interface CollectOptions {
  apiUrl: string;
  lookbackDays: number;
  isZoomHost(url: string): boolean;
}

interface Plan {
  owners: ResolvedOwners;
  byKey: Map<string, UnitSpec>;
}

/** A run's plan as its units read it, worked out once per plan: each of its N units would otherwise go through all N. */
const plans = new WeakMap<UnitSpec[], Plan>();

function planOf(units: UnitSpec[]): Plan {
  let plan = plans.get(units);
  if (!plan) {
    const owners = units
      .filter((u) => u.kind === 'custodian' && !(u.data as { not_found?: boolean } | undefined)?.not_found)
      .map((u) => ({ id: u.key, email: u.email ?? '' }));
    plan = {
      owners: { owners: inIdOrder(owners), errors: [], gone: [] },
      byKey: new Map(units.map((u) => [u.key, u])),
    };
    plans.set(units, plan);
  }
  return plan;
}

export async function* collectZoom(ctx: CollectContext, opts: CollectOptions): AsyncGenerator<CollectEvent> {
  const filters = ctx.filters as ConfFilters;
  assertScopes(ctx.grantInfo, filters);
  const state: RunState = readState(ctx.checkpoint) ?? freshState(ctx.now().getTime());
  const previous = readCursors(ctx.cursors);
  const api = new ZoomApi(ctx.http, opts.apiUrl, ctx.signal);
  // One unit of a fanned-out run: the plan resolved the owners already (ids and e-mails), no need to list them again.
  const plan = ctx.units && planOf(ctx.units);
  const planned = plan && ctx.scope ? plan.byKey.get(ctx.scope[0]) : undefined;
  if (planned && (planned.data as { not_found?: boolean } | undefined)?.not_found) throw ownersNotFound([planned.key]);
  const chats = chatScope(filters);
  const content = enabledContent(filters);
  const now = () => ctx.now().getTime();
  // A run in one job lists the account's summaries while it lists the owners (a unit's came with its plan).
  const summariesOf = ctx.units
    ? null
    : summariesAhead(api, {
        guess: ctx.scope ? null : expectedSince(state.startedAt, opts.lookbackDays, previous, filters),
        to: state.startedAt,
        selected: content.has('AI-meeting-notes'),
        now,
      });
  const resolved = plan
    ? plan.owners
    : await resolveOwners(api, filters, state.ownersDone, now).catch((err: unknown) => {
        summariesOf?.cancel();
        throw err;
      });
  // A targeted run (a webhook) covers the owners it names, by id or by e-mail.
  const scope = ctx.scope ? new Set(ctx.scope.map((s) => s.toLowerCase())) : null;
  const inScope = (id: string, email?: string | null) =>
    !scope || scope.has(id.toLowerCase()) || (!!email && scope.has(email.toLowerCase()));
  const owners = resolved.owners.filter((o) => inScope(o.id, o.email));
  const unit = (o: Owner): UnitSpec => ({ key: o.id, kind: 'custodian', email: o.email || null, name: o.name ?? null });
  for (const o of owners) yield { type: 'unit', unit: unit(o), status: 'pending' };
  for (const id of resolved.gone.filter((g) => inScope(g)))
    yield { type: 'unit', unit: { key: id, kind: 'custodian' }, status: 'failed' };
  if (!scope) yield* resolved.errors;

  let summaries: SummaryIndex | null;
  let preservation: PreservationIndex;
  if (!summariesOf) {
    // A unit: the plan listed the account's summaries (and report sessions, matters) once, each owner's to its unit.
    const data = planned?.data as { summaries?: unknown; preservation?: unknown } | undefined;
    summaries = readSummaryIndex(data?.summaries);
    preservation = readPreservationIndex(data?.preservation);
  } else {
    const from = earliestSince(
      state.startedAt,
      opts.lookbackDays,
      previous,
      owners.map((o) => o.id),
    );
    const listed = await summariesOf.of(owners, from);
    summaries = listed.index;
    yield* listed.events;
    const held = await preservationOfRun(api, {
      grantInfo: ctx.grantInfo,
      filters,
      owners: resolved.owners,
      from,
      startedAt: state.startedAt,
      now,
    });
    preservation = held.index;
    yield* held.events;
  }
  const run = createRun(ctx, api, state, {
    lookbackDays: opts.lookbackDays,
    cursors: previous,
    content,
    channels: chats.channels,
    summaries,
    preservation,
    // One unit of a fanned-out run: a conversation with an owner of another unit is that unit's when it comes first.
    owners: ctx.units ? resolved.owners : owners,
    isZoomHost: opts.isZoomHost,
  });
  const enabled: Record<Phase, boolean> = {
    recordings: true,
    one_to_one: chats.oneToOne,
    channels: chats.channels !== null,
    reports: preservation.reports !== undefined,
    legal_hold: preservation.legalHold !== undefined,
  };

  for (const owner of owners) {
    if (state.ownersDone !== null && owner.id <= state.ownersDone) continue;
    const pos: Position = state.at?.owner === owner.id ? state.at : { owner: owner.id, phase: 'recordings', window: 0 };
    state.at = pos;
    yield { type: 'unit', unit: unit(owner), status: 'running' };
    // The chat listings' first pages are asked for now, while the recordings are listed (chats.ts).
    const firsts = chatListingsAhead(run, owner, {
      oneToOne: enabled.one_to_one && notBegun(pos, 'one_to_one'),
      channels: enabled.channels && notBegun(pos, 'channels'),
    });
    let stopped = false;
    for (const phase of PHASES.slice(PHASES.indexOf(pos.phase))) {
      if (!enabled[phase]) continue;
      if (pos.phase !== phase) enter(pos, phase);
      try {
        yield* phaseEvents(run, owner, pos, firsts);
      } catch (err) {
        const who = owner.email || owner.id;
        if (isUserGone(err)) {
          markFailed(state, owner.id);
          stopped = true;
          yield {
            type: 'error',
            reason: `Zoom user ${who} was deleted during the run: collection for them stopped`,
            sourceId: owner.id,
            kind: 'custodian',
            name: who,
            custodian: owner.id,
          };
          break;
        }
        if (!isOwnerProblem(err)) throw err;
        // One user's refusal (no licence for the feature, a disabled feature) must not stop everyone else's
        // collection; the owner keeps their previous cursor so the next run tries again.
        markFailed(state, owner.id);
        yield {
          type: 'error',
          reason: `collecting ${phase.replace(/_/g, '-')} of Zoom user ${who} failed: ${(err as Error).message}`,
          sourceId: owner.id,
          kind: PHASE_LISTS[phase],
          name: who,
          custodian: owner.id,
        };
      }
    }
    state.ownersDone = owner.id;
    state.at = null;
    // the owner's end and the checkpoint past it, written together
    yield {
      type: 'unit',
      unit: unit(owner),
      status: stopped ? 'failed' : 'done',
      checkpoint: { state: run.checkpoint().state },
    };
  }
  // A unit's part holds only what it changed (units.ts mergeCursors keeps the rest): carrying every owner's mark made
  // each of a run's N units write and the fan-in read N marks.
  const part = ctx.units !== undefined;
  yield {
    type: 'cursors',
    value: nextCursors(state, owners, previous, { keepOthers: !part && scope !== null, carryChannels: !part }),
  };
  const notFound = resolved.gone.filter((g) => inScope(g));
  if (notFound.length > 0) throw ownersNotFound(notFound);
}

/** What a failure of a whole phase kept from being listed (the exception's kind). */
const PHASE_LISTS: Record<Phase, string> = {
  recordings: 'recording_list',
  one_to_one: 'chat_list',
  channels: 'channel_list',
  reports: 'chat_report_list',
  legal_hold: 'legal_hold_list',
};

function markFailed(state: RunState, ownerId: string): void {
  if (!state.failed.includes(ownerId)) state.failed.push(ownerId);
}

/** A 4xx about this owner's data; 401 (auth), 408 and 429 (transient) and scope errors are not. */
function isOwnerProblem(err: unknown): boolean {
  return (
    err instanceof ProviderError &&
    err.status !== undefined &&
    err.status >= 400 &&
    err.status < 500 &&
    ![401, 408, 429].includes(err.status)
  );
}

function enter(pos: Position, phase: Phase): void {
  pos.phase = phase;
  pos.window = 0;
  delete pos.skip;
  delete pos.lastUuid;
  delete pos.covered;
  delete pos.targets;
  delete pos.target;
  delete pos.view;
  delete pos.page;
}

/** Whether a resumed owner's position has not yet listed the targets of this phase. */
function notBegun(pos: Position, phase: Phase): boolean {
  const at = PHASES.indexOf(pos.phase);
  return at < PHASES.indexOf(phase) || (pos.phase === phase && !pos.targets);
}

function phaseEvents(run: ZoomRun, owner: Owner, pos: Position, firsts: ChatFirsts): AsyncGenerator<CollectEvent> {
  switch (pos.phase) {
    case 'recordings':
      return collectRecordings(run, owner, pos);
    case 'one_to_one':
      return collectOneToOne(run, owner, pos, firsts.sessions);
    case 'channels':
      return collectChannels(run, owner, pos, firsts.channels);
    case 'reports':
      return collectReports(run, owner, pos);
    case 'legal_hold':
      return collectLegalHold(run, owner, pos);
  }
}

/**
 * Owners collected completely get this run's start as their mark; the others keep the mark they had. A run limited to
 * some owners keeps everyone else's mark (`keepOthers`), and a run's channels carry the marks of those it did not
 * collect (`carryChannels`); a unit's part does neither.
 */
function nextCursors(
  state: RunState,
  owners: Owner[],
  previous: Cursors,
  opts: { keepOthers: boolean; carryChannels: boolean },
): Cursors {
  const ownerMarks: Record<string, number> = opts.keepOthers ? { ...previous.owners } : {};
  for (const o of owners) {
    const mark = state.failed.includes(o.id) ? previous.owners[o.id] : state.startedAt;
    if (mark !== undefined) ownerMarks[o.id] = mark;
  }
  const channelMarks: Record<string, number> = opts.carryChannels ? { ...previous.channels } : {};
  for (const id of state.channelsDone) channelMarks[id] = state.startedAt;
  return { v: CURSORS_VERSION, owners: ownerMarks, channels: channelMarks };
}
