import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ItemInput } from '../../src/connectors/types.ts';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import {
  ALL_CHATS,
  expectedItems,
  filters,
  keyOf,
  MiniEngine,
  pair,
  readAll,
  sel,
  session,
  testConnector,
} from './zoom-harness.ts';

// Issue 25: the listings a unit (or a plan) made one after the other, asked for together. What is collected stays
// exactly what the filters select (the oracle is the sandbox's own data, expectedItems).

const DAY = 86_400_000;
const only = (content: Record<string, boolean>) => ({ all_selected: false, selected: [content], excluded: [] });

let sandbox: ZoomSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/** The API paths asked for, in the order they arrived, from `from` on. */
const paths = (z: ZoomSandbox, from = 0) =>
  z.requests
    .slice(from)
    .filter((r) => r.listener === 'main' && r.path.startsWith('/v2/'))
    .map((r) => decodeURIComponent(r.path));

describe("zoom: a plan asks for the account's summaries while it lists the owners", () => {
  it('has the summaries list and both users lists at Zoom before any of them answered', async () => {
    sandbox = await startZoomSandbox({ seed: 5, users: 3, meetingsPerUser: 2, evidence: true });
    const connector = testConnector(sandbox);
    const grant = await pair(connector);
    const s = session(connector, grant);
    const f = filters({ account_owners: sel({ all: true }), content_selections: only({ 'AI-meeting-notes': true }) });
    let release!: () => void;
    sandbox.faults.stall = new Promise<void>((resolve) => (release = resolve));
    const before = sandbox.requests.length;
    const plan = connector.units!.plan({ ...s.ctx, collectionId: 'c', filters: f, checkpoint: null, cursors: null });
    try {
      // Zoom answers nothing until released: three requests waiting means none waited for another's answer.
      await vi.waitFor(() => expect(sandbox!.faults.stalled).toBe(3));
      const asked = paths(sandbox, before).map((p) => p.split('?')[0]);
      expect(asked.sort()).toEqual(['/v2/meetings/meeting_summaries', '/v2/users', '/v2/users']);
    } finally {
      sandbox.faults.stall = null;
      release();
    }
    expect((await plan).units.length).toBeGreaterThan(0);
  });

  it('lists the history before its guess for an owner new to the collection, and collects their unrecorded meetings', async () => {
    sandbox = await startZoomSandbox({ seed: 5, users: 4, meetingsPerUser: 6, evidence: true });
    const connector = testConnector(sandbox);
    const grant = await pair(connector);
    const s = session(connector, grant);
    const f = (owners: ReturnType<typeof sel>) =>
      filters({ account_owners: owners, content_selections: only({ 'AI-meeting-notes': true }) });
    const active = sandbox.tenant.users.filter((u) => u.status === 'active');
    // The first run knew one owner: the next one's guess starts two days before that run.
    const engine = new MiniEngine(connector, s.ctx);
    await engine.run(f(sel({ selected: [active[0].id] })));
    const all = f(sel({ all: true }));
    const base = { ...s.ctx, collectionId: 'c', filters: all, checkpoint: null, cursors: engine.cursors };
    const before = sandbox.requests.length;
    const plan = await connector.units!.plan(base);
    // The guess (from the previous run's owner) at once, and once the owners were known the lookback before it.
    const lists = paths(sandbox, before).filter((p) => p.startsWith('/v2/meetings/meeting_summaries?'));
    expect(lists).toHaveLength(2);
    const items: ItemInput[] = [];
    const units = JSON.parse(JSON.stringify(plan.units)) as typeof plan.units;
    for (const u of units.filter((x) => x.key !== active[0].id)) {
      for await (const ev of connector.collect({ ...base, scope: [u.key], units })) {
        expect(ev.type === 'error' ? ev.reason : '').toBe('');
        if (ev.type !== 'item') continue;
        items.push(ev.item);
        if (ev.content) await readAll(ev.content);
      }
    }
    // Every summary of the new owners' meetings, months old included (the oracle: the sandbox).
    const hostOf = new Map(sandbox.tenant.meetings.map((m) => [keyOf('ai_meeting_notes', m.uuid), m.host_id]));
    const expected = [...expectedItems(sandbox, all).items.keys()].filter(
      (k) => k.startsWith('ai_meeting_notes|') && hostOf.get(k) !== active[0].id,
    );
    expect(expected.length).toBeGreaterThan(0);
    const got = new Set(items.map((i) => keyOf(i.kind, i.sourceId)));
    const unrecordedOld = sandbox.tenant.meetings.filter(
      (m) =>
        m.host_id !== active[0].id &&
        m.recording_files.length === 0 &&
        m.summary &&
        Date.parse(m.start_time) < Date.now() - 7 * 86_400_000 &&
        sandbox!.tenant.findUser(m.host_id)?.status !== 'pending',
    );
    expect(unrecordedOld.length).toBeGreaterThan(0);
    for (const m of unrecordedOld) expect(got.has(keyOf('meeting', m.uuid)), m.uuid).toBe(true);
    for (const k of expected) expect(got.has(k), k).toBe(true);
  });
  it('gives up the summaries list asked for ahead once listing the owners fails, in a plan and in a run in one job', async () => {
    sandbox = await startZoomSandbox({ seed: 5, users: 3, meetingsPerUser: 2, evidence: true });
    const connector = testConnector(sandbox);
    const grant = await pair(connector);
    const s = session(connector, grant);
    const f = filters({ account_owners: sel({ all: true }), content_selections: only({ 'AI-meeting-notes': true }) });
    // The summaries list never answers until its request is given up; the users list fails at once.
    let asked = 0;
    let abandoned = 0;
    const json = s.ctx.http.json.bind(s.ctx.http);
    vi.spyOn(s.ctx.http, 'json').mockImplementation((url: string, opts = {}) => {
      const path = new URL(url).pathname;
      if (path.endsWith('/meetings/meeting_summaries')) {
        asked += 1;
        return new Promise((_resolve, reject) =>
          opts.signal?.addEventListener('abort', () => {
            abandoned += 1;
            reject(new Error('given up'));
          }),
        );
      }
      if (path.endsWith('/users')) return Promise.reject(new Error('listing users failed'));
      return json(url, opts);
    });
    const ctx = { ...s.ctx, collectionId: 'c', filters: f, checkpoint: null, cursors: null };
    await expect(connector.units!.plan(ctx)).rejects.toThrow('listing users failed');
    await vi.waitFor(() => expect([asked, abandoned]).toEqual([1, 1]));
    const run = async () => {
      for await (const ev of connector.collect(ctx)) void ev;
    };
    await expect(run()).rejects.toThrow('listing users failed');
    await vi.waitFor(() => expect([asked, abandoned]).toEqual([2, 2]));
  });

  it("a run targeted at one owner lists the summaries from that owner's start only, once the owners are known", async () => {
    sandbox = await startZoomSandbox({ seed: 5, users: 6, meetingsPerUser: 2, evidence: true });
    const connector = testConnector(sandbox);
    const grant = await pair(connector);
    const s = session(connector, grant);
    const [a, b] = sandbox.tenant.users.filter((u) => u.status === 'active');
    const now = Date.now();
    // A's previous run began 3 days ago, B's 100 days ago (a mark kept while B kept failing).
    const cursors = { v: 2, owners: { [a.id]: now - 3 * DAY, [b.id]: now - 100 * DAY }, channels: {} };
    const f = filters({ account_owners: sel({ all: true }), content_selections: only({ 'AI-meeting-notes': true }) });
    const before = sandbox.requests.length;
    await connector.units!.plan({ ...s.ctx, collectionId: 'c', filters: f, checkpoint: null, cursors, scope: [a.id] });
    const lists = paths(sandbox, before).filter((p) => p.startsWith('/v2/meetings/meeting_summaries?'));
    expect(lists).toHaveLength(1);
    // A later run starts two days before the previous one began (the overlap), to the second.
    const from = new Date(Math.floor((now - 5 * DAY) / 1000) * 1000).toISOString().replace('.000Z', 'Z');
    expect(new URLSearchParams(lists[0].split('?')[1]).get('from')).toBe(from);
  });
});

