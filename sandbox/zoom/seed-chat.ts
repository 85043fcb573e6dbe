// What a real account's Team Chat holds beyond the default tenant (issue 20), from ../shared/reference/zoom-api.md:
// one-to-one conversations with contacts outside the account (member id only, Correction Z4), files attached to
// messages (Correction Z5), and history older than the six months the API serves (Correction Z6). Drawn from a
// stream of its own, so the default tenant's data never shifts.
import { sentence } from './content.ts';
import { BASE64URL, HEX, createRng, type Rng } from './prng.ts';
import type {
  ZoomChannel,
  ZoomChatFile,
  ZoomChatMessage,
  ZoomExternalContact,
  ZoomOneToOne,
  ZoomUser,
} from './tenant.ts';

const DAY = 86_400_000;
const EXTERNAL = ['Quinn Rivera (Acme Corp)', 'Sam Okoro (Contoso Ltd)', 'Taylor Berg (Globex)'];
const FILES: Array<{ ext: string; type: string }> = [
  { ext: 'pdf', type: 'application/pdf' },
  { ext: 'png', type: 'image/png' },
  { ext: 'txt', type: 'text/plain' },
  { ext: 'csv', type: 'text/csv' },
];

export interface ChatExtras {
  externalContacts: ZoomExternalContact[];
}

/**
 * Adds, in place: two or three external contacts each chatting with a custodian; files on about one message in
 * four; and, in some conversations and channels, messages 200 to 400 days old (beyond the API's reach).
 */
export function addChatExtras(
  seed: number,
  now: number,
  custodians: ZoomUser[],
  oneToOne: ZoomOneToOne[],
  channels: ZoomChannel[],
  channelMessages: Record<string, ZoomChatMessage[]>,
  bodies: Map<string, Buffer>,
  messagesPerChat: number,
): ChatExtras {
  const rng = createRng(seed ^ 0xc4a7f1);
  const externalContacts: ZoomExternalContact[] = [];
  if (custodians.length > 0 && messagesPerChat > 0) {
    const count = rng.int(2, EXTERNAL.length);
    for (let i = 0; i < count; i++) {
      const contact = { member_id: rng.chars(BASE64URL, 22), display_name: EXTERNAL[i] };
      externalContacts.push(contact);
      const owner = custodians[i % custodians.length];
      const messages = externalMessages(rng, owner, contact, Math.max(2, messagesPerChat), now);
      oneToOne.push({ userIds: [owner.id, contact.member_id], messages });
    }
  }
  // The first channel with three members or more does not show new members its history: its members joined one
  // after another, the last ones well after its first messages.
  const staged = channels.find((c) => c.memberIds.length >= 3 && (channelMessages[c.id]?.length ?? 0) >= 4);
  if (staged) {
    const times = channelMessages[staged.id].map((m) => m.timestamp).sort((a, b) => a - b);
    const order = [...staged.memberIds].sort(() => (rng.chance(0.5) ? 1 : -1));
    staged.joinedAt = {};
    order.forEach((id, i) => {
      // The first to join was there from the start; each later one joined before some later message.
      staged.joinedAt![id] =
        i === 0
          ? times[0] - DAY
          : times[Math.min(times.length - 1, Math.floor((i * times.length) / order.length))] - 1000;
    });
  }
  const lists = [...oneToOne.map((c) => c.messages), ...channels.map((c) => channelMessages[c.id] ?? [])];
  for (const list of lists) {
    for (const m of list) if (rng.chance(0.25)) m.files = makeFiles(rng, m, bodies);
    // Older than six months: Zoom holds them, the API refuses to serve them.
    if (list.length > 0 && rng.chance(0.5)) {
      const old = { ...list[0], id: messageId(rng), files: undefined };
      old.timestamp = now - rng.int(200, 400) * DAY - rng.int(1, 59) * 1000;
      old.date_time = new Date(old.timestamp).toISOString().replace(/\.\d{3}Z$/, 'Z');
      list.unshift(old);
    }
  }
  return { externalContacts };
}

function messageId(rng: Rng): string {
  return `${rng.chars(HEX, 8)}-${rng.chars(HEX, 4)}-${rng.chars(HEX, 4)}-${rng.chars(HEX, 4)}-${rng.chars(HEX, 12)}`;
}

function externalMessages(
  rng: Rng,
  owner: ZoomUser,
  contact: ZoomExternalContact,
  count: number,
  now: number,
): ZoomChatMessage[] {
  const out: ZoomChatMessage[] = [];
  for (let j = 0; j < count; j++) {
    const t = now - rng.int(1, 120 * 24 * 60) * 60_000 - rng.int(1, 59) * 1000;
    const fromOwner = j % 2 === 0;
    out.push({
      id: messageId(rng),
      // An external sender has no e-mail in the account: Zoom names them by display name and member id.
      sender: fromOwner ? owner.email : '',
      senderId: fromOwner ? owner.id : contact.member_id,
      sender_display_name: fromOwner ? owner.display_name : contact.display_name,
      date_time: new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      timestamp: t,
      message: sentence(rng.int(0, 1000)),
      status: 'Normal',
    });
  }
  return out.sort((a, b) => a.timestamp - b.timestamp);
}

function makeFiles(rng: Rng, m: ZoomChatMessage, bodies: Map<string, Buffer>): ZoomChatFile[] {
  const files: ZoomChatFile[] = [];
  for (let i = rng.int(1, 2); i > 0; i--) {
    const kind = rng.pick(FILES);
    const file_id = `${rng.chars(HEX, 8)}-${rng.chars(HEX, 4)}-${rng.chars(HEX, 4)}-${rng.chars(HEX, 4)}-${rng.chars(HEX, 12)}`;
    const body = Buffer.from(`${m.id} ${file_id}\n${sentence(rng.int(0, 1000))}\n`.repeat(rng.int(1, 40)), 'utf8');
    bodies.set(file_id, body);
    files.push({
      file_id,
      file_name: `attachment-${file_id.slice(0, 8)}.${kind.ext}`,
      file_size: body.length,
      downloadKey: rng.chars(BASE64URL, 40),
      contentType: kind.type,
    });
  }
  return files;
}
