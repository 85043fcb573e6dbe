import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMicrosoftSandbox, type MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import { verifyPackage } from '../../src/export/verify.ts';
import {
  datHeader,
  readDat,
  readRsmf,
  REQUIRED_FIELDS,
  rsmfHeaderProblems,
  rsmfProblems,
  unzip,
} from '../export/package-oracle.ts';
import { jsonOf, newCollection, pairFlow, startTestApp, type Json, type TestApp } from '../support/app.ts';
import { exportOf as exportPackage, sha256, syncedConf, zoomEnv } from '../support/exports.ts';
import { testDatabases } from '../support/databases.ts';
import { microsoftEnv } from '../support/sandbox-env.ts';

const CB = 'https://client.example/export-done';
const CHILD_KINDS = new Set(['recording_video', 'recording_audio', 'transcript', 'meeting_chat', 'ai_meeting_notes']);
const CHAT_KINDS = new Set(['chat_message', 'channel_message']);

describe.each(testDatabases.map((d) => [d.name, d] as const))('exports end to end on %s', (_name, database) => {
  let zoom: ZoomSandbox;
  let ms: MicrosoftSandbox;
  let t: TestApp;
  let token: string;
  let conf: string;
  let edrive: string;
  const packages = new Map<string, { exportId: string; bytes: Buffer }>();

  const call = (method: string, p: string, body?: unknown, headers?: Record<string, string>) =>
    t.call(token, method, p, { ...(body !== undefined && { json: body }), ...(headers && { headers }) });

  const exportOf = (col: string, body: Json) => exportPackage(t, token, col, body);

  /** The checks of one package against the collection's current items. */
  async function checkPackage(
    col: string,
    pkg: Buffer,
    view: Json,
    chatFormat: 'rsmf' | 'json',
  ): Promise<Array<Record<string, string>>> {
    const files = await unzip(pkg);
    const datBytes = files.get('DATA/custody.dat')!;
    expect(datHeader(datBytes)).toEqual(expect.arrayContaining(REQUIRED_FIELDS));
    const rows = readDat(datBytes);
    expect(rows).toHaveLength(view.counts.documents);
    const items = await t.items(token, col);
    const seen = new Map<string, number>();
    const bump = (id: string) => seen.set(id, (seen.get(id) ?? 0) + 1);
    const byDocid = new Map(rows.map((r) => [r.DOCID, r]));
    const itemById = new Map(items.map((i) => [i.onna_id, i]));
    for (const r of rows) {
      if (r.NATIVE_PATH) {
        expect(r.NATIVE_PATH).toMatch(/^NATIVES\/\d+\/[^/]+\.[a-z0-9]+$/);
        expect(sha256(files.get(r.NATIVE_PATH)!)).toBe(r.SHA256);
      }
      if (r.TEXT_PATH) expect(files.get(r.TEXT_PATH)!.length).toBeGreaterThan(0);
      for (const f of ['DATE_CREATED', 'DATE_MODIFIED', 'DATE_SENT', 'COLLECTED_AT'])
        if (r[f]) expect(r[f], f).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
      if (r.ITEM_ID) {
        bump(r.ITEM_ID);
        const item = itemById.get(r.ITEM_ID)!;
        expect(item, r.ITEM_ID).toBeDefined();
        if (item.sha256) expect(r.SHA256).toBe(item.sha256);
        expect(r.KIND).toBe(item.kind);
        expect(r.SOURCE).toBe(col === conf ? 'zoom' : 'onedrive');
        if (CHILD_KINDS.has(item.kind)) {
          const parent = byDocid.get(r.PARENT_DOCID)!;
          expect(parent, `${r.DOCID} has its meeting`).toBeDefined();
          expect(itemById.get(parent.ITEM_ID)!.source_id).toBe(item.metadata.meeting_uuid);
          expect(r.BEGATTACH).toBe(parent.DOCID);
          expect(parent.BEGATTACH).toBe(parent.DOCID);
          expect(r.ENDATTACH).toBe(parent.ENDATTACH);
          expect(r.DOCID > r.BEGATTACH && r.DOCID <= r.ENDATTACH).toBe(true);
        } else if (item.kind !== 'meeting') {
          expect([r.PARENT_DOCID, r.BEGATTACH, r.ENDATTACH]).toEqual(['', '', '']);
        }
      } else {
        expect(r.KIND).toBe(chatFormat === 'rsmf' ? 'rsmf' : 'chat_json');
        const native = files.get(r.NATIVE_PATH)!;
        if (chatFormat === 'rsmf') {
          expect(r.NATIVE_PATH.endsWith('.rsmf')).toBe(true);
          const { headers, manifest, zip } = await readRsmf(native);
          expect(headers.get('x-rsmf-version')).toBe('2.0.0');
          expect(rsmfProblems(manifest, zip)).toEqual([]);
          expect(rsmfHeaderProblems(headers, manifest)).toEqual([]);
          for (const e of manifest.events) bump(`msg:${e.id}`);
        } else {
          expect(r.NATIVE_PATH.endsWith('.json')).toBe(true);
          const doc = JSON.parse(native.toString('utf8'));
          expect(Object.keys(doc.conversation).sort()).toEqual(['id', 'name', 'type']);
          expect(Array.isArray(doc.participants)).toBe(true);
          for (const m of doc.messages) {
            expect(Object.keys(m).sort()).toEqual(['files', 'from', 'id', 'sent_at', 'text']);
            expect(m.sent_at.slice(0, 10)).toBe(doc.messages[0].sent_at.slice(0, 10));
            bump(`msg:${m.id}`);
          }
        }
      }
    }
    let suppressed = 0;
    for (const item of items) {
      const key = CHAT_KINDS.has(item.kind) ? `msg:${item.source_id}` : item.onna_id;
      const n = seen.get(key) ?? 0;
      if (n === 0 && item.kind === 'file' && rows.some((r) => r.SHA256 === item.sha256)) suppressed += 1;
      else expect(n, `${item.kind} ${item.source_id} appears once`).toBe(1);
    }
    expect(suppressed).toBe(view.counts.duplicates_suppressed);
    const manifest = JSON.parse(files.get('manifest.json')!.toString('utf8'));
    expect(manifest).toMatchObject({
      format: 'custody-export/1',
      export_id: view.export_id,
      collection_id: col,
      documents: rows.length,
    });
    expect(manifest.files.map((f: Json) => f.path).sort()).toEqual(
      [...files.keys()].filter((p) => p !== 'manifest.json' && p !== 'manifest.jws').sort(),
    );
    const [header] = files.get('manifest.jws')!.toString('ascii').split('.');
    expect(JSON.parse(Buffer.from(header, 'base64url').toString('utf8'))).toEqual({
      alg: 'EdDSA',
      kid: expect.any(String),
    });
    return rows;
  }

  beforeAll(async () => {
    zoom = await startZoomSandbox({
      seed: 7,
      users: 3,
      meetingsPerUser: 2,
      channels: 2,
      messagesPerChannel: 4,
      messagesPerChat: 3,
    });
    ms = await startMicrosoftSandbox({
      seed: 9,
      users: 2,
      usersWithoutDrive: 0,
      folderDepth: 1,
      foldersPerLevel: 1,
      filesPerFolder: 2,
    });
    t = await startTestApp({
      database,
      env: {
        ...zoomEnv(zoom),
        ...microsoftEnv(ms),
      },
    });
    token = await t.token('acme', [CB]);
    conf = await syncedConf(t, token, CB, 'Zoom export');

    // The same bytes twice in one drive and once in the other: duplicates for both dedupe scopes.
    const [alice, bob] = ms.tenant.users.map((u) => u.id) as [string, string];
    const same = Buffer.from('the same contract, three times\n');
    const rootOf = (u: string) => ms.listItems(u)[0].id;
    ms.mutate.addFile(alice, rootOf(alice), 'contract.txt', same);
    ms.mutate.addFile(alice, rootOf(alice), 'contract copy.txt', same);
    ms.mutate.addFile(bob, rootOf(bob), 'contract.txt', same);
    edrive = await newCollection(t.call, token, 'edrive', 'Drive export');
    await pairFlow(t.call, token, edrive, { type: 'edrive', redirectTo: CB, state: 'e1', callbackOrigin: t.url });
    const drive = (name: string) => ({
      all_selected: true,
      selected: [],
      excluded: [],
      filter_type: 'user_folders',
      filter_name: name,
    });
    expect(
      (
        await call('PATCH', `/v1/collections/${edrive}`, {
          sync_filters: { [alice]: drive('Alice'), [bob]: drive('Bob') },
          type_sync: 'auto',
        })
      ).status,
    ).toBe(204);
    expect((await call('POST', `/v1/collections/${edrive}/start`)).status).toBe(200);
    await t.waitForStatus(token, edrive, ['synced'], 30_000);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await zoom?.close();
    await ms?.close();
  });

  it('exports a conf collection with RSMF chat: every item once, natives, families, RSMF 2.0 structure', async () => {
    const { exportId, view, bytes } = await exportOf(conf, {});
    packages.set('conf-rsmf', { exportId, bytes });
    const rows = await checkPackage(conf, bytes, view, 'rsmf');
    expect(rows.some((r) => r.KIND === 'rsmf')).toBe(true);
    expect(view.counts.families).toBeGreaterThan(0);
    expect(rows.filter((r) => r.PARENT_DOCID).length).toBeGreaterThan(0);
  });

  it('exports a conf collection with JSON chat and global dedupe: meetings and chat are never suppressed', async () => {
    const { view, bytes } = await exportOf(conf, { chat_format: 'json', dedupe: 'global' });
    const rows = await checkPackage(conf, bytes, view, 'json');
    expect(rows.some((r) => r.KIND === 'chat_json')).toBe(true);
    expect(view.counts.duplicates_suppressed).toBe(0);
  });

  it('exports an edrive collection with each dedupe scope', async () => {
    const none = await exportOf(edrive, { dedupe: 'none' });
    await checkPackage(edrive, none.bytes, none.view, 'rsmf');
    expect(none.view.counts.duplicates_suppressed).toBe(0);
    const custodian = await exportOf(edrive, { dedupe: 'custodian', chat_format: 'json' });
    await checkPackage(edrive, custodian.bytes, custodian.view, 'json');
    expect(custodian.view.counts.duplicates_suppressed).toBe(1);
    const global = await exportOf(edrive, { dedupe: 'global' });
    const rows = await checkPackage(edrive, global.bytes, global.view, 'rsmf');
    expect(global.view.counts.duplicates_suppressed).toBe(2);
    const kept = rows.find((r) => r.SHA256 === sha256(Buffer.from('the same contract, three times\n')))!;
    expect(kept.ALL_CUSTODIANS.split(';')).toHaveLength(2);
    packages.set('edrive-global', { exportId: global.exportId, bytes: global.bytes });
  });

  it('serves ranges of the package and answers 304 to its ETag', async () => {
    const { exportId, bytes } = packages.get('conf-rsmf')!;
    const url = `/v1/collections/${conf}/exports/${exportId}/download`;
    const part = await call('GET', url, undefined, { range: 'bytes=10-99' });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(bytes.subarray(10, 100));
    expect((await call('GET', url, undefined, { 'if-none-match': `"${sha256(bytes)}"` })).status).toBe(304);
    const list = await jsonOf(await call('GET', `/v1/collections/${conf}/exports`), 200);
    expect(list.items.map((e: Json) => e.export_id)).toContain(exportId);
  });

  it('verifies offline, and fails on a changed native byte, load-file line, manifest or audit row', async () => {
    const jwks = (await (await fetch(`${t.url}/v1/signing-keys`)).json()) as { keys: any[] };
    expect(jwks.keys[0]).toMatchObject({
      kty: 'OKP',
      crv: 'Ed25519',
      use: 'sig',
      kid: expect.any(String),
      x: expect.any(String),
    });
    const { bytes } = packages.get('edrive-global')!;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-export-'));
    try {
      const zipFile = path.join(dir, 'package.zip');
      fs.writeFileSync(zipFile, bytes);
      expect(await verifyPackage(zipFile, jwks)).toMatchObject({ ok: true });
      expect(await verifyPackage(zipFile, { keys: [] })).toMatchObject({ ok: false });
      const folder = path.join(dir, 'unpacked');
      const files = await unzip(bytes);
      for (const [p, b] of files) {
        fs.mkdirSync(path.dirname(path.join(folder, p)), { recursive: true });
        fs.writeFileSync(path.join(folder, p), b);
      }
      expect(await verifyPackage(folder, jwks)).toEqual({
        ok: true,
        files: files.size - 2,
        documents: readDat(files.get('DATA/custody.dat')!).length,
      });
      const native = [...files.keys()].find((p) => p.startsWith('NATIVES/'))!;
      const tamper = async (p: string, change: (b: Buffer) => Buffer) => {
        fs.writeFileSync(path.join(folder, p), change(Buffer.from(files.get(p)!)));
        const result = await verifyPackage(folder, jwks);
        fs.writeFileSync(path.join(folder, p), files.get(p)!);
        return result;
      };
      const flip = (b: Buffer) => {
        b[0] = b[0] ^ 1;
        return b;
      };
      expect(await tamper(native, flip)).toMatchObject({ ok: false, problem: expect.stringContaining(native) });
      expect(
        await tamper('DATA/custody.dat', (b) =>
          Buffer.from(
            b
              .toString('utf8')
              .split('\r\n')
              .filter((_l, i) => i !== 1)
              .join('\r\n'),
          ),
        ),
      ).toMatchObject({ ok: false });
      expect(
        await tamper('manifest.json', (b) =>
          Buffer.from(b.toString('utf8').replace('"documents": ', '"documents": 1')),
        ),
      ).toMatchObject({ ok: false, problem: expect.stringMatching(/signature/) });
      expect(
        await tamper('audit.jsonl', (b) => Buffer.from(b.toString('utf8').replace('"success"', '"failure"'))),
      ).toMatchObject({ ok: false });
      expect(await verifyPackage(folder, jwks)).toMatchObject({ ok: true });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('detects an audit entry edited, reordered or deleted with SQL, and the newest entries deleted against a signed export head', async () => {
    const db = t.runtime.ctx.db;
    const chain = `collection:${conf}`;
    const verification = async () => jsonOf(await call('GET', `/v1/audit/verification?collection_id=${conf}`), 200);
    expect(await verification()).toMatchObject({ valid: true, broken_at: null });
    expect((await jsonOf(await call('GET', '/v1/audit/verification'), 200)).valid).toBe(true);
    const listed = await jsonOf(await call('GET', `/v1/audit?limit=200&target=${conf}`), 200);
    for (const e of listed.items)
      expect(Object.keys(e)).toEqual(expect.arrayContaining(['seq', 'prev_hash', 'hash', 'collection_id']));

    await sql`update audit_log set outcome = 'forged' where chain_id = ${chain} and chain_seq = 2`.execute(db);
    expect(await verification()).toMatchObject({ valid: false, broken_at: { seq: 2, collection_id: conf } });
    expect((await jsonOf(await call('GET', '/v1/audit/verification'), 200)).valid).toBe(false);
    await sql`update audit_log set outcome = 'success' where chain_id = ${chain} and chain_seq = 2`.execute(db);
    const original = (
      await sql<{ outcome: string }>`select outcome from audit_log where chain_id = ${chain} and chain_seq = 2`.execute(
        db,
      )
    ).rows[0];
    expect(original).toBeDefined();

    await sql`update audit_log set chain_seq = -2 where chain_id = ${chain} and chain_seq = 2`.execute(db);
    await sql`update audit_log set chain_seq = 2 where chain_id = ${chain} and chain_seq = 3`.execute(db);
    await sql`update audit_log set chain_seq = 3 where chain_id = ${chain} and chain_seq = -2`.execute(db);
    expect(await verification()).toMatchObject({ valid: false, broken_at: { seq: 2 } });
    await sql`update audit_log set chain_seq = -2 where chain_id = ${chain} and chain_seq = 2`.execute(db);
    await sql`update audit_log set chain_seq = 2 where chain_id = ${chain} and chain_seq = 3`.execute(db);
    await sql`update audit_log set chain_seq = 3 where chain_id = ${chain} and chain_seq = -2`.execute(db);
    expect(await verification()).toMatchObject({ valid: true });

    // A careful forger deletes the newest entries and rewinds the chain's head row: the export's signed head remains.
    const { exportId } = packages.get('conf-rsmf')!;
    const head = (await sql<{ audit_seq: number }>`select audit_seq from exports where id = ${exportId}`.execute(db))
      .rows[0];
    const keep = Number(head.audit_seq) - 1;
    const prev = (
      await sql<{ hash: string }>`select hash from audit_log where chain_id = ${chain} and chain_seq = ${keep}`.execute(
        db,
      )
    ).rows[0];
    await sql`delete from audit_log where chain_id = ${chain} and chain_seq > ${keep}`.execute(db);
    await sql`update audit_chains set seq = ${keep}, hash = ${prev.hash} where chain_id = ${chain}`.execute(db);
    const broken = await verification();
    expect(broken).toMatchObject({ valid: false, broken_at: { seq: Number(head.audit_seq) } });
    expect(broken.broken_at.reason).toMatch(/export/);
  });

  it('refuses bad export requests with 400 and cancels a queued export', async () => {
    expect((await call('POST', `/v1/collections/${conf}/exports`, { chat_format: 'pdf' })).status).toBe(400);
    expect((await call('POST', `/v1/collections/${conf}/exports`, { items: { kinds: ['file'] } })).status).toBe(400);
    expect((await call('POST', `/v1/collections/${conf}/exports`, { items: { run_id: 'run_nope' } })).status).toBe(400);
    expect((await call('POST', `/v1/collections/${conf}/exports`, { items: { from: 'yesterday' } })).status).toBe(400);
    const ended = packages.get('conf-rsmf')!.exportId;
    expect((await call('POST', `/v1/collections/${conf}/exports/${ended}/cancel`)).status).toBe(409);
    expect((await call('GET', `/v1/collections/${conf}/exports/exp_unknown`)).status).toBe(404);
  });
});
