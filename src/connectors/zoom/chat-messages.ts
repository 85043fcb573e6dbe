// The messages of one chat target (a one-to-one conversation or a channel, through one member's view), month window
// by month window. The first pages of the next windows, and of the next target's first windows, are asked for while
// this window's messages are handed over (ahead.ts); the checkpoint still names the window (and page) being handed
// over, so a resumed run skips none.
import type { CollectEvent } from '../types.ts';
import { inOrderAhead, LISTINGS_AHEAD } from './ahead.ts';
import { chatUserPath, firstPage, isPieceFailure, pages, type EarlyPage, type Query } from './api.ts';
import { chatFileEvents } from './chat-files.ts';
import { chatFloor } from './chat-window.ts';
import { messageItem, type Conversation, type Owner } from './items.ts';
import { recordEvent } from './record.ts';
import type { ZoomRun } from './run.ts';
import type { ChatTarget, Position } from './state.ts';
import type { MessagesPage } from './wire.ts';
import { isoSeconds, monthWindows, type Window } from './windows.ts';

export const CHAT_PAGE = 50;
const LISTING_MESSAGES = 'listing chat messages';
/** First pages of one target's windows in flight at once. */
const WINDOWS_AHEAD = LISTINGS_AHEAD + 1;

/** A target's messages as one member lists them: month windows of one path. */
export interface MessageListing {
  windows: Window[];
  path: string;
  queryOf(w: Window): Query;
}

/** First pages asked for ahead, by window index. */
export type FirstPages = Map<number, Promise<EarlyPage<MessagesPage>>>;

export function messageListing(run: ZoomRun, t: ChatTarget, select: Query, through: string): MessageListing {
  return {
    // Zoom serves the last six months only: older windows are a provider limit (reported once), not a failure.
    windows: monthWindows(Math.max(t.since, chatFloor(run)), t.until),
    path: chatUserPath(through, '/messages'),
    // `to` is inclusive and whole seconds: the next window's first instant, so no sub-second gap opens between two.
    queryOf: (w) => ({
      ...select,
      from: isoSeconds(w.start),
      to: isoSeconds(w.end + 1000),
      page_size: CHAT_PAGE,
      include_deleted_and_edited_message: true,
    }),
  };
}

function askFirst(run: ZoomRun, l: MessageListing, k: number): Promise<EarlyPage<MessagesPage>> {
  const first = firstPage<MessagesPage>(run.api, LISTING_MESSAGES, l.path, l.queryOf(l.windows[k]), run.now);
  // Awaited when its window's turn comes, or never (the walk stopped first): not an unhandled rejection.
  first.catch(() => undefined);
  return first;
}

/**
 * The first pages of a target's first windows, asked for while the target before it is handed over (issue 25: an
 * owner's conversations walked one after the other kept one or two requests in flight at the end of a run).
 */
export function firstPagesAhead(run: ZoomRun, l: MessageListing): FirstPages {
  const ahead: FirstPages = new Map();
  for (let k = 0; k < Math.min(WINDOWS_AHEAD, l.windows.length); k++) ahead.set(k, askFirst(run, l, k));
  return ahead;
}

/**
 * Yields the conversation's messages; returns false when a page could not be read (reported, window skipped).
 * `asked`: first pages already asked for (firstPagesAhead), used where the walk starts a window afresh.
 * `allAsked`: called once every window of this walk was asked for (the next target's may be asked then).
 */
export async function* targetMessages(
  run: ZoomRun,
  owner: Owner,
  pos: Position,
  t: ChatTarget,
  c: Conversation,
  l: MessageListing,
  unit: string,
  through: string,
  ahead: { asked?: FirstPages; allAsked?: () => void } = {},
): AsyncGenerator<CollectEvent, boolean> {
  // A window resumed at a page mark goes on from that page: its first page is not asked for.
  const resumed = pos.page ? pos.window : -1;
  const last = l.windows.length - 1;
  if (pos.window > last) ahead.allAsked?.();
  type Ahead = { first?: Promise<EarlyPage<MessagesPage>> };
  const firsts = inOrderAhead(pos.window, l.windows.length, WINDOWS_AHEAD, (k): Promise<Ahead> => {
    if (k === last) ahead.allAsked?.();
    if (k === resumed) return Promise.resolve({});
    // Handed over unsettled: a window whose page fails is reported in its turn below, and the walk goes on.
    return Promise.resolve({ first: ahead.asked?.get(k) ?? askFirst(run, l, k) });
  });
  let complete = true;
  for await (const { first } of firsts) {
    const w = l.windows[pos.window];
    try {
      for await (const { page, next } of pages<MessagesPage>(
        run.api,
        LISTING_MESSAGES,
        l.path,
        l.queryOf(w),
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
