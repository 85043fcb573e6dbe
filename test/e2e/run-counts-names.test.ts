import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMicrosoftSandbox, type MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import { jsonOf, newCollection, pairFlow, startTestApp, type Json, type TestApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';
import { runCustody } from '../support/process.ts';
import { simulatorEnv } from '../support/scratch-database.ts';
import { readDat, unzip } from '../export/package-oracle.ts';

const CB = 'https://client.example/names-done';
const all = { all_selected: true, selected: [], excluded: [] };
const CATEGORIES = ['listed', 'collected', 'unchanged', 'excluded', 'not_present', 'failed'] as const;
const pick = (o: Json) => Object.fromEntries(CATEGORIES.map((c) => [c, o[c]]));

/**
 * Issue 23 items 1 and 2 through the public API, against both simulators: every surface that shows a run's counts
 * shows the reconciliation's numbers (the oracle: GET …/reconciliation), and items, progress events, reconciliation
 * entries, search hits and download audit entries carry the custodian's name and e-mail, stored when collected.
 */
describe.each(testDatabases.map((d) => [d.name, d] as const))(
  'run counts and custodian names on %s',
  (_n, database) => {
    let zoom: ZoomSandbox;
    let ms: MicrosoftSandbox;
    let t: TestApp;
    let token: string;
    let conf: string;
    let edrive: string;
    const cliDir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-names-cli-'));
    const call = (method: string, p: string, body?: unknown) =>
      t.call(token, method, p, body === undefined ? {} : { json: body });
    const get = async (p: string) => jsonOf(await call('GET', p), 200);
    const cli = (args: string[]) => runCustody(['--url', t.url, ...args], { CUSTODY_CONFIG_DIR: cliDir }, 60_000);

    async function sync(id: string): Promise<Json> {
      expect((await call('POST', `/v1/collections/${id}/start`)).status).toBe(200);
      return t.waitForStatus(token, id, ['synced', 'failed', 'error'], 90_000);
    }

    /** The run's events as the stream replays them (the latest run's), read up to its `run.finished`. */
    async function streamed(id: string, runId: string): Promise<Array<{ type: string; data: Json }>> {
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), 15_000);
      const out: Array<{ type: string; data: Json }> = [];
      try {
        const res = await fetch(`${t.url}/v1/collections/${id}/events`, {
          headers: { authorization: `Bearer ${token}` },
          signal: abort.signal,
        });
        let buffer = '';
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += Buffer.from(chunk).toString('utf8');
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const type = /^event: ?(.*)$/m.exec(block)?.[1];
            const data = block
              .split('\n')
              .filter((l) => l.startsWith('data:'))
              .map((l) => l.slice(5).replace(/^ /, ''))
              .join('\n');
            if (!type || !data) continue;
            out.push({ type, data: JSON.parse(data) as Json });
            if (type === 'run.finished' && out.at(-1)!.data.run_id === runId) return out;
          }
        }
      } finally {
        clearTimeout(timer);
        abort.abort();
      }
      throw new Error(`the stream ended before run.finished: ${JSON.stringify(out.map((e) => e.type))}`);
    }

    /** Every surface of the run against its reconciliation. */
    async function compareSurfaces(id: string, collection: Json): Promise<Json> {
      const runId = collection.latest_run.run_id as string;
      const report = await get(`/v1/collections/${id}/runs/${runId}/reconciliation`);
      expect(report.balanced).toBe(true);
      expect(report.totals.listed).toBeGreaterThan(0);
      const want = report.totals as Json;
      expect(pick(collection.latest_run.counters), 'latest_run.counters').toEqual(want);
      expect(pick((await get(`/v1/collections/${id}/runs/${runId}`)).counters), 'run detail').toEqual(want);
      const history = (await get(`/v1/collections/${id}/runs`)).runs as Json[];
      expect(pick(history.find((r) => r.run_id === runId)!.counters), 'run history').toEqual(want);

      const events = await streamed(id, runId);
      const last = new Map<string, Json>();
      for (const e of events)
        if (e.type === 'run.progress' && e.data.run_id === runId) last.set(e.data.custodian, e.data);
      for (const entry of report.custodians as Json[]) {
        const progress = last.get(entry.custodian);
        expect(progress, `run.progress of ${entry.custodian}`).toBeDefined();
        // each unit's last progress: the same numbers as its entry, finished (its bar full), with its names
        expect(pick(progress!), `run.progress of ${entry.custodian}`).toEqual(pick(entry));
        expect(['done', 'failed']).toContain(progress!.status);
        expect(progress!.custodian_name).toBe(entry.custodian_name);
        expect(progress!.custodian_email).toBe(entry.custodian_email);
      }

      const c = want;
      const line = `${c.listed} listed, ${c.collected} collected, ${c.unchanged} unchanged, ${c.excluded} excluded, ${c.not_present} not present, ${c.failed} failed`;
      const shown = await cli(['runs', 'show', id, runId]);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toContain(line);
      const listed = await cli(['runs', 'list', id, '--json']);
      expect(listed.code, listed.stderr).toBe(0);
      const row = (JSON.parse(listed.stdout) as Json[]).find((r) => r.run_id === runId)!;
      expect(pick(row.counters), 'custody runs list').toEqual(want);
      return report;
    }

    beforeAll(async () => {
      zoom = await startZoomSandbox({
        seed: 23,
        users: 3,
        meetingsPerUser: 1,
        channels: 1,
        messagesPerChannel: 3,
        messagesPerChat: 2,
        oneToOnePeersPerUser: 1,
        fileSize: 2048,
      });
      ms = await startMicrosoftSandbox({ seed: 23, users: 2, usersWithoutDrive: 0, deltaPageSize: 8 });
      t = await startTestApp({
        database,
        env: simulatorEnv(zoom, ms),
      });
      const creds = await t.client('acme', [CB]);
      token = await t.token('acme', [CB]);
      const login = await cli(['login', '--client-id', creds.clientId, '--client-secret', creds.clientSecret]);
      expect(login.code, login.stderr).toBe(0);

      conf = await newCollection(t.call, token, 'conf', 'names-conf');
      await pairFlow(t.call, token, conf, { type: 'conf', redirectTo: CB, state: 'c', callbackOrigin: t.url });
      const confFilters = { account_owners: all, content_selections: all, chats: all };
      expect((await call('PATCH', `/v1/collections/${conf}`, { sync_filters: confFilters })).status).toBe(204);

      edrive = await newCollection(t.call, token, 'edrive', 'names-edrive');
      await pairFlow(t.call, token, edrive, { type: 'edrive', redirectTo: CB, state: 'e', callbackOrigin: t.url });
      const [alice, bob] = ms.tenant.users.map((u) => u.id) as [string, string];
      const root = ms.listItems(alice)[0].id;
      const skip = ms.listItems(alice).find((i) => i.kind === 'folder' && i.parentId === root)!;
      const drive = (excluded: Array<{ id: string }>) => ({
        all_selected: true,
        selected: [],
        excluded,
        filter_type: 'user_folders',
        filter_name: 'drive',
      });
      const filters = { [alice]: drive([{ id: skip.id }]), [bob]: drive([]) };
      expect((await call('PATCH', `/v1/collections/${edrive}`, { sync_filters: filters })).status).toBe(204);
    }, 120_000);

    afterAll(async () => {
      await t?.close();
      await zoom?.close();
      await ms?.close();
      fs.rmSync(cliDir, { recursive: true, force: true });
    });

    it('conf: every surface shows the reconciliation numbers, with names from Zoom (a channel: its name)', async () => {
      const report = await compareSurfaces(conf, await sync(conf));
      const entries = report.custodians as Json[];
      for (const e of entries) {
        if (e.unit_kind === 'channel') {
          const channel = zoom.tenant.channels.find((c) => c.id === e.custodian)!;
          expect({ name: e.custodian_name, email: e.custodian_email }).toEqual({ name: channel.name, email: null });
        } else {
          const user = zoom.tenant.users.find((u) => u.id === e.custodian)!;
          expect({ name: e.custodian_name, email: e.custodian_email }).toEqual({
            name: user.display_name,
            email: user.email,
          });
        }
      }
      expect(entries.some((e) => e.unit_kind === 'channel')).toBe(true);
      const items = await t.items(token, conf);
      for (const i of items as unknown as Json[]) {
        const entry = entries.find((e) => e.custodian === i.custodian)!;
        expect({ name: i.custodian_name, email: i.custodian_email }, i.onna_id).toEqual({
          name: entry.custodian_name,
          email: entry.custodian_email,
        });
      }
    }, 180_000);

    it('edrive: every surface shows the reconciliation numbers; the e-mail is filled and paths start with the user', async () => {
      const report = await compareSurfaces(edrive, await sync(edrive));
      expect(report.totals.excluded).toBeGreaterThan(0);
      for (const e of report.custodians as Json[]) {
        const user = ms.tenant.users.find((u) => u.id === e.custodian)!;
        const email = user.mail || user.userPrincipalName;
        expect({ name: e.custodian_name, email: e.custodian_email, legacy: e.email }).toEqual({
          name: user.displayName,
          email,
          legacy: email,
        });
      }
      const items = (await t.items(token, edrive)) as unknown as Json[];
      expect(items.length).toBeGreaterThan(0);
      for (const i of items) {
        const user = ms.tenant.users.find((u) => u.id === i.custodian)!;
        const email = user.mail || user.userPrincipalName;
        expect(i.path.startsWith(`${email}/`), i.path).toBe(true);
        expect(i.path).toBe(ms.itemPathOf(user.id, i.source_id));
        expect({ name: i.custodian_name, email: i.custodian_email }).toEqual({ name: user.displayName, email });
      }
    }, 180_000);

    it('custodian filters take an e-mail as well as an id: items, search filters, custodian: in the query, the CLI', async () => {
      const items = (await t.items(token, conf)) as unknown as Json[];
      const owner = zoom.tenant.users.find((u) => items.some((i) => i.custodian === u.id))!;
      const mine = items.filter((i) => i.custodian === owner.id).map((i) => i.onna_id as string);
      expect(mine.length).toBeGreaterThan(0);
      const listed = async (who: string) =>
        ((await get(`/v1/collections/${conf}/items?limit=200&custodian=${encodeURIComponent(who)}`)).items as Json[])
          .map((i) => i.onna_id as string)
          .sort();
      expect(await listed(owner.email.toUpperCase())).toEqual([...mine].sort());
      expect(await listed(owner.id)).toEqual([...mine].sort());

      const search = async (body: Json) =>
        ((await jsonOf(await call('POST', '/v1/search', { size: 100, ...body }), 200)).results as Json[]).map(
          (h) => h.item as Json,
        );
      const ids = (hits: Json[]) => hits.map((i) => i.onna_id as string).sort();
      const byId = await search({ query: `custodian:${owner.id}`, collection_ids: [conf], custodians: [owner.id] });
      expect(byId.length).toBeGreaterThan(0);
      expect(ids(byId).every((i) => mine.includes(i))).toBe(true);
      const byFilter = await search({ query: `custodian:${owner.id}`, custodians: [owner.email.toUpperCase()] });
      expect(ids(byFilter)).toEqual(ids(byId));
      expect(byFilter.every((i) => i.custodian_email === owner.email && i.custodian_name === owner.display_name)).toBe(
        true,
      );
      const byQuery = await search({ query: `custodian:${owner.email}`, collection_ids: [conf] });
      expect(ids(byQuery)).toEqual(ids(byId));

      const cliRows = await cli(['items', 'list', conf, '--custodian', owner.email, '--limit', '200', '--json']);
      expect(cliRows.code, cliRows.stderr).toBe(0);
      expect((JSON.parse(cliRows.stdout) as Json[]).map((i) => i.onna_id as string).sort()).toEqual([...mine].sort());
    }, 120_000);

    it('names survive the user’s deletion at Zoom: items, downloads’ audit entries and the load file keep them', async () => {
      const items = (await t.items(token, conf)) as unknown as Json[];
      const withContent = items.find(
        (i) => i.sha256 && i.custodian && zoom.tenant.users.some((u) => u.id === i.custodian),
      )!;
      const user = zoom.tenant.users.find((u) => u.id === withContent.custodian)!;
      zoom.deleteUser(user.id);
      await sync(conf);

      const after = (await t.items(token, conf)) as unknown as Json[];
      const theirs = after.filter((i) => i.custodian === user.id);
      expect(theirs.length).toBeGreaterThan(0);
      for (const i of theirs) expect([i.custodian_name, i.custodian_email]).toEqual([user.display_name, user.email]);

      const dl = await call('GET', `/v1/collections/${conf}/items/${withContent.onna_id}/content`);
      expect(dl.status).toBe(200);
      await dl.arrayBuffer();
      const audit = (await get(`/v1/audit?action=content.download&target=${withContent.onna_id}`)).items as Json[];
      expect(audit[0]?.detail).toMatchObject({
        custodian: user.id,
        custodian_name: user.display_name,
        custodian_email: user.email,
      });

      const created = await jsonOf(await call('POST', `/v1/collections/${conf}/exports`, { chat_format: 'json' }), 202);
      let view: Json = created;
      for (let i = 0; i < 600 && ['queued', 'running'].includes(view.status); i++) {
        await new Promise((r) => setTimeout(r, 100));
        view = await get(`/v1/collections/${conf}/exports/${created.export_id}`);
      }
      expect(view.status).toBe('succeeded');
      const pkg = await call('GET', `/v1/collections/${conf}/exports/${created.export_id}/download`);
      const rows = readDat((await unzip(Buffer.from(await pkg.arrayBuffer()))).get('DATA/custody.dat')!);
      const row = rows.find((r) => r.SHA256 === withContent.sha256)!;
      expect({ c: row.CUSTODIAN, n: row.CUSTODIAN_NAME, e: row.CUSTODIAN_EMAIL }).toEqual({
        c: user.email,
        n: user.display_name,
        e: user.email,
      });
      const channel = zoom.tenant.channels[0];
      const channelRow = rows.find((r) => r.CUSTODIAN === `channel:${channel.id}`);
      expect(channelRow && [channelRow.CUSTODIAN_NAME, channelRow.CUSTODIAN_EMAIL]).toEqual([channel.name, '']);
    }, 180_000);
  },
);
