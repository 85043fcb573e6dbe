// What a run remembers: the checkpoint (to resume a crashed run where it stopped) and the cursors (where the
// next run starts). Both are plain JSON; anything unreadable is treated as absent.
import type { PageMark } from './api.ts';

/**
 * `reports`: edited and deleted messages from the account's chat reports; `legal_hold`: the owner's exports in Team
 * Chat legal-hold matters. Each only when the grant holds their scopes (a `preservation` app) and chats are selected.
 */
export type Phase = 'recordings' | 'one_to_one' | 'channels' | 'reports' | 'legal_hold';
export const PHASES: readonly Phase[] = ['recordings', 'one_to_one', 'channels', 'reports', 'legal_hold'];

/** A one-to-one peer or a channel whose messages are listed. */
export interface ChatTarget {
  id: string;
  name: string;
  /** `to_contact` value (peer's email, else user id); absent for channels. */
  contact?: string;
  isPrivate?: boolean;
  /**
   * A channel that shows members only what was sent since they joined: the selected owners whose views are read
   * and merged (the collecting owner first). Absent: one member's view holds the whole history.
   */
  views?: string[];
  /** Start of this target's history (epoch ms). */
  since: number;
  /** End of this target's history (epoch ms): the last message the sessions list reported, or the run's start. */
  until: number;
}

/** Where inside an owner the run is. */
export interface Position {
  owner: string;
  phase: Phase;
  window: number;
  /** recordings: meetings of this window already handled, and the UUID of the last one (checked on resume). */
  skip?: number;
  lastUuid?: string;
  /** recordings: UUIDs of meetings with a listed AI summary that a recordings listing already handed over. */
  covered?: string[];
  /** chats: the targets of this owner and phase, the current one, and the next page of its current window. */
  targets?: ChatTarget[];
  target?: number;
  /** chats: which of the current target's `views` is being read. */
  view?: number;
  page?: PageMark | null;
}

export interface RunState {
  v: 1;
  /** The run's own "now" (epoch ms): every window ends here, and it becomes the next run's high-water mark. */
  startedAt: number;
  /** Owners are handled in id order; every owner with an id <= this one is finished. */
  ownersDone: string | null;
  /** Owners whose collection could not complete (deleted users): they keep their previous cursor. */
  failed: string[];
  /** Channels already collected in this run (through any member): not listed again for another owner. */
  channelsDone: string[];
  /** Channels whose chat report sessions an owner's `reports` phase took already (chat-reports.ts). */
  reportedChannels?: string[];
  at: Position | null;
}

/**
 * 2 since issue 20 (records are content): marks of an earlier version are not used, so the next run reads every
 * record in the look-back again and the items collected before get their blob (files unchanged are not
 * downloaded again: same version, content stored).
 */
export const CURSORS_VERSION = 2;

export interface Cursors {
  v: typeof CURSORS_VERSION;
  /** Per owner and per channel: the `startedAt` of the last run that collected them completely. */
  owners: Record<string, number>;
  channels: Record<string, number>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function freshState(now: number): RunState {
  return { v: 1, startedAt: now, ownersDone: null, failed: [], channelsDone: [], at: null };
}

export function readState(value: unknown): RunState | null {
  if (!isRecord(value) || value.v !== 1 || typeof value.startedAt !== 'number') return null;
  if (!Array.isArray(value.failed) || !Array.isArray(value.channelsDone)) return null;
  return value as unknown as RunState;
}

export function readCursors(value: unknown): Cursors {
  if (!isRecord(value) || value.v !== CURSORS_VERSION || !isRecord(value.owners) || !isRecord(value.channels)) {
    return { v: CURSORS_VERSION, owners: {}, channels: {} };
  }
  return value as unknown as Cursors;
}
