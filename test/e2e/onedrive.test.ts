import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMicrosoftSandbox, type MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import { quickXorHashBase64 } from '../../src/connectors/onedrive/quickxorhash.ts';
import {
  fetchManifest,
  jsonOf,
  newCollection,
  parseCsv,
  startTestApp,
  type Json,
  type TestApp,
} from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';
import { microsoftEnv } from '../support/sandbox-env.ts';

const CB = 'https://client.example/edrive-done';
const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

/** The real runtime (background workers on) against the Microsoft sandbox: runs are started over HTTP and polled. */
describe.each(testDatabases.map((d) => [d.name, d] as const))(
  'OneDrive end to end through the public API on %s',
  (_name, database) => {
    let sandbox: MicrosoftSandbox;
    let t: TestApp;
    let token: string;
    let collectionId: string;
    let alice: string;
    let bob: string;
    let carol: string;
    let driveless: string;

    const call = (method: string, path: string, body?: unknown) =>
      t.call(token, method, path, body === undefined ? {} : { json: body });
    const rootOf = (userId: string) => sandbox.listItems(userId)[0].id;
    const topFolders = (userId: string) =>
      sandbox.listItems(userId).filter((i) => i.kind === 'folder' && i.parentId === rootOf(userId));
    const subtree = (userId: string, id: string) => {
      const out = new Set([id]);
      for (const i of sandbox.listItems(userId)) if (i.parentId && out.has(i.parentId)) out.add(i.id);
      return out;
    };
    const consent = (state: string) => t.consent(token, { type: 'edrive', redirectTo: CB, state });
    const items = () => t.items(token, collectionId);
    const runs = async () =>
      (await jsonOf(await call('GET', `/v1/collections/${collectionId}/runs`), 200)).runs as Json[];

    beforeAll(async () => {
      sandbox = await startMicrosoftSandbox({ seed: 31, users: 4, usersWithoutDrive: 1, deltaPageSize: 8 });
      [alice, bob, carol, driveless] = sandbox.tenant.users.map((u) => u.id) as [string, string, string, string];
      t = await startTestApp({
        database,
        env: microsoftEnv(sandbox),
      });
      token = await t.token('acme', [CB]);
      collectionId = await newCollection(t.call, token, 'edrive', 'Drives');
    });

    afterAll(async () => {
      await t?.close();
      await sandbox?.close();
    });

    it('relays a denied consent and refuses a tampered state without pairing anything', async () => {
      sandbox.denyConsent = true;
      try {
        const landed = await consent('denied-1');
        expect(landed.origin + landed.pathname).toBe(CB);
        expect(landed.searchParams.get('error')).toBe('consent_required');
        expect(landed.searchParams.get('code')).toBeNull();
        expect(landed.searchParams.get('state')).toBe('denied-1');
      } finally {
        sandbox.denyConsent = false;
      }
      const { authorization_url } = await jsonOf(
        await call('GET', `/v1/collections/authorization_url/edrive?${new URLSearchParams({ redirect_to: CB })}`),
        200,
      );
      const state = new URL(authorization_url).searchParams.get('state')!;
      const tampered = `${state.slice(0, -2)}${state.endsWith('AA') ? 'BB' : 'AA'}`;
      const res = await fetch(
        `${t.url}/v1/oauth/callback/edrive?${new URLSearchParams({ admin_consent: 'True', tenant: sandbox.tenantId, state: tampered })}`,
        { redirect: 'manual' },
      );
      expect(res.status).toBe(400);
      expect((await call('GET', `/v1/collections/${collectionId}/users`)).status).toBe(409);
    });

    it('pairs through admin consent, then discovers users and folders', async () => {
      const landed = await consent('client-7');
      expect(landed.searchParams.get('state')).toBe('client-7');
      const code = landed.searchParams.get('code')!;
      expect(code).toBeTruthy();
      expect(
        (await call('POST', `/v1/collections/${collectionId}/pair_credentials?auth_code=${encodeURIComponent(code)}`))
          .status,
      ).toBe(204);

      const first = await jsonOf(await call('GET', `/v1/collections/${collectionId}/users?limit=3`), 200);
      expect(first.limit).toBe(3);
      expect(first.entries).toHaveLength(3);
      const second = await jsonOf(
        await call(
          'GET',
          `/v1/collections/${collectionId}/users?limit=3&marker=${encodeURIComponent(first.next_marker)}`,
        ),
        200,
      );
      expect(second.next_marker).toBeNull();
      expect([...first.entries, ...second.entries].map((e: Json) => e.id)).toEqual(
        sandbox.tenant.users.map((u) => u.id),
      );

      const top = await jsonOf(await call('GET', `/v1/collections/${collectionId}/folders?user_id=${alice}`), 200);
      expect(top.results.map((r: Json) => r.id)).toEqual(topFolders(alice).map((f) => f.id));
      const parent = topFolders(alice)[1];
      const below = await jsonOf(
        await call('GET', `/v1/collections/${collectionId}/folders?user_id=${alice}&parent_id=${parent.id}`),
        200,
      );
      expect(below.results.length).toBeGreaterThan(0);
      expect(below.results[0].sorted_path_elements[0]).toEqual({ id: parent.id, name: parent.name });
      const none = await call('GET', `/v1/collections/${collectionId}/folders?user_id=${driveless}`);
      expect(none.status).toBe(404);
      expect((await jsonOf(none)).detail).toMatch(/OneDrive/);
    });

    it('collects exactly what the filters allow, with verified content', async () => {
      const excluded = topFolders(alice)[0];
      const selected = topFolders(bob)[1];
      const patch = await call('PATCH', `/v1/collections/${collectionId}`, {
        type_sync: 'auto',
        sync_filters: {
          [alice]: {
            all_selected: true,
            selected: [],
            excluded: [{ id: excluded.id }],
            filter_type: 'user_folders',
            filter_name: 'Alice',
          },
          [bob]: {
            all_selected: false,
            selected: [{ id: selected.id }],
            excluded: [],
            filter_type: 'user_folders',
            filter_name: 'Bob',
          },
          [driveless]: {
            all_selected: true,
            selected: [],
            excluded: [],
            filter_type: 'user_folders',
            filter_name: 'Room',
          },
        },
      });
      expect(patch.status).toBe(204);
      expect((await call('POST', `/v1/collections/${collectionId}/start`)).status).toBe(200);
      const c = await t.waitForStatus(token, collectionId, ['synced'], 30_000);
      // The user without a OneDrive is a failed custodian: the run is honest about it, the collection stays usable.
      expect(c.latest_run).toMatchObject({ trigger: 'start', status: 'completed_with_errors' });
      expect(c.latest_run.counters.failed).toBe(1);
      expect(c.status_reason).toMatch(
        new RegExp(
          `^1 item could not be collected.*/v1/collections/${collectionId}/runs/${c.latest_run.run_id}/reconciliation`,
        ),
      );

      const got = await items();
      const skip = subtree(alice, excluded.id);
      const want = new Map<string, string>();
      for (const i of sandbox.listItems(alice)) if (i.parentId && !skip.has(i.id)) want.set(i.id, alice);
      for (const id of subtree(bob, selected.id)) want.set(id, bob);
      expect(new Map(got.map((i) => [i.source_id, i.custodian]))).toEqual(want);
      expect(got).toHaveLength(want.size);
      expect(got.some((i) => i.custodian === carol)).toBe(false);
      for (const item of got) {
        expect(item.path).toBe(sandbox.itemPathOf(item.custodian, item.source_id));
        if (item.kind !== 'file') continue;
        const bytes = sandbox.contentOf(item.custodian, item.source_id);
        expect(item.sha256).toBe(sha256(bytes));
        expect(item.provider_hash).toEqual({ type: 'quickXorHash', value: quickXorHashBase64(bytes) });
        expect(item.hash_verified).toBe(true);
      }
      const file = got.find((i) => i.kind === 'file')!;
      const content = await call('GET', `/v1/collections/${collectionId}/items/${file.onna_id}/content`);
      expect(sha256(Buffer.from(await content.arrayBuffer()))).toBe(
        sha256(sandbox.contentOf(file.custodian, file.source_id)),
      );
      expect(content.headers.get('etag')).toBe(`"${file.sha256}"`);
      expect((await runs())[0].errors.map((e: Json) => e.source_id)).toEqual([driveless]);
    });

    it('reconciles every custodian: listed = collected + excluded + failed, collected = what the items API lists', async () => {
      const [latest] = await runs();
      const runId = latest.run_id as string;
      const r = await jsonOf(await call('GET', `/v1/collections/${collectionId}/runs/${runId}/reconciliation`), 200);
      expect(r).toMatchObject({ run_id: runId, status: 'completed_with_errors', balanced: true });
      const got = await items();
      const nonRoot = (userId: string) => sandbox.listItems(userId).filter((i) => i.parentId).length;
      const entry = (id: string) => (r.custodians as Json[]).find((x) => x.custodian === id);
      for (const id of [alice, bob]) {
        const mine = got.filter((i) => i.custodian === id && i.run_id === runId);
        expect(entry(id)).toMatchObject({
          unit_kind: 'custodian',
          listed: nonRoot(id),
          collected: mine.length,
          unchanged: 0,
          not_present: 0,
          failed: 0,
          exceptions: [],
        });
        expect(entry(id)!.excluded).toBe(nonRoot(id) - mine.length);
      }
      expect(entry(carol)).toBeUndefined();
      expect(entry(driveless)).toMatchObject({ listed: 1, collected: 0, failed: 1 });
      expect(entry(driveless)!.exceptions).toEqual([
        expect.objectContaining({
          source_id: driveless,
          kind: 'custodian',
          outcome: 'failed',
          reason: expect.stringMatching(/no provisioned OneDrive/),
        }),
      ]);
      for (const f of ['listed', 'collected', 'unchanged', 'excluded', 'not_present', 'failed']) {
        expect(r.totals[f]).toBe((r.custodians as Json[]).reduce((n, x) => n + x[f], 0));
      }
      expect(r.totals.listed).toBe(
        r.totals.collected + r.totals.unchanged + r.totals.excluded + r.totals.not_present + r.totals.failed,
      );

      const csv = await call('GET', `/v1/collections/${collectionId}/runs/${runId}/reconciliation?format=csv`);
      expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
      const [header, ...rows] = parseCsv(await csv.text());
      expect(header).toEqual([
        'run_id',
        'custodian',
        'unit_kind',
        'email',
        'listed',
        'collected',
        'unchanged',
        'excluded',
        'not_present',
        'failed',
        'exceptions',
        'custodian_name',
      ]);
      expect(rows.map((row) => [row[1], Number(row[4]), Number(row[5]), Number(row[9])]).sort()).toEqual(
        (r.custodians as Json[]).map((x) => [x.custodian, x.listed, x.collected, x.failed]).sort(),
      );
      // Each custodian's name as the directory gives it (the sandbox's users), in the last column.
      for (const row of rows)
        expect(row[11], row[1]).toBe(sandbox.tenant.users.find((u) => u.id === row[1])?.displayName);
      const exc = parseCsv(
        await (
          await call('GET', `/v1/collections/${collectionId}/runs/${runId}/reconciliation?format=csv&rows=exceptions`)
        ).text(),
      );
      expect(exc.slice(1).map((row) => [row[1], row[3], row[6]])).toEqual([[driveless, driveless, 'failed']]);
      expect(exc[0].at(-1)).toBe('custodian_name');
      expect((await call('GET', `/v1/collections/${collectionId}/runs/run_nope/reconciliation`)).status).toBe(404);
      const { json } = await fetchManifest(t.call, token, collectionId);
      expect(json.runs.at(-1).reconciliation).toEqual({ balanced: true, totals: r.totals });
    });

    it('lists every item with its hashes in the manifest, as JSON and as CSV', async () => {
      const got = await items();
      const { json, csv } = await fetchManifest(t.call, token, collectionId);
      expect(json.counts).toMatchObject({
        items: got.length,
        hash_verified: got.filter((i) => i.kind === 'file').length,
        hash_mismatch: 0,
      });
      expect(json.exceptions.map((e: Json) => e.source_id)).toEqual([driveless]);
      const byId = new Map((json.items as Json[]).map((m) => [m.onna_id as string, m]));
      expect(byId.size).toBe(got.length);
      const rows = new Map(csv.filter((r) => r.record_type === 'item').map((r) => [r.onna_id, r]));
      expect(rows.size).toBe(got.length);
      for (const item of got) {
        const expected = {
          source_id: item.source_id,
          path: item.path,
          custodian: item.custodian,
          sha256: item.sha256,
          md5: item.md5,
          provider_hash_type: item.provider_hash?.type ?? null,
          provider_hash_value: item.provider_hash?.value ?? null,
          hash_verified: item.hash_verified,
        };
        expect(byId.get(item.onna_id)).toMatchObject(expected);
        const asCsv = Object.fromEntries(Object.entries(expected).map(([k, v]) => [k, v === null ? '' : String(v)]));
        expect(rows.get(item.onna_id)).toMatchObject(asCsv);
      }
      expect(csv.filter((r) => r.record_type === 'exception').map((r) => r.source_id)).toEqual([driveless]);
    });

    it('a second run queued with PATCH pending fetches only the changes and flags a corrupted download', async () => {
      const firstRun = (await runs())[0].run_id;
      const keep = topFolders(alice)[1];
      const doomed = sandbox.listItems(alice).find((i) => i.kind === 'file' && i.parentId === keep.id)!;
      const added = sandbox.mutate.addFile(alice, keep.id, 'evidence.txt', Buffer.from('the new evidence'));
      sandbox.mutate.deleteItem(alice, doomed.id);
      sandbox.faults.corruptDownloads = 2;
      const mark = sandbox.requests.length;

      expect((await call('PATCH', `/v1/collections/${collectionId}`, { sync_status: 'pending' })).status).toBe(204);
      const c = await t.waitForStatus(token, collectionId, ['synced'], 30_000);
      expect(c.latest_run.run_id).not.toBe(firstRun);
      // The new file, downloaded twice because its bytes did not match the stated quickXorHash both times.
      expect(sandbox.requests.slice(mark).filter((r) => r.host === 'download')).toHaveLength(2);
      const got = await items();
      expect(got.find((i) => i.source_id === doomed.id)).toBeUndefined();
      const evidence = got.find((i) => i.source_id === added.id)!;
      expect(evidence.path).toBe(sandbox.itemPathOf(alice, added.id));
      expect(evidence.hash_verified).toBe(false);
      expect(got.filter((i) => i.run_id === c.latest_run.run_id).map((i) => i.source_id)).toEqual([added.id]);
      const [latest] = await runs();
      expect(latest.errors.map((e: Json) => e.reason).join('\n')).toMatch(/quickXorHash mismatch/);
      const { json } = await fetchManifest(t.call, token, collectionId);
      expect(json.counts).toMatchObject({ hash_mismatch: 1, tombstoned: 1 });
      expect((json.items as Json[]).find((m) => m.source_id === added.id)).toMatchObject({
        hash_verified: false,
        run_id: c.latest_run.run_id,
      });
    });

    it('narrowing the folder selection keeps what was collected and claims no deletion at the source', async () => {
      const before = await items();
      const keep = topFolders(alice)[1];
      const onlyKeep = {
        all_selected: false,
        selected: [{ id: keep.id }],
        excluded: [],
        filter_type: 'user_folders',
        filter_name: 'Alice',
      };
      const patch = await call('PATCH', `/v1/collections/${collectionId}`, {
        sync_status: 'pending',
        sync_filters: { [alice]: onlyKeep },
      });
      expect(patch.status).toBe(204);
      const c = await t.waitForStatus(token, collectionId, ['synced'], 30_000);
      expect(c.latest_run.status).toBe('succeeded');
      // Alice's other folders and Bob's folder left the selection; all of it is still at the source.
      expect(new Set((await items()).map((i) => i.source_id))).toEqual(new Set(before.map((i) => i.source_id)));
      const { json } = await fetchManifest(t.call, token, collectionId);
      expect(json.counts).toMatchObject({ tombstoned: 1, deleted_at_source: 1 });
    });
  },
);
