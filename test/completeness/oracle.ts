// The independent oracle: what a sync must collect, written from the selection and filter tables of
// ../shared/spec/collection-sync-api.md and read off the simulators' own models. It imports nothing from
// src/domain/filters or src/connectors on purpose: it is what those are checked against.
//
// Decisions where the spec is silent (the same ones the public item contract makes, see README and the
// OpenAPI `kind` parameter):
// - conf: every meeting a selected owner hosted is a `meeting` item (source id: its UUID); recording files become
//   `recording_video` (MP4), `recording_audio` (M4A), `transcript` (TRANSCRIPT, and CC / TIMELINE, which the
//   contract has no kind for), `meeting_chat` (CHAT); an AI summary is `ai_meeting_notes` (source id: the meeting
//   UUID). A file Zoom lists without an `id` is keyed `<meeting uuid>|<file_type>|<recording_start>`.
// - conf chats: a selected owner's one-to-one conversations (with anyone, deleted users included) give
//   `chat_message`s; a selected channel's messages are reached through a selected owner who is a member
//   (`channel_message`, held for the channel as a unit of its own, or for a member owner). A message is one item
//   however many selected owners saw it.
// - conf chats (issue 20, from ../shared/reference/zoom-api.md): one-to-one conversations with contacts outside the
//   account count like any other (Correction Z4); every file attached to a collected message is a `chat_file`
//   (source id: its `file_id`) held for the same custodian (Correction Z5); a message more than six calendar
//   months old cannot be listed at all (Correction Z6: 400 code 300), so none is expected. A channel whose
//   `channel_settings.new_members_can_see_previous_messages_files` is false shows each member the messages since
//   they joined (`to_channel` "only returns messages sent and/or received by the user"): its expected messages are
//   those some selected member saw.
// - conf chat reports (issue 20, `scopes_type=preservation`; reference §Team Chat "Related" and Zoom's @zoom/rivet
//   typings): when the grant holds the reports' scopes, `GET /report/chat/sessions/{sessionId}` with
//   `include_fields=edited_messages,deleted_messages` returns every edit and deletion of a session (account level,
//   so a channel's whole history, whoever joined when; days from the one holding the six-month limit). Each is an
//   item of its conversation's kind: source id `<message id>|edited|<action_timestamp>` or `<message id>|deleted`,
//   held for a selected owner who is a member of a one-to-one conversation, or for a selected channel with a
//   selected member (its unit, as its messages).
// - conf legal hold (issue 20, same sources, `LegalHold*` typings): when the grant holds the legal-hold scopes and
//   the chats selection takes anything, every export (`file_key`) of a selected owner in a matter that holds them
//   and is `ready_for_download` is a `legal_hold_file` with its bytes (source id `<matter_id>|<file_key>`), held for
//   that owner; one still being prepared is not an item yet.
// - A selection entry `{<key>: <boolean>}` switches its key only when the boolean is true.
// - edrive: a user key's `all_selected` takes every item of the drive but the root, minus each excluded folder and
//   everything beneath it; `selected` takes each selected folder and everything beneath it (not its ancestors).
import type { ZoomMeeting, ZoomRecordingFile, ZoomTenant } from '../../sandbox/zoom/index.ts';
import type { ZoomChatMessage } from '../../sandbox/zoom/tenant.ts';
import type { MsItem } from '../../sandbox/microsoft/index.ts';

export interface SpecSelection<T> {
  all_selected: boolean;
  selected: T[];
  excluded: T[];
}

export type IdEntry = { id: string };
export type ContentKey = 'chat' | 'audio' | 'video' | 'transcript' | 'AI-meeting-notes';
export type ContentEntry = Partial<Record<ContentKey, boolean>>;
export type ChatEntry = { 'one-to-one': boolean } | { channels: SpecSelection<IdEntry> };

export interface SpecConfFilters {
  account_owners: SpecSelection<IdEntry>;
  content_selections: SpecSelection<ContentEntry>;
  chats?: SpecSelection<ChatEntry>;
}

