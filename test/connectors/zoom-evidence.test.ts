// Evidence the users' recordings lists do not show (../shared/reference/zoom-api.md, Corrections Z1-Z3):
// participant audio, recordings in the trash, AI summaries of meetings without a recording.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connector, Grant, ItemInput } from '../../src/connectors/types.ts';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import {
  expectedItems,
  filters,
  keyOf,
  MiniEngine,
  pair,
  readAll,
  sel,
  session,
  sha256,
  testConnector,
} from './zoom-harness.ts';

let sandbox: ZoomSandbox;
let connector: Connector;
let grant: Grant;

beforeAll(async () => {
  sandbox = await startZoomSandbox({
    seed: 21,
    users: 5,
    meetingsPerUser: 6,
    channels: 0,
    messagesPerChat: 0,
    oneToOnePeersPerUser: 0,
    evidence: true,
  });
  connector = testConnector(sandbox);
  grant = await pair(connector);
});

afterAll(async () => {
  await sandbox?.close();
});

const meetings = () => sandbox.tenant.users.flatMap((u) => sandbox.tenant.meetingsOf(u.id));
const only = (content: Record<string, boolean>) => ({ all_selected: false, selected: [content], excluded: [] });
const requestsTo = (pattern: RegExp, from = 0) =>
  sandbox.requests.slice(from).filter((r) => r.listener === 'main' && pattern.test(r.path.split('?')[0]));

