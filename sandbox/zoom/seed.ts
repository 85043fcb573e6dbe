import { chatLine, meetingChatTxt, sentence, timelineJson, transcriptVtt } from './content.ts';
import { ALNUM, BASE64, BASE64URL, HEX, createRng, type Rng } from './prng.ts';
import { addChatExtras } from './seed-chat.ts';
import { addMeetingEvidence } from './seed-evidence.ts';
import { makeLegalHoldMatters } from './seed-legal-hold.ts';
import { variantUuid } from './variance.ts';
import {
  ZoomTenant,
  type UserStatus,
  type ZoomChannel,
  type ZoomChatMessage,
  type ZoomMeeting,
  type ZoomMeetingSummary,
  type ZoomOneToOne,
  type ZoomRecordingFile,
  type ZoomUser,
} from './tenant.ts';

export interface SeedOptions {
  seed: number;
  users: number;
  meetingsPerUser: number;
  fileSize: number;
  channels: number;
  messagesPerChannel: number;
  oneToOnePeersPerUser: number;
  messagesPerChat: number;
  now: Date;
  /** The variance profile's tenant: UUIDs needing double encoding, summaries and transcripts present at random. */
  variance?: boolean;
  /** External contacts, chat files and chat history beyond six months (seed-chat.ts). */
  chatExtras?: boolean;
  /** Participant audio, trashed recordings and summaries of unrecorded meetings (seed-evidence.ts). */
  evidence?: boolean;
}

const FIRST = [
  'Alice',
  'Bruno',
  'Chiara',
  'Dmitri',
  'Elena',
  'Farid',
  'Grace',
  'Hiro',
  'Ines',
  'Jonas',
  'Kara',
  'Luis',
  'Mei',
  'Nadia',
  'Omar',
  'Priya',
];
const LAST = [
  'Andersen',
  'Bianchi',
  'Costa',
  'Dubois',
  'Eriksen',
  'Fischer',
  'Garcia',
  'Hoffmann',
  'Ivanova',
  'Jensen',
  'Kowalski',
  'Lopez',
  'Moreau',
  'Novak',
  'Okafor',
  'Petrov',
];
const TOPICS = [
  'Weekly sync',
  'Quarterly business review',
  'Customer escalation',
  'Roadmap planning',
  'Budget review',
  'Hiring committee',
  'Security audit debrief',
  'Orion project standup',
  'Falcon launch prep',
  'Vendor negotiation',
];
const CHANNEL_NAMES = [
  'general',
  'legal-hold',
  'project-orion',
  'finance',
  'falcon-launch',
  'random',
  'support-escalations',
  'board-prep',
];
const DOMAIN = 'sandbox-zoom.example';
const DAY = 86_400_000;
const HISTORY_DAYS = 150;

export function seedTenant(o: SeedOptions): ZoomTenant {
  const rng = createRng(o.seed);
  const now = o.now.getTime();
  const accountId = rng.chars(ALNUM + '-_', 22);
  const users = makeUsers(rng, o.users, now);
  const deleted = makeUser(rng, users.length, 'active', now, users);
  const custodians = users.filter((u) => u.status !== 'pending');
  const textBodies = new Map<string, Buffer>();
  const meetings: ZoomMeeting[] = [];
  // A second stream, so the variance profile's choices never shift the default tenant's data.
  const vrng = o.variance ? createRng(o.seed ^ 0x7a11ce) : undefined;
  for (const host of custodians) {
    for (let j = 0; j < o.meetingsPerUser; j++) {
      meetings.push(makeMeeting(rng, o, host, j, meetings, custodians, textBodies, vrng));
    }
  }
  const channels = makeChannels(rng, o.channels, custodians);
  const channelMessages: Record<string, ZoomChatMessage[]> = {};
  for (const channel of channels) {
    const members = channel.memberIds.map((id) => custodians.find((u) => u.id === id)!);
    channelMessages[channel.id] = makeMessages(rng, members, o.messagesPerChannel, now);
  }
  const oneToOne = makeOneToOne(rng, o, custodians, deleted, now);
  const extras = o.chatExtras
    ? addChatExtras(o.seed, now, custodians, oneToOne, channels, channelMessages, textBodies, o.messagesPerChat)
    : undefined;
  if (o.evidence) addMeetingEvidence(o.seed, meetings, custodians, now, o.fileSize);
  const legalHoldMatters = o.chatExtras ? makeLegalHoldMatters(o.seed, now, custodians, textBodies) : undefined;
  return new ZoomTenant({
    accountId,
    users,
    deletedUsers: [deleted],
    meetings,
    channels,
    channelMessages,
    oneToOne,
    textBodies,
    externalContacts: extras?.externalContacts,
    legalHoldMatters,
  });
}

