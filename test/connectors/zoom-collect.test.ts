import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connector, type Grant } from '../../src/connectors/types.ts';
import type { ConfFilters } from '../../src/domain/filters/conf.ts';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import { chatReach } from '../completeness/oracle.ts';
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
import { NeedsUserActionError } from '../../src/domain/run-failures.ts';

let sandbox: ZoomSandbox;
let connector: Connector;
let grant: Grant;

beforeAll(async () => {
  // With Team Chat as a real account holds it: external contacts, chat files, history beyond six months (issue 20),
  // and what users' recordings lists do not show (participant audio, trash, unrecorded summaries).
  sandbox = await startZoomSandbox({
    seed: 7,
    users: 6,
    meetingsPerUser: 4,
    channels: 4,
    messagesPerChannel: 9,
    messagesPerChat: 7,
    chatExtras: true,
    evidence: true,
  });
  connector = testConnector(sandbox);
  grant = await pair(connector);
});

afterAll(async () => {
  await sandbox?.close();
});

/** One fresh collection: runs the filters and checks the result is exactly what the sandbox allows. */
async function collectExactly(f: ConfFilters) {
  const engine = new MiniEngine(connector, session(connector, grant).ctx);
  const result = await engine.run(f);
  const expected = expectedItems(sandbox, f);
  const got = [...engine.stored.keys()].sort();
  expect(got).toEqual([...expected.items.keys()].sort());
  for (const [key, sha] of expected.items) {
    const stored = engine.stored.get(key)!;
    if (sha === null) expect(stored.sha256, key).toBeUndefined();
    else if (sha === 'record') {
      // Issue 20: a meeting's or a message's record is its content; its version is the blob's SHA-256.
      expect(stored.sha256, key).toMatch(/^[0-9a-f]{64}$/);
      expect(stored.input.version, key).toBe(stored.sha256);
      expect(stored.input.mimeType, key).toBe('application/json');
    } else expect(stored.sha256, key).toBe(sha);
  }
  // Channel messages belong to their channel's unit; everything else to a selected owner.
  for (const { input } of engine.stored.values()) {
    const ofChannel =
      input.kind === 'channel_message' ||
      (input.kind === 'chat_file' && input.metadata.conversation_type === 'channel');
    if (ofChannel) expect(input.custodian).toBe(input.metadata.conversation_id);
    else expect(expected.owners).toContain(input.custodian);
  }
  return { engine, result, expected };
}

const users = () => sandbox.tenant.users;
const active = () => users().filter((u) => u.status === 'active');
const kindsOf = (engine: MiniEngine) => new Set([...engine.stored.values()].map((s) => s.input.kind));

