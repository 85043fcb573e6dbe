// One owner's Team Chat: one-to-one conversations (peers from the chat sessions list, messages by `to_contact`)
// and channel messages (`to_channel`). Messages carry no content to download, so pages are streamed and the
// checkpoint keeps the next page's token; a token too old to use restarts that window.
import { selectsId } from '../../domain/filters/selection.ts';
import { ProviderError } from '../../provider/provider-error.ts';
import type { CollectEvent, UnitSpec } from '../types.ts';
import { inOrderAhead, LISTINGS_AHEAD } from './ahead.ts';
import { chatUserPath, firstPage, isPieceFailure, isUserGone, pages, type EarlyPage, type Query } from './api.ts';
import { isPrivateChannel } from './discovery.ts';
import { chatFileEvents } from './chat-files.ts';
import { chatFloor, chatLimitEvent } from './chat-window.ts';
import { messageItem, type Conversation, type Owner } from './items.ts';
import { recordEvent } from './record.ts';
import type { ZoomRun } from './run.ts';
import type { ChatTarget, Position } from './state.ts';
import type { ChannelsPage, MessagesPage, SessionsPage } from './wire.ts';
import { DAY_MS, isoSeconds, monthWindows, parseTime, type Window } from './windows.ts';

const CHAT_PAGE = 50;
const LISTING_MESSAGES = 'listing chat messages';

/** The first time a phase reaches an owner: list its targets, start at the first, and make that durable. */
async function* beginTargets(
  run: ZoomRun,
  pos: Position,
  list: () => Promise<NonNullable<Position['targets']>>,
): AsyncGenerator<CollectEvent> {
  if (pos.targets) return;
  pos.targets = await list();
  pos.target = 0;
  pos.window = 0;
  pos.page = null;
  yield run.checkpoint();
}

export async function* collectOneToOne(run: ZoomRun, owner: Owner, pos: Position): AsyncGenerator<CollectEvent> {
  if (!pos.targets) yield* chatLimitEvent(run, owner.id, owner.email || owner.id, run.ownerSince(owner.id));
  yield* beginTargets(run, pos, () => oneToOnePeers(run, owner));
  yield* eachTarget(
    run,
    owner,
    pos,
    (t) => ({ type: 'one-to-one', id: t.id, name: t.name }),
    (t) => ({ to_contact: t.contact }),
  );
}

export async function* collectChannels(run: ZoomRun, owner: Owner, pos: Position): AsyncGenerator<CollectEvent> {
  const fresh = !pos.targets;
  yield* beginTargets(run, pos, () => ownerChannels(run, owner));
  // Each channel is a unit of its own, collected through the first selected member that lists it.
  if (fresh) {
    for (const t of pos.targets ?? []) yield { type: 'unit', unit: channelUnit(t), status: 'pending' };
    for (const t of pos.targets ?? []) yield* chatLimitEvent(run, t.id, `channel ${t.name}`, t.since);
    for (const t of pos.targets ?? []) if (t.views) yield channelViewsLimit(t);
  }
  yield* eachTarget(
    run,
    owner,
    pos,
    (t) => ({ type: 'channel', id: t.id, name: t.name, isPrivate: t.isPrivate }),
    (t) => ({ to_channel: t.id }),
    (t) => run.state.channelsDone.push(t.id),
  );
}

/** A channel whose members see only what was sent since they joined: what no selected member saw is out of reach. */
function channelViewsLimit(t: ChatTarget): CollectEvent {
  return {
    type: 'provider_limit',
    custodian: t.id,
    kind: 'channel_history',
    sourceId: t.id,
    name: `channel ${t.name}: history before its selected members joined`,
    reason:
      `Zoom shows the members of channel ${t.name} only the messages sent since they joined, and the API returns a channel's messages as one member sees them: ` +
      `the views of the ${t.views?.length ?? 1} selected account owners were read and merged; messages sent before the earliest of them joined cannot be listed (select a member who joined earlier to reach them)`,
  };
}

function channelUnit(t: ChatTarget): UnitSpec {
  return { key: t.id, kind: 'channel', email: null, name: t.name || null };
}