export interface SpecUserFolders extends SpecSelection<IdEntry> {
  filter_type: 'user_folders';
  filter_name: string;
}

export type SpecEdriveFilters = Record<string, SpecUserFolders>;

/** One item that must be collected: custodian is who it is collected for (any of `custodians` for shared chats). */
export interface Expected {
  kind: string;
  sourceId: string;
  custodians: string[];
}

export const key = (kind: string, sourceId: string): string => `${kind}|${sourceId}`;

/** "When true, everything in scope … minus the entries in excluded. When false, only the entries in selected." */
function includes<T>(sel: SpecSelection<T>, scope: T, same: (a: T, b: T) => boolean): boolean {
  return sel.all_selected ? !sel.excluded.some((e) => same(e, scope)) : sel.selected.some((e) => same(e, scope));
}

const sameId = (a: IdEntry, b: IdEntry) => a.id === b.id;

export function selectsId(sel: SpecSelection<IdEntry>, id: string): boolean {
  return includes(sel, { id }, sameId);
}

/** The five content keys of the conf table that a content selection switches on. */
export function contentOn(sel: SpecSelection<ContentEntry>): Set<ContentKey> {
  const keys: ContentKey[] = ['chat', 'audio', 'video', 'transcript', 'AI-meeting-notes'];
  const on = (list: ContentEntry[], k: ContentKey) => list.some((e) => e[k] === true);
  return new Set(keys.filter((k) => (sel.all_selected ? !on(sel.excluded, k) : on(sel.selected, k))));
}

/**
 * Chats: no `chats` key, nothing. Otherwise the selection object over the two entry types: one-to-one, and the
 * channels, each selected channel by its own nested selection. With `all_selected` every channel is in scope but
 * those a `channels` entry in `excluded` selects.
 */
export function chatsOn(chats: SpecSelection<ChatEntry> | undefined): {
  oneToOne: boolean;
  channel: (id: string) => boolean;
} {
  if (!chats) return { oneToOne: false, channel: () => false };
  const oneToOne = (list: ChatEntry[]) => list.some((e) => 'one-to-one' in e && e['one-to-one'] === true);
  const channelsEntry = (list: ChatEntry[]) =>
    list.find((e): e is { channels: SpecSelection<IdEntry> } => 'channels' in e);
  if (chats.all_selected) {
    // Everything minus `excluded`: a `channels` entry there takes away the channels its own selection selects.
    const off = channelsEntry(chats.excluded);
    return { oneToOne: !oneToOne(chats.excluded), channel: (id) => !(off && selectsId(off.channels, id)) };
  }
  const nested = chats.selected.find((e): e is { channels: SpecSelection<IdEntry> } => 'channels' in e);
  return { oneToOne: oneToOne(chats.selected), channel: (id) => (nested ? selectsId(nested.channels, id) : false) };
}

export const FILE_KINDS: Record<ZoomRecordingFile['file_type'], { kind: string; content: ContentKey }> = {
  MP4: { kind: 'recording_video', content: 'video' },
  M4A: { kind: 'recording_audio', content: 'audio' },
  TRANSCRIPT: { kind: 'transcript', content: 'transcript' },
  CC: { kind: 'transcript', content: 'transcript' },
  TIMELINE: { kind: 'transcript', content: 'transcript' },
  CHAT: { kind: 'meeting_chat', content: 'chat' },
};

export function zoomFileSourceId(m: ZoomMeeting, f: ZoomRecordingFile): string {
  return f.idOnWire ? f.id : `${m.uuid}|${f.file_type}|${f.recording_start}`;
}

/**
 * Whether a meeting can be found at all (../shared/reference/zoom-api.md, Corrections Z1-Z3): through its
 * recordings (the ordinary listing or, trashed, the trash listing: a trashed recording is still at the source), or,
 * never recorded, through the account's summaries list, which is read only when AI meeting notes are selected.
 */
