import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { QuickXorHash, quickXorHashBase64 } from '../../src/connectors/onedrive/quickxorhash.ts';
import { startMicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import type { MicrosoftSandbox, MsItem, MsUser } from '../../sandbox/microsoft/index.ts';
import { consentAndGetAppToken } from '../../sandbox/microsoft/testing.ts';

let clock = Date.UTC(2025, 4, 2, 10, 0, 0);
let sb: MicrosoftSandbox;
let token: string;
let owner: MsUser;
let files: MsItem[];

beforeAll(async () => {
  sb = await startMicrosoftSandbox({
    seed: 5,
    users: 3,
    folderDepth: 1,
    filesPerFolder: 3,
    fileSize: 40_000,
    now: () => new Date(clock),
    downloadUrlLifetimeSeconds: 300,
  });
  token = await consentAndGetAppToken(sb);
  owner = sb.tenant.users.find((u) => u.drive)!;
  files = sb.listItems(owner.id).filter((i) => i.kind === 'file');
});
afterAll(() => sb.close());
beforeEach(() => {
  sb.requests.length = 0;
});

const auth = () => ({ authorization: `Bearer ${token}` });
const contentUrl = (item: MsItem) => `${sb.graphUrl}/users/${owner.id}/drive/items/${item.id}/content`;

async function downloadUrlOf(item: MsItem): Promise<string> {
  const response = await fetch(contentUrl(item), { headers: auth(), redirect: 'manual' });
  expect(response.status).toBe(302);
  return response.headers.get('location')!;
}

describe('Microsoft sandbox downloads', () => {
  it('/content redirects to the download origin; following it sends no Authorization there', async () => {
    const item = files[0];
    const location = await downloadUrlOf(item);
    expect(location.startsWith(`${sb.downloadOrigin}/`)).toBe(true);
    expect(location).toContain('tempauth=');

    const followed = await fetch(contentUrl(item), { headers: auth() });
    expect(followed.status).toBe(200);
    const bytes = Buffer.from(await followed.arrayBuffer());
    expect(bytes.equals(sb.contentOf(owner.id, item.id))).toBe(true);
    const downloadHits = sb.requests.filter((r) => r.host === 'download');
    expect(downloadHits.length).toBeGreaterThan(0);
    for (const hit of downloadHits) expect(hit.auth).toBeUndefined();
    expect(sb.requests.filter((r) => r.host === 'graph').every((r) => r.auth === 'Bearer')).toBe(true);
  });

  it('refuses a bearer token sent to the download host (wrong audience)', async () => {
    const response = await fetch(await downloadUrlOf(files[0]), { headers: auth() });
    expect(response.status).toBe(401);
  });

  it('every served file hashes to its advertised quickXorHash and size', async () => {
    for (const item of files) {
      const response = await fetch(contentUrl(item), { headers: auth() });
      const bytes = new Uint8Array(await response.arrayBuffer());
      expect(bytes.length).toBe(item.size);
      expect(quickXorHashBase64(bytes)).toBe(item.quickXorHash);
    }
  });

  it('serves Range requests as 206 with Content-Range, and 416 past the end', async () => {
    const item = files[1];
    const url = await downloadUrlOf(item);
    const full = sb.contentOf(owner.id, item.id);
    const partial = await fetch(url, { headers: { range: 'bytes=100-1123' } });
    expect(partial.status).toBe(206);
    expect(partial.headers.get('content-range')).toBe(`bytes 100-1123/${full.length}`);
    expect(partial.headers.get('accept-ranges')).toBe('bytes');
    expect(Buffer.from(await partial.arrayBuffer()).equals(full.subarray(100, 1124))).toBe(true);
    const tail = await fetch(url, { headers: { range: `bytes=${full.length - 10}-` } });
    expect(Buffer.from(await tail.arrayBuffer()).equals(full.subarray(full.length - 10))).toBe(true);
    const beyond = await fetch(url, { headers: { range: `bytes=${full.length}-` } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${full.length}`);

    sb.faults.ignoreRange = true;
    try {
      const ignored = await fetch(url, { headers: { range: 'bytes=0-9' } });
      expect(ignored.status).toBe(200);
      expect(Number(ignored.headers.get('content-length'))).toBe(full.length);
      await ignored.arrayBuffer();
    } finally {
      sb.faults.ignoreRange = false;
    }
  });

  it('refuses Range on /content (416 invalidRange): the docs send it to the download URL only', async () => {
    const response = await fetch(contentUrl(files[1]), {
      headers: { ...auth(), range: 'bytes=10-' },
      redirect: 'manual',
    });
    expect(response.status).toBe(416);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('invalidRange');
  });

  it('resumes a download across ranges into the same streaming hash', async () => {
    const item = files[2];
    const url = await downloadUrlOf(item);
    const hash = new QuickXorHash();
    for (let start = 0; start < item.size; start += 7_777) {
      const response = await fetch(url, {
        headers: { range: `bytes=${start}-${Math.min(item.size, start + 7_777) - 1}` },
      });
      hash.update(new Uint8Array(await response.arrayBuffer()));
    }
    expect(hash.digestBase64()).toBe(item.quickXorHash);
  });

  it('download URLs expire (401) after their lifetime and while expireDownloadUrls is set', async () => {
    const url = await downloadUrlOf(files[0]);
    expect((await fetch(url, { method: 'HEAD' })).status).toBe(200);
    sb.faults.expireDownloadUrls = true;
    expect((await fetch(url)).status).toBe(401);
    sb.faults.expireDownloadUrls = false;
    clock += 301_000;
    expect((await fetch(url)).status).toBe(401);
    const fresh = await fetch(await downloadUrlOf(files[0]));
    expect(fresh.status).toBe(200);
    await fresh.arrayBuffer();
  });

  it('corruptDownloads serves altered bytes of the same length while metadata keeps the original hash', async () => {
    const item = files[0];
    sb.faults.corruptDownloads = 1;
    const bad = new Uint8Array(await (await fetch(contentUrl(item), { headers: auth() })).arrayBuffer());
    expect(bad.length).toBe(item.size);
    expect(quickXorHashBase64(bad)).not.toBe(item.quickXorHash);
    const meta = (await (
      await fetch(`${sb.graphUrl}/users/${owner.id}/drive/items/${item.id}`, { headers: auth() })
    ).json()) as Record<string, any>;
    expect(meta.file.hashes.quickXorHash).toBe(item.quickXorHash);
    const good = new Uint8Array(await (await fetch(contentUrl(item), { headers: auth() })).arrayBuffer());
    expect(quickXorHashBase64(good)).toBe(item.quickXorHash);
  });

  it('resetConnections cuts the body mid-transfer', async () => {
    sb.faults.resetConnections = 1;
    const response = await fetch(contentUrl(files[0]), { headers: auth() });
    await expect(response.arrayBuffer()).rejects.toThrow();
    expect(sb.faults.resetConnections).toBe(0);
  });
});
