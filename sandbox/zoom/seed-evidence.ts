// Evidence a real Zoom account holds beyond what the users' recordings lists show (../shared/reference/
// zoom-api.md, Corrections Z1-Z3): participant audio files (only on GET /meetings/{uuid}/recordings), recordings
// in the trash (only with `trash=true`), and AI summaries of meetings that have no cloud recording (only in
// GET /meetings/meeting_summaries). Seeded from a stream of its own, so the rest of the tenant is unchanged.
import { BASE64URL, HEX, createRng, type Rng } from './prng.ts';
import { iso, makeSummary, meetingUuid } from './seed.ts';
import type { ZoomMeeting, ZoomRecordingFile, ZoomUser } from './tenant.ts';

const DAY = 86_400_000;
/** Zoom keeps trashed recordings 30 days before purging them. */
const TRASH_DAYS = 30;

export function addMeetingEvidence(
  seed: number,
  meetings: ZoomMeeting[],
  people: ZoomUser[],
  now: number,
  fileSize: number,
): void {
  const rng = createRng(seed ^ 0xe71de9ce);
  const recorded = [...meetings];
  recorded.forEach((m, k) => {
    const roll = rng.int(0, 5);
    if (roll <= 2) m.participant_audio_files = participantAudio(rng, m, people, fileSize);
    if (roll === 3) m.trashed = { deleted_time: iso(now - rng.int(1, TRASH_DAYS - 1) * DAY) };
    // A file the host deleted on its own; the meeting keeps at least one file in the ordinary listing.
    if (roll === 4 && m.recording_files.length > 1)
      m.recording_files[m.recording_files.length - 1].deleted_time = iso(now - rng.int(1, TRASH_DAYS - 1) * DAY);
    // Both at once: a trashed meeting with participants' audio.
    if (roll === 5 && k % 2 === 0) {
      m.participant_audio_files = participantAudio(rng, m, people, fileSize);
      m.trashed = { deleted_time: iso(now - rng.int(1, TRASH_DAYS - 1) * DAY) };
    }
  });
  // Each host also held meetings that were never recorded but have an AI Companion summary.
  const hosts = [...new Set(recorded.map((m) => m.host_id))];
  for (const hostId of hosts) {
    const host = people.find((p) => p.id === hostId);
    if (!host) continue;
    const start = Math.floor((now - rng.int(1, 120) * DAY - rng.int(0, 600) * 60_000) / 1000) * 1000;
    const meeting: ZoomMeeting = {
      uuid: meetingUuid(rng, meetings.length),
      id: rng.int(81_000_000_000, 99_999_999_999),
      host_id: host.id,
      host_email: host.email,
      topic: `Unrecorded huddle ${meetings.length + 1}`,
      type: 2,
      start_time: iso(start),
      duration: rng.int(10, 45),
      timezone: host.timezone,
      recording_files: [],
    };
    meeting.summary = makeSummary(rng, meeting, start);
    meetings.push(meeting);
  }
}

function participantAudio(rng: Rng, m: ZoomMeeting, people: ZoomUser[], fileSize: number): ZoomRecordingFile[] {
  const host = people.find((p) => p.id === m.host_id);
  const others = people.filter((p) => p.id !== m.host_id).slice(0, rng.int(1, 2));
  const start = Date.parse(m.start_time) + 4000;
  return [host, ...others]
    .filter((p): p is ZoomUser => !!p)
    .map((p) => ({
      id: `${rng.chars(HEX, 8)}-${rng.chars(HEX, 4)}-4${rng.chars(HEX, 3)}-b${rng.chars(HEX, 3)}-${rng.chars(HEX, 12)}`,
      idOnWire: true,
      meeting_id: m.uuid,
      recording_start: iso(start),
      recording_end: iso(start + m.duration * 60_000),
      file_type: 'M4A',
      file_extension: 'M4A',
      file_size: Math.max(64, Math.floor(fileSize / 5) + rng.int(0, 31)),
      recording_type: 'audio_only',
      downloadKey: `${rng.chars(BASE64URL, 48)}.${rng.chars(BASE64URL, 16)}`,
      contentType: 'audio/mp4',
      file_name: `${p.display_name}'s audio`,
    }));
}