function makeUsers(rng: Rng, count: number, now: number): ZoomUser[] {
  const users: ZoomUser[] = [];
  for (let i = 0; i < count; i++) {
    // The last two of a tenant of 3 or more are a departed (inactive) and an invited (pending) user.
    const status: UserStatus =
      count >= 3 && i === count - 2 ? 'inactive' : count >= 3 && i === count - 1 ? 'pending' : 'active';
    users.push(makeUser(rng, i, status, now, users));
  }
  return users;
}

function makeUser(rng: Rng, index: number, status: UserStatus, now: number, existing: ZoomUser[]): ZoomUser {
  const first = FIRST[(index + rng.int(0, FIRST.length - 1)) % FIRST.length];
  const last = LAST[rng.int(0, LAST.length - 1)];
  let email = `${first}.${last}@${DOMAIN}`.toLowerCase();
  if (existing.some((u) => u.email === email)) email = `${first}.${last}${index}@${DOMAIN}`.toLowerCase();
  const created = iso(now - rng.int(400, 1500) * DAY);
  return {
    id: rng.chars(BASE64URL, 22),
    first_name: first,
    last_name: last,
    display_name: `${first} ${last}`,
    email,
    type: status === 'pending' ? 1 : 2,
    pmi: rng.int(1_000_000_000, 9_999_999_999),
    timezone: rng.pick(['America/New_York', 'Europe/Berlin', 'Asia/Tokyo', 'UTC']),
    verified: status === 'pending' ? 0 : 1,
    dept: rng.pick(['Legal', 'Finance', 'Engineering', 'Sales']),
    created_at: created,
    user_created_at: created,
    ...(status === 'pending'
      ? {}
      : { last_login_time: iso(now - rng.int(0, 20) * DAY), last_client_version: '6.2.5.1234(mac)' }),
    language: 'en-US',
    status,
    role_id: index === 0 ? '0' : index === 1 ? '1' : '2',
  };
}

/**
 * UUIDs are base64 (they contain `+`, `/`, `=`). Every few meetings get one that starts with `/` or contains `//`,
 * which Zoom requires to be double-encoded in paths, or a lone `/`, which single encoding handles.
 */
export function meetingUuid(rng: Rng, k: number): string {
  const chars = rng.chars(BASE64, 22).split('');
  for (let i = 0; i < chars.length; i++) if (chars[i] === '/') chars[i] = 'Q';
  if (k % 6 === 1) chars[0] = '/';
  if (k % 6 === 3) chars[8] = chars[9] = '/';
  if (k % 6 === 5) chars[10] = '/';
  if (k % 6 === 2) chars[4] = '+';
  return chars.join('') + '==';
}

