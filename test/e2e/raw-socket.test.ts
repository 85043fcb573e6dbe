import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

/** What the server writes back for raw bytes on one connection, until it closes it (bounded). */
function exchange(url: string, payload: string, waitMs = 1500): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(payload));
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString('latin1')));
    const done = () => resolve(data);
    socket.on('close', done);
    socket.on('error', done);
    setTimeout(() => socket.destroy(), waitMs).unref();
  });
}

describe('requests the HTTP parser refuses', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('answers garbage with a 400 in the one error shape', async () => {
    const raw = await exchange(t.url, 'THIS IS NOT HTTP\r\n\r\n');
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    const [head, body] = raw.split('\r\n\r\n');
    const id = /x-correlation-id: (\S+)/i.exec(head!)?.[1];
    expect(JSON.parse(body!)).toMatchObject({ code: '00400_bad_request', id, source: null });
  });

  it('never writes an error into a response already under way on the same connection', async () => {
    const raw = await exchange(t.url, `GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGARBAGE GARBAGE\r\n\r\n`);
    expect(raw.match(/HTTP\/1\.1 \d{3}/g)?.length ?? 0).toBeLessThanOrEqual(1);
    expect(raw).not.toMatch(/HTTP\/1\.1 400/);
  });
});
