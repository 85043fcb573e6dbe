import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startZoomSandbox, type ZoomMeeting, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import { apiGet, json, pairWithSandbox } from '../../sandbox/zoom/testing.ts';

const START = Date.parse('2025-03-15T12:00:00Z');
let clock = START;
let sb: ZoomSandbox;
let token: string;

beforeAll(async () => {
  sb = await startZoomSandbox({ seed: 42, users: 8, meetingsPerUser: 6, now: () => new Date(clock) });
  token = (await pairWithSandbox(sb)).access_token;
});
afterAll(async () => {
  await sb.close();
});

async function get(path: string): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await apiGet(sb, token, path);
  return { status: res.status, body: await json(res), headers: res.headers };
}

/** Follows next_page_token to the end, replaying the same query, as Zoom requires. */
async function collect(path: string, key: string): Promise<{ items: any[]; pages: number }> {
  const items: any[] = [];
  let next = '';
  let pages = 0;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const { status, body } = await get(next ? `${path}${sep}next_page_token=${encodeURIComponent(next)}` : path);
    expect(status).toBe(200);
    items.push(...body[key]);
    next = body.next_page_token;
    expect(typeof next).toBe('string');
    pages += 1;
  } while (next !== '' && pages < 100);
  return { items, pages };
}

describe('zoom sandbox: users', () => {
  it('lists active users by default, pages with tokens, and ends with ""', async () => {
    const active = sb.tenant.users.filter((u) => u.status === 'active');
    const { items, pages } = await collect('/users?page_size=2', 'users');
    expect(items.map((u) => u.id)).toEqual(active.map((u) => u.id));
    expect(pages).toBe(Math.ceil(active.length / 2));
    const inactive = await get('/users?status=inactive');
    const pending = await get('/users?status=pending');
    expect(inactive.body.users.map((u: any) => u.status)).toEqual(['inactive']);
    expect(pending.body.users.map((u: any) => u.status)).toEqual(['pending']);
    expect(inactive.body.next_page_token).toBe('');
  });

  it('refuses a page token replayed with other parameters, after 15 minutes, or under the expiry switch', async () => {
    const first = await get('/users?page_size=1');
    const token1 = first.body.next_page_token;
    const other = await get(`/users?status=inactive&page_size=1&next_page_token=${token1}`);
    expect(other.status).toBe(400);
    expect(other.body).toEqual({ code: 300, message: 'The next page token is either invalid or has expired.' });
    sb.faults.expirePageTokens = true;
    expect((await get(`/users?page_size=1&next_page_token=${token1}`)).status).toBe(400);
    sb.faults.expirePageTokens = false;
    expect((await get(`/users?page_size=1&next_page_token=${token1}`)).status).toBe(200);
    clock += 15 * 60_000;
    expect((await get(`/users?page_size=1&next_page_token=${token1}`)).body.code).toBe(300);
    clock = START;
  });

  it('resolves me, ids and emails; unknown users are 404 code 1001', async () => {
    const owner = sb.tenant.owner;
    expect((await get('/users/me')).body.id).toBe(owner.id);
    expect((await get(`/users/${encodeURIComponent(owner.email)}`)).body.id).toBe(owner.id);
    const missing = await get('/users/nobody123');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe(1001);
  });
});

