import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventRepo } from '../../src/store/events.ts';
import { createDispatcher } from '../../src/webhooks/dispatcher.ts';
import { createSender } from '../../src/webhooks/send.ts';
import { testDatabases } from '../support/databases.ts';
import { jsonOf, startTestApp, type Json, type TestApp } from '../support/app.ts';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A receiver that answers each request with the next status of `plan` (then 200) and keeps what it got. */
async function receiver() {
  const got: Received[] = [];
  let plan: number[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      res.writeHead(plan.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    got,
    answer: (statuses: number[]) => void (plan = statuses),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The receiver side of the contract, written from the issue: HMAC-SHA256 over "<t>.<raw body>", key = secret's UTF-8 bytes. */
function verify(secret: string, r: Received): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(r.headers['custody-signature']));
  if (!m) return false;
  const mac = crypto.createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${m[1]}.${r.body}`).digest('hex');
  return crypto.timingSafeEqual(Buffer.from(mac), Buffer.from(m[2]));
}

describe.each(testDatabases)('webhooks ($name)', (database) => {
  let app: TestApp;
  let token: string;
  let rx: Awaited<ReturnType<typeof receiver>>;
  let clock = Date.parse('2030-01-01T00:00:00Z');
  const dispatcher = (allowPrivate = true, policy?: { delaysMs: number[]; giveUpAfterMs: number }) =>
    createDispatcher({
      webhooks: app.runtime.ctx.repos.webhooks,
      events: new EventRepo(app.runtime.ctx.db),
      sealer: app.runtime.ctx.sealer,
      sender: createSender({ allowPrivate, timeoutMs: 5_000 }),
      log: pino({ level: 'silent' }),
      now: () => clock,
      settleMs: 0,
      policy,
    });
  const deliveries = async (id: string) =>
    (await jsonOf(await app.call(token, 'GET', `/v1/webhook_endpoints/${id}/deliveries`), 200)).items as Json[];
  const placeHold = async () => {
    const ws = (
      await jsonOf(await app.call(token, 'POST', '/v1/workspaces', { json: { name: 'Matter', description: '' } }), 201)
    ).onna_id as string;
    return {
      ws,
      hold: (
        await jsonOf(
          await app.call(token, 'POST', '/v1/legalhold/holds', { json: { name: 'Hold', workspace_id: ws } }),
          201,
        )
      ).onna_id as string,
    };
  };
  const register = async (events: string[]) =>
    jsonOf(await app.call(token, 'POST', '/v1/webhook_endpoints', { json: { url: rx.url, events } }), 201);

  beforeAll(async () => {
    app = await startTestApp({ database, workers: false, env: { WEBHOOKS_ALLOW_PRIVATE: 'true' } });
    token = await app.token('hooks');
    rx = await receiver();
  }, 60_000);
  afterAll(async () => {
    await rx?.close();
    await app?.close();
  });

  it('registers an endpoint: 201 with the secret once, ISO times, the secret sealed at rest; GET, list and DELETE', async () => {
    const created = await register(['hold.placed', 'run.finished']);
    expect(Object.keys(created).sort()).toEqual(['created', 'events', 'id', 'secret', 'url']);
    expect(created.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    const one = await jsonOf(await app.call(token, 'GET', `/v1/webhook_endpoints/${created.id}`), 200);
    expect(one).toEqual({
      id: created.id,
      url: rx.url,
      events: ['hold.placed', 'run.finished'],
      created: created.created,
    });
    const list = await jsonOf(await app.call(token, 'GET', '/v1/webhook_endpoints'), 200);
    expect(list.items).toContainEqual(one);
    const row = await app.runtime.ctx.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(created.secret);
    const other = await app.token('someone-else');
    expect((await app.call(other, 'GET', `/v1/webhook_endpoints/${created.id}`)).status).toBe(404);
    expect((await app.call(token, 'DELETE', `/v1/webhook_endpoints/${created.id}`)).status).toBe(204);
    expect((await app.call(token, 'GET', `/v1/webhook_endpoints/${created.id}`)).status).toBe(404);
    const bad = await app.call(token, 'POST', '/v1/webhook_endpoints', {
      json: { url: rx.url, events: ['run.progress'] },
    });
    expect(bad.status).toBe(400);
  });

  it('delivers hold.placed and hold.released signed, once per endpoint even with two dispatchers racing', async () => {
    const endpoint = await register(['hold.placed', 'hold.released']);
    const before = rx.got.length;
    const { ws, hold } = await placeHold();
    expect((await app.call(token, 'DELETE', `/v1/legalhold/holds/${hold}`)).status).toBeLessThan(300);
    const [a, b] = [dispatcher(), dispatcher()];
    await Promise.all([a.tick(), b.tick(), a.tick(), b.tick()]);
    await Promise.all([a.stop(), b.stop()]);
    // deliveries go out concurrently: no order between events is promised
    const mine = rx.got
      .slice(before)
      .filter((r) => JSON.parse(r.body).data.hold_id === hold)
      .sort((x, y) => Number(JSON.parse(x.body).id.slice(4)) - Number(JSON.parse(y.body).id.slice(4)));
    expect(mine.map((r) => JSON.parse(r.body).type)).toEqual(['hold.placed', 'hold.released']);
    for (const r of mine) expect(verify(endpoint.secret, r)).toBe(true);
    expect(verify('another-secret', mine[0])).toBe(false);
    const placed = JSON.parse(mine[0].body);
    expect(Object.keys(placed).sort()).toEqual(['created', 'data', 'id', 'type']);
    expect(placed.data).toEqual({ hold_id: hold, collection_ids: [], workspace_id: ws });
    expect(mine[0].headers['content-type']).toBe('application/json');
    expect((await deliveries(endpoint.id)).map((d) => [d.type, d.status, d.attempts, d.last_status_code])).toEqual([
      ['hold.placed', 'succeeded', 1, 200],
      ['hold.released', 'succeeded', 1, 200],
    ]);
    await app.call(token, 'DELETE', `/v1/webhook_endpoints/${endpoint.id}`);
  });

  it('retries a failing receiver with backoff on the injected clock, records every attempt, and gives up in bounded time', async () => {
    const endpoint = await register(['hold.placed']);
    const d = dispatcher(true, { delaysMs: [10_000, 30_000], giveUpAfterMs: 100_000 });
    rx.answer([500, 503]);
    const before = rx.got.length;
    await placeHold();
    await d.tick();
    expect(rx.got.length - before, JSON.stringify(rx.got.slice(before).map((r) => r.body))).toBe(1);
    await d.tick(); // not due yet
    expect(rx.got.length - before).toBe(1);
    let [first] = await deliveries(endpoint.id);
    expect(first).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_status_code: 500,
      next_attempt: new Date(clock + 10_000).toISOString(),
    });
    clock += 10_000;
    await d.tick();
    clock += 30_000;
    await d.tick();
    expect(rx.got.length - before).toBe(3);
    const bodies = new Set(rx.got.slice(before).map((r) => r.body));
    expect(bodies.size).toBe(1); // the same event, the same id, on every attempt
    [first] = await deliveries(endpoint.id);
    expect(first).toMatchObject({ status: 'succeeded', attempts: 3, last_status_code: 200, next_attempt: null });

    // a receiver that never recovers: failed once the next attempt would start after giveUpAfterMs
    rx.answer(Array(20).fill(500));
    await placeHold();
    for (let i = 0; i < 6; i++) {
      await d.tick();
      clock += 30_000;
    }
    const [, second] = await deliveries(endpoint.id);
    expect(second).toMatchObject({ status: 'failed', last_status_code: 500 });
    expect(second.attempts).toBeLessThanOrEqual(4);
    rx.answer([]);
    await d.stop();
    await app.call(token, 'DELETE', `/v1/webhook_endpoints/${endpoint.id}`);
  });

  it('refuses loopback, private and link-local targets at registration and again at delivery unless allowed', async () => {
    const strict = await startTestApp({ database, workers: false });
    try {
      const t = await strict.token('strict');
      for (const url of [
        rx.url,
        'http://localhost:9/x',
        'http://10.0.0.8/x',
        'http://169.254.169.254/latest',
        'http://[::1]:8080/',
        'ftp://example.com/x',
        'https://user:pw@example.com/',
      ]) {
        const res = await strict.call(t, 'POST', '/v1/webhook_endpoints', { json: { url, events: ['hold.placed'] } });
        expect(res.status, url).toBe(400);
        expect(((await res.json()) as Json).source).toEqual({ pointer: '/body/url' });
      }
    } finally {
      await strict.close();
    }
    // registered while allowed, delivered by a dispatcher that is not: refused, recorded, nothing sent
    const endpoint = await register(['hold.placed']);
    const before = rx.got.length;
    await placeHold();
    const d = dispatcher(false);
    await d.tick();
    await d.stop();
    expect(rx.got.length).toBe(before);
    const [attempt] = await deliveries(endpoint.id);
    expect(attempt).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_status_code: null,
      last_error: expect.stringMatching(/private/),
    });
  });
});