function makeMeeting(
  rng: Rng,
  o: SeedOptions,
  host: ZoomUser,
  j: number,
  earlier: ZoomMeeting[],
  people: ZoomUser[],
  bodies: Map<string, Buffer>,
  vrng?: Rng,
): ZoomMeeting {
  const k = earlier.length;
  const now = o.now.getTime();
  const isFirst = k === 0;
  const start = isFirst ? recentInstant(now) : now - rng.int(1, HISTORY_DAYS) * DAY - rng.int(0, 23 * 60) * 60_000;
  const startTime = Math.floor(start / 1000) * 1000;
  const duration = rng.int(15, 90);
  // Instances 1 and 2 of each host are one recurring meeting: same numeric id, different UUIDs.
  const sibling = j === 2 ? earlier[k - 1] : undefined;
  const meeting: ZoomMeeting = {
    uuid: vrng && vrng.chance(0.7) ? variantUuid(vrng, meetingUuid(rng, k)) : meetingUuid(rng, k),
    id: sibling ? sibling.id : rng.int(81_000_000_000, 99_999_999_999),
    host_id: host.id,
    host_email: host.email,
    topic: `${rng.pick(TOPICS)} ${k + 1}`,
    type: j === 1 || j === 2 ? 8 : 2,
    start_time: iso(startTime),
    duration,
    timezone: host.timezone,
    recording_files: [],
  };
  const speakers = [host, ...people.filter((p) => p !== host).slice(0, 2)];
  const names = speakers.map((s) => s.display_name);
  const recStart = iso(startTime + 4000);
  const recEnd = iso(startTime + duration * 60_000);
  const add = (
    file_type: ZoomRecordingFile['file_type'],
    recording_type: string,
    ext: ZoomRecordingFile['file_extension'],
    contentType: string,
    size: number | Buffer,
    idOnWire = true,
  ): void => {
    const id = `${rng.chars(HEX, 8)}-${rng.chars(HEX, 4)}-4${rng.chars(HEX, 3)}-a${rng.chars(HEX, 3)}-${rng.chars(HEX, 12)}`;
    if (Buffer.isBuffer(size)) bodies.set(id, size);
    meeting.recording_files.push({
      id,
      idOnWire,
      meeting_id: meeting.uuid,
      recording_start: recStart,
      recording_end: recEnd,
      file_type,
      file_extension: ext,
      file_size: Buffer.isBuffer(size) ? size.length : size,
      recording_type,
      downloadKey: `${rng.chars(BASE64URL, 48)}.${rng.chars(BASE64URL, 16)}`,
      contentType,
    });
  };
  const key = `${meeting.uuid}:${o.seed}`;
  add('MP4', 'shared_screen_with_speaker_view', 'MP4', 'video/mp4', o.fileSize);
  if (k % 4 === 1) add('MP4', 'gallery_view', 'MP4', 'video/mp4', o.fileSize);
  if (k % 3 !== 2) add('M4A', 'audio_only', 'M4A', 'audio/mp4', Math.max(64, Math.floor(o.fileSize / 4)));
  const hasTranscript = vrng ? vrng.chance(0.5) : k % 4 !== 3;
  if (hasTranscript)
    add('TRANSCRIPT', 'audio_transcript', 'VTT', 'text/vtt', transcriptVtt(`${key}:t`, names, duration));
  if (k % 2 === 0) add('CHAT', 'chat_file', 'TXT', 'text/plain', meetingChatTxt(`${key}:c`, names));
  if (hasTranscript && k % 3 === 0)
    add('CC', 'closed_caption', 'VTT', 'text/vtt', transcriptVtt(`${key}:cc`, names, duration), false);
  if (k % 2 === 1) {
    const who = speakers.map((s) => ({ name: s.display_name, email: s.email }));
    add('TIMELINE', 'timeline', 'JSON', 'application/json', timelineJson(`${key}:tl`, who), false);
  }
  if (vrng ? vrng.chance(0.5) : k % 3 === 0) meeting.summary = makeSummary(rng, meeting, startTime);
  return meeting;
}

export function makeSummary(rng: Rng, m: ZoomMeeting, startMs: number): ZoomMeetingSummary {
  const endMs = startMs + m.duration * 60_000;
  const created = endMs + rng.int(1, 10) * 60_000;
  const edited = rng.chance(0.3);
  const details = [
    { label: 'Discussion', summary: sentence(rng.int(0, 1000)) },
    { label: 'Decisions', summary: sentence(rng.int(0, 1000)) },
  ];
  const steps = [`${m.host_email.split('@')[0]} will ${sentence(rng.int(0, 1000)).toLowerCase()}`];
  const overview = `The team met for "${m.topic}". ${sentence(rng.int(0, 1000))}`;
  return {
    meeting_host_id: m.host_id,
    meeting_host_email: m.host_email,
    meeting_uuid: m.uuid,
    meeting_id: m.id,
    meeting_topic: m.topic,
    meeting_start_time: m.start_time,
    meeting_end_time: iso(endMs),
    summary_start_time: m.start_time,
    summary_end_time: iso(endMs),
    summary_created_time: iso(created),
    summary_last_modified_time: iso(edited ? created + DAY : created),
    summary_title: `Meeting summary for ${m.topic}`,
    summary_overview: overview,
    summary_details: details,
    next_steps: steps,
    ...(edited
      ? { edited_summary: { summary_details: details.slice(0, 1), next_steps: [...steps, 'Circulate the notes'] } }
      : {}),
    summary_content: `## Quick recap\n\n${overview}\n\n## Next steps\n\n${steps.map((s) => `- ${s}`).join('\n')}\n`,
    summary_doc_url: `https://docs.zoom.us/doc/${rng.chars(BASE64URL, 22)}`,
  };
}