describe('zoom sandbox: recordings', () => {
  const host = () => sb.tenant.users[0];

  it('answers for today only when from/to are omitted', async () => {
    const { body } = await get(`/users/${host().id}/recordings`);
    expect(body.from).toBe('2025-03-15');
    expect(body.to).toBe('2025-03-16');
    const today = sb.tenant.meetingsOf(host().id).filter((m) => m.start_time.startsWith('2025-03-15'));
    expect(today.length).toBeGreaterThan(0);
    expect(body.meetings.map((m: any) => m.uuid)).toEqual(today.map((m) => m.uuid));
  });

  it('silently narrows a range over one month to the month before `to`', async () => {
    const { status, body } = await get(`/users/${host().id}/recordings?from=2024-09-01&to=2025-03-15`);
    expect(status).toBe(200);
    expect(body.from).toBe('2025-02-15');
    const expected = sb.tenant
      .meetingsOf(host().id)
      .filter((m) => m.start_time.slice(0, 10) >= '2025-02-15' && m.start_time.slice(0, 10) <= '2025-03-15');
    expect(body.meetings.map((m: any) => m.uuid).sort()).toEqual(expected.map((m) => m.uuid).sort());
    expect(body.total_records).toBe(expected.length);
  });

  it('finds every meeting by walking one-month windows, page_size counting meetings', async () => {
    const found: string[] = [];
    for (let end = START; end > START - 160 * 86_400_000; end -= 30 * 86_400_000) {
      const to = new Date(end).toISOString().slice(0, 10);
      const from = new Date(end - 29 * 86_400_000).toISOString().slice(0, 10);
      const { items } = await collect(`/users/${host().id}/recordings?from=${from}&to=${to}&page_size=1`, 'meetings');
      for (const m of items) {
        expect(m.recording_files.length).toBe(sb.tenant.meetingByUuid(m.uuid)!.recording_files.length);
        found.push(m.uuid);
      }
    }
    expect(new Set(found)).toEqual(new Set(sb.tenant.meetingsOf(host().id).map((m) => m.uuid)));
  });

  it('needs double encoding for UUIDs that start with / or contain //', async () => {
    const leading = sb.tenant.meetings.find((m) => m.uuid.startsWith('/'))!;
    const doubled = sb.tenant.meetings.find((m) => m.uuid.includes('//'))!;
    const lone = sb.tenant.meetings.find((m) => /^[^/]+\/[^/]+$/.test(m.uuid))!;
    const plus = sb.tenant.meetings.find((m) => m.uuid.includes('+') && !m.uuid.includes('/'))!;
    for (const m of [leading, doubled]) {
      expect((await get(`/meetings/${encodeURIComponent(m.uuid)}/recordings`)).status).toBe(404);
      const ok = await get(`/meetings/${encodeURIComponent(encodeURIComponent(m.uuid))}/recordings`);
      expect(ok.status).toBe(200);
      expect(ok.body.uuid).toBe(m.uuid);
    }
    expect((await get(`/meetings/${encodeURIComponent(lone.uuid)}/recordings`)).body.uuid).toBe(lone.uuid);
    expect((await get(`/meetings/${encodeURIComponent(plus.uuid)}/recordings`)).body.uuid).toBe(plus.uuid);
  });

  it('resolves a numeric meeting id to the latest instance of a recurring meeting', async () => {
    const recurring = sb.tenant.meetings.filter((m) => m.type === 8 && m.host_id === host().id);
    const ids = new Set(recurring.map((m) => m.id));
    expect(ids.size).toBe(1);
    const latest = recurring.reduce((a, b) => (a.start_time > b.start_time ? a : b));
    expect((await get(`/meetings/${latest.id}/recordings`)).body.uuid).toBe(latest.uuid);
  });

  it('serves CC and TIMELINE entries without id, file_size and recording_type', async () => {
    const withCc = sb.tenant.meetings.find((m) => m.recording_files.some((f) => f.file_type === 'CC'))!;
    const { body } = await get(`/meetings/${encodeURIComponent(encodeURIComponent(withCc.uuid))}/recordings`);
    const cc = body.recording_files.find((f: any) => f.file_type === 'CC');
    expect(cc.id).toBeUndefined();
    expect(cc.file_size).toBeUndefined();
    expect(cc.download_url).toMatch(/\/rec\/download\//);
    const mp4 = body.recording_files.find((f: any) => f.file_type === 'MP4');
    expect(mp4).toMatchObject({ status: 'completed', file_size: 2048, file_extension: 'MP4' });
    const types = new Set(sb.tenant.meetings.flatMap((m: ZoomMeeting) => m.recording_files.map((f) => f.file_type)));
    expect(types).toEqual(new Set(['MP4', 'M4A', 'TRANSCRIPT', 'CHAT', 'CC', 'TIMELINE']));
    expect(sb.tenant.meetings.some((m) => !m.recording_files.some((f) => f.file_type === 'TRANSCRIPT'))).toBe(true);
    expect(sb.tenant.meetings.some((m) => !m.recording_files.some((f) => f.file_type === 'M4A'))).toBe(true);
  });

  it('answers 404 code 1001 for a deleted user', async () => {
    const leaver = sb.tenant.users.find((u) => u.status === 'active' && u !== sb.tenant.owner)!;
    const local = await startZoomSandbox({ seed: 42, users: 8, meetingsPerUser: 6, now: () => new Date(START) });
    try {
      const t = (await pairWithSandbox(local)).access_token;
      local.deleteUser(leaver.id);
      const res = await apiGet(local, t, `/users/${leaver.id}/recordings`);
      expect(res.status).toBe(404);
      expect((await json(res)).code).toBe(1001);
      const list = await json(await apiGet(local, t, '/users?page_size=300'));
      expect(list.users.some((u: any) => u.id === leaver.id)).toBe(false);
    } finally {
      await local.close();
    }
  });
});

describe('zoom sandbox: meeting summaries', () => {
  it('lists summaries by date-time and gets one by double-encoded UUID', async () => {
    const withSummary = sb.tenant.meetings.filter((m) => m.summary);
    const { items } = await collect(
      '/meetings/meeting_summaries?from=2024-01-01T00:00:00Z&to=2025-03-16T00:00:00Z&page_size=3',
      'summaries',
    );
    expect(items.map((s) => s.meeting_uuid).sort()).toEqual(withSummary.map((m) => m.uuid).sort());
    const m = withSummary.find((x) => x.uuid.startsWith('/') || x.uuid.includes('//')) ?? withSummary[0];
    const one = await get(`/meetings/${encodeURIComponent(encodeURIComponent(m.uuid))}/meeting_summary`);
    expect(one.status).toBe(200);
    expect(one.body.summary_content).toContain('## Quick recap');
    expect(one.body.meeting_uuid).toBe(m.uuid);
    const without = sb.tenant.meetings.find((x) => !x.summary)!;
    expect(
      (await get(`/meetings/${encodeURIComponent(encodeURIComponent(without.uuid))}/meeting_summary`)).status,
    ).toBe(404);
  });
});

describe('zoom sandbox: team chat', () => {
  const owner = () => sb.tenant.owner;

  it('lists channels with at most 50 per page', async () => {
    const { body } = await get(`/chat/users/${owner().id}/channels?page_size=500`);
    expect(body.page_size).toBe(50);
    expect(body.channels.map((c: any) => c.id)).toEqual(sb.tenant.channelsOf(owner().id).map((c) => c.id));
    expect(sb.tenant.channels.some((c) => c.isPrivate)).toBe(true);
  });

  it('filters sessions by type and names each one-to-one peer', async () => {
    const oneToOne = await collect(`/chat/users/${owner().id}/sessions?type=1:1`, 'sessions');
    const peers = sb.tenant
      .conversationsOf(owner().id)
      .map((c) => c.peerId)
      .sort();
    expect(oneToOne.items.map((s) => s.peer_contact_user_id).sort()).toEqual(peers);
    expect(oneToOne.items.every((s) => s.type === '1:1' && s.peer_contact_email)).toBe(true);
    const group = await collect(`/chat/users/${owner().id}/sessions?type=groupchat`, 'sessions');
    expect(group.items.map((s) => s.channel_id).sort()).toEqual(
      sb.tenant
        .channelsOf(owner().id)
        .map((c) => c.id)
        .sort(),
    );
  });

  it('returns edited and deleted messages only with include_deleted_and_edited_message', async () => {
    const { peerId, conversation } = sb.tenant.conversationsOf(owner().id)[0];
    const peer = sb.tenant.anyUser(peerId)!;
    const range = 'from=2024-09-20T00:00:00Z&to=2025-03-15T12:00:00Z';
    const base = `/chat/users/${owner().id}/messages?to_contact=${encodeURIComponent(peer.email)}&${range}&page_size=2`;
    const plain = await collect(base, 'messages');
    const full = await collect(`${base}&include_deleted_and_edited_message=true`, 'messages');
    expect(plain.items.map((m) => m.id).sort()).toEqual(
      conversation.messages
        .filter((m) => m.status === 'Normal')
        .map((m) => m.id)
        .sort(),
    );
    expect(full.items.map((m) => m.id).sort()).toEqual(conversation.messages.map((m) => m.id).sort());
    const statuses = new Set(full.items.map((m) => m.status));
    expect(statuses.has('Edited')).toBe(true);
    expect(statuses.has('Deleted')).toBe(true);
  });

  it('caps messages pages at 50, defaults to today, and reads channels with to_channel', async () => {
    const channel = sb.tenant.channelsOf(owner().id)[0];
    const today = await get(
      `/chat/users/${owner().id}/messages?to_channel=${channel.id}&include_deleted_and_edited_message=true`,
    );
    expect(today.body.date).toBe('2025-03-15');
    const todays = sb.tenant.channelMessages[channel.id].filter((m) => m.date_time.startsWith('2025-03-15'));
    expect(today.body.messages.map((m: any) => m.id).sort()).toEqual(todays.map((m) => m.id).sort());
    const big = await get(
      `/chat/users/${owner().id}/messages?to_channel=${channel.id}&from=2024-09-20T00:00:00Z&page_size=80`,
    );
    expect(big.body.page_size).toBe(50);
    // Correction Z6: six months back at most (now is 2025-03-15T12:00Z here).
    const old = await get(`/chat/users/${owner().id}/messages?to_channel=${channel.id}&from=2024-09-15T11:59:59Z`);
    expect([old.status, old.body]).toEqual([
      400,
      { code: 300, message: 'Only provide past chat messages in recent 6 months.' },
    ]);
    expect(
      (await get(`/chat/users/${owner().id}/messages?to_channel=${channel.id}&from=2024-09-15T12:00:00Z`)).status,
    ).toBe(200);
    expect((await get(`/chat/users/${owner().id}/messages`)).status).toBe(400);
  });
});

describe('zoom sandbox: errors, scopes and rate limits', () => {
  it('reports a missing scope as 400/4711 or, switched, 401/124', async () => {
    sb.faults.missingScopes = ['team_chat:read:list_user_channels:admin'];
    const res = await get(`/chat/users/me/channels`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      code: 4711,
      message: 'Invalid access token, does not contain scopes:[team_chat:read:list_user_channels:admin].',
    });
    sb.faults.scopeErrorAs401 = true;
    expect((await get(`/chat/users/me/channels`)).status).toBe(401);
    sb.faults.missingScopes = [];
    sb.faults.scopeErrorAs401 = false;
    expect((await get(`/chat/users/me/channels`)).status).toBe(200);
  });

  it('answers a 429 storm with Zoom headers, then recovers', async () => {
    sb.faults.rate429Storm = 2;
    const a = await get('/users');
    expect(a.status).toBe(429);
    expect(a.body.code).toBe(429);
    expect(a.headers.get('x-ratelimit-category')).toBe('Medium');
    expect(a.headers.get('x-ratelimit-type')).toBe('QPS');
    expect(a.headers.get('retry-after')).toBe('1');
    expect((await get('/users/me')).headers.get('x-ratelimit-category')).toBe('Light');
    expect((await get('/users')).status).toBe(200);
  });

  it('enforces per-second budgets per category, and the daily limit with a date-time Retry-After', async () => {
    const local = await startZoomSandbox({ seed: 1, now: () => new Date(START), rateLimits: { medium: 2, daily: 5 } });
    try {
      const t = (await pairWithSandbox(local)).access_token;
      const burst = await Promise.all([1, 2, 3].map(() => apiGet(local, t, '/users')));
      expect(burst.map((r) => r.status).sort()).toEqual([200, 200, 429]);
      expect((await apiGet(local, t, '/users/me')).status).toBe(200); // Light is a separate budget
      await new Promise((r) => setTimeout(r, 1050));
      expect((await apiGet(local, t, '/users')).status).toBe(200);
      expect((await apiGet(local, t, '/users/me')).status).toBe(200);
      const daily = await apiGet(local, t, '/users/me');
      expect(daily.status).toBe(429);
      expect(daily.headers.get('x-ratelimit-type')).toBe('Daily-limit');
      expect(daily.headers.get('retry-after')).toBe('2025-03-16T00:00:00Z');
      local.faults.omitRateLimitHeaders = true;
      const bare = await apiGet(local, t, '/users/me');
      expect(bare.headers.get('retry-after')).toBeNull();
      expect(bare.headers.get('x-ratelimit-category')).toBe('Light');
    } finally {
      await local.close();
    }
  });

  it('injects 5xx answers and connection resets', async () => {
    sb.faults.serverErrors = 2;
    const first = await apiGet(sb, token, '/users');
    const second = await apiGet(sb, token, '/users');
    expect([first.status, second.status]).toEqual([503, 500]);
    expect(first.headers.get('content-type')).toContain('text/html');
    expect(await json(second)).toEqual({ code: 500, message: 'Internal Error' });
    sb.faults.resetConnections = 1;
    await expect(apiGet(sb, token, '/users')).rejects.toThrow();
    sb.faults.expireAccessTokens = 1;
    expect((await get('/users')).body).toEqual({ code: 124, message: 'Access token is expired.' });
    expect((await get('/users')).status).toBe(200);
  });
});