describe("zoom evidence beyond the users' recordings lists", () => {
  it("the sandbox holds each kind of it, and the users' listing shows none of it", async () => {
    expect(meetings().some((m) => (m.participant_audio_files ?? []).length > 0)).toBe(true);
    expect(meetings().some((m) => m.trashed)).toBe(true);
    expect(meetings().some((m) => m.recording_files.some((f) => f.deleted_time))).toBe(true);
    expect(meetings().some((m) => m.recording_files.length === 0 && m.summary)).toBe(true);
  });

  it('collects every participant audio file as participant_audio, held for the host, with the bytes served, only when audio is selected', async () => {
    const engine = new MiniEngine(connector, session(connector, grant).ctx);
    const f = filters({ account_owners: sel({ all: true }), content_selections: only({ audio: true }) });
    const before = sandbox.requests.length;
    const result = await engine.run(f);
    expect(result.errors).toEqual([]);
    const want = meetings()
      .filter((m) => sandbox.tenant.findUser(m.host_id)?.status !== 'pending')
      .flatMap((m) => (m.participant_audio_files ?? []).map((a) => ({ m, a })));
    expect(want.length).toBeGreaterThan(2);
    for (const { m, a } of want) {
      const got = engine.stored.get(keyOf('participant_audio', a.id));
      expect(got, a.id).toBeDefined();
      expect(got!.input.custodian).toBe(m.host_id);
      expect(got!.sha256).toBe(sha256(sandbox.contentOf(a.id)));
      expect(got!.input.metadata.meeting_uuid).toBe(m.uuid);
    }
    expect([...engine.stored.values()].filter((s) => s.input.kind === 'participant_audio')).toHaveLength(want.length);
    // The meeting endpoint is asked only for meetings whose recording_count says the listing did not show all.
    const asked = requestsTo(/^\/v2\/meetings\/[^/]+\/recordings$/, before).length;
    expect(asked).toBe(
      meetings().filter(
        (m) => (m.participant_audio_files ?? []).length > 0 && sandbox.tenant.findUser(m.host_id)?.status !== 'pending',
      ).length,
    );

    const noAudio = new MiniEngine(connector, session(connector, grant).ctx);
    await noAudio.run(filters({ account_owners: sel({ all: true }), content_selections: only({ video: true }) }));
    expect([...noAudio.stored.values()].some((s) => s.input.kind === 'participant_audio')).toBe(false);
  });

  it("collects recordings in the trash from both trash listings, marked in_trash with Zoom's deleted_time", async () => {
    const engine = new MiniEngine(connector, session(connector, grant).ctx);
    const before = sandbox.requests.length;
    const result = await engine.run(
      filters({
        account_owners: sel({ all: true }),
        content_selections: only({ video: true, audio: true, transcript: true, chat: true }),
      }),
    );
    expect(result.errors).toEqual([]);
    const trashQueries = requestsTo(/\/recordings$/, before)
      .map((r) => new URL(r.path, 'http://x').searchParams)
      .filter((q) => q.get('trash') === 'true');
    expect(new Set(trashQueries.map((q) => q.get('trash_type')))).toEqual(
      new Set(['meeting_recordings', 'recording_file']),
    );
    expect(trashQueries.every((q) => !q.has('from') && !q.has('to'))).toBe(true);

    const wholeTrash = meetings().filter((m) => m.trashed && sandbox.tenant.findUser(m.host_id)?.status !== 'pending');
    expect(wholeTrash.length).toBeGreaterThan(0);
    for (const m of wholeTrash) {
      const meeting = engine.stored.get(keyOf('meeting', m.uuid));
      expect(meeting?.input.metadata).toMatchObject({ in_trash: true, deleted_time: m.trashed!.deleted_time });
      const video = m.recording_files.find((f) => f.file_type === 'MP4')!;
      const item = engine.stored.get(keyOf('recording_video', video.id))!;
      expect(item.input.metadata).toMatchObject({ in_trash: true, deleted_time: m.trashed!.deleted_time });
      expect(item.sha256).toBe(sha256(sandbox.contentOf(video.id)));
    }
    const oneFile = meetings().flatMap((m) =>
      m.recording_files.filter((f) => f.deleted_time && !m.trashed && f.idOnWire).map((f) => ({ m, f })),
    );
    expect(oneFile.length).toBeGreaterThan(0);
    for (const { m, f } of oneFile) {
      const stored = [...engine.stored.values()].find((s) => s.input.sourceId === f.id)!;
      expect(stored.input.metadata).toMatchObject({ in_trash: true, deleted_time: f.deleted_time });
      // The meeting itself is not in the trash: its item says nothing of it.
      expect(engine.stored.get(keyOf('meeting', m.uuid))!.input.metadata.in_trash).toBeUndefined();
    }
    // Files still in place carry no trash facts.
    const live = meetings().find((m) => !m.trashed && m.recording_files.every((f) => !f.deleted_time))!;
    expect(
      engine.stored.get(keyOf('recording_video', live.recording_files[0].id))!.input.metadata.in_trash,
    ).toBeUndefined();
  });

  it("collects the summaries of meetings without a recording, listing the account's summaries once per run", async () => {
    const engine = new MiniEngine(connector, session(connector, grant).ctx);
    const f = filters({ account_owners: sel({ all: true }), content_selections: only({ 'AI-meeting-notes': true }) });
    const before = sandbox.requests.length;
    const result = await engine.run(f);
    expect(result.errors).toEqual([]);
    expect(requestsTo(/^\/v2\/meetings\/meeting_summaries$/, before)).toHaveLength(1);
    const unrecorded = meetings().filter(
      (m) => m.recording_files.length === 0 && m.summary && sandbox.tenant.findUser(m.host_id)?.status !== 'pending',
    );
    expect(unrecorded.length).toBeGreaterThan(1);
    for (const m of unrecorded) {
      const meeting = engine.stored.get(keyOf('meeting', m.uuid));
      expect(meeting?.input.metadata).toMatchObject({
        recorded: false,
        uuid: m.uuid,
        topic: m.topic,
        start_time: m.start_time,
      });
      expect(meeting!.input.custodian).toBe(m.host_id);
      expect(engine.stored.get(keyOf('ai_meeting_notes', m.uuid))?.sha256).toBe(
        sha256(Buffer.from(JSON.stringify(m.summary, null, 2))),
      );
    }
    // A summary is fetched only for meetings the list names: no request answers 404.
    const fetched = requestsTo(/\/meeting_summary$/, before).length;
    expect(fetched).toBe(
      meetings().filter((m) => m.summary && sandbox.tenant.findUser(m.host_id)?.status !== 'pending').length,
    );
    const exact = expectedItems(sandbox, f);
    expect([...engine.stored.keys()].sort()).toEqual([...exact.items.keys()].sort());
  });

  it("a fanned-out run lists the summaries once, at planning, and each unit collects its owner's from what the plan handed it", async () => {
    const s = session(connector, grant);
    const f = filters({ account_owners: sel({ all: true }), content_selections: only({ 'AI-meeting-notes': true }) });
    const base = { ...s.ctx, collectionId: 'col_units', filters: f, checkpoint: null, cursors: null };
    const before = sandbox.requests.length;
    const plan = await connector.units!.plan(base);
    // Units are stored as JSON between the plan and their jobs.
    const units = JSON.parse(JSON.stringify(plan.units)) as typeof plan.units;
    const items: ItemInput[] = [];
    for (const u of units) {
      for await (const ev of connector.collect({ ...base, scope: [u.key], units })) {
        if (ev.type === 'item') {
          items.push(ev.item);
          if (ev.content) await readAll(ev.content);
        }
        expect(ev.type === 'error' ? ev.reason : '').toBe('');
      }
    }
    expect(requestsTo(/^\/v2\/meetings\/meeting_summaries$/, before)).toHaveLength(1);
    const unrecorded = meetings().filter(
      (m) => m.recording_files.length === 0 && m.summary && sandbox.tenant.findUser(m.host_id)?.status !== 'pending',
    );
    for (const m of unrecorded)
      expect(
        items
          .filter((i) => i.sourceId === m.uuid)
          .map((i) => i.kind)
          .sort(),
      ).toEqual(['ai_meeting_notes', 'meeting']);
  });

  it('retries a file through the recordings listings the run used (trash included), participant audio through the meeting endpoint', async () => {
    const engine = new MiniEngine(connector, session(connector, grant).ctx);
    await engine.run(
      filters({ account_owners: sel({ all: true }), content_selections: only({ video: true, audio: true }) }),
    );
    const live = meetings().find(
      (m) => !m.trashed && m.recording_files.length > 0 && sandbox.tenant.findUser(m.host_id)?.status === 'active',
    )!;
    const trashed = meetings().find((m) => m.trashed && sandbox.tenant.findUser(m.host_id)?.status === 'active')!;
    const withAudio = meetings().find(
      (m) => (m.participant_audio_files ?? []).length > 0 && sandbox.tenant.findUser(m.host_id)?.status === 'active',
    )!;
    const pieceOf = (kind: string, id: string, host: string) => {
      const item = engine.stored.get(keyOf(kind, id))!.input;
      return { unit: host, kind, sourceId: id, name: item.path, piece: { item } };
    };
    const pieces = [
      pieceOf('recording_video', live.recording_files[0].id, live.host_id),
      pieceOf('recording_video', trashed.recording_files[0].id, trashed.host_id),
      pieceOf('participant_audio', withAudio.participant_audio_files![0].id, withAudio.host_id),
    ];
    const before = sandbox.requests.length;
    const got = new Map<string, string>();
    const s = session(connector, grant);
    for await (const ev of connector.retryPieces!(
      { ...s.ctx, collectionId: 'c', filters: null, checkpoint: null, cursors: null },
      pieces,
    )) {
      expect(ev.type === 'error' ? ev.reason : ev.type).toBe('item');
      if (ev.type === 'item') got.set(ev.item.sourceId, sha256(await readAll(ev.content!)));
    }
    for (const p of pieces) expect(got.get(p.sourceId), p.kind).toBe(sha256(sandbox.contentOf(p.sourceId)));
    // Only the participant audio piece needed the meeting endpoint (whose scope `audio` needs anyway).
    expect(requestsTo(/^\/v2\/meetings\/[^/]+\/recordings$/, before)).toHaveLength(1);
  });
});
