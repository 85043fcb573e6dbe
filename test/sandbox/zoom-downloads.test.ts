import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import { apiGet, json, pairWithSandbox } from '../../sandbox/zoom/testing.ts';

const START = Date.parse('2025-03-15T12:00:00Z');
let clock = START;
let sb: ZoomSandbox;
let token: string;

beforeAll(async () => {
  sb = await startZoomSandbox({ seed: 3, fileSize: 700_000, now: () => new Date(clock) });
  token = (await pairWithSandbox(sb)).access_token;
});
afterAll(async () => {
  await sb.close();
});

const sha = (b: Buffer | Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** The meeting's files as the API lists them, paired with the tenant's file ids. */
async function listedFiles(fileType: string): Promise<Array<{ id: string; download_url: string; file_size?: number }>> {
  const m = sb.tenant.meetings.find((x) => x.recording_files.some((f) => f.file_type === fileType))!;
  const res = await apiGet(sb, token, `/meetings/${encodeURIComponent(encodeURIComponent(m.uuid))}/recordings`);
  const body = await json(res);
  return body.recording_files
    .filter((f: any) => f.file_type === fileType)
    .map((f: any) => ({
      ...f,
      id: m.recording_files.find((t) => t.downloadKey === f.download_url.split('/').pop())!.id,
    }));
}

async function redirectFor(downloadUrl: string, bearer = token): Promise<Response> {
  return fetch(downloadUrl, { redirect: 'manual', headers: { authorization: `Bearer ${bearer}` } });
}

describe('zoom sandbox: downloads', () => {
  it('answers download_url with a 302 to the second origin that serves the exact bytes without auth', async () => {
    const [mp4] = await listedFiles('MP4');
    const hop = await redirectFor(mp4.download_url);
    expect(hop.status).toBe(302);
    const location = hop.headers.get('location')!;
    expect(new URL(location).origin).toBe(sb.downloadOrigin);
    expect(new URL(location).origin).not.toBe(sb.oauthUrl);
    const file = await fetch(location);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('video/mp4');
    const bytes = Buffer.from(await file.arrayBuffer());
    expect(bytes.length).toBe(mp4.file_size);
    expect(sha(bytes)).toBe(sha(sb.contentOf(mp4.id)));
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
  });

  it('never sees an Authorization header on the file host when fetch follows the redirect', async () => {
    const [vtt] = await listedFiles('TRANSCRIPT');
    const before = sb.requests.length;
    const res = await fetch(vtt.download_url, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text.startsWith('WEBVTT')).toBe(true);
    expect(text).toMatch(/\d\d:\d\d:\d\d\.\d{3} --> \d\d:\d\d:\d\d\.\d{3}\n[A-Z][a-z]+ [A-Z][a-z]+: \w+/);
    expect(Buffer.from(text)).toEqual(sb.contentOf(vtt.id));
    const hits = sb.requests.slice(before).filter((r) => r.listener === 'files');
    expect(hits.length).toBe(1);
    expect(hits[0].auth).toBeUndefined();
  });

  it('refuses a forwarded Authorization header and tampered or expired signatures on the file host', async () => {
    const [chat] = await listedFiles('CHAT');
    const location = (await redirectFor(chat.download_url)).headers.get('location')!;
    expect((await fetch(location, { headers: { authorization: `Bearer ${token}` } })).status).toBe(400);
    expect((await fetch(location.replace(/Signature=[^&]+/, 'Signature=forged'))).status).toBe(403);
    clock += 11 * 60_000;
    expect((await fetch(location)).status).toBe(403);
    clock = START;
    expect((await fetch(location)).status).toBe(200);
  });

  it('signals failure with 200 text/html: no credentials, or the htmlDownloadFailure switch', async () => {
    const [m4a] = await listedFiles('M4A');
    const anonymous = await fetch(m4a.download_url, { redirect: 'manual' });
    expect(anonymous.status).toBe(200);
    expect(anonymous.headers.get('content-type')).toContain('text/html');
    sb.faults.htmlDownloadFailure = 1;
    const failed = await redirectFor(m4a.download_url);
    expect(failed.status).toBe(200);
    expect(await failed.text()).toContain('<html>');
    expect((await redirectFor(m4a.download_url)).status).toBe(302);
    expect((await redirectFor(m4a.download_url, 'bogus')).status).toBe(401);
  });

  it('truncates a body after announcing its full length', async () => {
    const [mp4] = await listedFiles('MP4');
    const location = (await redirectFor(mp4.download_url)).headers.get('location')!;
    sb.faults.truncateDownloads = 1;
    const res = await fetch(location);
    expect(res.headers.get('content-length')).toBe(String(mp4.file_size));
    await expect(res.arrayBuffer()).rejects.toThrow();
    expect(Buffer.from(await (await fetch(location)).arrayBuffer()).length).toBe(mp4.file_size);
  });

  it('serves byte ranges and accepts a download_access_token as the bearer', async () => {
    const m = sb.tenant.meetings[0];
    const res = await apiGet(
      sb,
      token,
      `/meetings/${encodeURIComponent(encodeURIComponent(m.uuid))}/recordings?include_fields=download_access_token&ttl=600`,
    );
    const body = await json(res);
    expect(typeof body.download_access_token).toBe('string');
    const mp4 = body.recording_files.find((f: any) => f.file_type === 'MP4');
    const hop = await redirectFor(mp4.download_url, body.download_access_token);
    expect(hop.status).toBe(302);
    const part = await fetch(hop.headers.get('location')!, { headers: { range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(sb.contentOf(mp4.id).subarray(100, 200));
  });

  it('does not let a revoked grant download', async () => {
    const local = await startZoomSandbox({ seed: 3, now: () => new Date(START) });
    try {
      const t = (await pairWithSandbox(local)).access_token;
      const f = local.tenant.meetings[0].recording_files[0];
      const url = `${local.oauthUrl}/rec/download/${f.downloadKey}`;
      expect((await fetch(url, { redirect: 'manual', headers: { authorization: `Bearer ${t}` } })).status).toBe(302);
      local.revokeAll();
      expect((await fetch(url, { redirect: 'manual', headers: { authorization: `Bearer ${t}` } })).status).toBe(401);
    } finally {
      await local.close();
    }
  });
});

describe('zoom sandbox: determinism', () => {
  it('seeds the same tenant and bytes from the same seed and clock, and another from another seed', async () => {
    const opts = { seed: 11, now: () => new Date(START) };
    const a = await startZoomSandbox(opts);
    const b = await startZoomSandbox(opts);
    const c = await startZoomSandbox({ ...opts, seed: 12 });
    try {
      expect(b.tenant.users).toEqual(a.tenant.users);
      expect(b.tenant.meetings).toEqual(a.tenant.meetings);
      expect(b.tenant.channelMessages).toEqual(a.tenant.channelMessages);
      for (const f of a.tenant.meetings.flatMap((m) => m.recording_files))
        expect(sha(b.contentOf(f.id))).toBe(sha(a.contentOf(f.id)));
      expect(c.tenant.users.map((u) => u.id)).not.toEqual(a.tenant.users.map((u) => u.id));
      const statuses = a.tenant.users.map((u) => u.status);
      expect(statuses).toContain('inactive');
      expect(statuses).toContain('pending');
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
    }
  });
});
