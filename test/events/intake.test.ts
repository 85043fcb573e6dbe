import crypto from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BODY_LIMITS } from '../../src/http/body-limits.ts';
import { GraphSubscriptionRepo } from '../../src/store/graph-subscriptions.ts';
import { createEventDispatcher } from '../../src/sync/events/provider-events.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';

const SECRET = 'zoom-event-secret-token-for-tests';

// Oracle straight from the reference (§1.4): "v0=" + hex HMAC-SHA256(secret, "v0:{ts}:{raw body}").
function signed(raw: string, tsSeconds: number, secret = SECRET) {
  const sig = `v0=${crypto.createHmac('sha256', secret).update(`v0:${tsSeconds}:${raw}`).digest('hex')}`;
  return {
    'content-type': 'application/json; charset=utf-8',
    'x-zm-request-timestamp': String(tsSeconds),
    'x-zm-signature': sig,
  };
}
const nowSeconds = () => Math.floor(Date.now() / 1000);

function recordingCompleted(downloadToken: string, uuid = 'mtg-uuid-1==') {
  return {
    event: 'recording.completed',
    event_ts: Date.now(),
    download_token: downloadToken,
    payload: {
      account_id: 'acct-1',
      object: {
        uuid,
        id: 812,
        host_id: 'user-a',
        host_email: 'a@example.com',
        recording_files: [
          { id: 'f2' },
          { id: 'f1', download_url: `https://zoom.us/rec/download/x?t=${downloadToken}` },
        ],
      },
    },
  };
}

/** A recording.completed as Zoom sends it for a long meeting: every file of every recording segment, each with its own download_url. */
function bigRecordingCompleted(files: number) {
  const uuid = 'big-mtg-uuid==';
  const recording_files = Array.from({ length: files }, (_, i) => ({
    id: crypto.createHash('sha256').update(`file-${i}`).digest('hex').slice(0, 36),
    meeting_id: uuid,
    recording_start: '2026-01-01T09:00:03Z',
    recording_end: '2026-01-01T09:42:10Z',
    file_type: 'MP4',
    file_extension: 'MP4',
    file_size: 73000000,
    play_url: `https://zoom.us/rec/play/${crypto.randomBytes(48).toString('base64url')}`,
    download_url: `https://zoom.us/rec/webhook_download/${crypto.randomBytes(48).toString('base64url')}/${crypto.randomBytes(24).toString('base64url')}`,
    status: 'completed',
    recording_type: 'shared_screen_with_speaker_view',
  }));
  return {
    event: 'recording.completed',
    event_ts: Date.now(),
    download_token: `eyJ${crypto.randomBytes(400).toString('base64url')}`,
    payload: {
      account_id: 'acct-1',
      object: {
        uuid,
        id: 81234567890,
        host_id: 'user-a',
        host_email: 'a@example.com',
        topic: 'All hands',
        recording_count: files,
        recording_files,
      },
    },
  };
}