export function meetingListed(m: ZoomMeeting, content: Set<ContentKey>): boolean {
  const recorded = m.recording_files.length > 0 || (m.participant_audio_files ?? []).length > 0;
  return recorded || (!!m.summary && content.has('AI-meeting-notes'));
}

/** Participant audio (Correction Z1): one `participant_audio` item per file, selected by `audio`, held for the host. */
export function participantAudio(m: ZoomMeeting, content: Set<ContentKey>): Array<{ kind: string; sourceId: string }> {
  if (!content.has('audio')) return [];
  return (m.participant_audio_files ?? []).map((f) => ({ kind: 'participant_audio', sourceId: f.id }));
}

/** Everything a conf collection with these filters must hold, from the Zoom simulator's ground truth. */
export function confOracle(
  tenant: ZoomTenant,
  filters: SpecConfFilters,
  sinceMs = -Infinity,
  nowMs = Date.now(),
  opts: { reports?: boolean; legalHold?: boolean } = {},
): Map<string, Expected> {
  const out = new Map<string, Expected>();
  const add = (kind: string, sourceId: string, custodian: string) => {
    const k = key(kind, sourceId);
    const found = out.get(k);
    if (found) {
      if (!found.custodians.includes(custodian)) found.custodians.push(custodian);
    } else out.set(k, { kind, sourceId, custodians: [custodian] });
  };
  const reach = Math.max(sinceMs, chatReach(nowMs));
  const addMessage = (kind: string, msg: ZoomChatMessage, custodian: string) => {
    add(kind, msg.id, custodian);
    for (const f of msg.files ?? []) add('chat_file', f.file_id, custodian);
  };
  const content = contentOn(filters.content_selections);
  const chats = chatsOn(filters.chats);
  const owners = tenant.users.filter((u) => selectsId(filters.account_owners, u.id));
  for (const owner of owners) {
    for (const m of tenant.meetingsOf(owner.id)) {
      if (Date.parse(m.start_time) < sinceMs || !meetingListed(m, content)) continue;
      add('meeting', m.uuid, owner.id);
      for (const e of participantAudio(m, content)) add(e.kind, e.sourceId, owner.id);
      for (const f of m.recording_files) {
        const mapped = FILE_KINDS[f.file_type];
        if (content.has(mapped.content)) add(mapped.kind, zoomFileSourceId(m, f), owner.id);
      }
      if (m.summary && content.has('AI-meeting-notes')) add('ai_meeting_notes', m.uuid, owner.id);
    }
    if (chats.oneToOne) {
      for (const { conversation } of tenant.conversationsOf(owner.id)) {
        for (const msg of conversation.messages) if (msg.timestamp >= reach) addMessage('chat_message', msg, owner.id);
      }
    }
    for (const channel of tenant.channelsOf(owner.id)) {
      if (!chats.channel(channel.id)) continue;
      for (const msg of tenant.channelMessages[channel.id] ?? []) {
        if (msg.timestamp < reach) continue;
        // A channel that does not show new members its history: what some selected member saw, no more.
        const joined = channel.joinedAt?.[owner.id];
        if (joined !== undefined && msg.timestamp < joined) continue;
        // Issue 10 makes a channel a unit of its own (custodian: the channel id); a member owner is the older reading.
        addMessage('channel_message', msg, channel.id);
        addMessage('channel_message', msg, owner.id);
      }
    }
    if (opts.reports) reportEntries(tenant, owner.id, chats, Math.max(sinceMs, chatReach(nowMs)), add);
    const anyChats = !!filters.chats && (filters.chats.all_selected || filters.chats.selected.length > 0);
    if (opts.legalHold && anyChats)
      for (const matter of tenant.legalHoldMatters)
        for (const f of matter.files)
          if (f.userId === owner.id && matter.userIds.includes(owner.id) && f.ready_for_download)
            add('legal_hold_file', `${matter.matter_id}|${f.file_key}`, owner.id);
  }
  return out;
}

