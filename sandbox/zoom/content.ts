import { createRng, pseudoRandomBytes, hash32 } from './prng.ts';

// Words people say in the demo tenant's meetings and chats, so transcripts and messages are searchable text.
const SENTENCES = [
  'Let us review the quarterly numbers before we move on.',
  'The migration to the new billing platform is on track for next month.',
  'Can everyone see my screen with the roadmap?',
  'I spoke with the vendor about the renewal and they offered a discount.',
  'We need legal to sign off on the data retention policy.',
  'The customer escalation from last week has been resolved.',
  'Please send the revised budget spreadsheet by Friday.',
  'Our hiring plan includes two engineers and one designer.',
  'The security audit found no critical issues this quarter.',
  'Let us schedule a follow up with the Orion project team.',
  'I think the launch date should move to the second week of June.',
  'Marketing wants a draft of the press release for the Falcon release.',
  'The invoice for the Zephyr contract is still outstanding.',
  'Who owns the action item for the onboarding checklist?',
  'We should archive the old shared drive before the office move.',
  'The board presentation needs a slide on customer retention.',
  'Support tickets dropped by twelve percent after the update.',
  'I will circulate the meeting notes after this call.',
  'Thanks everyone, that is all for today.',
  'Could you repeat the last point about the compliance deadline?',
];

const CHAT_LINES = [
  'Hi, do you have a minute?',
  'Sure, what is up?',
  'Can you review the contract draft I shared?',
  'I left comments on section four.',
  'The Orion demo is moved to Thursday.',
  'Thanks, I will update the calendar invite.',
  'Did finance approve the purchase order?',
  'Not yet, they asked for another quote.',
  'Lunch at noon?',
  'Please keep the Falcon numbers confidential for now.',
  'Sending the slides over in a moment.',
  'Got it, looks good to me.',
  'Let us talk about the Zephyr renewal tomorrow.',
  'I am out of office on Monday.',
];

export function sentence(rngSeed: number): string {
  return SENTENCES[rngSeed % SENTENCES.length];
}

export function chatLine(index: number, salt: number): string {
  return CHAT_LINES[(index + salt) % CHAT_LINES.length];
}

function vttTime(ms: number): string {
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  const frac = ms % 1000;
  return `${pad(h)}:${pad(m)}:${pad(s)}.${String(frac).padStart(3, '0')}`;
}

function clockTime(ms: number): string {
  return vttTime(ms).slice(0, 8);
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** WebVTT as Zoom writes transcripts: numbered cues, "Speaker: words". */
export function transcriptVtt(key: string, speakers: readonly string[], durationMin: number, withNames = true): Buffer {
  const rng = createRng(hash32(key));
  const cues = rng.int(6, 12);
  const span = Math.max(60_000, durationMin * 60_000);
  const lines = ['WEBVTT', ''];
  let at = rng.int(500, 3000);
  for (let i = 1; i <= cues && at < span; i++) {
    const length = rng.int(2500, 9000);
    const words = rng.pick(SENTENCES);
    lines.push(String(i), `${vttTime(at)} --> ${vttTime(at + length)}`);
    lines.push(withNames ? `${rng.pick(speakers)}: ${words}` : words, '');
    at += length + rng.int(200, 4000);
  }
  return Buffer.from(lines.join('\n'), 'utf8');
}

/** The in-meeting chat file (CHAT / chat_file, TXT). */
export function meetingChatTxt(key: string, speakers: readonly string[]): Buffer {
  const rng = createRng(hash32(key));
  const count = rng.int(2, 6);
  let at = rng.int(30_000, 120_000);
  let out = '';
  for (let i = 0; i < count; i++) {
    out += `${clockTime(at)} From ${rng.pick(speakers)} to Everyone:\n\t${rng.pick(CHAT_LINES)}\n`;
    at += rng.int(10_000, 300_000);
  }
  return Buffer.from(out, 'utf8');
}

export function timelineJson(key: string, participants: ReadonlyArray<{ name: string; email: string }>): Buffer {
  const rng = createRng(hash32(key));
  const timeline = [];
  let at = 0;
  for (let i = 0; i < rng.int(2, 5); i++) {
    const who = rng.pick(participants);
    timeline.push({
      ts: vttTime(at),
      users: [{ username: who.name, email_address: who.email, multiple_people: false }],
    });
    at += rng.int(5_000, 600_000);
  }
  return Buffer.from(JSON.stringify({ timeline }), 'utf8');
}

const MP4_HEAD = Buffer.from('000000206674797069736f6d0000020069736f6d69736f32617663316d703431', 'hex');
const M4A_HEAD = Buffer.from('00000020667479704d344120000000004d34412069736f6d69736f320000', 'hex');

/** Bytes [start, end) of a binary media file: a real ftyp box, then deterministic noise keyed by the file id. */
export function mediaBytes(kind: 'MP4' | 'M4A', fileId: string, start: number, end: number): Buffer {
  const head = kind === 'MP4' ? MP4_HEAD : M4A_HEAD;
  const body = pseudoRandomBytes(hash32(fileId), start, end);
  for (let i = start; i < Math.min(end, head.length); i++) body[i - start] = head[i];
  return body;
}
