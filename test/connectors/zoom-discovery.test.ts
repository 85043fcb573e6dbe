import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connector, ProviderContext } from '../../src/connectors/types.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import { pair, session, testConnector } from './zoom-harness.ts';

let sandbox: ZoomSandbox;
let connector: Connector;
let ctx: ProviderContext;

beforeAll(async () => {
  // More users than one Zoom page (300) and more channels per user than one Zoom channel page (50).
  sandbox = await startZoomSandbox({
    seed: 3,
    users: 640,
    meetingsPerUser: 0,
    channels: 130,
    messagesPerChannel: 0,
    oneToOnePeersPerUser: 0,
  });
  connector = testConnector(sandbox);
  ctx = session(connector, await pair(connector)).ctx;
});

afterAll(async () => {
  await sandbox?.close();
});

type UsersPage = { results: Array<{ id: string; data: Record<string, unknown> }>; next_page_token: string | null };
type ChannelsPage = {
  results: Array<{ id: string; name: string; is_private: boolean }>;
  next_page_token: string | null;
};

const users = (q: Record<string, string | undefined>) => connector.discovery.users!(ctx, q) as Promise<UsersPage>;
const channels = (q: Record<string, string | undefined>) =>
  connector.discovery.channels!(ctx, q) as Promise<ChannelsPage>;

async function walk<T extends { next_page_token: string | null; results: unknown[] }>(
  list: (q: Record<string, string | undefined>) => Promise<T>,
  q: Record<string, string | undefined>,
) {
  const pages: T[] = [];
  let offset: string | undefined;
  for (let i = 0; i < 200; i++) {
    const page = await list({ ...q, offset });
    pages.push(page);
    if (page.next_page_token === null) return pages;
    offset = page.next_page_token;
  }
  throw new Error('paging did not end');
}

async function status(p: Promise<unknown>): Promise<number | undefined> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  return err instanceof DomainError ? err.status : undefined;
}

describe('zoom discovery: users', () => {
  it('lists every user of every status exactly once, 300 a page by default, null after the last page', async () => {
    const pages = await walk(users, {});
    expect(pages.map((p) => p.results.length)).toEqual([300, 300, 40]);
    const ids = pages.flatMap((p) => p.results.map((r) => r.id));
    expect(ids.sort()).toEqual(sandbox.tenant.users.map((u) => u.id).sort());
    const statuses = new Set(pages.flatMap((p) => p.results.map((r) => r.data.status)));
    expect(statuses).toEqual(new Set(['active', 'inactive', 'pending']));
    const first = pages[0].results[0];
    const u = sandbox.tenant.findUser(first.id)!;
    expect(first.data).toMatchObject({ id: u.id, first_name: u.first_name, last_name: u.last_name, email: u.email });
  });

  it("pages of any size cross Zoom's pages and statuses without loss or repetition", async () => {
    for (const limit of [7, 299, 301]) {
      const pages = await walk(users, { limit: String(limit) });
      const size = Math.min(limit, 300);
      expect(pages.slice(0, -1).every((p) => p.results.length === size)).toBe(true);
      const ids = pages.flatMap((p) => p.results.map((r) => r.id));
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBe(sandbox.tenant.users.length);
    }
  });

  it('rejects a limit that is not a positive integer and an offset it never issued', async () => {
    for (const limit of ['abc', '0', '-3', '2.5']) expect(await status(users({ limit }))).toBe(400);
    expect(await status(users({ offset: 'nonsense' }))).toBe(400);
    expect(await status(users({ offset: 'z1.e30' }))).toBe(400);
  });
});

describe('zoom discovery: channels', () => {
  const member = () => sandbox.tenant.users[5];

  it("gathers several of Zoom's 50-channel pages into one of ours", async () => {
    const expected = sandbox.tenant.channelsOf(member().id);
    expect(expected.length).toBeGreaterThan(50);
    const [page, ...rest] = await walk(channels, { user: member().id });
    expect(rest).toEqual([]);
    expect(page.results.map((c) => c.id).sort()).toEqual(expected.map((c) => c.id).sort());
    for (const c of page.results) {
      const original = expected.find((e) => e.id === c.id)!;
      expect(c).toEqual({ id: original.id, name: original.name, is_private: original.isPrivate });
    }
  });

  it("pages with a small limit across Zoom's pages", async () => {
    const pages = await walk(channels, { user: member().id, limit: '17' });
    const ids = pages.flatMap((p) => p.results.map((c) => c.id));
    expect(ids.sort()).toEqual(
      sandbox.tenant
        .channelsOf(member().id)
        .map((c) => c.id)
        .sort(),
    );
    expect(pages.slice(0, -1).every((p) => p.results.length === 17)).toBe(true);
  });

  it('needs a user (400) that Zoom knows (404)', async () => {
    expect(await status(channels({}))).toBe(400);
    expect(await status(channels({ user: 'no-such-user' }))).toBe(404);
  });
});