/** Peers with a message since the owner's history start; conversations another owner already covered are left out. */
async function oneToOnePeers(run: ZoomRun, owner: Owner): Promise<ChatTarget[]> {
  const since = run.ownerSince(owner.id);
  const until = run.state.startedAt;
  const query = { type: '1:1', page_size: CHAT_PAGE, from: isoSeconds(since), to: isoSeconds(until + 1000) };
  const targets = new Map<string, ChatTarget>();
  for await (const { page } of pages<SessionsPage>(
    run.api,
    'listing chat sessions',
    chatUserPath(owner.id, '/sessions'),
    query,
    null,
    run.now,
  )) {
    for (const s of page.sessions ?? []) {
      if (s.type !== undefined && s.type !== '1:1') continue;
      const email = s.peer_contact_email || undefined;
      const userId = s.peer_contact_user_id || undefined;
      // A contact outside the account has a member id only (no user id, no e-mail): `to_contact` takes it too.
      const contact = email ?? userId ?? (s.peer_contact_member_id || undefined);
      if (!contact || targets.has(contact)) continue;
      let from = since;
      const peer = run.peerOwner({ id: userId, email });
      if (peer !== undefined && peer !== owner.id) {
        if (run.ctx.claim) {
          // A fanned-out run: the first unit to list the conversation collects it, over both owners' histories
          // (a peer owner whose unit fails, or whose user is deleted, does not take the conversation with it).
          if (!(await run.ctx.claim(`1:1:${[owner.id, peer].sort().join('|')}`))) continue;
          from = Math.min(since, run.ownerSince(peer));
        } else if (run.peerCovered(owner.id, peer)) continue;
      }
      const last = parseTime(s.last_message_sent_time ?? s.last_mesage_sent_time);
      // A day of slack past the last message the sessions list reports.
      const end = last === undefined ? until : Math.min(until, last + DAY_MS);
      targets.set(contact, {
        id: userId ?? contact,
        name: email ?? s.name ?? contact,
        contact,
        since: from,
        until: Math.max(from, end),
      });
    }
  }
  return [...targets.values()];
}

/** The owner's selected channels not yet collected in this run through another member. */
async function ownerChannels(run: ZoomRun, owner: Owner): Promise<ChatTarget[]> {
  const selection = run.channels;
  if (!selection) return [];
  const targets: ChatTarget[] = [];
  const query = { page_size: CHAT_PAGE };
  for await (const { page } of pages<ChannelsPage>(
    run.api,
    'listing channels',
    chatUserPath(owner.id, '/channels'),
    query,
    null,
    run.now,
  )) {
    for (const c of page.channels ?? []) {
      if (
        !c?.id ||
        !selectsId(selection, c.id) ||
        run.state.channelsDone.includes(c.id) ||
        targets.some((t) => t.id === c.id)
      )
        continue;
      // A fanned-out run: the channel is collected by the one owner's unit that claims it first.
      if (run.ctx.claim && !(await run.ctx.claim(c.id))) continue;
      // `to_channel` "only returns messages sent and/or received by the user": where new members do not see earlier
      // history, every selected owner's view is read and merged (a message is one item however many saw it).
      const perMember = c.channel_settings?.new_members_can_see_previous_messages_files === false;
      const views = perMember ? [owner.id, ...run.owners.map((o) => o.id).filter((id) => id !== owner.id)] : undefined;
      targets.push({
        id: c.id,
        name: c.name || c.id,
        isPrivate: isPrivateChannel(c),
        ...(views && { views }),
        since: run.channelSince(c.id),
        until: run.state.startedAt,
      });
    }
  }
  return targets;
}

async function* eachTarget(
  run: ZoomRun,
  owner: Owner,
  pos: Position,
  conversation: (t: ChatTarget) => Conversation,
  select: (t: ChatTarget) => Query,
  onDone?: (t: ChatTarget) => void,
): AsyncGenerator<CollectEvent> {
  const targets = pos.targets ?? [];
  for (pos.target ??= 0; pos.target < targets.length; pos.target++) {
    const t = targets[pos.target];
    const c = conversation(t);
    const unit = c.type === 'channel' ? t.id : owner.id;
    if (c.type === 'channel') yield { type: 'unit', unit: channelUnit(t), status: 'running' };
    let complete = true;
    try {
      const views = t.views ?? [owner.id];
      for (pos.view ??= 0; pos.view < views.length; pos.view++) {
        try {
          complete = (yield* targetMessages(run, owner, pos, t, c, select(t), unit, views[pos.view])) && complete;
        } catch (err) {
          // Another owner's view: one who is not a member (or is gone) has nothing to add; their own unit says why.
          if (
            pos.view === 0 ||
            !(
              err instanceof ProviderError &&
              err.status !== undefined &&
              err.status >= 400 &&
              err.status < 500 &&
              err.status !== 429
            )
          )
            throw err;
          run.ctx.log.debug(
            { channel: t.id, through: views[pos.view], status: err.status },
            'channel view not readable; skipped',
          );
        }
        pos.window = 0;
        pos.page = null;
      }
      pos.view = 0;
    } catch (err) {
      // A channel deleted while the run went on: not there any more, by HTTP semantics; the others continue.
      if (!(err instanceof ProviderError && err.status === 404 && t.contact === undefined) || isUserGone(err))
        throw err;
      yield {
        type: 'not_present',
        custodian: unit,
        kind: 'channel',
        sourceId: t.id,
        name: t.name,
        reason: `channel ${t.name} (${t.id}) is gone: ${err.message}`,
      };
    }
    if (complete) onDone?.(t);
    // A page that could not be read: its conversation is listed again from the previous mark next time.
    else if (c.type === 'one-to-one' && !run.state.failed.includes(owner.id)) run.state.failed.push(owner.id);
    if (c.type === 'channel') yield { type: 'unit', unit: channelUnit(t), status: complete ? 'done' : 'failed' };
    pos.window = 0;
    pos.page = null;
    yield run.checkpoint();
  }
}

