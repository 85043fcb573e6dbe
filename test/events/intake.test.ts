import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GraphSubscriptionRepo } from '../../src/store/graph-subscriptions.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';

const SECRET = 'zoom-event-secret-token-for-tests';

// Oracle straight from the reference (§1.4): "v0=" + hex HMAC-SHA256(secret, "v0:{ts}:{raw body}").
function signed(raw: string, tsSeconds: number, secret = SECRET) {
  const sig = `v0=${crypto.createHmac('sha256', secret).update(`v0:${tsSeconds}:${raw}`).digest('hex')}`;
  return { 'content-type': 'application/json; charset=utf-8', 'x-zm-request-timestamp': String(tsSeconds), 'x-zm-signature': sig };
}
const nowSeconds = () => Math.floor(Date.now() / 1000);

function recordingCompleted(downloadToken: string, uuid = 'mtg-uuid-1==') {
  return {
    event: 'recording.completed',
    event_ts: Date.now(),
    download_token: downloadToken,
    payload: {
      account_id: 'acct-1',
      object: { uuid, id: 812, host_id: 'user-a', host_email: 'a@example.com', recording_files: [{ id: 'f2' }, { id: 'f1', download_url: `https://zoom.us/rec/download/x?t=${downloadToken}` }] },
    },
  };
}

describe.each(testDatabases.map((d) => [d.name, d] as const))('webhook intake on %s', (_name, database) => {
  let t: TestApp;
  const zoom = (raw: string, headers: Record<string, string>) => fetch(`${t.url}/v1/webhooks/zoom`, { method: 'POST', headers, body: raw });
  const stored = () => t.runtime.ctx.db.selectFrom('provider_events').selectAll().orderBy('received_at').execute();

  beforeAll(async () => {
    t = await startTestApp({ database, workers: false, env: { ZOOM_WEBHOOK_SECRET_TOKEN: SECRET } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers the endpoint.url_validation challenge with the HMAC of plainToken', async () => {
    const raw = JSON.stringify({ event: 'endpoint.url_validation', event_ts: Date.now(), payload: { plainToken: 'qgg8vlvZRS6UYooatFL8Aw' } });
    const res = await zoom(raw, signed(raw, nowSeconds()));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      plainToken: 'qgg8vlvZRS6UYooatFL8Aw',
      encryptedToken: crypto.createHmac('sha256', SECRET).update('qgg8vlvZRS6UYooatFL8Aw').digest('hex'),
    });
  });

  it('refuses a bad signature, a wrong secret and a timestamp older than 90 minutes with 401, storing nothing', async () => {
    const raw = JSON.stringify(recordingCompleted('tok-0', 'refused=='));
    const good = signed(raw, nowSeconds());
    const cases = [
      { ...good, 'x-zm-signature': `v0=${'0'.repeat(64)}` },
      signed(raw, nowSeconds(), 'another-secret'),
      signed(raw, nowSeconds() - 91 * 60),
      { 'content-type': 'application/json' },
    ];
    for (const headers of cases) {
      const res = await zoom(raw, headers);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { code: string }).code).toBe('00401_unauthorized');
    }
    // the signature covers the raw bytes: the same JSON re-spaced is not what was signed
    const respaced = JSON.stringify(JSON.parse(raw), null, 1);
    expect((await zoom(respaced, good)).status).toBe(401);
    expect(await stored()).toHaveLength(0);
    // an 89-minute-old retry is still accepted
    expect((await zoom(raw, signed(raw, nowSeconds() - 89 * 60))).status).toBe(204);
    expect(await stored()).toHaveLength(1);
  });

  it('stores a repeated delivery once, without its download token, and acknowledges events it does not need', async () => {
    const first = JSON.stringify(recordingCompleted('tok-1', 'dup=='));
    const second = JSON.stringify(recordingCompleted('tok-2', 'dup=='));
    expect((await zoom(first, signed(first, nowSeconds()))).status).toBe(204);
    expect((await zoom(second, signed(second, nowSeconds()))).status).toBe(204);
    const rows = (await stored()).filter((r) => r.body.includes('dup=='));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.deliveries).toBe(2);
    expect(rows[0]!.route_key).toBe('acct-1');
    expect(JSON.parse(rows[0]!.body).download_token).toBeUndefined();
    const before = (await stored()).length;
    const other = JSON.stringify({ event: 'meeting.started', event_ts: Date.now(), payload: { account_id: 'acct-1', object: { id: 1 } } });
    expect((await zoom(other, signed(other, nowSeconds()))).status).toBe(204);
    expect(await stored()).toHaveLength(before);
  });

  it('answers 400 to an authentic body that is not JSON', async () => {
    const raw = 'not json';
    expect((await zoom(raw, signed(raw, nowSeconds()))).status).toBe(400);
  });

  it('echoes the Graph validation token as text/plain', async () => {
    const token = 'Validation: Token <with> & symbols';
    const res = await fetch(`${t.url}/v1/webhooks/microsoft?validationToken=${encodeURIComponent(token)}`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await res.text()).toBe(token);
  });

  it('keeps Graph notifications whose clientState matches and ignores the others', async () => {
    const subs = new GraphSubscriptionRepo(t.runtime.ctx.db);
    const row = await subs.ensure('wal_x', 'user-1', t.runtime.ctx.sealer.seal('the-client-state'), new Date().toISOString());
    await subs.update(row.id, { subscription_id: 'sub-1', expires_at: new Date(Date.now() + 3600_000).toISOString() }, new Date().toISOString());
    const note = (clientState: string, id: string, subscriptionId = 'sub-1') => ({
      subscriptionId, clientState, changeType: 'updated', resource: 'users/user-1/drive/root', tenantId: 'tid', id, resourceData: null,
    });
    const body = { value: [note('wrong', 'n1'), note('the-client-state', 'n2'), note('the-client-state', 'n3', 'unknown-sub'), note('the-client-state', 'n2')] };
    const res = await fetch(`${t.url}/v1/webhooks/microsoft`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status).toBe(202);
    const rows = (await stored()).filter((r) => r.provider === 'microsoft');
    expect(rows.map((r) => JSON.parse(r.body).id)).toEqual(['n2']);
    expect(rows[0]!.deliveries).toBe(2);
  });

  it('refuses a body over the webhook limit', async () => {
    const raw = JSON.stringify({ event: 'chat_message.sent', pad: 'x'.repeat(300 * 1024) });
    expect((await zoom(raw, signed(raw, nowSeconds()))).status).toBe(413);
  });
});
