// What a `preservation` grant adds (chat-reports.ts, legal-hold.ts) is listed at account level: the chat report
// sessions and the legal-hold matters. Like the summaries list, each is read once per run (at planning for a
// fanned-out run, which hands each owner's part to its unit), and every session or matter is given to who reads it:
// a one-to-one report session to the first selected owner (in id order) among its members; a selected channel's
// session (key `channel:<id>`) to whichever unit collects that channel in the run; a matter to every selected owner
// it holds (each reads their own exports).
import { chatScope, type ConfFilters } from '../../domain/filters/conf.ts';
import { selectsId } from '../../domain/filters/selection.ts';
import type { CollectEvent } from '../types.ts';
import { isPieceFailure, pages, type ZoomApi } from './api.ts';
import { CHAT_REACH_DAYS } from './chat-window.ts';
import type { Owner } from './items.ts';
import { legalHoldGranted, reportsGranted } from './scopes.ts';
import type { ChatTarget } from './state.ts';
import type { ZoomPage } from './wire.ts';
import { DAY_MS, isoDate, monthWindows, startOfDay } from './windows.ts';

const PAGE = 300;

/**
 * Per owner id: the report sessions and the legal-hold matters it reads (channel sessions under `channel:<id>`);
 * a feature absent is not collected.
 */
export interface PreservationIndex {
  reports?: Record<string, ChatTarget[]>;
  legalHold?: Record<string, ChatTarget[]>;
}

interface ReportSessionsPage extends ZoomPage {
  sessions?: Array<{ id?: string; name?: string; type?: string; channel_id?: string; member_emails?: string[] }>;
}

interface MattersPage extends ZoomPage {
  legal_hold_matters?: Array<{
    matter_id?: string;
    matter_name?: string;
    matter_users?: Array<{ user_id?: string; email?: string }>;
  }>;
}

/** The earliest day a chat report may be asked for in a run that started at `startedAt`. */
export function reportFloor(startedAt: number): number {
  return startOfDay(startedAt - CHAT_REACH_DAYS * DAY_MS);
}

/** Day windows (UTC, one calendar month at most) covering [since, until], clamped to the reports' reach. */
export function reportWindows(startedAt: number, since: number, until: number) {
  return monthWindows(Math.max(startOfDay(since), reportFloor(startedAt)), until);
}

async function listReportSessions(
  api: ZoomApi,
  filters: ConfFilters,
  owners: Owner[],
  range: { from: number; startedAt: number },
  now: () => number,
): Promise<Record<string, ChatTarget[]>> {
  const chats = chatScope(filters);
  const byEmail = new Map(owners.filter((o) => o.email).map((o) => [o.email.toLowerCase(), o.id]));
  const found = new Map<string, { owner: string; target: ChatTarget }>();
  for (const w of reportWindows(range.startedAt, range.from, range.startedAt)) {
    const query = { from: isoDate(w.start), to: isoDate(w.end), page_size: PAGE };
    for await (const { page } of pages<ReportSessionsPage>(
      api,
      'listing chat report sessions',
      '/report/chat/sessions',
      query,
      null,
      now,
    )) {
      for (const s of page.sessions ?? []) {
        if (!s?.id) continue;
        const group = s.type === 'Group';
        if (group ? !s.channel_id || !chats.channels || !selectsId(chats.channels, s.channel_id) : !chats.oneToOne)
          continue;
        const member = (s.member_emails ?? []).flatMap((e) => byEmail.get(e.toLowerCase()) ?? []).sort()[0];
        if (!member) continue;
        const owner = group ? `channel:${s.channel_id}` : member;
        const known = found.get(s.id);
        if (known) known.target.until = w.end;
        else
          found.set(s.id, {
            owner,
            target: {
              id: s.id,
              name: s.name || s.channel_id || s.id,
              contact: group ? `channel:${s.channel_id}` : '1:1',
              since: w.start,
              until: w.end,
            },
          });
      }
    }
  }
  const out: Record<string, ChatTarget[]> = {};
  for (const { owner, target } of found.values()) (out[owner] ??= []).push(target);
  return out;
}

async function listMatters(api: ZoomApi, owners: Owner[], now: () => number): Promise<Record<string, ChatTarget[]>> {
  const out: Record<string, ChatTarget[]> = {};
  const seen = new Set<string>();
  for await (const { page } of pages<MattersPage>(
    api,
    'listing legal hold matters',
    '/chat/legalhold/matters',
    { page_size: PAGE },
    null,
    now,
  )) {
    for (const m of page.legal_hold_matters ?? []) {
      if (!m?.matter_id || seen.has(m.matter_id)) continue;
      seen.add(m.matter_id);
      for (const o of owners) {
        const email = o.email.toLowerCase();
        const held = (m.matter_users ?? []).some(
          (u) => u?.user_id === o.id || (!!email && u?.email?.toLowerCase() === email),
        );
        if (held) (out[o.id] ??= []).push({ id: m.matter_id, name: m.matter_name || m.matter_id, since: 0, until: 0 });
      }
    }
  }
  return out;
}

/** Lists what the grant's preservation scopes reach, once for the run; a list that fails is one error event. */
export async function preservationOfRun(
  api: ZoomApi,
  opts: {
    grantInfo: Record<string, unknown>;
    filters: ConfFilters;
    owners: Owner[];
    from: number;
    startedAt: number;
    now: () => number;
  },
): Promise<{ index: PreservationIndex; events: CollectEvent[] }> {
  const chats = chatScope(opts.filters);
  const index: PreservationIndex = {};
  const events: CollectEvent[] = [];
  if (opts.owners.length === 0 || (!chats.oneToOne && chats.channels === null)) return { index, events };
  const attempt = async (what: string, kind: string, list: () => Promise<Record<string, ChatTarget[]>>) => {
    try {
      return await list();
    } catch (err) {
      if (!isPieceFailure(err)) throw err;
      events.push({
        type: 'error',
        reason: `${what} failed (${err.message}): not collected in this run`,
        kind,
        sourceId: kind,
        name: what,
      });
      return undefined;
    }
  };
  if (reportsGranted(opts.grantInfo))
    index.reports = await attempt('listing the chat report sessions', 'chat_report_list', () =>
      listReportSessions(api, opts.filters, opts.owners, opts, opts.now),
    );
  if (legalHoldGranted(opts.grantInfo))
    index.legalHold = await attempt('listing the legal hold matters', 'legal_hold_list', () =>
      listMatters(api, opts.owners, opts.now),
    );
  return { index, events };
}

/** One owner's part, as plan data for its unit. */
export function ownerPreservation(index: PreservationIndex, ownerId: string): PreservationIndex {
  return {
    ...(index.reports && {
      reports: Object.fromEntries(
        Object.entries(index.reports).filter(([key]) => key === ownerId || key.startsWith('channel:')),
      ),
    }),
    ...(index.legalHold && { legalHold: { [ownerId]: index.legalHold[ownerId] ?? [] } }),
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads a PreservationIndex handed over as plan data; {} when absent or malformed. */
export function readPreservationIndex(value: unknown): PreservationIndex {
  if (!isRecord(value)) return {};
  const part = (v: unknown) =>
    isRecord(v) && Object.values(v).every(Array.isArray) ? (v as Record<string, ChatTarget[]>) : undefined;
  const reports = part(value.reports);
  const legalHold = part(value.legalHold);
  return { ...(reports && { reports }), ...(legalHold && { legalHold }) };
}
