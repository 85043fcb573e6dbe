// The Zoom simulator's variance profile, checked against the simulator itself (no Custody involved).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import { apiGet, json, pairWithSandbox, resolveSandboxHosts } from '../../sandbox/zoom/testing.ts';

const twice = (uuid: string) => encodeURIComponent(encodeURIComponent(uuid));
const ref = (uuid: string) => (uuid.startsWith('/') || uuid.includes('//') ? twice(uuid) : encodeURIComponent(uuid));

describe('the Zoom simulator under its variance profile', () => {
  let sb: ZoomSandbox;
  let plain: ZoomSandbox;
  let token: string;
  let undo: () => void;

  beforeAll(async () => {
    undo = await resolveSandboxHosts('zoom.sandbox.test');
    sb = await startZoomSandbox({ seed: 7, users: 4, meetingsPerUser: 4, variance: {}, hostname: 'zoom.sandbox.test' });
    plain = await startZoomSandbox({ seed: 7, users: 4, meetingsPerUser: 4 });
    token = (await pairWithSandbox(sb)).access_token;
  });

  afterAll(async () => {
    await sb?.close();
    await plain?.close();
    undo?.();
  });

  it('picks the broken pieces from its seed and leaves the default tenant as it was', async () => {
    const again = await startZoomSandbox({ seed: 7, users: 4, meetingsPerUser: 4, variance: {} });
    try {
      expect(again.variance!.failingFile!.file.id).toBe(sb.variance!.failingFile!.file.id);
      expect(again.variance!.failingConversation!.userIds).toEqual(sb.variance!.failingConversation!.userIds);
    } finally {
      await again.close();
    }
    expect(sb.variance!.vanishingFile!.meeting).not.toBe(sb.variance!.failingFile!.meeting);
    expect(plain.variance).toBeUndefined();
    expect(sb.tenant.meetings.some((m) => m.uuid.startsWith('/') || m.uuid.includes('//'))).toBe(true);
    expect(sb.tenant.meetings.some((m) => !m.summary)).toBe(true);
    expect(sb.tenant.meetings.some((m) => !m.recording_files.some((f) => f.file_type === 'TRANSCRIPT'))).toBe(true);
  });

  it('answers a first page with no items but a next_page_token, and reshapes the objects', async () => {
    const owner = sb.tenant.users[0];
    const q = `from=${new Date(Date.now() - 25 * 86_400_000).toISOString().slice(0, 10)}&to=${new Date().toISOString().slice(0, 10)}`;
    const first = await json(await apiGet(sb, token, `/users/${owner.id}/recordings?${q}`));
    expect(first.meetings).toEqual([]);
    expect(first.next_page_token).not.toBe('');
    const second = await json(
      await apiGet(sb, token, `/users/${owner.id}/recordings?${q}&next_page_token=${first.next_page_token}`),
    );
    expect(second.meetings.length).toBeGreaterThan(0);
    const files = second.meetings.flatMap((m: any) => m.recording_files);
    expect(second.meetings.some((m: any) => Object.keys(m).some((k) => k.startsWith('x_')))).toBe(true);
    expect(files.some((f: any) => f.file_size === undefined || f.status === undefined)).toBe(true);
    // download_url lives on a host under the OAuth host's domain, as us02web.zoom.us does next to zoom.us.
    expect(new URL(files[0].download_url).hostname).toBe('us02web.zoom.sandbox.test');
    expect(new URL(sb.oauthUrl).hostname).toBe('zoom.sandbox.test');
  });

  it('answers a missing summary with 404s of several codes and bodies', async () => {
    const without = sb.tenant.meetings.filter((m) => !m.summary && sb.tenant.findUser(m.host_id));
    const bodies = new Set<string>();
    for (const m of without) {
      const res = await apiGet(sb, token, `/meetings/${ref(m.uuid)}/meeting_summary`);
      expect(res.status).toBe(404);
      bodies.add(await res.text());
    }
    expect(bodies.size).toBeGreaterThan(1);
    const withSummary = sb.tenant.meetings.find((m) => m.summary && sb.tenant.findUser(m.host_id))!;
    expect((await apiGet(sb, token, `/meetings/${ref(withSummary.uuid)}/meeting_summary`)).status).toBe(200);
  });

  it('fails one download every time, deletes another on its first download, and refuses one conversation', async () => {
    const get = (key: string) =>
      fetch(`${sb.apiUrl.replace(/\/v2$/, '')}/rec/download/${key}`.replace('zoom.sandbox.test', '127.0.0.1'), {
        headers: { authorization: `Bearer ${token}` },
        redirect: 'manual',
      });
    const failing = sb.variance!.failingFile!.file;
    for (let i = 0; i < 2; i++) {
      const res = await get(failing.downloadKey);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
      await res.text();
    }
    const { file, meeting } = sb.variance!.vanishingFile!;
    expect((await get(file.downloadKey)).status).toBe(404);
    expect(meeting.recording_files).not.toContain(file);
    expect((await get(file.downloadKey)).status).toBe(404);
    const other = meeting.recording_files[0];
    expect((await get(other.downloadKey)).status).toBe(302);

    const [a, b] = sb.variance!.failingConversation!.userIds;
    const recent = new Date(Date.now() - 150 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    for (let i = 0; i < 2; i++)
      expect((await apiGet(sb, token, `/chat/users/${a}/messages?to_contact=${b}&from=${recent}`)).status).toBe(400);
    const elsewhere = sb.tenant.conversationsOf(a).find((c) => c.peerId !== b);
    if (elsewhere)
      expect(
        (await apiGet(sb, token, `/chat/users/${a}/messages?to_contact=${elsewhere.peerId}&from=${recent}`)).status,
      ).toBe(200);
  });
});
