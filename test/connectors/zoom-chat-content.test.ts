// Issue 20, the Team Chat side: external contacts (member id only), files attached to messages, and the six-month
// window as a provider limit, against the sandbox with those behaviours on. Expectations come from the sandbox's
// ground truth and the oracle (written from ../shared/reference/zoom-api.md), never from src/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createZoomConnector } from '../../src/connectors/zoom/index.ts';
import type { CollectEvent, Connector, Grant } from '../../src/connectors/types.ts';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import { chatReach } from '../completeness/oracle.ts';
import {
  ALL_CHATS,
  expectedItems,
  filters,
  keyOf,
  MiniEngine,
  pair,
  readAll,
  RECORD_KINDS,
  sel,
  session,
  sha256,
} from './zoom-harness.ts';

let sandbox: ZoomSandbox;
let connector: Connector;
let grant: Grant;

beforeAll(async () => {
  sandbox = await startZoomSandbox({
    seed: 21,
    users: 4,
    meetingsPerUser: 1,
    channels: 3,
    messagesPerChannel: 8,
    messagesPerChat: 6,
    chatExtras: true,
  });
  // ZOOM_LOOKBACK_DAYS=365: twice what Team Chat serves.
  connector = createZoomConnector({
    clientId: sandbox.clientId,
    clientSecret: sandbox.clientSecret,
    oauthUrl: sandbox.oauthUrl,
    apiUrl: sandbox.apiUrl,
    lookbackDays: 365,
    budget: { ratePerSecond: 10_000 },
  });
  grant = await pair(connector);
});

afterAll(async () => {
  await sandbox?.close();
});

type Limit = Extract<CollectEvent, { type: 'provider_limit' }>;

