import { afterEach, describe, expect, it } from 'vitest';
import type { Connector, Grant } from '../../src/connectors/types.ts';
import type { Cursors, Position, RunState } from '../../src/connectors/zoom/state.ts';
import { startZoomSandbox, type ZoomSandbox, type ZoomSandboxOptions } from '../../sandbox/zoom/index.ts';
import {
  ALL_CHATS,
  expectedItems,
  filters,
  keyOf,
  MiniEngine,
  pair,
  sel,
  session,
  testConnector,
} from './zoom-harness.ts';

const sandboxes: ZoomSandbox[] = [];
afterEach(async () => {
  await Promise.all(sandboxes.splice(0).map((s) => s.close()));
});

// Enough messages that a month of one conversation spans several 50-message pages.
const BUSY: ZoomSandboxOptions = {
  seed: 21,
  users: 4,
  meetingsPerUser: 3,
  channels: 2,
  messagesPerChannel: 300,
  messagesPerChat: 300,
};

async function setup(opts: ZoomSandboxOptions = BUSY) {
  const sandbox = await startZoomSandbox(opts);
  sandboxes.push(sandbox);
  const connector = testConnector(sandbox);
  const grant = await pair(connector);
  return { sandbox, connector, grant };
}

const everything = () => filters({ account_owners: sel({ all: true }), chats: ALL_CHATS });

type Cut = (s: RunState) => boolean;
const inRecordings: Cut = (s) => s.at?.phase === 'recordings' && (s.at.skip ?? 0) > 0;
const midOneToOnePage: Cut = (s) => s.at?.phase === 'one_to_one' && !!s.at.page;
const midChannelPage: Cut = (s) => s.at?.phase === 'channels' && !!s.at.page;
const betweenOwners: Cut = (s) => s.at === null && s.ownersDone !== null;

async function reference(connector: Connector, grant: Grant) {
  const engine = new MiniEngine(connector, session(connector, grant).ctx);
  const result = await engine.run(everything());
  return { engine, result, states: result.checkpoints as RunState[] };
}

function sameCollection(a: MiniEngine, b: MiniEngine) {
  expect([...b.stored.keys()].sort()).toEqual([...a.stored.keys()].sort());
  for (const [key, item] of a.stored) expect(b.stored.get(key)!.sha256, key).toBe(item.sha256);
}

describe('zoom connector: checkpoints and resume', () => {
  it.each([
    ['inside a window of recordings', inRecordings],
    ['in the middle of a page run of one-to-one messages', midOneToOnePage],
    ['in the middle of a page run of channel messages', midChannelPage],
    ['between two owners', betweenOwners],
  ] as const)(
    'a run stopped %s resumes from its checkpoint; together they collect what a full run does',
    async (_label, cut) => {
      const { sandbox, connector, grant } = await setup();
      const full = await reference(connector, grant);
      expect([...full.engine.stored.keys()].sort()).toEqual(
        [...expectedItems(sandbox, everything()).items.keys()].sort(),
      );
      const stopAt = full.states.findIndex(cut) + 1;
      expect(stopAt).toBeGreaterThan(0);

      const engine = new MiniEngine(connector, session(connector, grant).ctx);
      const before = await engine.run(everything(), { stopAfterCheckpoints: stopAt });
      expect(before.stopped).toBe(true);
      const after = await engine.run(everything(), { resume: true });
      sameCollection(full.engine, engine);
      // The resumed run went on from where it stopped instead of starting over.
      expect(after.items.length).toBeLessThan(full.result.items.length);
      const seenBefore = new Set(before.items.map((i) => keyOf(i.kind, i.sourceId)));
      expect(after.items.filter((i) => seenBefore.has(keyOf(i.kind, i.sourceId)))).toEqual([]);
      // The marks are the interrupted run's own start, for the same owners and channels as a full run.
      const startedAt = (before.checkpoints[0] as RunState).startedAt;
      const got = after.cursors as Cursors;
      const want = full.result.cursors as Cursors;
      expect(Object.keys(got.owners).sort()).toEqual(Object.keys(want.owners).sort());
      expect(Object.keys(got.channels).sort()).toEqual(Object.keys(want.channels).sort());
      expect(new Set([...Object.values(got.owners), ...Object.values(got.channels)])).toEqual(new Set([startedAt]));
    },
  );

  it('a checkpoint whose page token is older than 15 minutes restarts that window without sending the dead token', async () => {
    const { sandbox, connector, grant } = await setup();
    const full = await reference(connector, grant);
    const engine = new MiniEngine(connector, session(connector, grant).ctx);
    await engine.run(everything(), { stopAfterCheckpoints: full.states.findIndex(midChannelPage) + 1 });
    const state = engine.lastCheckpoint as RunState;
    const page = (state.at as Position).page!;
    page.at -= 20 * 60_000;
    await engine.run(everything(), { resume: true });
    sameCollection(full.engine, engine);
    expect(sandbox.requests.some((r) => r.path.includes(encodeURIComponent(page.token)))).toBe(false);
  });

  it('a page token Zoom refuses as expired (400 code 300) restarts that window', async () => {
    let skew = 0;
    const { sandbox, connector, grant } = await setup({ ...BUSY, now: () => new Date(Date.now() + skew) });
    const full = await reference(connector, grant);
    const engine = new MiniEngine(connector, session(connector, grant).ctx);
    await engine.run(everything(), { stopAfterCheckpoints: full.states.findIndex(midOneToOnePage) + 1 });
    const token = (engine.lastCheckpoint as RunState).at!.page!.token;
    skew = 16 * 60_000;
    await engine.run(everything(), { resume: true });
    sameCollection(full.engine, engine);
    expect(
      sandbox.requests.filter((r) => r.path.includes(`next_page_token=${encodeURIComponent(token)}`)),
    ).toHaveLength(1);
  });
});