describe('zoom collect: account_owners', () => {
  it('all minus excluded owners collects every other active or deactivated user, with every byte as served', async () => {
    const excluded = active()[1].id;
    const { engine, result, expected } = await collectExactly(
      filters({ account_owners: sel({ all: true, excluded: [excluded] }), chats: ALL_CHATS }),
    );
    expect(expected.owners).not.toContain(excluded);
    expect(expected.owners).toContain(users().find((u) => u.status === 'inactive')!.id);
    // Every kind a default grant produces: `legal_hold_file` needs the preservation scopes (test/e2e/zoom-legal-hold).
    expect(kindsOf(engine)).toEqual(new Set(connector.kinds.filter((k) => k !== 'legal_hold_file')));
    expect(result.errors).toEqual([]);
    // Nothing of the excluded user's own meetings, even though others' chats with them are collected.
    for (const m of sandbox.tenant.meetingsOf(excluded))
      expect(engine.stored.has(keyOf('meeting', m.uuid))).toBe(false);
  });

  it('ends each owner with the checkpoint past them in the same event, so that both are written at once', async () => {
    const small = await startZoomSandbox({ seed: 9, users: 3, meetingsPerUser: 1, channels: 0 });
    try {
      const c = testConnector(small);
      const g = await pair(c);
      const f = filters({ account_owners: sel({ all: true }), chats: ALL_CHATS });
      const ends: Array<{ key: string; state: unknown }> = [];
      await new MiniEngine(c, session(c, g).ctx).run(f, {
        onEvent: (ev) => {
          if (ev.type === 'unit' && ev.status === 'done') ends.push({ key: ev.unit.key, state: ev.checkpoint?.state });
        },
      });
      expect(ends.map((e) => e.key).sort()).toEqual(expectedItems(small, f).owners.sort());
      for (const e of ends) expect(e.state).toMatchObject({ ownersDone: e.key, at: null });
    } finally {
      await small.close();
    }
  });

  it('only selected owners; a selected user Zoom does not know is reported as not found (never "deleted"), the others are collected, and the run asks for a person', async () => {
    const victim = await startZoomSandbox({ seed: 8, users: 5, meetingsPerUser: 2, channels: 2 });
    try {
      const c = testConnector(victim);
      const g = await pair(c);
      const [a, b, gone] = [victim.tenant.users[1], victim.tenant.users[3], victim.tenant.users[2]];
      victim.deleteUser(gone.id);
      const f = filters({ account_owners: sel({ selected: [a.id, b.id, gone.id] }), chats: ALL_CHATS });
      const engine = new MiniEngine(c, session(c, g).ctx);
      const errors: Array<{ reason: string; sourceId?: string }> = [];
      const thrown = await engine.run(f, { onEvent: (ev) => ev.type === 'error' && errors.push(ev) }).then(
        () => null,
        (e: unknown) => e,
      );
      // A permanent failure: the collection needs a person (status `error`), it is not retried with backoff.
      expect(thrown).toBeInstanceOf(NeedsUserActionError);
      expect((thrown as Error).message).toContain(gone.id);
      expect((thrown as Error).message).toMatch(/not found in the Zoom account/);
      const expected = expectedItems(victim, f);
      expect(expected.owners.sort()).toEqual([a.id, b.id].sort());
      expect([...engine.stored.keys()].sort()).toEqual([...expected.items.keys()].sort());
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ sourceId: gone.id });
      expect(errors[0].reason).toMatch(/not found in the Zoom account/);
      expect(errors[0].reason).not.toMatch(/deleted/);
      const paths = [...engine.stored.values()]
        .filter((s) => s.input.kind === 'recording_video')
        .map((s) => s.input.path);
      expect(paths.length).toBeGreaterThan(0);
      for (const p of paths)
        expect([`/${a.email}/meetings/`, `/${b.email}/meetings/`].some((prefix) => p.startsWith(prefix))).toBe(true);
    } finally {
      await victim.close();
    }
  });
});

describe('zoom collect: content_selections', () => {
  const types = ['video', 'audio', 'transcript', 'chat', 'AI-meeting-notes'] as const;
  const owner = () => sel({ selected: [active()[0].id, active()[2].id] });

  it.each(types)('only %s on: meetings plus that content, nothing else', async (type) => {
    const { engine } = await collectExactly(
      filters({
        account_owners: owner(),
        content_selections: { all_selected: false, selected: [{ [type]: true }], excluded: [] },
      }),
    );
    expect(kindsOf(engine).has('meeting')).toBe(true);
  });

  it.each(types)('everything but %s', async (type) => {
    await collectExactly(
      filters({
        account_owners: owner(),
        content_selections: { all_selected: true, selected: [], excluded: [{ [type]: true }] },
      }),
    );
  });

  it("nothing selected still collects each recorded meeting's metadata, with its topic as text", async () => {
    const { engine } = await collectExactly(
      filters({ account_owners: owner(), content_selections: { all_selected: false, selected: [], excluded: [] } }),
    );
    expect(kindsOf(engine)).toEqual(new Set(['meeting']));
    const m = sandbox.tenant.meetingsOf(active()[0].id)[0];
    expect(engine.stored.get(keyOf('meeting', m.uuid))!.input).toMatchObject({
      text: m.topic,
      custodian: m.host_id,
      createdAt: m.start_time,
    });
  });

  it('collects the AI notes of meetings whose UUID needs double encoding', async () => {
    const f = filters({
      account_owners: sel({ all: true }),
      content_selections: { all_selected: false, selected: [{ 'AI-meeting-notes': true }], excluded: [] },
    });
    const tricky = sandbox.tenant.meetings.filter(
      (m) => m.summary && (m.uuid.startsWith('/') || m.uuid.includes('//')),
    );
    expect(tricky.length).toBeGreaterThan(0);
    const { engine } = await collectExactly(f);
    for (const m of tricky) expect(engine.stored.has(keyOf('ai_meeting_notes', m.uuid))).toBe(true);
  });
});

