import type { Selectable } from 'kysely';
import type { Database } from '../store/db.ts';
import type { DB } from '../store/schema.ts';
import { isoOrNull, type ChatGroup, type ChatMessage } from './chat.ts';
import { chatGroups, messageKey } from './chat-groups.ts';

export type ExportItem = Selectable<DB['items']>;

export interface ExportOptions {
  items: { custodians?: string[]; kinds?: string[]; run_id?: string; from?: string; to?: string };
  chat_format: 'rsmf' | 'json';
  dedupe: 'none' | 'custodian' | 'global';
}

/** How a custodian appears in the load file: CUSTODIAN (e-mail, else provider id, `channel:<id>`), name, e-mail. */
export interface CustodianInfo {
  form: string;
  name: string;
  email: string;
}

/** One document of the package, in DOCID order. */
export interface PlannedDoc {
  docid: string;
  /** 1-based position: the NATIVES/TEXT folder is derived from it */
  n: number;
  kind: string;
  item: ExportItem | null;
  chat: ChatGroup | null;
  custodian: CustodianInfo;
  allCustodians: string[];
  parentDocid: string;
  begAttach: string;
  endAttach: string;
  /** a chat file: the conversation-day and the message it was sent with */
  via?: { group: ChatGroup; message: ChatMessage };
}

export interface ExportPlan {
  docs: PlannedDoc[];
  duplicatesSuppressed: number;
  families: number;
  /** the run ids the selected items were collected by */
  runIds: string[];
}

const CHAT_KINDS = new Set(['chat_message', 'channel_message']);

export const docidOf = (n: number) => `CUST${String(n).padStart(8, '0')}`;

export function folderOf(n: number): string {
  return String(Math.ceil(n / 1000)).padStart(4, '0');
}