describe('zoom connector: later runs', () => {
  it("start from the previous run's mark with a small overlap, skip what is unchanged and pick up new and edited messages", async () => {
    const { sandbox, connector, grant } = await setup({ seed: 5, users: 4, meetingsPerUser: 4, channels: 2 });
    const s = session(connector, grant);
    const engine = new MiniEngine(connector, s.ctx);
    const first = await engine.run(everything());
    const firstVersions = new Map([...engine.stored].map(([k, v]) => [k, v.input.version]));
    const mark = Math.min(...Object.values((first.cursors as { owners: Record<string, number> }).owners));

    const channel = sandbox.tenant.channels[0];
    const author = sandbox.tenant.findUser(channel.memberIds[0])!;
    const now = Date.now();
    sandbox.tenant.channelMessages[channel.id].push({
      id: 'f00dfeed-0000-4000-8000-000000000001',
      sender: author.email,
      senderId: author.id,
      sender_display_name: author.display_name,
      date_time: new Date(now - 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      timestamp: now - 1000,
      message: 'A brand new message',
      status: 'Normal',
    });
    const conversation = sandbox.tenant.oneToOne[0];
    const edited = conversation.messages[conversation.messages.length - 1];
    edited.originalMessage = edited.message;
    edited.message = `${edited.message} (edited later)`;
    edited.status = 'Edited';

    const requestsBefore = sandbox.requests.length;
    const second = await engine.run(everything());
    expect(second.downloads).toBe(0);
    // The new message and the edited one: a record blob each (an edit is a new version of the record).
    expect(second.records).toBe(2);
    expect(second.items.length).toBeLessThan(first.items.length / 3);
    expect(sandbox.requests.length - requestsBefore).toBeLessThan(requestsBefore / 3);
    const overlapStart = mark - 2 * 86_400_000 - 86_400_000;
    for (const item of second.items)
      expect(Date.parse(item.createdAt!), item.sourceId).toBeGreaterThanOrEqual(overlapStart);

    expect(engine.stored.get(keyOf('channel_message', 'f00dfeed-0000-4000-8000-000000000001'))!.input.text).toBe(
      'A brand new message',
    );
    const editedItem = engine.stored.get(keyOf('chat_message', edited.id))!.input;
    expect(editedItem.text).toBe(edited.message);
    expect(editedItem.metadata.status).toBe('Edited');
    expect(editedItem.version).not.toBe(firstVersions.get(keyOf('chat_message', edited.id)));
    for (const item of second.items) {
      const key = keyOf(item.kind, item.sourceId);
      if (key === keyOf('chat_message', edited.id) || !firstVersions.has(key)) continue;
      expect(item.version, key).toBe(firstVersions.get(key));
    }
    expect([...engine.stored.keys()].sort()).toEqual([...expectedItems(sandbox, everything()).items.keys()].sort());
  });
});
