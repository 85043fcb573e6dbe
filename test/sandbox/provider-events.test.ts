import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMicrosoftSandbox, type MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import { consentAndGetAppToken } from '../../sandbox/microsoft/testing.ts';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';

/** A receiver whose answers the test decides; it records every request with its raw body. */
async function receiver(
  answer: (req: http.IncomingMessage, body: string) => { status: number; body?: string; type?: string },
) {
  const seen: Array<{ url: string; headers: http.IncomingHttpHeaders; body: string }> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen.push({ url: req.url ?? '', headers: req.headers, body });
      const a = answer(req, body);
      res.writeHead(a.status, { 'content-type': a.type ?? 'application/json' }).end(a.body ?? '');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    seen,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('Zoom sandbox webhook delivery (reference §1.3–§1.5)', () => {
  let zoom: ZoomSandbox;
  let now = Date.parse('2026-05-01T12:00:00Z');
  beforeAll(async () => {
    zoom = await startZoomSandbox({ seed: 3, users: 3, meetingsPerUser: 1, now: () => new Date(now) });
  });
  afterAll(async () => zoom?.close());

  it('signs every request, validates the endpoint, and retries a failed delivery at +5, +25 and +85 minutes', async () => {
    const secret = 'sandbox-secret';
    let failing = true;
    const r = await receiver((req, body) => {
      const parsed = JSON.parse(body) as { event: string; payload: { plainToken?: string } };
      if (parsed.event === 'endpoint.url_validation') {
        const token = parsed.payload.plainToken!;
        return {
          status: 200,
          body: JSON.stringify({
            plainToken: token,
            encryptedToken: crypto.createHmac('sha256', secret).update(token).digest('hex'),
          }),
        };
      }
      return { status: failing ? 500 : 204 };
    });
    try {
      expect(await zoom.webhooks.subscribe({ url: r.url, secretToken: secret })).toBe(true);
      const owner = zoom.tenant.users[0];
      await zoom.webhooks.addChatMessage({ from: owner.id, to: zoom.tenant.users[1].id, text: 'hello' });
      for (const s of r.seen) {
        const ts = s.headers['x-zm-request-timestamp'] as string;
        expect(s.headers['x-zm-signature']).toBe(
          `v0=${crypto.createHmac('sha256', secret).update(`v0:${ts}:${s.body}`).digest('hex')}`,
        );
        expect(s.headers['user-agent']).toBe('Zoom Marketplace/1.0a');
      }
      const sent = JSON.parse(r.seen.at(-1)!.body);
      expect(sent).toMatchObject({
        event: 'chat_message.sent',
        payload: {
          account_id: zoom.tenant.accountId,
          operator_id: owner.id,
          object: { type: 'to_contact', message: 'hello' },
        },
      });
      const attempts = () => zoom.webhooks.attempts.filter((a) => a.event === 'chat_message.sent').length;
      expect(attempts()).toBe(1);
      now += 4 * 60_000;
      await zoom.webhooks.deliverDue();
      expect(attempts()).toBe(1);
      now += 60_000; // +5 min
      await zoom.webhooks.deliverDue();
      expect(attempts()).toBe(2);
      now += 20 * 60_000; // +25 min
      await zoom.webhooks.deliverDue();
      expect(attempts()).toBe(3);
      failing = false;
      now += 60 * 60_000; // +85 min, with the first attempt's timestamp
      await zoom.webhooks.deliverDue();
      expect(attempts()).toBe(4);
      const all = zoom.webhooks.attempts.filter((a) => a.event === 'chat_message.sent');
      expect(new Set(all.map((a) => a.timestamp)).size).toBe(1);
      expect(all.at(-1)!.status).toBe(204);
      now += 24 * 60 * 60_000;
      await zoom.webhooks.deliverDue();
      expect(attempts()).toBe(4);
    } finally {
      await r.close();
    }
  });
});

describe('Graph sandbox subscriptions (reference §2.2–§2.5)', () => {
  let ms: MicrosoftSandbox;
  let token: string;
  beforeAll(async () => {
    ms = await startMicrosoftSandbox({ seed: 4, users: 2, usersWithoutDrive: 0, folderDepth: 1, filesPerFolder: 1 });
    token = await consentAndGetAppToken(ms);
  });
  afterAll(async () => ms?.close());
  const create = (body: Record<string, unknown>) =>
    fetch(`${ms.graphUrl}/subscriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('validates the endpoint before 201, refuses non-root resources, other change types and too long expiries', async () => {
    const user = ms.tenant.users[0].id;
    const r = await receiver((req, _body) => {
      const token = new URL(req.url!, 'http://x').searchParams.get('validationToken');
      return token !== null ? { status: 200, body: token, type: 'text/plain' } : { status: 202 };
    });
    const bad = await receiver(() => ({ status: 200, body: 'not the token', type: 'text/plain' }));
    try {
      const in10days = new Date(Date.now() + 10 * 24 * 3600_000).toISOString();
      const base = {
        changeType: 'updated',
        notificationUrl: r.url,
        resource: `/users/${user}/drive/root`,
        expirationDateTime: in10days,
        clientState: 'cs',
      };
      expect((await create({ ...base, resource: `/users/${user}/drive/items/abc` })).status).toBe(400);
      expect((await create({ ...base, changeType: 'created' })).status).toBe(400);
      const tooLong = await create({
        ...base,
        expirationDateTime: new Date(Date.now() + 42_301 * 60_000).toISOString(),
      });
      expect(tooLong.status).toBe(400);
      expect(((await tooLong.json()) as { error: { code: string } }).error.code).toBe('ExtensionError');
      expect((await create({ ...base, notificationUrl: bad.url })).status).toBe(400);
      expect(r.seen).toHaveLength(0);
      const ok = await create(base);
      expect(ok.status).toBe(201);
      expect(r.seen).toHaveLength(1);
      expect(r.seen[0].headers['content-type']).toMatch(/^text\/plain/);
      const sub = (await ok.json()) as { id: string };
      ms.mutate.addFile(user, ms.listItems(user)[0].id, 'x.txt');
      for (let i = 0; i < 50 && r.seen.length < 2; i++) await new Promise((res) => setTimeout(res, 20));
      const note = JSON.parse(r.seen[1].body) as { value: Array<Record<string, unknown>> };
      expect(note.value[0]).toMatchObject({
        subscriptionId: sub.id,
        clientState: 'cs',
        changeType: 'updated',
        resourceData: null,
        tenantId: ms.tenantId,
      });
      const patch = (id: string) =>
        fetch(`${ms.graphUrl}/subscriptions/${id}`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ expirationDateTime: in10days }),
        });
      expect((await patch(sub.id)).status).toBe(200);
      ms.subscriptions.lose(sub.id);
      expect((await patch(sub.id)).status).toBe(404);
    } finally {
      await r.close();
      await bad.close();
    }
  });
});