describe('zoom collect: chats', () => {
  const everyone = () => sel({ all: true });
  const noContent = { all_selected: false, selected: [], excluded: [] };

  it('no chats key: no chat at all', async () => {
    const { engine } = await collectExactly(filters({ account_owners: everyone(), content_selections: noContent }));
    expect(kindsOf(engine)).toEqual(new Set(['meeting']));
  });

  it('one-to-one only: every conversation, edited and deleted messages included, deleted peers too', async () => {
    const { engine } = await collectExactly(
      filters({
        account_owners: everyone(),
        content_selections: noContent,
        chats: { all_selected: false, selected: [{ 'one-to-one': true }], excluded: [] },
      }),
    );
    expect(kindsOf(engine)).toEqual(new Set(['meeting', 'chat_message', 'chat_file']));
    const statuses = new Set(
      [...engine.stored.values()].filter((s) => s.input.kind === 'chat_message').map((s) => s.input.metadata.status),
    );
    expect(statuses).toEqual(new Set(['Normal', 'Edited', 'Deleted']));
    const deletedPeer = sandbox.tenant.deletedUsers[0];
    const withDeleted = sandbox.tenant.oneToOne.find((c) => c.userIds.includes(deletedPeer.id))!;
    const msg = engine.stored.get(keyOf('chat_message', withDeleted.messages[0].id))!.input;
    expect(msg.text).toBe(withDeleted.messages[0].message);
    expect(msg.metadata.conversation_name).toBe(deletedPeer.email);
  });

  it('channels all minus excluded', async () => {
    const excluded = sandbox.tenant.channels[1].id;
    const { engine } = await collectExactly(
      filters({
        account_owners: everyone(),
        content_selections: noContent,
        chats: {
          all_selected: false,
          selected: [{ channels: sel({ all: true, excluded: [excluded] }) }],
          excluded: [],
        },
      }),
    );
    expect(kindsOf(engine)).toEqual(new Set(['meeting', 'channel_message', 'chat_file']));
    const channelIds = new Set(
      [...engine.stored.values()]
        .filter((s) => s.input.kind === 'channel_message')
        .map((s) => s.input.metadata.conversation_id),
    );
    expect(channelIds.has(excluded)).toBe(false);
    expect(channelIds.size).toBe(sandbox.tenant.channels.length - 1);
  });

  it('selected channels only, for selected owners', async () => {
    const channel = sandbox.tenant.channels[2];
    const { engine } = await collectExactly(
      filters({
        account_owners: sel({ selected: [channel.memberIds[0]] }),
        content_selections: noContent,
        chats: { all_selected: false, selected: [{ channels: sel({ selected: [channel.id] }) }], excluded: [] },
      }),
    );
    const msgs = [...engine.stored.values()].filter((s) => s.input.kind === 'channel_message');
    // Zoom serves six months of history (Correction Z6): older messages cannot be collected.
    expect(msgs).toHaveLength(
      sandbox.tenant.channelMessages[channel.id].filter((m) => m.timestamp >= chatReach(Date.now())).length,
    );
    expect(msgs[0].input.metadata).toMatchObject({
      conversation_id: channel.id,
      conversation_name: channel.name,
      is_private: channel.isPrivate,
    });
  });

  it('all chats minus one-to-one: channels only', async () => {
    await collectExactly(
      filters({
        account_owners: everyone(),
        content_selections: noContent,
        chats: { all_selected: true, selected: [], excluded: [{ 'one-to-one': true }] },
      }),
    );
  });
});
