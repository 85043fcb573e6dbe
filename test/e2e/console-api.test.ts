import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustodyClient, CustodyApiError, type StreamEvent } from '../../client/src/index.ts';
import { EventRepo } from '../../src/store/events.ts';
import { RunRepo } from '../../src/store/runs.ts';
import { jsonOf, newCollection, startTestApp, type TestApp } from '../support/app.ts';
import { progressData } from '../support/progress.ts';
import { testDatabases } from '../support/databases.ts';
import { rawExchange } from '../support/raw-http.ts';
import {
  fakeConfConnector,
  fakeDriveConnector,
  startFakeProvider,
  type FakeProvider,
} from '../support/fake-oauth-connector.ts';

const CB = 'https://console.example/cb';

describe.each(testDatabases.map((d) => [d.name, d] as const))(
  'the routes the console needs, on %s',
  (_name, database) => {
    let t: TestApp;
    let p: FakeProvider;
    let acme: string;
    let globex: string;
    let acmeCreds: { clientId: string; clientSecret: string; accountId: string };

    beforeAll(async () => {
      p = await startFakeProvider();
      t = await startTestApp({
        database,
        workers: false,
        connectors: () => [fakeConfConnector(p), fakeDriveConnector(p)],
        env: { EVENT_STREAM_POLL_MS: '20', EVENT_STREAM_HEARTBEAT_MS: '30' },
      });
      acmeCreds = await t.client('acme', [CB]);
      acme = await t.token('acme');
      globex = await t.token('globex');
    });
    afterAll(async () => {
      await t?.close();
      await p?.close();
    });

    describe('authorization_url with Accept: application/json', () => {
      const authorize = (type: string, headers: Record<string, string> = {}) =>
        t.call(
          acme,
          'GET',
          `/v1/collections/authorization_url/${type}?${new URLSearchParams({ redirect_to: CB, state: 's1' })}`,
          { headers },
        );

      it('answers 200 {authorization_url} for conf, which otherwise redirects', async () => {
        const plain = await authorize('conf');
        expect(plain.status).toBe(302);
        // A generic client's default that also takes anything (axios) still gets the spec's redirect.
        expect((await authorize('conf', { accept: 'application/json, text/plain, */*' })).status).toBe(302);
        const res = await authorize('conf', { accept: 'application/json' });
        const body = await jsonOf(res, 200);
        expect(Object.keys(body)).toEqual(['authorization_url']);
        const url = new URL(body.authorization_url);
        expect(url.origin).toBe(new URL(plain.headers.get('location')!).origin);
        expect(url.searchParams.get('state')).toBe(p.calls.authorizationUrl.at(-1)!.state);
      });

      it('always accepts the console itself as redirect_to, and nothing else beside the allowlist', async () => {
        const to = (redirect_to: string) =>
          t.call(
            globex,
            'GET',
            `/v1/collections/authorization_url/conf?${new URLSearchParams({ redirect_to, state: 'c1' })}`,
            { headers: { accept: 'application/json' } },
          );
        await jsonOf(await to(`${t.config.publicUrl}/console/`), 200);
        for (const other of [
          `${t.config.publicUrl}/console/x`,
          `${t.config.publicUrl}/console`,
          'https://evil.example/console/',
        ]) {
          expect((await jsonOf(await to(other), 400)).source).toEqual({ pointer: '/querystring/redirect_to' });
        }
      });

      it('answers 200 {authorization_url} for edrive either way', async () => {
        await jsonOf(await authorize('edrive'), 200);
        expect(Object.keys(await jsonOf(await authorize('edrive', { accept: 'application/json' }), 200))).toEqual([
          'authorization_url',
        ]);
      });
    });

    describe('the console pages', () => {
      it('sends / and /console to /console/ and serves nothing outside the built console', async () => {
        for (const p of ['/', '/console']) {
          const res = await fetch(`${t.url}${p}`, { redirect: 'manual' });
          expect(res.status).toBe(302);
          expect(res.headers.get('location')).toBe('/console/');
        }
        for (const p of [
          '/console/%2e%2e/%2e%2e/package.json',
          '/console/..%2f..%2fpackage.json',
          '/console/no-such-file.js',
        ]) {
          const res = await fetch(`${t.url}${p}`);
          expect([404, 503]).toContain(res.status);
          expect(await res.text()).not.toContain('"name": "custody"');
        }
      });

      it('answers any path that is not a console file in the error shape, never a 500 (ENOTDIR, ENAMETOOLONG)', async () => {
        for (const p of [
          '/console/index.html/foo',
          `/console/${'a'.repeat(256)}`,
          `/console/assets/${'b'.repeat(300)}.js`,
          '/console/assets/',
        ]) {
          const res = await fetch(`${t.url}${p}`);
          // 503 only when the console is not built (npm ci builds it)
          expect([404, 503], p).toContain(res.status);
          const body = await jsonOf(res);
          expect({ code: body.code, id: body.id }).toEqual({
            code: `00${res.status}_${res.status === 404 ? 'not_found' : 'service_unavailable'}`,
            id: res.headers.get('x-correlation-id'),
          });
        }
      });
    });

    describe('GET /v1/collections', () => {
      it('pages through the account collections and filters by workspace, type and status', async () => {
        const a = await newCollection(t.call, acme, 'conf', 'list-a');
        const b = await newCollection(t.call, acme, 'edrive', 'list-b');
        const c = await newCollection(t.call, acme, 'conf', 'list-c');
        await newCollection(t.call, globex, 'conf', 'list-foreign');
        const all: string[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
          const page = await jsonOf(await t.call(acme, 'GET', `/v1/collections?limit=2${q}`), 200);
          all.push(...page.items.map((i: { onna_id: string }) => i.onna_id));
          cursor = page.cursor;
          pages++;
        } while (cursor);
        expect(all).toEqual(expect.arrayContaining([a, b, c]));
        expect(new Set(all).size).toBe(all.length);
        expect(pages).toBeGreaterThanOrEqual(2);

        const ids = async (query: string) =>
          (await jsonOf(await t.call(acme, 'GET', `/v1/collections?limit=200&${query}`), 200)).items.map(
            (i: { onna_id: string }) => i.onna_id,
          );
        expect(await ids('type=edrive')).toContain(b);
        expect(await ids('type=edrive')).not.toContain(a);
        const ws = (await jsonOf(await t.call(acme, 'GET', `/v1/collections/${c}`), 200)).onna_parent_id as string;
        expect(await ids(`workspace=${ws}`)).toEqual([c]);
        expect(await ids('status=created')).toEqual(expect.arrayContaining([a, b, c]));
        expect(await ids('status=synced')).toEqual([]);
        const bad = await jsonOf(await t.call(acme, 'GET', '/v1/collections?status=sleeping'), 400);
        expect(bad.code).toBe('00400_bad_request');
      });
    });

    describe('GET /v1/wallet', () => {
      it('lists the account wallets without any secret', async () => {
        const col = await newCollection(t.call, acme, 'conf', 'wallet-list');
        const walletId = (await jsonOf(await t.call(acme, 'GET', `/v1/collections/${col}`), 200))
          .credential_id as string;
        await t.runtime.ctx.repos.wallets.setGrant(walletId, 'sealed-secret-material');
        const items: Array<Record<string, unknown>> = [];
        let cursor: string | null = null;
        do {
          const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
          const page = await jsonOf(await t.call(acme, 'GET', `/v1/wallet?limit=1${q}`), 200);
          items.push(...page.items);
          cursor = page.cursor;
        } while (cursor);
        const mine = items.find((w) => w.onna_id === walletId)!;
        expect(mine).toMatchObject({ name: 'wallet-list', config_type: 'conf', paired: true });
        expect(JSON.stringify(items)).not.toContain('sealed-secret-material');
        expect(items.filter((w) => w.name === 'list-foreign')).toEqual([]);
        expect(
          items.every(
            (w) =>
              Object.keys(w).sort().join() ===
              'config_type,creation_datetime,credential_type_name,name,onna_id,paired,paired_datetime',
          ),
        ).toBe(true);
      });
    });

    describe('GET /v1/collections/{id}/events', () => {
      const events = () => new EventRepo(t.runtime.ctx.db);
      const runs = () => new RunRepo(t.runtime.ctx.db);
      let clock = Date.parse('2026-01-01T00:00:00Z');
      async function runOf(collectionId: string) {
        clock += 1000; // runs are ordered by creation time
        const { run } = await runs().insertQueued({
          collectionId,
          accountId: acmeCreds.accountId,
          trigger: 'start',
          at: new Date(clock).toISOString(),
        });
        return run.id;
      }
      async function finish(runId: string) {
        await t.runtime.ctx.db
          .updateTable('runs')
          .set({ status: 'succeeded', finished_at: new Date().toISOString() })
          .where('id', '=', runId)
          .execute();
      }
      const client = () =>
        createCustodyClient({ baseUrl: t.url, clientId: acmeCreds.clientId, clientSecret: acmeCreds.clientSecret });

      /** Reads events until `until` says stop (or 10 s pass), then aborts the stream. */
      async function read(collectionId: string, until: (seen: StreamEvent[]) => boolean, lastEventId?: string) {
        const abort = new AbortController();
        const timer = setTimeout(() => abort.abort(), 10_000);
        const seen: StreamEvent[] = [];
        try {
          for await (const e of client().events(collectionId, { lastEventId, signal: abort.signal })) {
            seen.push(e);
            if (until(seen)) break;
          }
        } catch (err) {
          if (!abort.signal.aborted) throw err;
        } finally {
          clearTimeout(timer);
          abort.abort();
        }
        return seen;
      }

      it('streams events appended after connecting (as another process would), with ids and JSON data', async () => {
        const col = await newCollection(t.call, acme, 'conf', 'stream-live');
        const runId = await runOf(col);
        const append = (type: 'run.started' | 'run.finished', data: any) =>
          events().append({ accountId: acmeCreds.accountId, collectionId: col, runId, type, data });
        const reading = read(col, (seen) => seen.some((e) => e.event === 'run.finished'));
        await new Promise((r) => setTimeout(r, 100));
        await append('run.started', { run_id: runId, collection_id: col });
        await events().append({
          accountId: acmeCreds.accountId,
          collectionId: col,
          runId,
          type: 'run.progress',
          data: progressData({ run_id: runId, custodian: 'u1', listed: 3, collected: 2, bytes: 20, failed: 1 }),
        });
        await append('run.finished', { run_id: runId, collection_id: col, status: 'succeeded' });
        const seen = await reading;
        expect(seen.map((e) => e.event)).toEqual(['run.started', 'run.progress', 'run.finished']);
        expect(seen[1].data).toEqual(
          progressData({ run_id: runId, custodian: 'u1', listed: 3, collected: 2, bytes: 20, failed: 1 }),
        );
        const ids = seen.map((e) => Number(e.id));
        expect(ids.every((id, i) => i === 0 || id > ids[i - 1])).toBe(true);
      });

      it('replays with Last-Event-ID only what was missed from the current and the previous run', async () => {
        const col = await newCollection(t.call, acme, 'conf', 'stream-replay');
        const append = (runId: string, custodian: string, n: number) =>
          events().append({
            accountId: acmeCreds.accountId,
            collectionId: col,
            runId,
            type: 'run.progress',
            data: progressData({ run_id: runId, custodian, listed: n, collected: n, bytes: n }),
          });
        const r1 = await runOf(col);
        const r1a = await append(r1, 'old', 1);
        await finish(r1);
        const r2 = await runOf(col);
        const r2a = await append(r2, 'prev-a', 1);
        const r2b = await append(r2, 'prev-b', 2);
        await finish(r2);
        const r3 = await runOf(col);
        const r3a = await append(r3, 'cur-a', 1);
        // Another collection's event between ours never shows.
        const other = await newCollection(t.call, acme, 'conf', 'stream-other');
        await events().append({
          accountId: acmeCreds.accountId,
          collectionId: other,
          runId: r3,
          type: 'run.started',
          data: { run_id: r3, collection_id: other },
        });
        const r3b = await append(r3, 'cur-b', 2);

        // Resuming after an event of the current run: only the rest of it.
        const resumed = await read(col, (s) => s.length === 1, String(r3a));
        expect(resumed.map((e) => Number(e.id))).toEqual([r3b]);
        // Resuming from far back: the previous run and the current one, never the run before.
        const back = await read(col, (s) => s.length === 4, String(r1a - 1));
        expect(back.map((e) => Number(e.id))).toEqual([r2a, r2b, r3a, r3b]);
        // A fresh connection: the current run so far.
        const fresh = await read(col, (s) => s.length === 2);
        expect(fresh.map((e) => Number(e.id))).toEqual([r3a, r3b]);
      });

      it('sends heartbeat comments, the stream headers and the correlation id', async () => {
        const col = await newCollection(t.call, acme, 'conf', 'stream-heartbeat');
        const abort = new AbortController();
        const res = await fetch(`${t.url}/v1/collections/${col}/events`, {
          headers: { authorization: `Bearer ${acme}` },
          signal: abort.signal,
        });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
        expect(res.headers.get('x-correlation-id')).toMatch(/\S/);
        const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
        let text = '';
        while (!text.includes(': heartbeat\n\n')) text += (await reader.read()).value ?? '';
        abort.abort();
        expect(text.startsWith(': heartbeat\n\n')).toBe(true);
      });

      it('answers HEAD with the stream headers and ends the response, honouring Connection: close', async () => {
        const col = await newCollection(t.call, acme, 'conf', 'stream-head');
        const head = `HEAD /v1/collections/${col}/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${acme}\r\n`;
        const closing = await rawExchange(t.url, [`${head}Connection: close\r\n\r\n`]);
        expect(closing.ended).toBe('closed');
        expect(closing.responses).toHaveLength(1);
        expect(closing.responses[0]).toMatchObject({
          status: 200,
          body: '',
          headers: { 'content-type': expect.stringMatching(/^text\/event-stream/), connection: 'close' },
        });
        // Kept alive, the connection answers the next request after it.
        const kept = await rawExchange(t.url, [
          `${head}\r\nGET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
        ]);
        expect(kept.responses.map((r) => r.status)).toEqual([200, 200]);
        expect(kept.ended).toBe('closed');
      });

      it('is authenticated and scoped to the account like every route', async () => {
        const col = await newCollection(t.call, acme, 'conf', 'stream-auth');
        expect((await t.call(null, 'GET', `/v1/collections/${col}/events`)).status).toBe(401);
        const foreign = await jsonOf(await t.call(globex, 'GET', `/v1/collections/${col}/events`), 404);
        expect(foreign.code).toBe('00404_not_found');
        const bad = await jsonOf(
          await t.call(acme, 'GET', `/v1/collections/${col}/events`, { headers: { 'last-event-id': 'yesterday' } }),
          400,
        );
        expect(bad.code).toBe('00400_bad_request');
        const err = await read('no-such-collection', () => true).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(CustodyApiError);
        expect((err as CustodyApiError).status).toBe(404);
      });
    });
  },
);