/** The chat reports' edits and deletions of what a selected owner's chats select (see the header). */
function reportEntries(
  tenant: ZoomTenant,
  ownerId: string,
  chats: ReturnType<typeof chatsOn>,
  reachMs: number,
  add: (kind: string, sourceId: string, custodian: string) => void,
): void {
  const fromDay = Math.floor(reachMs / 86_400_000) * 86_400_000;
  const each = (kind: string, messages: ZoomChatMessage[], custodian: string) => {
    for (const m of messages) {
      if (m.timestamp < fromDay) continue;
      if (m.status === 'Edited') add(kind, `${m.id}|edited|${m.actionAt}`, custodian);
      if (m.status === 'Deleted') add(kind, `${m.id}|deleted`, custodian);
    }
  };
  if (chats.oneToOne)
    for (const { conversation } of tenant.conversationsOf(ownerId))
      each('chat_message', conversation.messages, ownerId);
  for (const channel of tenant.channelsOf(ownerId))
    if (chats.channel(channel.id)) each('channel_message', tenant.channelMessages[channel.id] ?? [], channel.id);
}

/** Correction Z6: Team Chat messages reach back six calendar months (UTC) from the moment of the request. */
export function chatReach(nowMs: number): number {
  const d = new Date(nowMs);
  d.setUTCMonth(d.getUTCMonth() - 6);
  return d.getTime();
}

/**
 * Channels the filters name one by one (not "every channel but…") that no selected owner is a member of: nothing of
 * theirs can be collected, and the run must say so (a failed unit each) rather than pass over them.
 */
export function unreachableChannels(tenant: ZoomTenant, filters: SpecConfFilters): string[] {
  const chats = chatsOn(filters.chats);
  // an id nobody named: selected only when the selection takes every channel (minus some)
  if (!filters.chats || chats.channel('\u0000named-by-nobody')) return [];
  const named = new Set<string>();
  const collect = (entries: ChatEntry[]) => {
    for (const e of entries)
      if ('channels' in e) for (const c of [...e.channels.selected, ...e.channels.excluded]) named.add(c.id);
  };
  collect(filters.chats.selected);
  collect(filters.chats.excluded);
  const owners = tenant.users.filter((u) => selectsId(filters.account_owners, u.id));
  const reached = new Set(owners.flatMap((o) => tenant.channelsOf(o.id).map((c) => c.id)));
  return [...named].filter((id) => chats.channel(id) && !reached.has(id)).sort();
}

/** What the Microsoft simulator exposes of a drive: its live items, parents first, the root at index 0. */
export type DriveOf = (userId: string) => MsItem[] | null;

/** Everything an edrive collection with these filters must hold. */
export function edriveOracle(driveOf: DriveOf, filters: SpecEdriveFilters): Map<string, Expected> {
  const out = new Map<string, Expected>();
  for (const [userId, sel] of Object.entries(filters)) {
    const items = driveOf(userId);
    if (!items) continue;
    const parent = new Map(items.map((i) => [i.id, i.parentId]));
    /** The item and its ancestors up to (not including) the root. */
    const lineage = (id: string): string[] => {
      const chain: string[] = [];
      for (let cur: string | null | undefined = id; cur && parent.get(cur) !== null; cur = parent.get(cur))
        chain.push(cur);
      return chain;
    };
    const ids = (list: IdEntry[]) => new Set(list.map((e) => e.id));
    const excluded = ids(sel.excluded);
    const selected = ids(sel.selected);
    for (const item of items) {
      if (item.parentId === null) continue;
      const chain = lineage(item.id);
      const take = sel.all_selected ? !chain.some((id) => excluded.has(id)) : chain.some((id) => selected.has(id));
      if (take) out.set(key(item.kind, item.id), { kind: item.kind, sourceId: item.id, custodians: [userId] });
    }
  }
  return out;
}
