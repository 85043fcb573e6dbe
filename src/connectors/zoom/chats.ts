// One owner's Team Chat: one-to-one conversations (peers from the chat sessions list, messages by `to_contact`)
// and channel messages (`to_channel`). Messages carry no content to download, so pages are streamed and the
// checkpoint keeps the next page's token; a token too old to use restarts that window.
import { selectsId } from '../../domain/filters/selection.ts';
import { ProviderError } from '../../provider/provider-error.ts';
import type { CollectEvent, UnitSpec } from '../types.ts';
import { chatUserPath, firstPage, isUserGone, pages, type EarlyPage, type Query } from './api.ts';
import { CHAT_PAGE, firstPagesAhead, messageListing, targetMessages, type FirstPages } from './chat-messages.ts';
import { isPrivateChannel } from './discovery.ts';
import { chatLimitEvent } from './chat-window.ts';
import type { Conversation, Owner } from './items.ts';
import type { ZoomRun } from './run.ts';
import type { ChatTarget, Position } from './state.ts';
import type { ChannelsPage, SessionsPage } from './wire.ts';
import { DAY_MS, isoSeconds, parseTime } from './windows.ts';

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

/** One of an owner's chat listings of targets: what collectOneToOne and collectChannels walk first. */
interface TargetListing {
  what: string;
  path: string;
  query: Query;
}

function sessionsListing(run: ZoomRun, owner: Owner): TargetListing {
  const from = isoSeconds(run.ownerSince(owner.id));
  const to = isoSeconds(run.state.startedAt + 1000);
  return {
    what: 'listing chat sessions',
    path: chatUserPath(owner.id, '/sessions'),
    query: { type: '1:1', page_size: CHAT_PAGE, from, to },
  };
}

function channelsListing(owner: Owner): TargetListing {
  return { what: 'listing channels', path: chatUserPath(owner.id, '/channels'), query: { page_size: CHAT_PAGE } };
}

/** The first pages of an owner's chat listings of targets, asked for ahead of their phase (chatListingsAhead). */
export interface ChatFirsts {
  sessions?: Promise<EarlyPage<SessionsPage>>;
  channels?: Promise<EarlyPage<ChannelsPage>>;
}

/**
 * Asked for when an owner's collection starts, while the recordings are listed (issue 25: each listing asked for in
 * its turn kept an owner's last requests one after the other). Only the first page, and nothing claimed: the phase
 * takes it in its turn (pages(): a page whose token outlived its use is asked for again) and claims what it lists
 * then, so a unit that stops before its chats reached none. A failure is thrown in the phase's turn, as before.
 */
export function chatListingsAhead(
  run: ZoomRun,
  owner: Owner,
  phases: { oneToOne: boolean; channels: boolean },
): ChatFirsts {
  const ask = <T extends SessionsPage | ChannelsPage>(l: TargetListing) => {
    const first = firstPage<T>(run.api, l.what, l.path, l.query, run.now);
    first.catch(() => undefined);
    return first;
  };
  return {
    ...(phases.oneToOne && { sessions: ask<SessionsPage>(sessionsListing(run, owner)) }),
    ...(phases.channels && run.channels && { channels: ask<ChannelsPage>(channelsListing(owner)) }),
  };
}

export async function* collectOneToOne(
  run: ZoomRun,
  owner: Owner,
  pos: Position,
  first?: Promise<EarlyPage<SessionsPage>>,
): AsyncGenerator<CollectEvent> {
  if (!pos.targets) yield* chatLimitEvent(run, owner.id, owner.email || owner.id, run.ownerSince(owner.id));
  yield* beginTargets(run, pos, () => oneToOnePeers(run, owner, first));
  yield* eachTarget(
    run,
    owner,
    pos,
    (t) => ({ type: 'one-to-one', id: t.id, name: t.name }),
    (t) => ({ to_contact: t.contact }),
  );
}

export async function* collectChannels(
  run: ZoomRun,
  owner: Owner,
  pos: Position,
  first?: Promise<EarlyPage<ChannelsPage>>,
): AsyncGenerator<CollectEvent> {
  const fresh = !pos.targets;
  yield* beginTargets(run, pos, () => ownerChannels(run, owner, first));
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
async function oneToOnePeers(
  run: ZoomRun,
  owner: Owner,
  first?: Promise<EarlyPage<SessionsPage>>,
): Promise<ChatTarget[]> {
  const since = run.ownerSince(owner.id);
  const until = run.state.startedAt;
  const l = sessionsListing(run, owner);
  const targets = new Map<string, ChatTarget>();
  for await (const { page } of pages<SessionsPage>(run.api, l.what, l.path, l.query, null, run.now, first)) {
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
async function ownerChannels(
  run: ZoomRun,
  owner: Owner,
  first?: Promise<EarlyPage<ChannelsPage>>,
): Promise<ChatTarget[]> {
  const selection = run.channels;
  if (!selection) return [];
  const targets: ChatTarget[] = [];
  const l = channelsListing(owner);
  for await (const { page } of pages<ChannelsPage>(run.api, l.what, l.path, l.query, null, run.now, first)) {
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
  const listing = (t: ChatTarget, view: number) => messageListing(run, t, select(t), t.views?.[view] ?? owner.id);
  /** The first pages of the target after this one (its first view), asked for once this one asked for all of its. */
  let asked: FirstPages | undefined;
  for (pos.target ??= 0; pos.target < targets.length; pos.target++) {
    const t = targets[pos.target];
    const c = conversation(t);
    const unit = c.type === 'channel' ? t.id : owner.id;
    if (c.type === 'channel') yield { type: 'unit', unit: channelUnit(t), status: 'running' };
    const mine = asked;
    asked = undefined;
    const nextTarget = targets[pos.target + 1];
    const askNext = () => {
      if (nextTarget && !asked) asked = firstPagesAhead(run, listing(nextTarget, 0));
    };
    let complete = true;
    try {
      const views = t.views ?? [owner.id];
      for (pos.view ??= 0; pos.view < views.length; pos.view++) {
        try {
          const ahead = { asked: pos.view === 0 ? mine : undefined, allAsked: askNext };
          const read = targetMessages(run, owner, pos, t, c, listing(t, pos.view), unit, views[pos.view], ahead);
          complete = (yield* read) && complete;
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