function makeChannels(rng: Rng, count: number, people: ZoomUser[]): ZoomChannel[] {
  const channels: ZoomChannel[] = [];
  if (people.length === 0) return channels;
  for (let c = 0; c < count; c++) {
    const id = rng.chars(HEX, 32);
    const members = people.filter((_u, i) => i === c % people.length || rng.chance(0.6));
    if (members.length < 2 && people.length > 1) members.push(people.find((u) => !members.includes(u))!);
    const isPrivate = c % 2 === 0;
    const base = CHANNEL_NAMES[c % CHANNEL_NAMES.length];
    channels.push({
      id,
      jid: `${id}@conference.xmpp.zoom.us`,
      name: c < CHANNEL_NAMES.length ? base : `${base}-${c}`,
      type: isPrivate ? 1 : 3,
      isPrivate,
      memberIds: members.map((u) => u.id),
    });
  }
  return channels;
}

function makeOneToOne(rng: Rng, o: SeedOptions, people: ZoomUser[], deleted: ZoomUser, now: number): ZoomOneToOne[] {
  const pairs = new Set<string>();
  const out: ZoomOneToOne[] = [];
  const reach = Math.ceil(o.oneToOnePeersPerUser / 2);
  for (let i = 0; i < people.length; i++) {
    for (let d = 1; d <= reach && d < people.length; d++) {
      const a = people[i];
      const b = people[(i + d) % people.length];
      const key = [a.id, b.id].sort().join('|');
      if (pairs.has(key)) continue;
      pairs.add(key);
      out.push({ userIds: [a.id, b.id], messages: makeMessages(rng, [a, b], o.messagesPerChat, now) });
    }
  }
  // The owner also talked to someone who has since been deleted from the account.
  if (people.length > 0 && o.oneToOnePeersPerUser > 0) {
    out.push({
      userIds: [people[0].id, deleted.id],
      messages: makeMessages(rng, [people[0], deleted], o.messagesPerChat, now),
    });
  }
  return out;
}

function makeMessages(rng: Rng, members: ZoomUser[], count: number, now: number): ZoomChatMessage[] {
  const times: number[] = [];
  for (let i = 0; i < count; i++) times.push(now - rng.int(0, HISTORY_DAYS * 24 * 60) * 60_000 - rng.int(1, 59) * 1000);
  times.sort((a, b) => a - b);
  if (count > 0) times[count - 1] = recentInstant(now);
  const salt = rng.int(0, 100);
  return times.map((t, j) => {
    const sender = members[j % members.length];
    const text = chatLine(j, salt);
    const status = j % 7 === 3 ? 'Edited' : j % 11 === 5 ? 'Deleted' : 'Normal';
    return {
      id: `${rng.chars(HEX, 8)}-${rng.chars(HEX, 4)}-${rng.chars(HEX, 4)}-${rng.chars(HEX, 4)}-${rng.chars(HEX, 12)}`,
      sender: sender.email,
      senderId: sender.id,
      sender_display_name: sender.display_name,
      date_time: iso(t),
      timestamp: t,
      message: status === 'Edited' ? `${text} (edited: ${sentence(j + salt).toLowerCase()})` : text,
      status,
      ...(status === 'Edited' ? { originalMessage: text } : {}),
      // Edited or deleted minutes to hours after it was sent (never after now); no draw, so the seed's stream is unchanged.
      ...(status !== 'Normal' ? { actionAt: Math.min(now - 1000, t + (((j * 7919 + salt) % 720) + 1) * 60_000) } : {}),
    };
  });
}

/** A moment shortly before `now` that is still on the same UTC day, so "today only" defaults find something. */
export function recentInstant(now: number): number {
  const sinceMidnight = now % DAY;
  return now - Math.min(30 * 60_000, Math.floor(sinceMidnight / 2));
}

export function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
