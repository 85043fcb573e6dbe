import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileItem, fileKind } from '../../src/connectors/zoom/items.ts';
import type { Connector, Grant } from '../../src/connectors/types.ts';
import { formatOf, textOf } from '../../src/search/extract.ts';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import { filters, MiniEngine, pair, sel, session, testConnector } from './zoom-harness.ts';

/** The conf kinds of the fixed items contract (issue 3). */
const CONTRACT_KINDS = [
  'meeting',
  'recording_video',
  'recording_audio',
  'transcript',
  'meeting_chat',
  'ai_meeting_notes',
  'chat_message',
  'channel_message',
  'chat_file',
  'participant_audio',
  'legal_hold_file',
];

let sandbox: ZoomSandbox;
let connector: Connector;
let grant: Grant;

beforeAll(async () => {
  sandbox = await startZoomSandbox({
    seed: 11,
    users: 3,
    meetingsPerUser: 6,
    channels: 1,
    messagesPerChannel: 2,
    messagesPerChat: 2,
  });
  connector = testConnector(sandbox);
  grant = await pair(connector);
});

afterAll(async () => {
  await sandbox?.close();
});

describe('zoom kinds stay within the items contract', () => {
  it('declares only contract kinds', () => {
    expect([...connector.kinds].sort()).toEqual([...CONTRACT_KINDS].sort());
  });

  it('collects closed captions and timelines as transcripts told apart by metadata.file_type, each under its own source id', async () => {
    const engine = new MiniEngine(connector, session(connector, grant).ctx);
    const result = await engine.run(
      filters({
        account_owners: sel({ all: true }),
        content_selections: { all_selected: false, selected: [{ transcript: true }], excluded: [] },
      }),
    );
    expect(result.errors).toEqual([]);
    for (const item of result.items) expect(CONTRACT_KINDS, item.kind).toContain(item.kind);
    const transcripts = result.items.filter((i) => i.kind === 'transcript');
    const types = transcripts.map((i) => i.metadata?.file_type);
    expect(new Set(types)).toEqual(new Set(['TRANSCRIPT', 'CC', 'TIMELINE']));
    // One item per file: a caption or timeline never lands on the source id of the meeting's transcript.
    expect(new Set(transcripts.map((i) => i.sourceId)).size).toBe(transcripts.length);
    const expectedFiles = sandbox.tenant.users
      .flatMap((u) => sandbox.tenant.meetingsOf(u.id))
      .flatMap((m) => m.recording_files)
      .filter((f) => ['TRANSCRIPT', 'CC', 'TIMELINE'].includes(f.file_type));
    expect(transcripts).toHaveLength(expectedFiles.length);
  });

  it('extracts WebVTT cues from transcripts and captions, and the timeline as JSON text', () => {
    const meeting = { uuid: 'mtg==', topic: 'Budget' };
    const owner = { id: 'u1', email: 'u1@example.com' };
    const start = '2024-05-01T10:00:04Z';
    const file = (file_type: string, file_extension: string) => ({
      file_type,
      file_extension,
      recording_start: start,
      recording_end: '2024-05-01T11:00:00Z',
      file_size: 10,
    });
    const items = (['TRANSCRIPT', 'CC', 'TIMELINE', 'TB'] as const).map((t) => {
      const f = file(t, t === 'TIMELINE' || t === 'TB' ? 'JSON' : 'VTT');
      return fileItem(owner, meeting, f, fileKind(f)!.kind);
    });
    expect(items.map((i) => i.kind)).toEqual(['transcript', 'transcript', 'transcript', 'transcript']);
    expect(items.map((i) => i.metadata?.file_type)).toEqual(['TRANSCRIPT', 'CC', 'TIMELINE', 'TIMELINE']);
    expect(new Set(items.map((i) => i.sourceId)).size).toBe(4);

    const vtt = Buffer.from('WEBVTT\n\n1\n00:00:01.000 --> 00:00:04.000\n<v Alice>The budget is approved\n');
    const timeline = Buffer.from(
      JSON.stringify({
        timeline: [{ ts: '00:00:01.000', users: [{ username: 'Alice Example', email_address: 'alice@example.com' }] }],
      }),
    );
    const descriptor = (i: (typeof items)[number]) => ({
      name: i.name,
      mime_type: i.mimeType ?? null,
      kind: i.kind,
      file_type: i.metadata?.file_type as string,
    });
    expect(items.map((i) => formatOf(descriptor(i)))).toEqual(['vtt', 'vtt', 'json', 'json']);
    expect(textOf(formatOf(descriptor(items[1]))!, vtt)).toBe('Alice: The budget is approved');
    const timelineText = textOf(formatOf(descriptor(items[2]))!, timeline)!;
    expect(timelineText).toContain('Alice Example');
    expect(timelineText).toContain('alice@example.com');
    // Even without metadata, a JSON transcript is not read as WebVTT (which would yield nothing).
    expect(formatOf({ name: 'x_timeline.json', mime_type: 'application/json', kind: 'transcript' })).toBe('json');
    expect(formatOf({ name: 'x', mime_type: null, kind: 'transcript' })).toBe('vtt');
  });
});