function meta(item: ExportItem): Record<string, unknown> {
  try {
    return JSON.parse(item.metadata || '{}') as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** The custodians the collection's runs reached: id -> name, e-mail and kind (items as collected, run_units). */
async function custodianDirectory(
  db: Database,
  collectionId: string,
  items: ExportItem[],
): Promise<(raw: string | null) => CustodianInfo> {
  const units = await db
    .selectFrom('run_units')
    .select(['unit_key', 'kind', 'email', 'name', 'updated_at'])
    .where('collection_id', '=', collectionId)
    .orderBy('updated_at')
    .execute();
  const emails = new Map<string, string>();
  const channels = new Set<string>();
  const names = new Map<string, string>();
  for (const u of units) {
    if (u.email) emails.set(u.unit_key, u.email);
    if (u.name) names.set(u.unit_key, u.name);
    if (u.kind === 'channel') channels.add(u.unit_key);
  }
  // what was stored with the items when they were collected comes first (issue 23)
  for (const it of items) {
    if (!it.custodian) continue;
    if (it.custodian_email) emails.set(it.custodian, it.custodian_email);
    if (it.custodian_name) names.set(it.custodian, it.custodian_name);
  }
  for (const it of items) {
    const m = meta(it);
    if (it.kind === 'channel_message' && it.custodian) {
      channels.add(it.custodian);
      if (typeof m.conversation_name === 'string' && !names.has(it.custodian))
        names.set(it.custodian, m.conversation_name);
    }
    if (it.kind === 'meeting' && it.custodian && typeof m.host_email === 'string' && !emails.has(it.custodian))
      emails.set(it.custodian, m.host_email);
  }
  return (raw) => {
    if (!raw) return { form: '', name: '', email: '' };
    if (channels.has(raw)) return { form: `channel:${raw}`, name: names.get(raw) ?? '', email: '' };
    const email = emails.get(raw) ?? '';
    return { form: email || raw, name: names.get(raw) ?? '', email };
  };
}

function dateOf(item: ExportItem): string | null {
  return isoOrNull(item.created_datetime) ?? isoOrNull(item.collected_datetime);
}

function selected(item: ExportItem, sel: ExportOptions['items'], who: (raw: string | null) => CustodianInfo): boolean {
  if (sel.kinds && !sel.kinds.includes(item.kind)) return false;
  if (sel.run_id && item.run_id !== sel.run_id) return false;
  if (sel.custodians) {
    const c = who(item.custodian);
    const names = new Set([item.custodian ?? '', c.form, c.email].filter(Boolean).map((s) => s.toLowerCase()));
    if (!sel.custodians.some((s) => names.has(s.toLowerCase()))) return false;
  }
  if (sel.from || sel.to) {
    const at = dateOf(item);
    if (!at) return false;
    if (sel.from && at < new Date(sel.from).toISOString()) return false;
    if (sel.to && at > new Date(sel.to).toISOString()) return false;
  }
  return true;
}

type Unit =
  | { type: 'family'; sort: string; parent: ExportItem; children: ExportItem[] }
  | { type: 'single'; sort: string; item: ExportItem }
  | { type: 'chat'; sort: string; group: ChatGroup };

/**
 * The documents of an export: the current items of the selection, a meeting's children after it as its family
 * (a selected child brings its meeting along), chat messages grouped per conversation per UTC day, and duplicates
 * of family-less files suppressed per `dedupe`.
 */
export async function planExport(db: Database, collectionId: string, opts: ExportOptions): Promise<ExportPlan> {
  const all = await db
    .selectFrom('items')
    .selectAll()
    .where('collection_id', '=', collectionId)
    .where('tombstoned_at', 'is', null)
    .orderBy('id')
    .execute();
  const who = await custodianDirectory(db, collectionId, all);
  const meetings = new Map(all.filter((i) => i.kind === 'meeting').map((i) => [i.source_id, i]));
  const messages = new Map(all.filter((i) => CHAT_KINDS.has(i.kind)).map((i) => [messageKey(i), i]));
  /** A meeting's child's meeting, or a chat file's message. */
  const parentOf = (i: ExportItem) => {
    if (i.kind === 'meeting') return undefined;
    const m = meta(i);
    if (i.kind === 'chat_file')
      return typeof m.parent_source_id === 'string'
        ? messages.get(messageKey({ custodian: i.custodian, source_id: m.parent_source_id }))
        : undefined;
    return typeof m.meeting_uuid === 'string' ? meetings.get(m.meeting_uuid) : undefined;
  };
  const chosen = new Map<string, ExportItem>();
  for (const i of all) {
    if (!selected(i, opts.items, who)) continue;
    chosen.set(i.id, i);
    const p = parentOf(i);
    if (p) chosen.set(p.id, p);
  }

  const families = new Map<string, { parent: ExportItem; children: ExportItem[] }>();
  const chat = chatGroups(who);
  const units: Unit[] = [];
  for (const i of chosen.values()) {
    const custodian = who(i.custodian).form;
    if (CHAT_KINDS.has(i.kind)) {
      chat.addMessage(i, dateOf(i));
      continue;
    }
    const p = i.kind === 'meeting' ? i : parentOf(i);
    if (p && i.kind === 'chat_file') {
      chat.addFile(i, p);
      continue;
    }
    if (p) {
      let f = families.get(p.id);
      if (!f) families.set(p.id, (f = { parent: p, children: [] }));
      if (p.id !== i.id) f.children.push(i);
      continue;
    }
    units.push({ type: 'single', sort: `${custodian}\u0000${i.path}\u0000${i.id}`, item: i });
  }
  for (const f of families.values()) {
    f.children.sort((a, b) => (a.path === b.path ? (a.id < b.id ? -1 : 1) : a.path < b.path ? -1 : 1));
    units.push({
      type: 'family',
      sort: `${who(f.parent.custodian).form}\u0000${f.parent.path}\u0000${f.parent.id}`,
      parent: f.parent,
      children: f.children,
    });
  }
  for (const g of chat.groups())
    units.push({ type: 'chat', sort: `${who(g.custodian).form}\u0000~chat\u0000${g.key}`, group: g });
  units.sort((a, b) => (a.sort < b.sort ? -1 : a.sort > b.sort ? 1 : 0));

  const docs: PlannedDoc[] = [];
  const kept = new Map<string, PlannedDoc>();
  let duplicatesSuppressed = 0;
  const runIds = new Set<string>();
  const push = (d: Omit<PlannedDoc, 'docid' | 'n' | 'custodian' | 'allCustodians'> & { custodian?: CustodianInfo }) => {
    const n = docs.length + 1;
    const custodian = d.custodian ?? who(d.item?.custodian ?? null);
    const doc = { ...d, custodian, allCustodians: [custodian.form], n, docid: docidOf(n) };
    docs.push(doc);
    if (d.item) runIds.add(d.item.run_id);
    return doc;
  };
  /** BEGATTACH/ENDATTACH of a family whose parent is the next document. */
  const range = (children: number) =>
    children > 0
      ? { begAttach: docidOf(docs.length + 1), endAttach: docidOf(docs.length + 1 + children) }
      : { begAttach: '', endAttach: '' };
  const alone = { parentDocid: '', begAttach: '', endAttach: '' };
  for (const u of units) {
    if (u.type === 'single') {
      const c = who(u.item.custodian);
      runIds.add(u.item.run_id); // a suppressed duplicate's run is still one the selection drew on
      // Chat files are never suppressed: each belongs to its message (one without its message stands alone).
      const key = !u.item.sha256 || u.item.kind === 'chat_file' ? null : dedupeKey(opts.dedupe, c, u.item.sha256);
      const first = key === null ? undefined : kept.get(key);
      if (first) {
        duplicatesSuppressed += 1;
        if (!first.allCustodians.includes(c.form)) first.allCustodians.push(c.form);
        continue;
      }
      const doc = push({ kind: u.item.kind, item: u.item, chat: null, ...alone });
      if (key !== null) kept.set(key, doc);
    } else if (u.type === 'family') {
      const bounds = range(u.children.length);
      const parent = push({ kind: u.parent.kind, item: u.parent, chat: null, parentDocid: '', ...bounds });
      for (const child of u.children)
        push({ kind: child.kind, item: child, chat: null, parentDocid: parent.docid, ...bounds });
    } else {
      const g = u.group;
      for (const it of g.items) runIds.add(it.run_id);
      const bounds = range(g.files.length);
      const kind = opts.chat_format === 'rsmf' ? 'rsmf' : 'chat_json';
      const parent = push({ kind, item: null, chat: g, custodian: who(g.custodian), parentDocid: '', ...bounds });
      for (const f of g.files) {
        const message = g.messages.find((m) => m.id === f.messageId)!;
        const doc = push({ kind: f.item.kind, item: f.item, chat: null, parentDocid: parent.docid, ...bounds });
        doc.via = { group: g, message };
        f.docid = doc.docid;
        f.zipName = `${doc.docid}.${extensionOf(f.item.name)}`;
      }
    }
  }
  for (const d of docs) d.allCustodians.sort();
  const familyCount = units.filter(
    (u) => (u.type === 'family' && u.children.length > 0) || (u.type === 'chat' && u.group.files.length > 0),
  ).length;
  return { docs, duplicatesSuppressed, families: familyCount, runIds: [...runIds].sort() };
}

function dedupeKey(dedupe: ExportOptions['dedupe'], c: CustodianInfo, sha256: string): string | null {
  if (dedupe === 'none') return null;
  return dedupe === 'global' ? sha256 : `${c.form}\u0000${sha256}`;
}

/** A file's extension as its NATIVES name takes it (`bin` when it has none). */
export function extensionOf(name: string | null | undefined): string {
  const m = /\.([A-Za-z0-9]{1,10})$/.exec(name ?? '');
  return m ? m[1].toLowerCase() : 'bin';
}