describe("zoom: an owner's chat listings asked for ahead of their turn", () => {
  it("asks for the owner's chat sessions and channels while the recordings are listed, and collects exactly the same", async () => {
    // Zoom answers 40 ms late: the trash listings start only once every month window answered.
    sandbox = await startZoomSandbox({ seed: 7, users: 4, meetingsPerUser: 4, channels: 2, latencyMs: 40 });
    const connector = testConnector(sandbox);
    const grant = await pair(connector);
    const owner = sandbox.tenant.users.find((u) => u.status === 'active')!;
    const f = filters({ account_owners: sel({ selected: [owner.id] }), chats: ALL_CHATS });
    const engine = new MiniEngine(connector, session(connector, grant).ctx);
    const before = sandbox.requests.length;
    await engine.run(f);
    const asked = paths(sandbox, before);
    const at = (re: RegExp) => asked.findIndex((p) => re.test(p));
    const trash = at(new RegExp(`^/v2/users/${owner.id}/recordings\\?.*trash=true`));
    expect(trash).toBeGreaterThan(0);
    expect(at(new RegExp(`^/v2/chat/users/${owner.id}/sessions\\?`))).toBeLessThan(trash);
    expect(at(new RegExp(`^/v2/chat/users/${owner.id}/channels\\?`))).toBeLessThan(trash);
    expect([...engine.stored.keys()].sort()).toEqual([...expectedItems(sandbox, f).items.keys()].sort());
  });

  it("reads a channel's other members' views with their own pages when it is the next target, each view's messages once", async () => {
    sandbox = await startZoomSandbox({
      seed: 7,
      users: 6,
      meetingsPerUser: 1,
      channels: 4,
      messagesPerChannel: 12,
      chatExtras: true,
    });
    const connector = testConnector(sandbox);
    const grant = await pair(connector);
    // A channel that shows members only what came after they joined, read through two members: the one read first
    // (the first by id) joined after the other, whose view holds messages the first one's does not.
    const staged = sandbox.tenant.channels.find((c) => c.joinedAt)!;
    const members = staged.memberIds.filter((id) => sandbox!.tenant.findUser(id)).sort();
    const joined = (id: string) => staged.joinedAt![id];
    const owners = members.flatMap((x) => members.filter((y) => x < y && joined(x) > joined(y)).map((y) => [x, y]))[0];
    expect(owners).toBeDefined();
    // Listed last by each member: another channel comes before it in a walk.
    const channels = sandbox.tenant.channels;
    channels.push(...channels.splice(channels.indexOf(staged), 1));
    const f = filters({
      account_owners: sel({ selected: owners }),
      content_selections: only({}),
      chats: { all_selected: false, selected: [{ channels: sel({ all: true }) }], excluded: [] },
    });
    const engine = new MiniEngine(connector, session(connector, grant).ctx);
    const before = sandbox.requests.length;
    await engine.run(f);
    // The staged channel came after another channel in its unit's walk: its first pages were asked for ahead.
    const channelOf = (p: string) => /to_channel=([^&]+)/.exec(p)?.[1];
    const walk = [
      ...new Set(
        paths(sandbox, before)
          .map(channelOf)
          .filter((c) => c !== undefined),
      ),
    ];
    expect(walk.indexOf(staged.id)).toBeGreaterThan(0);
    const stored = (m: Map<string, unknown>) => [...m.keys()].filter((k) => k.startsWith('channel_message|')).sort();
    expect(stored(engine.stored)).toEqual(stored(expectedItems(sandbox, f).items));
  });

  it("asks for the next conversation's first pages while this one's messages are handed over", async () => {
    sandbox = await startZoomSandbox({
      seed: 7,
      users: 5,
      meetingsPerUser: 1,
      oneToOnePeersPerUser: 3,
      messagesPerChat: 30,
      latencyMs: 20,
    });
    const connector = testConnector(sandbox);
    const grant = await pair(connector);
    const owner = sandbox.tenant.users.find((u) => u.status === 'active')!;
    const f = filters({
      account_owners: sel({ selected: [owner.id] }),
      content_selections: only({}),
      chats: ALL_CHATS,
    });
    const engine = new MiniEngine(connector, session(connector, grant).ctx);
    const before = sandbox.requests.length;
    await engine.run(f);
    // The owner's one-to-one message requests, by peer, in the order the conversations were walked.
    const byPeer = new Map<string, number[]>();
    paths(sandbox, before).forEach((p, i) => {
      const peer = /^\/v2\/chat\/users\/[^/]+\/messages\?.*to_contact=([^&]+)/.exec(p)?.[1];
      if (peer) byPeer.set(peer, [...(byPeer.get(peer) ?? []), i]);
    });
    const walked = [...byPeer.values()];
    expect(walked.length).toBeGreaterThanOrEqual(2);
    for (let k = 1; k < walked.length; k++) expect(walked[k][0]).toBeLessThan(walked[k - 1].at(-1)!);
    expect([...engine.stored.keys()].sort()).toEqual([...expectedItems(sandbox, f).items.keys()].sort());
  });
});
