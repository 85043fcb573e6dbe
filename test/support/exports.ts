import crypto from 'node:crypto';
import { expect } from 'vitest';
import { jsonOf, type Json, type TestApp } from './app.ts';

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
