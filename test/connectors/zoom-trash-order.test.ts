import { describe, expect, it } from 'vitest';
import type { CollectEvent } from '../../src/connectors/types.ts';
import type { Query, ZoomApi } from '../../src/connectors/zoom/api.ts';
import { collectRecordings } from '../../src/connectors/zoom/meetings.ts';
import type { ZoomRun } from '../../src/connectors/zoom/run.ts';
import type { Position } from '../../src/connectors/zoom/state.ts';
import type { RecordedMeeting } from '../../src/connectors/zoom/wire.ts';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 15, 12);
const owner = { id: 'u1', email: 'u1@example.com' };

/**
 * An owner whose recordings Zoom lists by month and in the trash (Correction Z2), and a user who moves one meeting
 * to the trash the moment the trash listing has been read. The November listing answers late (a far provider, a
 * long listing, a busy budget): whatever is listed ahead, a meeting is in one of the two listings only if its
 * month was read before the trash was.
 */
function zoomWithATrashAction(novemberLate: () => Promise<void>) {
  const meeting = (uuid: string, start: number): RecordedMeeting => ({
    uuid,
    id: 1,
    host_id: owner.id,
    topic: uuid,
    start_time: new Date(start).toISOString(),
    recording_files: [],
  });
  const live = [meeting('oct-meeting', Date.UTC(2026, 9, 10)), meeting('nov-meeting', Date.UTC(2026, 10, 10))];
  const trash: RecordedMeeting[] = [];
  const get = async (_path: string, query: Query) => {
    if (query.trash) {
      const listed = query.trash_type === 'meeting_recordings' ? [...trash] : [];
      // Read by Custody; the account owner trashes the November meeting right after.
      const at = live.findIndex((m) => m.uuid === 'nov-meeting');
      if (at >= 0) trash.push(...live.splice(at, 1));
      return { meetings: listed, next_page_token: '' };
    }
    const from = String(query.from);
    if (from.startsWith('2026-11')) await novemberLate();
    return {
      meetings: live.filter((m) => m.start_time!.slice(0, 7) === from.slice(0, 7)),
      next_page_token: '',
    };
  };
  return { api: { get } as unknown as ZoomApi };
}

function runOf(api: ZoomApi): ZoomRun {
  return {
    api,
    ctx: { log: { debug() {} } },
    state: { startedAt: NOW },
    content: new Set(),
    summaries: null,
    lookbackStart: NOW - 180 * DAY,
    now: () => NOW,
    ownerSince: () => Date.UTC(2026, 7, 20),
    checkpoint: (): CollectEvent => ({ type: 'checkpoint', state: {} }),
  } as unknown as ZoomRun;
}

describe('zoom: month windows listed ahead and the trash listings', () => {
  it('reads the trash after every month window was read, so a meeting trashed meanwhile is in one of them', async () => {
    const zoom = zoomWithATrashAction(() => new Promise((resolve) => setTimeout(resolve, 50)));
    const pos: Position = { owner: owner.id, phase: 'recordings', window: 0 };
    const meetings: string[] = [];
    for await (const e of collectRecordings(runOf(zoom.api), owner, pos)) {
      if (e.type === 'item' && e.item.kind === 'meeting') meetings.push(e.item.sourceId);
    }
    // Both meetings existed throughout the run (one of them moved to the trash): both are collected.
    expect(meetings.sort()).toEqual(['nov-meeting', 'oct-meeting']);
  });
});
