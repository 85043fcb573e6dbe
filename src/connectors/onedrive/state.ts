// What the connector keeps between pages (checkpoint) and between runs (cursors), per user.
import { isObject } from '../../domain/filters/selection.ts';
import type { DriveItem } from './graph.ts';
import type { FolderMap } from './tree.ts';

export interface UserState {
  /**
   * `round`: `link` is the next delta page to request (null: start a full enumeration).
   * `done`: `link` is the deltaLink the next run starts from. `failed`: the user has no drive (reported).
   */
  phase: 'round' | 'done' | 'failed';
  link: string | null;
  /** The round enumerates the whole drive (first run or resync) rather than changes. */
  full: boolean;
  folders: FolderMap;
  /** The folders known before a resync, to find those that vanished meanwhile. */
  gone?: FolderMap;
  /** Delta entries whose parent has not been reported yet. */
  pending?: DriveItem[];
  /**
   * The drive owner's name and e-mail as last read from the directory. A run whose delta brings no item uses them
   * and makes no directory request (one listing request per custodian); a run with items reads them again.
   */
  owner?: { name: string | null; email: string | null };
}

export interface ConnectorState {
  v: 1;
  users: Record<string, UserState>;
}

/**
 * A stored value from an earlier version or a corrupted store is ignored: a full enumeration is always safe.
 * `only`: the users wanted (a unit's own), looked up instead of reading every user's (10,000 of them, #25).
 */
export function readState(value: unknown, only?: Iterable<string>): ConnectorState | undefined {
  if (!isObject(value) || value.v !== 1 || !isObject(value.users)) return undefined;
  const stored = value.users;
  const users: Record<string, UserState> = {};
  for (const id of only ?? Object.keys(stored)) {
    const raw = Object.hasOwn(stored, id) ? stored[id] : undefined;
    if (!isObject(raw) || !isObject(raw.folders) || !['round', 'done', 'failed'].includes(raw.phase as string))
      continue;
    users[id] = raw as unknown as UserState;
  }
  return { v: 1, users };
}

/** Where a user's run starts: the previous run's deltaLink and folder map, or a full enumeration. */
export function startingState(previous: UserState | undefined, isValidLink: (link: unknown) => boolean): UserState {
  if (previous?.phase === 'done' && isValidLink(previous.link)) {
    // a copy: the round changes its map in place, and the previous cursors are shared by every unit attempt of the
    // run in this process (unit-memo.ts); a second attempt must replay the delta against what the last run left
    return {
      phase: 'round',
      link: previous.link,
      full: false,
      folders: { ...previous.folders },
      owner: previous.owner,
    };
  }
  return { phase: 'round', link: null, full: true, folders: {} };
}

/**
 * The cursors a completed run leaves: finished users' deltaLinks, earlier ones for users that did not finish.
 * A run limited to some users (`partial`) keeps every other user's earlier cursor too.
 */
export function cursorsOf(
  current: ConnectorState,
  previous: ConnectorState | undefined,
  partial = false,
): ConnectorState {
  const users: Record<string, UserState> = {};
  if (partial) for (const [id, st] of Object.entries(previous?.users ?? {})) if (st.phase === 'done') users[id] = st;
  for (const [id, st] of Object.entries(current.users)) {
    if (st.phase === 'done')
      users[id] = { phase: 'done', link: st.link, full: false, folders: st.folders, owner: st.owner };
    else if (previous?.users[id]?.phase === 'done') users[id] = previous.users[id];
  }
  return { v: 1, users };
}

/** A delta entry reduced to what placing it needs (the raw one carries a pre-authenticated download URL). */
export function slimEntry(item: DriveItem): DriveItem {
  const out: DriveItem = { id: item.id };
  if (item.name !== undefined) out.name = item.name;
  if (item.eTag !== undefined) out.eTag = item.eTag;
  if (item.parentReference?.id !== undefined) out.parentReference = { id: item.parentReference.id };
  if (item.file) out.file = {};
  if (item.folder) out.folder = {};
  if (item.package) out.package = {};
  if (item.remoteItem) out.remoteItem = {};
  return out;
}
