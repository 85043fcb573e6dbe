// Discovery (spec endpoints 6 and 7): users of every status, and one user's channels. Our pages are built from
// Zoom's (users: one status at a time, 300 a page; channels: 50 a page), so `offset` is our own cursor: which
// Zoom page to fetch (its status and token) and how many of its entries were already returned.
import { DomainError, invalidInput } from '../../domain/errors.ts';
import type { DiscoveryHandler, ProviderContext } from '../types.ts';
import { chatUserPath, isPageTokenRefused, isUserGone, scoped, ZoomApi } from './api.ts';
import type { ChannelsPage, ChatChannel, UsersPage, ZoomUser } from './wire.ts';

export const DISCOVERY_PAGE_MAX = 300;
/** GET /users lists one status at a time and defaults to active only; departed custodians are `inactive`. */
export const USER_STATUSES = ['active', 'inactive', 'pending'] as const;
const ZOOM_USERS_PAGE = 300;
const ZOOM_CHANNELS_PAGE = 50;

interface Cursor {
  /** index into USER_STATUSES (users only) */
  s: number;
  /** Zoom's token for the page to fetch; absent for a first page */
  t?: string;
  /** entries of that page already returned */
  k: number;
}

export function parseLimit(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DISCOVERY_PAGE_MAX;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < 1) throw invalidInput('limit must be a positive integer.', 'limit');
  return Math.min(Number(raw), DISCOVERY_PAGE_MAX);
}

function encodeCursor(c: Cursor): string {
  return `z1.${Buffer.from(JSON.stringify(c)).toString('base64url')}`;
}

function decodeCursor(raw: string | undefined, statuses: number): Cursor {
  if (raw === undefined || raw === '') return { s: 0, k: 0 };
  const bad = () => invalidInput('offset is not a next_page_token this API returned.', 'offset');
  if (!raw.startsWith('z1.')) throw bad();
  let c: Partial<Cursor>;
  try {
    c = JSON.parse(Buffer.from(raw.slice(3), 'base64url').toString('utf8')) as Partial<Cursor>;
  } catch {
    throw bad();
  }
  const okIndex = (n: unknown, max: number) => Number.isInteger(n) && (n as number) >= 0 && (n as number) < max;
  if (!c || !okIndex(c.s, statuses) || !okIndex(c.k, 100_000) || (c.t !== undefined && typeof c.t !== 'string'))
    throw bad();
  return { s: c.s!, t: c.t, k: c.k! };
}

/** A page token older than 15 minutes is refused by Zoom: the client starts over. */
async function zoomPage<T>(run: () => Promise<T>, what: string): Promise<T> {
  try {
    return await scoped(what, run);
  } catch (err) {
    if (isPageTokenRefused(err))
      throw invalidInput('offset has expired (Zoom page tokens live 15 minutes); list again from the start.', 'offset');
    throw err;
  }
}

export function usersHandler(apiUrl: string): DiscoveryHandler {
  return async (ctx: ProviderContext, query) => {
    const limit = parseLimit(query.limit);
    let { s, t, k } = decodeCursor(query.offset, USER_STATUSES.length);
    const api = new ZoomApi(ctx.http, apiUrl, ctx.signal);
    const results: Array<{ id: string; data: ZoomUser }> = [];
    while (results.length < limit && s < USER_STATUSES.length) {
      const page = await zoomPage(
        () =>
          api.get<UsersPage>('/users', { status: USER_STATUSES[s], page_size: ZOOM_USERS_PAGE, next_page_token: t }),
        'listing users',
      );
      const users = page?.users ?? [];
      const taken = users.slice(k, k + (limit - results.length));
      results.push(...taken.map((u) => ({ id: u.id, data: u })));
      if (k + taken.length < users.length) {
        k += taken.length;
        break;
      }
      k = 0;
      if (page?.next_page_token) {
        t = page.next_page_token;
      } else {
        s += 1;
        t = undefined;
      }
    }
    return { results, next_page_token: s < USER_STATUSES.length ? encodeCursor({ s, t, k }) : null };
  };
}

/** Public channels are types 3 (account) and 5 (anyone); 1, 2 and 4 are private channels and group chats. */
export function isPrivateChannel(c: Pick<ChatChannel, 'type'>): boolean {
  return c.type !== 3 && c.type !== 5;
}

export function channelsHandler(apiUrl: string): DiscoveryHandler {
  return async (ctx: ProviderContext, query) => {
    const user = query.user?.trim();
    if (!user) throw invalidInput('user is required: a user id from GET /collections/{id}/users.', 'user');
    const limit = parseLimit(query.limit);
    let { t, k } = decodeCursor(query.offset, 1);
    const api = new ZoomApi(ctx.http, apiUrl, ctx.signal);
    const results: Array<{ id: string; name: string; is_private: boolean }> = [];
    let done = false;
    while (results.length < limit) {
      let page: ChannelsPage;
      try {
        page = await zoomPage(
          () =>
            api.get<ChannelsPage>(chatUserPath(user, '/channels'), {
              page_size: ZOOM_CHANNELS_PAGE,
              next_page_token: t,
            }),
          "listing the user's channels",
        );
      } catch (err) {
        if (isUserGone(err)) throw new DomainError('not_found', `Zoom user ${user} not found.`, 'user');
        throw err;
      }
      const channels = page?.channels ?? [];
      const taken = channels.slice(k, k + (limit - results.length));
      results.push(...taken.map((c) => ({ id: c.id, name: c.name ?? '', is_private: isPrivateChannel(c) })));
      if (k + taken.length < channels.length) {
        k += taken.length;
        break;
      }
      k = 0;
      if (!page?.next_page_token) {
        done = true;
        break;
      }
      t = page.next_page_token;
    }
    return { results, next_page_token: done ? null : encodeCursor({ s: 0, t, k }) };
  };
}