/** Yields the conversation's messages; returns false when a page could not be read (reported, window skipped). */
async function* targetMessages(
  run: ZoomRun,
  owner: Owner,
  pos: Position,
  t: ChatTarget,
  c: Conversation,
  select: Query,
  unit: string,
  through = owner.id,
): AsyncGenerator<CollectEvent, boolean> {
  // Zoom serves the last six months only: older windows are a provider limit (reported once), not a failure.
  const windows = monthWindows(Math.max(t.since, chatFloor(run)), t.until);
  const path = chatUserPath(through, '/messages');
  // `to` is inclusive and whole seconds: the next window's first instant, so no sub-second gap opens between two.
  const queryOf = (w: Window): Query => ({
    ...select,
    from: isoSeconds(w.start),
    to: isoSeconds(w.end + 1000),
    page_size: CHAT_PAGE,
    include_deleted_and_edited_message: true,
  });
  // The first pages of the next windows are asked for while this one's messages are handed over (ahead.ts); the
  // checkpoint still names the window (and page) being handed over, so a resumed run skips none. A window resumed
  // at a page mark goes on from that page: its first page is not asked for.
  const resumed = pos.page ? pos.window : -1;
  type Ahead = { first?: Promise<EarlyPage<MessagesPage>> };
  const firsts = inOrderAhead(pos.window, windows.length, LISTINGS_AHEAD + 1, (k): Promise<Ahead> => {
    if (k === resumed) return Promise.resolve({});
    const first = firstPage<MessagesPage>(run.api, LISTING_MESSAGES, path, queryOf(windows[k]), run.now);
    // Awaited when its window's turn comes, or never (the walk stopped first): not an unhandled rejection.
    first.catch(() => undefined);
    // Handed over unsettled: a window whose page fails is reported in its turn below, and the walk goes on.
    return Promise.resolve({ first });
  });
  let complete = true;
  for await (const { first } of firsts) {
    const w = windows[pos.window];
    try {
      for await (const { page, next } of pages<MessagesPage>(
        run.api,
        LISTING_MESSAGES,
        path,
        queryOf(w),
        pos.page ?? null,
        run.now,
        first,
      )) {
        for (const msg of page.messages ?? []) {
          if (!msg?.id) continue;
          const listed = messageItem(owner, c, msg);
          // Read through another selected member's view of the channel: that member is who can list it again.
          if (through !== owner.id) listed.metadata.collected_through = through;
          const message = recordEvent(listed, msg);
          yield message;
          yield* chatFileEvents(owner, c, message.item, msg, { http: run.ctx.http, isZoomHost: run.isZoomHost });
        }
        pos.page = next;
        if (next) yield run.checkpoint();
      }
    } catch (err) {
      // Another owner's view of a channel: not theirs to report (the caller skips it).
      if (through !== owner.id || !isPieceFailure(err) || (err.status === 404 && c.type === 'channel')) throw err;
      complete = false;
      const span = `${isoSeconds(w.start)} to ${isoSeconds(w.end)}`;
      yield {
        type: 'error',
        reason: `a page of messages of ${c.type === 'channel' ? 'channel' : 'the conversation with'} ${t.name} (${span}) could not be read: ${err.message}; the rest of that month was not listed`,
        kind: 'chat_page',
        sourceId: `${t.id}|${isoSeconds(w.start)}`,
        name: `${t.name} ${span}`,
        custodian: unit,
      };
    }
    pos.page = null;
    pos.window += 1;
  }
  return complete;
}