describe('zoom Team Chat as a real account holds it', () => {
  it('a 365-day look-back: windows clamped to six months, no request refused, the limit reported once per owner and channel, everything within reach collected', async () => {
    const f = filters({ account_owners: sel({ all: true }), chats: ALL_CHATS });
    const engine = new MiniEngine(connector, session(connector, grant).ctx);
    const limits: Limit[] = [];
    const before = sandbox.requests.length;
    const result = await engine.run(f, { onEvent: (ev) => ev.type === 'provider_limit' && limits.push(ev) });
    expect(result.errors).toEqual([]);
    const refused = sandbox.requests
      .slice(before)
      .filter((r) => r.path.startsWith('/v2/chat/users/') && r.path.includes('/messages?'));
    expect(refused.length).toBeGreaterThan(0);
    // Every message request starts within the last six months (Correction Z6).
    for (const r of refused) {
      const from = Date.parse(new URL(r.path, 'http://x').searchParams.get('from')!);
      expect(from, r.path).toBeGreaterThanOrEqual(chatReach(Date.now()));
    }
    const owners = expectedItems(sandbox, f).owners;
    const units = [
      ...owners,
      ...sandbox.tenant.channels.filter((c) => c.memberIds.some((id) => owners.includes(id))).map((c) => c.id),
    ];
    const windowLimits = limits.filter((l) => l.kind === 'chat_history');
    expect(windowLimits.map((l) => l.custodian).sort()).toEqual([...units].sort());
    for (const l of windowLimits) {
      expect(l.reason).toMatch(/6 months/);
    }
    expect([...engine.stored.keys()].sort()).toEqual([...expectedItems(sandbox, f).items.keys()].sort());
    // An old message exists in the tenant and is rightly out of reach.
    const old = [
      ...sandbox.tenant.oneToOne.flatMap((c) => c.messages),
      ...Object.values(sandbox.tenant.channelMessages).flat(),
    ].filter((m) => m.timestamp < chatReach(Date.now()));
    expect(old.length).toBeGreaterThan(0);
    for (const m of old)
      expect(engine.stored.has(keyOf('chat_message', m.id)) || engine.stored.has(keyOf('channel_message', m.id))).toBe(
        false,
      );

    // The next run starts from its mark: nothing cut any more, nothing reported.
    const again: Limit[] = [];
    await engine.run(f, {
      onEvent: (ev) => ev.type === 'provider_limit' && ev.kind === 'chat_history' && again.push(ev),
    });
    expect(again).toEqual([]);
  });

  it('collects one-to-one conversations with external contacts, listed by member id only', async () => {
    const externals = sandbox.tenant.externalContacts;
    expect(externals.length).toBeGreaterThan(1);
    const f = filters({
      account_owners: sel({ all: true }),
      chats: { all_selected: false, selected: [{ 'one-to-one': true }], excluded: [] },
    });
    const engine = new MiniEngine(connector, session(connector, grant).ctx);
    const before = sandbox.requests.length;
    await engine.run(f);
    for (const contact of externals) {
      const conversation = sandbox.tenant.oneToOne.find((c) => c.userIds.includes(contact.member_id))!;
      const owner = conversation.userIds.find((id) => id !== contact.member_id)!;
      expect(
        sandbox.requests
          .slice(before)
          .some(
            (r) =>
              r.path.startsWith(`/v2/chat/users/${owner}/messages?`) &&
              r.path.includes(`to_contact=${encodeURIComponent(contact.member_id)}`),
          ),
      ).toBe(true);
      const inReach = conversation.messages.filter((m) => m.timestamp >= chatReach(Date.now()));
      expect(inReach.length).toBeGreaterThan(0);
      for (const m of inReach) {
        const item = engine.stored.get(keyOf('chat_message', m.id))?.input;
        expect(item, m.id).toBeDefined();
        expect(item!.custodian).toBe(owner);
        expect(item!.metadata).toMatchObject({
          conversation_id: contact.member_id,
          message: m.message,
          sender_display_name: m.sender_display_name,
        });
      }
    }
  });

  it('downloads every file attached to a collected message as a chat_file naming its message, with the bytes Zoom serves', async () => {
    const f = filters({ account_owners: sel({ all: true }), chats: ALL_CHATS });
    const engine = new MiniEngine(connector, session(connector, grant).ctx);
    await engine.run(f);
    const reach = chatReach(Date.now());
    const messages = [
      ...sandbox.tenant.oneToOne.flatMap((c) => c.messages),
      ...Object.values(sandbox.tenant.channelMessages).flat(),
    ].filter((m) => m.timestamp >= reach);
    const withFiles = messages.filter((m) => m.files?.length);
    expect(withFiles.length).toBeGreaterThan(0);
    for (const m of withFiles) {
      for (const file of m.files!) {
        const got = engine.stored.get(keyOf('chat_file', file.file_id));
        expect(got, file.file_id).toBeDefined();
        expect(got!.sha256).toBe(sha256(sandbox.tenant.textBodies.get(file.file_id)!));
        expect(got!.input.metadata.parent_source_id).toBe(m.id);
        expect(got!.input.size).toBe(file.file_size);
        expect(got!.input.name).toBe(file.file_name);
      }
    }
  });

  it('items collected before records were content get their blob at the next run; no file is downloaded again', async () => {
    const f = filters({ account_owners: sel({ all: true }), chats: ALL_CHATS });
    const engine = new MiniEngine(connector, session(connector, grant).ctx);
    const first = await engine.run(f);
    // As a collection from before issue 20 holds them: records without content and with a version of the old
    // kind, and the cursors of that time (v1), whose marks would skip everything but the last two days.
    let records = 0;
    for (const [k, s] of engine.stored) {
      if (!RECORD_KINDS.includes(s.input.kind)) continue;
      records += 1;
      engine.stored.set(k, { input: { ...s.input, version: 'Normal:0123abcd', size: null, mimeType: null } });
    }
    const { owners, channels } = first.cursors as { owners: Record<string, number>; channels: Record<string, number> };
    engine.cursors = { v: 1, owners, channels };
    const second = await engine.run(f);
    expect(second.downloads).toBe(0);
    expect(second.records).toBe(records);
    for (const [k, s] of engine.stored)
      if (RECORD_KINDS.includes(s.input.kind)) expect(s.sha256, k).toMatch(/^[0-9a-f]{64}$/);
  });

  it('reads a channel that hides earlier history from new members through every selected member, each message once, and says what stays out of reach', async () => {
    const channel = sandbox.tenant.channels.find((c) => c.joinedAt)!;
    expect(channel).toBeDefined();
    const byJoin = [...channel.memberIds].sort((a, b) => channel.joinedAt![a] - channel.joinedAt![b]);
    const [earliest, ...later] = byJoin;
    // Without the earliest member: the later ones' views together, which miss what came before the first of them joined.
    const owners = later.filter((id) => sandbox.tenant.findUser(id));
    expect(owners.length).toBeGreaterThan(1);
    const f = filters({
      account_owners: sel({ selected: owners }),
      chats: { all_selected: false, selected: [{ channels: sel({ selected: [channel.id] }) }], excluded: [] },
    });
    const engine = new MiniEngine(connector, session(connector, grant).ctx);
    const limits: Limit[] = [];
    const result = await engine.run(f, { onEvent: (ev) => ev.type === 'provider_limit' && limits.push(ev) });
    expect(result.errors).toEqual([]);
    const reach = chatReach(Date.now());
    const firstJoin = Math.min(...owners.map((id) => channel.joinedAt![id]));
    const seen = sandbox.tenant.channelMessages[channel.id].filter(
      (m) => m.timestamp >= reach && m.timestamp >= firstJoin,
    );
    const unseen = sandbox.tenant.channelMessages[channel.id].filter(
      (m) => m.timestamp >= reach && m.timestamp < firstJoin,
    );
    // The owner collected first (id order) joined later than the first of the selected: their view alone misses some.
    const firstById = [...owners].sort()[0];
    expect(seen.some((m) => m.timestamp < channel.joinedAt![firstById])).toBe(true);
    const stored = [...engine.stored.values()]
      .filter((s) => s.input.kind === 'channel_message')
      .map((s) => s.input.sourceId)
      .sort();
    expect(stored).toEqual(seen.map((m) => m.id).sort());
    expect(stored).toEqual(
      [...expectedItems(sandbox, f).items.keys()]
        .filter((k) => k.startsWith('channel_message|'))
        .map((k) => k.split('|')[1])
        .sort(),
    );
    expect(result.items.filter((i) => i.kind === 'channel_message').length).toBeGreaterThanOrEqual(seen.length);
    const history = limits.filter((l) => l.kind === 'channel_history');
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ custodian: channel.id, sourceId: channel.id });
    expect(earliest).toBeDefined();
    expect(unseen.length + seen.length).toBeGreaterThan(0);
  });

  it('asks for a chat file again on a later run (the retry list): its message is listed again for a fresh download_url', async () => {
    const f = filters({ account_owners: sel({ all: true }), chats: ALL_CHATS });
    const s = session(connector, grant);
    const engine = new MiniEngine(connector, s.ctx);
    await engine.run(f);
    const files = [...engine.stored.values()].filter((x) => x.input.kind === 'chat_file');
    const picked = [
      files.find((x) => x.input.metadata.conversation_type === 'channel')!,
      files.find((x) => x.input.metadata.conversation_type === 'one-to-one')!,
    ];
    for (const { input } of picked) {
      const events: CollectEvent[] = [];
      const pieces = [
        {
          unit: input.custodian!,
          kind: 'chat_file',
          sourceId: input.sourceId,
          name: input.path,
          piece: JSON.parse(JSON.stringify({ item: input })),
        },
      ];
      for await (const ev of connector.retryPieces!(
        { ...s.ctx, collectionId: 'col_zoom', filters: f, checkpoint: null, cursors: null },
        pieces,
      ))
        events.push(ev);
      expect(
        events.map((e) => e.type),
        input.sourceId,
      ).toEqual(['item']);
      const ev = events[0] as Extract<CollectEvent, { type: 'item' }>;
      expect(sha256(await readAll(ev.content!))).toBe(sha256(sandbox.tenant.textBodies.get(input.sourceId)!));
    }
  });
});
