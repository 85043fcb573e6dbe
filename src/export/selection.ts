import type { Selectable } from 'kysely';
import type { Database } from '../store/db.ts';
import type { DB } from '../store/schema.ts';
import { chatMessageOf, isoOrNull, type ChatGroup } from './chat.ts';

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
  const parentOf = (i: ExportItem) => {
    if (i.kind === 'meeting') return undefined;
    const uuid = meta(i).meeting_uuid;
    return typeof uuid === 'string' ? meetings.get(uuid) : undefined;
  };
  const chosen = new Map<string, ExportItem>();
  for (const i of all) {
    if (!selected(i, opts.items, who)) continue;
    chosen.set(i.id, i);
    const p = parentOf(i);
    if (p) chosen.set(p.id, p);
  }

  const families = new Map<string, { parent: ExportItem; children: ExportItem[] }>();
  const groups = new Map<string, ChatGroup>();
  const units: Unit[] = [];
  for (const i of chosen.values()) {
    const custodian = who(i.custodian).form;
    if (CHAT_KINDS.has(i.kind)) {
      const msg = chatMessageOf(i);
      const day = (msg.sent_at ?? dateOf(i) ?? '0000-00-00').slice(0, 10);
      const key = `${msg.conversation.id}|${day}`;
      let g = groups.get(key);
      if (!g)
        groups.set(
          key,
          (g = { key, conversation: msg.conversation, day, custodian: i.custodian ?? '', messages: [], items: [] }),
        );
      g.messages.push(msg);
      g.items.push(i);
      continue;
    }
    const p = i.kind === 'meeting' ? i : parentOf(i);
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
  for (const g of groups.values()) {
    const order = g.messages
      .map((m, k) => ({ m, it: g.items[k] }))
      .sort((a, b) => ((a.m.sent_at ?? '') + a.m.id < (b.m.sent_at ?? '') + b.m.id ? -1 : 1));
    g.messages = order.map((o) => o.m);
    g.items = order.map((o) => o.it);
    units.push({ type: 'chat', sort: `${who(g.custodian).form}\u0000~chat\u0000${g.key}`, group: g });
  }
  units.sort((a, b) => (a.sort < b.sort ? -1 : a.sort > b.sort ? 1 : 0));

  const docs: PlannedDoc[] = [];
  const kept = new Map<string, PlannedDoc>();
  let duplicatesSuppressed = 0;
  const runIds = new Set<string>();
  const push = (d: Omit<PlannedDoc, 'docid' | 'n'>) => {
    const n = docs.length + 1;
    const doc = { ...d, n, docid: docidOf(n) };
    docs.push(doc);
    return doc;
  };
  for (const u of units) {
    if (u.type === 'single') {
      const c = who(u.item.custodian);
      runIds.add(u.item.run_id);
      if (opts.dedupe !== 'none' && u.item.sha256) {
        const key = opts.dedupe === 'global' ? u.item.sha256 : `${c.form}\u0000${u.item.sha256}`;
        const first = kept.get(key);
        if (first) {
          duplicatesSuppressed += 1;
          if (!first.allCustodians.includes(c.form)) first.allCustodians.push(c.form);
          continue;
        }
        kept.set(
          key,
          push({
            kind: u.item.kind,
            item: u.item,
            chat: null,
            custodian: c,
            allCustodians: [c.form],
            parentDocid: '',
            begAttach: '',
            endAttach: '',
          }),
        );
      } else
        push({
          kind: u.item.kind,
          item: u.item,
          chat: null,
          custodian: c,
          allCustodians: [c.form],
          parentDocid: '',
          begAttach: '',
          endAttach: '',
        });
    } else if (u.type === 'family') {
      const c = who(u.parent.custodian);
      const beg = docidOf(docs.length + 1);
      const end = docidOf(docs.length + 1 + u.children.length);
      const bounds = u.children.length > 0 ? { begAttach: beg, endAttach: end } : { begAttach: '', endAttach: '' };
      runIds.add(u.parent.run_id);
      push({
        kind: u.parent.kind,
        item: u.parent,
        chat: null,
        custodian: c,
        allCustodians: [c.form],
        parentDocid: '',
        ...bounds,
      });
      for (const child of u.children) {
        const cc = who(child.custodian);
        runIds.add(child.run_id);
        push({
          kind: child.kind,
          item: child,
          chat: null,
          custodian: cc,
          allCustodians: [cc.form],
          parentDocid: beg,
          ...bounds,
        });
      }
    } else {
      const c = who(u.group.custodian);
      for (const it of u.group.items) runIds.add(it.run_id);
      push({
        kind: opts.chat_format === 'rsmf' ? 'rsmf' : 'chat_json',
        item: null,
        chat: u.group,
        custodian: c,
        allCustodians: [c.form],
        parentDocid: '',
        begAttach: '',
        endAttach: '',
      });
    }
  }
  for (const d of docs) d.allCustodians.sort();
  const familyCount = units.filter((u) => u.type === 'family' && u.children.length > 0).length;
  return { docs, duplicatesSuppressed, families: familyCount, runIds: [...runIds].sort() };
}
