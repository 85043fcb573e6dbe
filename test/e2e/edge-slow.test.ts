import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { errorShapeProblems, rawExchange } from '../support/raw-http.ts';

/**
 * Slow clients. The server's timeouts are set short here (they are Node's own and the body timer: no clock to
 * inject), and each exchange waits well past them: what is asserted is the answer and the close, not the time.
 */
describe('clients that trickle or stop sending', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startTestApp({
      workers: false,
      env: {
        HTTP_HEADERS_TIMEOUT_SECONDS: '0.5',
        HTTP_BODY_TIMEOUT_SECONDS: '0.5',
        HTTP_REQUEST_TIMEOUT_SECONDS: '1',
        HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: '0.5',
      },
    });
    token = await t.token('slow');
  });
  afterAll(() => t.close());

  const post = (extra: string) =>
    `POST /v1/workspaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n${extra}\r\n`;

  async function timedOut(parts: string[], gapMs = 0) {
    const ex = await rawExchange(t.url, parts, { waitMs: 8000, gapMs });
    expect(ex.responses[0]?.status).toBe(408);
    expect(errorShapeProblems(ex.responses[0])).toEqual([]);
    expect(ex.ended).not.toBe('open');
  }

  it('answers 408 and closes when the headers never finish', async () => {
    await timedOut(['GET /healthz HTTP/1.1\r\n', 'Host: x\r\n', 'X-Slow: 1\r\n']);
  });

  it('answers 408 and closes when headers trickle in, one line at a time', async () => {
    await timedOut(
      Array.from({ length: 40 }, (_, i) => (i === 0 ? 'GET /healthz HTTP/1.1\r\n' : `X-Trickle-${i}: y\r\n`)),
      100,
    );
  });

  it('answers 408 and closes when the body is shorter than its Content-Length', async () => {
    await timedOut([post('Content-Length: 100\r\n'), '{"name":']);
  });

  it('answers 408 and closes when the body trickles in', async () => {
    const body = JSON.stringify({ name: 'slow', description: 'x'.repeat(200) });
    await timedOut([post(`Content-Length: ${body.length}\r\n`), ...body.split('')], 50);
  });

  it('answers 408 and closes when a chunked body has no last chunk', async () => {
    await timedOut([post('Transfer-Encoding: chunked\r\n'), '5\r\n{"nam\r\n']);
  });

  it('closes a connection that never sends anything, and an idle keep-alive one', async () => {
    const silent = await rawExchange(t.url, [], { waitMs: 8000 });
    expect(silent.ended).not.toBe('open');
    const idle = await rawExchange(t.url, ['GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'], { waitMs: 8000 });
    expect(idle.responses[0]?.status).toBe(200);
    expect(idle.ended).not.toBe('open');
  });
});
