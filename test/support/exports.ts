import crypto from 'node:crypto';
import { expect } from 'vitest';
import { jsonOf, newCollection, pairFlow, type Json, type TestApp } from './app.ts';

export const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

/** Queues an export, waits until it ends, checks it succeeded and downloads its package (checking its ETag). */
export async function exportOf(
  t: TestApp,
  token: string,
  col: string,
  body: Json,
): Promise<{ exportId: string; view: Json; bytes: Buffer }> {
  const call = (method: string, p: string, json?: unknown) =>
    t.call(token, method, p, json === undefined ? {} : { json });
  const res = await call('POST', `/v1/collections/${col}/exports`, body);
  expect(res.status).toBe(202);
  const created = await jsonOf(res);
  expect(res.headers.get('location')).toBe(`/v1/collections/${col}/exports/${created.export_id}`);
  let view: Json = created;
  for (let i = 0; i < 600 && ['queued', 'running'].includes(view.status); i++) {
    await new Promise((r) => setTimeout(r, 100));
    view = await jsonOf(await call('GET', `/v1/collections/${col}/exports/${created.export_id}`), 200);
  }
  expect(view, JSON.stringify(view)).toMatchObject({ status: 'succeeded', error: null });
  const dl = await call('GET', `/v1/collections/${col}/exports/${created.export_id}/download`);
  expect(dl.status).toBe(200);
  expect(dl.headers.get('content-type')).toBe('application/zip');
  const bytes = Buffer.from(await dl.arrayBuffer());
  expect(dl.headers.get('etag')).toBe(`"${sha256(bytes)}"`);
  expect(view.sha256).toBe(sha256(bytes));
  expect(view.bytes).toBe(bytes.length);
  return { exportId: created.export_id, view, bytes };
}

/** The app's settings for a Zoom sandbox. */
export const zoomEnv = (zoom: { clientId: string; clientSecret: string; oauthUrl: string; apiUrl: string }) => ({
  ZOOM_CLIENT_ID: zoom.clientId,
  ZOOM_CLIENT_SECRET: zoom.clientSecret,
  ZOOM_OAUTH_URL: zoom.oauthUrl,
  ZOOM_API_URL: zoom.apiUrl,
});

/** A conf collection paired, selecting every owner, content type and chat, synced once. */
export async function syncedConf(t: TestApp, token: string, redirectTo: string, name: string): Promise<string> {
  const conf = await newCollection(t.call, token, 'conf', name);
  await pairFlow(t.call, token, conf, { type: 'conf', redirectTo, state: 'c1', callbackOrigin: t.url });
  const all = { all_selected: true, selected: [], excluded: [] };
  const patch = await t.call(token, 'PATCH', `/v1/collections/${conf}`, {
    json: { sync_filters: { account_owners: all, content_selections: all, chats: all }, type_sync: 'auto' },
  });
  expect(patch.status).toBe(204);
  expect((await t.call(token, 'POST', `/v1/collections/${conf}/start`)).status).toBe(200);
  await t.waitForStatus(token, conf, ['synced'], 60_000);
  return conf;
}
