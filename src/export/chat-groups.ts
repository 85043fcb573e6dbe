import { chatMessageOf, chatParticipants, type ChatGroup } from './chat.ts';
import type { CustodianInfo, ExportItem } from './selection.ts';

/** A message is known by its custodian (owner or channel) and id; its files carry the same custodian. */
export const messageKey = (i: Pick<ExportItem, 'custodian' | 'source_id'>) =>
  `${i.custodian ?? ''}\u0000${i.source_id}`;

/**
 * Chat messages grouped per conversation per UTC day (a one-to-one conversation is its owner's: two owners talking
 * to one peer are two conversations), each group's messages in sent order, its files in their messages' order.
 */
export function chatGroups(who: (raw: string | null) => CustodianInfo) {
  const groups = new Map<string, ChatGroup>();
  const ofMessage = new Map<string, ChatGroup>();
  const files: Array<{ file: ExportItem; message: ExportItem }> = [];
  return {
    addMessage(i: ExportItem, fallbackDate: string | null) {
      const msg = chatMessageOf(i);
      const day = (msg.sent_at ?? fallbackDate ?? '0000-00-00').slice(0, 10);
      const key = `${i.custodian ?? ''}|${msg.conversation.id}|${day}`;
      let g = groups.get(key);
      if (!g) {
        g = {
          key,
          conversation: msg.conversation,
          day,
          custodian: i.custodian ?? '',
          messages: [],
          items: [],
          participants: [],
          ownerId: '',
          files: [],
        };
        groups.set(key, g);
      }
      g.messages.push(msg);
      g.items.push(i);
      ofMessage.set(i.id, g);
    },
    addFile(file: ExportItem, message: ExportItem) {
      files.push({ file, message });
    },
    groups(): ChatGroup[] {
      joinEdits(groups);
      for (const g of groups.values()) {
        const order = g.messages
          .map((m, k) => ({ m, it: g.items[k] }))
          .sort((a, b) => ((a.m.sent_at ?? '') + a.m.id < (b.m.sent_at ?? '') + b.m.id ? -1 : 1));
        g.messages = order.map((o) => o.m);
        g.items = order.map((o) => o.it);
        const owner = who(g.custodian);
        Object.assign(g, chatParticipants(g, { raw: g.custodian, email: owner.email.toLowerCase(), name: owner.name }));
      }
      for (const { file, message } of files) {
        const g = ofMessage.get(message.id)!;
        g.files.push({ item: file, messageId: message.source_id, docid: '', zipName: '' });
      }
      for (const g of groups.values()) {
        const at = new Map(g.messages.map((m, k) => [m.id, k]));
        g.files.sort((a, b) => at.get(a.messageId)! - at.get(b.messageId)! || (a.item.path < b.item.path ? -1 : 1));
      }
      return [...groups.values()];
    },
  };
}

/**
 * An edit from the chat reports joins the group of the message it changed where that message is exported: a report
 * names a one-to-one conversation by its session id, not by the peer the message listing uses, and may come from the
 * other participant's side (the message's own custodian first, else whoever holds that message id).
 */
function joinEdits(groups: Map<string, ChatGroup>) {
  const home = new Map<string, ChatGroup>();
  for (const g of groups.values())
    for (const m of g.messages)
      if (!m.edit) {
        home.set(`${g.custodian}\u0000${m.id}`, g);
        if (!home.has(m.id)) home.set(m.id, g);
      }
  for (const [key, g] of groups) {
    for (let k = g.messages.length - 1; k >= 0; k--) {
      const m = g.messages[k];
      const to = m.edit && (home.get(`${g.custodian}\u0000${m.edit.of}`) ?? home.get(m.edit.of));
      if (!to || to === g) continue;
      to.messages.push(m);
      to.items.push(g.items[k]);
      g.messages.splice(k, 1);
      g.items.splice(k, 1);
    }
    if (g.messages.length === 0) groups.delete(key);
  }
}
