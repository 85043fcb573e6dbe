import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEventStream, type StreamEvent } from '../../client/src/events.ts';
import { startMicrosoftSandbox, type MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import { readDat, unzip } from '../export/package-oracle.ts';
import { jsonOf, newCollection, pairFlow, startTestApp, type Json, type TestApp } from '../support/app.ts';
import { runCustody } from '../support/process.ts';
import { microsoftEnv } from '../support/sandbox-env.ts';

const CB = 'https://client.example/export-cli';
const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

/**
 * The export commands of the real `bin/custody` (child processes) against a running server, the export's events on
 * the collection's stream, and `export.finished` delivered to a subscribed webhook endpoint.
 */
describe('exports from the CLI, on the event stream and to webhooks', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-exports-cli-'));
  const configDir = path.join(dir, 'cli-config');
  let ms: MicrosoftSandbox;
  let t: TestApp;
  let token: string;
  let col: string;
  let hook: { url: string; got: Json[]; close(): Promise<void> };
  const cli = (args: string[]) => runCustody(args, { CUSTODY_CONFIG_DIR: configDir }, 60_000);
  const call = (method: string, p: string, body?: unknown) =>
    t.call(token, method, p, body === undefined ? {} : { json: body });

  beforeAll(async () => {
    ms = await startMicrosoftSandbox({
      seed: 11,
      users: 2,
      usersWithoutDrive: 0,
      folderDepth: 1,
      foldersPerLevel: 1,
      filesPerFolder: 2,
    });
    t = await startTestApp({
      env: {
        EVENT_STREAM_POLL_MS: '100',
        WEBHOOKS_ALLOW_PRIVATE: 'true',
        ...microsoftEnv(ms),
      },
    });
    const creds = await t.client('acme', [CB]);
    token = await t.token('acme', [CB]);
    col = await newCollection(t.call, token, 'edrive', 'CLI export');
    await pairFlow(t.call, token, col, { type: 'edrive', redirectTo: CB, state: 'x1', callbackOrigin: t.url });
    const drive = { all_selected: true, selected: [], excluded: [], filter_type: 'user_folders', filter_name: 'Drive' };
    const filters = Object.fromEntries(ms.tenant.users.map((u) => [u.id, drive]));
    expect((await call('PATCH', `/v1/collections/${col}`, { sync_filters: filters, type_sync: 'one' })).status).toBe(
      204,
    );
    expect((await call('POST', `/v1/collections/${col}/start`)).status).toBe(200);
    await t.waitForStatus(token, col, ['synced'], 30_000);

    const got: Json[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        got.push(JSON.parse(body));
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    hook = {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
      got,
      close: () => new Promise<void>((r) => server.close(() => r())),
    };
    await jsonOf(await call('POST', '/v1/webhook_endpoints', { url: hook.url, events: ['export.finished'] }), 201);

    const login = await cli([
      'login',
      '--url',
      t.url,
      '--client-id',
      creds.clientId,
      '--client-secret',
      creds.clientSecret,
    ]);
    expect(login.code, login.stderr).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await hook?.close();
    await t?.close();
    await ms?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The collection's event stream until `until` says stop (or 60 s). */
  async function streamUntil(
    until: (e: StreamEvent) => boolean,
  ): Promise<{ events: StreamEvent[]; done: Promise<void> }> {
    const events: StreamEvent[] = [];
    const abort = new AbortController();
    const res = await fetch(`${t.url}/v1/collections/${col}/events`, {
      headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    const timer = setTimeout(() => abort.abort(), 60_000);
    const done = (async () => {
      try {
        for await (const e of parseEventStream(res.body!)) {
          events.push(e);
          if (until(e)) break;
        }
      } catch (err) {
        if (!abort.signal.aborted) throw err;
      } finally {
        clearTimeout(timer);
        abort.abort();
      }
    })();
    return { events, done };
  }

  it('exports create --wait --output, exports list, exports download, keys export and verify (0, 1 on a changed byte, 2 without --keys); events and webhook', async () => {
    // The only export of this collection: its finish ends the stream (it may come before the CLI has exited).
    const stream = await streamUntil((e) => e.event === 'export.finished');

    const out = path.join(dir, 'package.zip');
    const created = await cli(['exports', 'create', col, '--wait', '--output', out, '--dedupe', 'global']);
    expect(created.code, created.stderr).toBe(0);
    const m = /^export (exp_\S+) succeeded: (\d+) documents, .* -> (.+)$/m.exec(created.stdout);
    expect(m, created.stdout).not.toBeNull();
    const exportId = m![1];
    expect(m![3]).toBe(out);
    const view = await jsonOf(await call('GET', `/v1/collections/${col}/exports/${exportId}`), 200);
    expect(view.status).toBe('succeeded');
    const pkg = fs.readFileSync(out);
    expect(sha256(pkg)).toBe(view.sha256);
    expect(Number(m![2])).toBe(view.counts.documents);

    const listed = await cli(['exports', 'list', col, '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ export_id: exportId, status: 'succeeded', sha256: view.sha256 }),
    ]);
    const table = await cli(['exports', 'list', col]);
    expect(table.stdout).toContain(exportId);

    const again = path.join(dir, 'again.zip');
    const downloaded = await cli(['exports', 'download', col, exportId, '--output', again]);
    expect(downloaded.code, downloaded.stderr).toBe(0);
    expect(fs.readFileSync(again).equals(pkg)).toBe(true);

    const keys = path.join(dir, 'keys.json');
    const exported = await cli(['keys', 'export', keys]);
    expect(exported.code, exported.stderr).toBe(0);
    const jwks = JSON.parse(fs.readFileSync(keys, 'utf8'));
    expect(jwks).toEqual(await (await fetch(`${t.url}/v1/signing-keys`)).json());
    expect(jwks.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', use: 'sig' });

    // The counts the verify line must print, from the package itself: every entry but the two manifest files, and the load file's rows.
    const files = await unzip(pkg);
    const documents = readDat(files.get('DATA/custody.dat')!).length;
    expect(documents).toBe(view.counts.documents);
    const ok = await cli(['verify', out, '--keys', keys]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toBe(`verified: ${files.size - 2} files, ${documents} documents\n`);

    // One byte of a native changed: its stored (uncompressed) bytes sit in the ZIP as they are.
    const native = [...files.entries()].find(([p, b]) => p.startsWith('NATIVES/') && b.length > 8)!;
    const at = pkg.indexOf(native[1]);
    expect(at).toBeGreaterThan(0);
    const bad = Buffer.from(pkg);
    bad[at + 1] = bad[at + 1] ^ 1;
    const badFile = path.join(dir, 'bad.zip');
    fs.writeFileSync(badFile, bad);
    const failed = await cli(['verify', badFile, '--keys', keys]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe('');
    expect(failed.stderr).toMatch(/^not verified: /);

    const noKeys = await cli(['verify', out]);
    expect(noKeys.code).toBe(2);
    expect(noKeys.stderr).toMatch(/--keys/);

    // The collection's event stream: progress up to every document, then the finish.
    await stream.done;
    const mine = stream.events.filter((e) => (e.data as Json)?.export_id === exportId);
    const progress = mine.filter((e) => e.event === 'export.progress').map((e) => e.data as Json);
    expect(progress.length).toBeGreaterThan(0);
    for (const p of progress)
      expect(Object.keys(p).sort()).toEqual(['bytes', 'documents_done', 'documents_total', 'export_id']);
    expect(progress.at(-1)).toMatchObject({
      documents_done: view.counts.documents,
      documents_total: view.counts.documents,
    });
    expect(mine.at(-1)).toMatchObject({ event: 'export.finished', data: { export_id: exportId, status: 'succeeded' } });

    // The webhook endpoint subscribed to export.finished gets it (the runtime's dispatcher polls every second).
    await expect.poll(() => hook.got.filter((b) => b.data?.export_id === exportId).length, { timeout: 20_000 }).toBe(1);
    expect(hook.got.find((b) => b.data?.export_id === exportId)).toMatchObject({
      type: 'export.finished',
      data: { export_id: exportId, status: 'succeeded' },
    });
    expect(hook.got.every((b) => b.type === 'export.finished')).toBe(true);
  }, 180_000);
});