describe.each(testDatabases.map((d) => [d.name, d] as const))('webhook intake on %s', (_name, database) => {
  let t: TestApp;
  const zoom = (raw: string, headers: Record<string, string>) =>
    fetch(`${t.url}/v1/webhooks/zoom`, { method: 'POST', headers, body: raw });
  const graph = (body: unknown) =>
    fetch(`${t.url}/v1/webhooks/microsoft`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const stored = () => t.runtime.ctx.db.selectFrom('provider_events').selectAll().orderBy('received_at').execute();
  const subscribe = async (subscriptionId: string, userId: string, clientState: string) => {
    const subs = new GraphSubscriptionRepo(t.runtime.ctx.db);
    const row = await subs.ensure('wal_x', userId, t.runtime.ctx.sealer.seal(clientState), new Date().toISOString());
    await subs.update(
      row.id,
      { subscription_id: subscriptionId, expires_at: new Date(Date.now() + 3600_000).toISOString() },
      new Date().toISOString(),
    );
  };

  beforeAll(async () => {
    t = await startTestApp({ database, workers: false, env: { ZOOM_WEBHOOK_SECRET_TOKEN: SECRET } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers the endpoint.url_validation challenge with the HMAC of plainToken', async () => {
    const raw = JSON.stringify({
      event: 'endpoint.url_validation',
      event_ts: Date.now(),
      payload: { plainToken: 'qgg8vlvZRS6UYooatFL8Aw' },
    });
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
    expect(rows[0].deliveries).toBe(2);
    expect(rows[0].route_key).toBe('acct-1');
    expect(JSON.parse(rows[0].body).download_token).toBeUndefined();
    const before = (await stored()).length;
    const other = JSON.stringify({
      event: 'meeting.started',
      event_ts: Date.now(),
      payload: { account_id: 'acct-1', object: { id: 1 } },
    });
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
    const row = await subs.ensure(
      'wal_x',
      'user-1',
      t.runtime.ctx.sealer.seal('the-client-state'),
      new Date().toISOString(),
    );
    await subs.update(
      row.id,
      { subscription_id: 'sub-1', expires_at: new Date(Date.now() + 3600_000).toISOString() },
      new Date().toISOString(),
    );
    const note = (clientState: string, id: string, subscriptionId = 'sub-1') => ({
      subscriptionId,
      clientState,
      changeType: 'updated',
      resource: 'users/user-1/drive/root',
      tenantId: 'tid',
      id,
      resourceData: null,
    });
    const body = {
      value: [
        note('wrong', 'n1'),
        note('the-client-state', 'n2'),
        note('the-client-state', 'n3', 'unknown-sub'),
        note('the-client-state', 'n2'),
      ],
    };
    const res = await fetch(`${t.url}/v1/webhooks/microsoft`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(202);
    const rows = (await stored()).filter((r) => r.provider === 'microsoft');
    expect(rows.map((r) => JSON.parse(r.body).id)).toEqual(['n2']);
    expect(rows[0].deliveries).toBe(2);
  });

  it('accepts a recording.completed listing 800 recording files', async () => {
    const raw = JSON.stringify(bigRecordingCompleted(800));
    expect(raw.length).toBeGreaterThan(256 * 1024);
    expect((await zoom(raw, signed(raw, nowSeconds()))).status).toBe(204);
    const row = (await stored()).find((r) => r.body.includes('big-mtg-uuid=='));
    expect(JSON.parse(row!.body).payload.object.recording_files).toHaveLength(800);
  });

  it('takes a body up to its route limit in BODY_LIMITS and refuses one byte more with 413, on both intake routes', async () => {
    const zoomLimit = BODY_LIMITS['POST /v1/webhooks/zoom'];
    const event = JSON.stringify({
      event: 'meeting.started',
      event_ts: Date.now(),
      payload: { account_id: 'acct-1', object: { id: 1 } },
    });
    const atLimit = event.padEnd(zoomLimit, ' '); // JSON may end in whitespace, and the signature covers it
    expect((await zoom(atLimit, signed(atLimit, nowSeconds()))).status).toBe(204);
    const over = `${atLimit} `;
    expect((await zoom(over, signed(over, nowSeconds()))).status).toBe(413);

    const graphLimit = BODY_LIMITS['POST /v1/webhooks/microsoft'];
    const batch = JSON.stringify({ value: [] }).padEnd(graphLimit, ' ');
    expect((await graph(batch)).status).toBe(202);
    const res = await graph(`${batch} `);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { code: string }).code).toMatch(/^00413/);
  });

  it('acknowledges a signed Zoom event whose ids hold text no database can store, keeps it as evidence and routes it nowhere', async () => {
    const nul = recordingCompleted('tok-nul', 'nul-account==');
    nul.payload.account_id = 'acct\u0000x';
    const surrogate = recordingCompleted('tok-sur', 'lone-surrogate-host==');
    surrogate.payload.object.host_id = 'user\ud800';
    surrogate.payload.object.host_email = 'a\udfff@example.com';
    for (const event of [nul, surrogate]) {
      const raw = JSON.stringify(event);
      expect((await zoom(raw, signed(raw, nowSeconds()))).status).toBe(204);
    }
    const rows = await stored();
    const rowOf = (uuid: string) => rows.find((r) => r.body.includes(uuid))!;
    const [nulRow, surrogateRow] = [rowOf('nul-account=='), rowOf('lone-surrogate-host==')];
    expect([nulRow.route_key, surrogateRow.route_key]).toEqual(['', 'acct-1']);
    expect(JSON.parse(nulRow.body).payload.account_id).toBe('acct\u0000x');
    // the workers' routing reads the same facts: neither id reaches a query there either
    const { ctx } = t.runtime;
    await createEventDispatcher({
      db: ctx.db,
      connectors: ctx.connectors,
      sealer: ctx.sealer,
      log: pino({ level: 'silent' }),
      clock: () => new Date(),
      coalesceMs: 1000,
      work: { queue: async () => 'dropped' },
    }).route();
    const outcome = (id: string) =>
      ctx.db.selectFrom('provider_events').select(['status', 'outcome']).where('id', '=', id).executeTakeFirst();
    expect(await outcome(nulRow.id)).toEqual({ status: 'done', outcome: 'the event names no account' });
    expect(await outcome(surrogateRow.id)).toEqual({ status: 'done', outcome: 'the event names no user' });
  });

  it('ignores Graph notifications whose ids hold text no database can store, keeping the others of the batch', async () => {
    await subscribe('sub-text', 'user-text', 'text-client-state');
    const note = (subscriptionId: string, id: string) => ({
      subscriptionId,
      clientState: 'text-client-state',
      changeType: 'updated',
      resource: 'r',
      id,
      resourceData: null,
    });
    const body = {
      value: [note('\u0000', 't1'), note('sub-\udc00', 't2'), note('sub-text', 'nul\u0000id'), note('sub-text', 't4')],
    };
    expect((await graph(body)).status).toBe(202);
    expect((await graph('{"value":[{"subscriptionId":"\\u0000","clientState":"x","resource":"r"}]}')).status).toBe(202);
    const rows = (await stored()).filter((r) => r.route_key === 'sub-text');
    expect(rows.map((r) => JSON.parse(r.body).id).sort()).toEqual(['nul\u0000id', 't4']);
  });

  it('looks a Graph batch up with one query, however many notifications and subscriptions it names', async () => {
    await subscribe('sub-a', 'user-a', 'state-a');
    await subscribe('sub-b', 'user-b', 'state-b');
    const value = Array.from({ length: 600 }, (_, i) => {
      const sub = i % 3 === 0 ? 'sub-a' : i % 3 === 1 ? 'sub-b' : `unknown-${i}`;
      return {
        subscriptionId: sub,
        clientState: sub === 'sub-b' ? 'state-b' : sub === 'sub-a' ? 'state-a' : 'x',
        resource: 'r',
        id: `batch-${i}`,
      };
    });
    const selects = vi.spyOn(t.runtime.ctx.db, 'selectFrom');
    try {
      expect((await graph({ value })).status).toBe(202);
      expect(
        selects.mock.calls.filter(([table]) => String(table as string).startsWith('graph_subscriptions')),
      ).toHaveLength(1);
    } finally {
      selects.mockRestore();
    }
    const rows = (await stored()).filter((r) => r.route_key === 'sub-a' || r.route_key === 'sub-b');
    expect(rows).toHaveLength(400);
  });
});
