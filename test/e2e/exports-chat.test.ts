// Issue 24, chat in the package: Zoom Team Chat files inside their conversation-day's RSMF (and children of it in
// the load file) or listed in the JSON chat document; RSMF 2.0 conformity; FROM/TO; deleting the collection
// releases its exports. The package is read with test/export/package-oracle.ts, which imports nothing of src/.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import { verifyPackage } from '../../src/export/verify.ts';
import { readDat, readRsmf, rsmfHeaderProblems, rsmfProblems, unzip } from '../export/package-oracle.ts';
import { startTestApp, type ApiItem, type TestApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';
import { exportOf, sha256, syncedConf, zoomEnv } from '../support/exports.ts';

const CB = 'https://client.example/export-chat';
const CHAT_KINDS = new Set(['chat_message', 'channel_message']);
type Row = Record<string, string>;
type Rsmf = Awaited<ReturnType<typeof readRsmf>>;

describe.each(testDatabases.map((d) => [d.name, d] as const))('chat in exports on %s', (_name, database) => {
  let zoom: ZoomSandbox;
  let t: TestApp;
  let token: string;
  let conf: string;
  let items: ApiItem[];
  let rsmfPackage: { exportId: string; bytes: Buffer; sha256: string };

  beforeAll(async () => {
    zoom = await startZoomSandbox({
      seed: 24,
      users: 3,
      meetingsPerUser: 1,
      channels: 2,
      messagesPerChannel: 8,
      messagesPerChat: 6,
      chatExtras: true,
    });
    t = await startTestApp({ database, env: zoomEnv(zoom) });
    token = await t.token('acme', [CB]);
    conf = await syncedConf(t, token, CB, 'Zoom chat export');
    items = await t.items(token, conf);
    expect(items.filter((i) => i.kind === 'chat_file' && i.sha256).length).toBeGreaterThan(0);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await zoom?.close();
  });

  const messageOf = (file: ApiItem) =>
    items.find(
      (i) => CHAT_KINDS.has(i.kind) && i.custodian === file.custodian && i.source_id === file.metadata.parent_source_id,
    )!;
  /** The load file's form of a message's sender: their e-mail where Zoom gives one, else their name. */
  const senderForm = (m: ApiItem) => {
    const email = typeof m.metadata.sender === 'string' && m.metadata.sender.includes('@') ? m.metadata.sender : '';
    return (email || String(m.metadata.sender_display_name)).toLowerCase();
  };
  /** Everyone in a conversation-day: the owner and the peer of a one-to-one conversation, and every sender. */
  const peopleOf = (messages: ApiItem[]) => {
    const people = new Set(messages.map(senderForm));
    const m = messages[0];
    if (m.metadata.conversation_type === 'one-to-one') {
      people.add(zoom.tenant.users.find((u) => u.id === m.custodian)!.email.toLowerCase());
      people.add(String(m.metadata.conversation_name).toLowerCase());
    }
    return people;
  };
  const lower = (s: string) => s.toLowerCase();

  /** Every chat file is one document, the child of the chat document holding its message. */
  function checkChatFiles(rows: Row[], parentKind: string): Map<ApiItem, { row: Row; parent: Row }> {
    const byDocid = new Map(rows.map((r) => [r.DOCID, r]));
    const out = new Map<ApiItem, { row: Row; parent: Row }>();
    for (const f of items.filter((i) => i.kind === 'chat_file')) {
      const mine = rows.filter((r) => r.ITEM_ID === f.onna_id);
      expect(mine, `${f.name} is one document`).toHaveLength(1);
      const row = mine[0];
      const parent = byDocid.get(row.PARENT_DOCID)!;
      expect(parent?.KIND).toBe(parentKind);
      expect(parent.BEGATTACH).toBe(parent.DOCID);
      expect([row.BEGATTACH, row.ENDATTACH]).toEqual([parent.DOCID, parent.ENDATTACH]);
      expect(row.DOCID > parent.DOCID && row.DOCID <= parent.ENDATTACH).toBe(true);
      expect(row.KIND).toBe('chat_file');
      if (f.sha256) expect(row.SHA256).toBe(f.sha256);
      expect(lower(row.FROM)).toBe(senderForm(messageOf(f)));
      out.set(f, { row, parent });
    }
    return out;
  }

  it('puts each chat file in its RSMF: referenced by its message event, a child document of the RSMF', async () => {
    const { exportId, view, bytes } = await exportOf(t, token, conf, {});
    rsmfPackage = { exportId, bytes, sha256: view.sha256 };
    const files = await unzip(bytes);
    const rows = readDat(files.get('DATA/custody.dat')!);
    const rsmfs = new Map<string, Rsmf>();
    for (const r of rows.filter((row) => row.KIND === 'rsmf')) {
      const parsed = await readRsmf(files.get(r.NATIVE_PATH)!);
      expect(rsmfProblems(parsed.manifest, parsed.zip), r.DOCID).toEqual([]);
      expect(rsmfHeaderProblems(parsed.headers, parsed.manifest), r.DOCID).toEqual([]);
      expect(parsed.headers.get('x-rsmf-version')).toBe('2.0.0');
      // Every file in rsmf.zip besides the manifest is one of this RSMF's child documents, byte for byte.
      const children = rows.filter((c) => c.PARENT_DOCID === r.DOCID);
      const inZip = [...parsed.zip].filter(([n]) => n !== 'rsmf_manifest.json').map(([, b]) => sha256(b));
      expect(inZip.sort()).toEqual(
        children
          .filter((c) => c.SHA256)
          .map((c) => c.SHA256)
          .sort(),
      );
      rsmfs.set(r.DOCID, parsed);
    }
    // Every item exactly once: a message as an event of one RSMF, anything else as one document.
    const seen = new Map<string, number>();
    const bump = (k: string) => seen.set(k, (seen.get(k) ?? 0) + 1);
    for (const r of rows) if (r.ITEM_ID) bump(r.ITEM_ID);
    for (const { manifest } of rsmfs.values()) for (const e of manifest.events) bump(`msg:${e.id}`);
    for (const i of items)
      expect(seen.get(CHAT_KINDS.has(i.kind) ? `msg:${i.source_id}` : i.onna_id), `${i.kind} ${i.name}`).toBe(1);
    const placed = checkChatFiles(rows, 'rsmf');
    expect(view.counts.families).toBeGreaterThanOrEqual(new Set([...placed.values()].map((p) => p.parent)).size);
    for (const [f, { row, parent }] of placed) {
      const { manifest, zip } = rsmfs.get(parent.DOCID)!;
      const event = manifest.events.find((e: { id: string }) => e.id === f.metadata.parent_source_id);
      expect(event, `${f.name}'s message is an event of its RSMF`).toBeDefined();
      if (!f.sha256) continue;
      expect(sha256(files.get(row.NATIVE_PATH)!)).toBe(f.sha256);
      const attached = (event.attachments ?? []).filter(
        (a: { id: string }) => zip.has(a.id) && sha256(zip.get(a.id)!) === f.sha256,
      );
      expect(attached.length, `${f.name} is an attachment of its message`).toBeGreaterThan(0);
      expect(attached[0]).toMatchObject({ display: f.name, size: f.size });
    }
  });

  it('fills FROM with the first sender and TO with the other participants, by e-mail where known', async () => {
    const files = await unzip(rsmfPackage.bytes);
    const rows = readDat(files.get('DATA/custody.dat')!).filter((r) => r.KIND === 'rsmf');
    expect(rows.length).toBeGreaterThan(0);
    let oneToOne = 0;
    for (const r of rows) {
      const { manifest } = await readRsmf(files.get(r.NATIVE_PATH)!);
      const ids: string[] = manifest.events.map((e: { id: string }) => e.id);
      const custodian = items.find((i) => CHAT_KINDS.has(i.kind) && i.source_id === ids[0])!.custodian;
      const messages = ids.map((id) => items.find((i) => i.source_id === id && i.custodian === custodian)!);
      const from = senderForm(messages[0]);
      expect(lower(r.FROM)).toBe(from);
      const to = [...peopleOf(messages)].filter((p) => p !== from).sort();
      expect(r.TO.split(';').filter(Boolean).map(lower).sort(), r.DOCID).toEqual(to);
      if (messages[0].metadata.conversation_type === 'one-to-one') oneToOne += 1;
    }
    expect(oneToOne).toBeGreaterThan(0);
  });

  it('lists each chat file in its message of the JSON chat document, a child document of it', async () => {
    const { bytes } = await exportOf(t, token, conf, { chat_format: 'json', dedupe: 'global' });
    const files = await unzip(bytes);
    const rows = readDat(files.get('DATA/custody.dat')!);
    for (const [f, { row, parent }] of checkChatFiles(rows, 'chat_json')) {
      const doc = JSON.parse(files.get(parent.NATIVE_PATH)!.toString('utf8'));
      const message = doc.messages.find((m: { id: string }) => m.id === f.metadata.parent_source_id);
      expect(message, `${f.name}'s message is in its chat document`).toBeDefined();
      const listed = message.files.filter((x: { docid: string }) => x.docid === row.DOCID);
      expect(listed).toHaveLength(1);
      if (f.metadata.file_id) expect(listed[0].id).toBe(f.metadata.file_id);
    }
  });

  it('verifies the package with RSMF attachments, and fails on one changed byte of an RSMF', async () => {
    const jwks = (await (await fetch(`${t.url}/v1/signing-keys`)).json()) as { keys: unknown[] };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-export-chat-'));
    try {
      const files = await unzip(rsmfPackage.bytes);
      for (const [p, b] of files) {
        fs.mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
        fs.writeFileSync(path.join(dir, p), b);
      }
      expect(await verifyPackage(dir, jwks as never)).toMatchObject({ ok: true });
      const rsmf = readDat(files.get('DATA/custody.dat')!).find((r) => r.KIND === 'rsmf')!.NATIVE_PATH;
      const changed = Buffer.from(files.get(rsmf)!);
      changed[changed.length >> 1] ^= 1;
      fs.writeFileSync(path.join(dir, rsmf), changed);
      expect(await verifyPackage(dir, jwks as never)).toMatchObject({
        ok: false,
        problem: expect.stringContaining(rsmf),
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('drops a package committed after its export was deleted (a purge racing the worker writing it)', async () => {
    const blobs = t.runtime.ctx.blobs;
    const db = t.runtime.ctx.db;
    const writer = blobs.writer.bind(blobs);
    let committed: string | undefined;
    // The purge deletes the export's row in the instant between the package's commit and the export's finish.
    blobs.writer = async (opts) => {
      const w = await writer(opts);
      const commit = w.commit.bind(w);
      w.commit = async () => {
        const c = await commit();
        await sql`delete from exports where collection_id = ${conf} and status = 'running'`.execute(db);
        committed = c.sha256;
        return c;
      };
      return w;
    };
    const until = async (done: () => Promise<boolean> | boolean) => {
      for (let i = 0; i < 300 && !(await done()); i++) await new Promise((r) => setTimeout(r, 100));
      return done();
    };
    try {
      expect((await t.call(token, 'POST', `/v1/collections/${conf}/exports`, { json: {} })).status).toBe(202);
      expect(await until(() => committed !== undefined)).toBe(true);
      const ref = async () =>
        (await sql<{ n: number }>`select count(*) as n from blob_refs where sha256 = ${committed}`.execute(db)).rows[0];
      expect(await until(async () => !(await blobs.has(committed!)) && Number((await ref()).n) === 0)).toBe(true);
    } finally {
      blobs.writer = writer;
    }
  });

  it('deleting the collection releases its exports: the package blob is gone and the export routes answer 404', async () => {
    const blobs = t.runtime.ctx.blobs;
    const db = t.runtime.ctx.db;
    const { exportId, sha256: packageSha } = rsmfPackage;
    expect(await blobs.has(packageSha)).toBe(true);
    // Another export is queued or being written when the collection goes: it is cancelled and leaves nothing.
    expect((await t.call(token, 'POST', `/v1/collections/${conf}/exports`, { json: {} })).status).toBe(202);
    expect((await t.call(token, 'DELETE', `/v1/collections/${conf}`)).status).toBe(204);
    expect(await blobs.has(packageSha)).toBe(false);
    const left = await sql<{ n: number }>`select count(*) as n from exports where collection_id = ${conf}`.execute(db);
    expect(Number(left.rows[0].n)).toBe(0);
    // This app holds nothing but the deleted collection: no blob is referenced any more, and none waits unreferenced
    // (an export a worker was still writing stops at its next heartbeat and drops what it wrote).
    const refs = async () =>
      Number((await sql<{ n: number }>`select count(*) as n from blob_refs`.execute(db)).rows[0].n);
    for (let i = 0; i < 100 && (await refs()) > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await refs()).toBe(0);
    for (const p of [`/exports/${exportId}`, `/exports/${exportId}/download`, '/exports'])
      expect((await t.call(token, 'GET', `/v1/collections/${conf}${p}`)).status, p).toBe(404);
  });
});
