import type { ExportItem } from './selection.ts';

/** Someone in a conversation: keyed by e-mail where known, else by Zoom member (or user) id. */
export interface ChatPerson {
  id: string;
  name: string;
  email: string;
  account_id: string;
}

/** One chat message as the export reads it. */
export interface ChatMessage {
  id: string;
  conversation: { id: string; name: string; type: string };
  from: ChatPerson;
  sent_at: string | null;
  text: string;
  files: Array<{ id: string; name: string; size: number | null }>;
  parent_id: string | null;
  deleted: boolean;
  /** an edit from the chat reports: the message it changed and when; its text is the text the edit replaced */
  edit: { of: string; at: string | null } | null;
}

/** A chat file exported as a child document of its conversation-day's chat document. */
export interface ChatAttachment {
  item: ExportItem;
  messageId: string;
  docid: string;
  /** its name inside rsmf.zip (`<DOCID>.<ext>`): an RSMF attachment's `id` is a file name in the zip */
  zipName: string;
}

/** A conversation's messages of one UTC day, sent order, with their files. */
export interface ChatGroup {
  key: string;
  conversation: ChatMessage['conversation'];
  day: string;
  /** the item custodian: the owner of a one-to-one conversation, the channel id of a channel */
  custodian: string;
  messages: ChatMessage[];
  items: ExportItem[];
  participants: ChatPerson[];
  /** the participant whose account the conversation was collected from (one-to-one), else '' */
  ownerId: string;
  files: ChatAttachment[];
}

const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const emailOf = (v: unknown): string => (str(v).includes('@') ? str(v).toLowerCase() : '');

/**
 * Where a message's facts live: the item's text (the message) and its metadata (connectors/zoom/items.ts
 * messageItem). The one place to adapt when messages become JSON content blobs.
 */
export function chatMessageOf(item: ExportItem): ChatMessage {
  const m = JSON.parse(item.metadata || '{}') as Record<string, unknown>;
  const files = Array.isArray(m.files) ? (m.files as Array<Record<string, unknown>>) : [];
  const email = emailOf(m.sender);
  const member = str(m.sender_member_id);
  const name = str(m.sender_display_name) || email || member || 'unknown';
  return {
    id: item.source_id,
    conversation: {
      id: str(m.conversation_id) || item.custodian || 'unknown',
      name: str(m.conversation_name) || str(m.conversation_id),
      type: str(m.conversation_type) || (item.kind === 'channel_message' ? 'channel' : 'one-to-one'),
    },
    from: { id: email || member || name, name, email, account_id: member },
    sent_at: isoOrNull(item.created_datetime),
    text: item.text ?? '',
    files: files.map((f) => ({
      id: str(f.file_id),
      name: str(f.file_name),
      size: typeof f.file_size === 'number' ? f.file_size : null,
    })),
    parent_id: str(m.reply_main_message_id) || null,
    deleted: str(m.status).toLowerCase() === 'deleted',
    edit:
      m.edited === true && str(m.parent_source_id)
        ? {
            of: str(m.parent_source_id),
            at: typeof m.action_timestamp === 'number' ? isoOrNull(new Date(m.action_timestamp).toISOString()) : null,
          }
        : null,
  };
}

export function isoOrNull(value: string | null | undefined): string | null {
  if (!value) return null;
  const t = Date.parse(value);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

/**
 * The people of a conversation-day: for a one-to-one conversation its owner and the peer (whether or not they
 * wrote that day), then everyone who sent a message; one entry per person, the first name and ids seen kept.
 * Each message's `from` becomes its participant.
 */
export function chatParticipants(
  g: Pick<ChatGroup, 'conversation' | 'messages'>,
  owner: { raw: string; email: string; name: string } | null,
): { participants: ChatPerson[]; ownerId: string } {
  const people = new Map<string, ChatPerson>();
  const put = (p: ChatPerson) => {
    const known = people.get(p.id);
    if (!known) people.set(p.id, { ...p });
    else
      for (const k of ['name', 'email', 'account_id'] as const)
        if (!known[k] || (k === 'name' && known.name === known.id)) known[k] = p[k] || known[k];
  };
  let ownerId = '';
  if (owner && g.conversation.type !== 'channel') {
    ownerId = owner.email || owner.raw;
    put({ id: ownerId, name: owner.name || owner.email || owner.raw, email: owner.email, account_id: owner.raw });
    const peerEmail = emailOf(g.conversation.name);
    const peer = peerEmail || g.conversation.id;
    put({ id: peer, name: g.conversation.name || peer, email: peerEmail, account_id: g.conversation.id });
  }
  for (const m of g.messages) {
    // Zoom names a sender outside the account by display name only: the peer of that name is that sender.
    const bare = !m.from.email && !m.from.account_id;
    const same = bare
      ? [...people.values()].find((p) => p.name.toLowerCase() === m.from.name.toLowerCase())
      : undefined;
    if (!same) put(m.from);
    m.from = same ?? people.get(m.from.id)!;
  }
  return { participants: [...people.values()], ownerId };
}

/** How the load file names a person: their e-mail where known, else their name. */
export const personForm = (p: ChatPerson) => p.email || p.name || p.id;

/** FROM (the first message's sender) and TO (every other participant) of a conversation-day. */
export function fromTo(g: ChatGroup, sender?: ChatPerson): { from: string; to: string } {
  const first = sender ?? g.messages[0]?.from;
  if (!first) return { from: '', to: '' };
  const others = g.participants.filter((p) => p.id !== first.id).map(personForm);
  return { from: personForm(g.participants.find((p) => p.id === first.id) ?? first), to: others.join(';') };
}

export function chatJson(g: ChatGroup): Buffer {
  const docOf = (m: ChatMessage, f: ChatMessage['files'][number], index: number) =>
    g.files.find(
      (a) => a.messageId === m.id && (f.id ? a.item.source_id === f.id : a.item.source_id === `${m.id}|file|${index}`),
    )?.docid ?? null;
  const doc = {
    conversation: g.conversation,
    participants: g.participants.map((p) => ({ id: p.id, name: p.name, email: p.email || null })),
    messages: g.messages.map((m) => ({
      id: m.id,
      from: m.from.id,
      sent_at: m.sent_at,
      text: m.text,
      files: m.files.map((f, i) => ({ ...f, docid: docOf(m, f, i) })),
    })),
  };
  return Buffer.from(`${JSON.stringify(doc, null, 2)}\n`, 'utf8');
}

export function chatText(g: ChatGroup): string {
  return g.messages
    .map((m) => {
      const files = g.files.filter((a) => a.messageId === m.id).map((a) => ` [file: ${a.item.name}]`);
      return `[${m.sent_at ?? ''}] ${m.from.name}: ${m.text}${files.join('')}`;
    })
    .join('\n');
}
