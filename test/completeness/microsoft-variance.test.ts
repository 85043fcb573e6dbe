// The Microsoft simulator's variance profile, checked against the simulator itself (no Custody involved).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMicrosoftSandbox, type MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import { consentAndGetAppToken } from '../../sandbox/microsoft/testing.ts';

describe('the Microsoft simulator under its variance profile', () => {
  let sb: MicrosoftSandbox;
  let plain: MicrosoftSandbox;
  let token: string;
  const get = (url: string) => fetch(url, { headers: { authorization: `Bearer ${token}` }, redirect: 'manual' });
  const graph = async (path: string) => (await get(`${sb.graphUrl}${path}`)).json() as Promise<any>;

  beforeAll(async () => {
    sb = await startMicrosoftSandbox({
      seed: 9,
      users: 3,
      usersWithoutDrive: 0,
      folderDepth: 2,
      filesPerFolder: 2,
      variance: {},
    });
    plain = await startMicrosoftSandbox({ seed: 9, users: 3, usersWithoutDrive: 0, folderDepth: 2, filesPerFolder: 2 });
    token = await consentAndGetAppToken(sb);
  });

  afterAll(async () => {
    await sb?.close();
    await plain?.close();
  });

  it('picks two different files from its seed; the default sandbox has no profile', () => {
    const { vanishingItem, failingItem } = sb.variance!;
    expect(vanishingItem!.item.kind).toBe('file');
    expect(failingItem!.item.id).not.toBe(vanishingItem!.item.id);
    expect(plain.variance).toBeUndefined();
    expect(plain.faults.emptyDeltaPages).toBe(false);
  });

  it('starts the user list and every delta round with an empty page that carries a nextLink', async () => {
    const first = await graph('/users?$top=2');
    expect(first.value).toEqual([]);
    const second = (await (await get(first['@odata.nextLink'])).json()) as any;
    expect(second.value.map((u: any) => u.id)).toEqual(sb.tenant.users.slice(0, 2).map((u) => u.id));
    const user = sb.tenant.users[0];
    const delta = await graph(`/users/${user.id}/drive/root/delta`);
    expect(delta.value).toEqual([]);
    expect(delta['@odata.nextLink']).toBeTruthy();
    const page = (await (await get(delta['@odata.nextLink'])).json()) as any;
    expect(page.value.length).toBeGreaterThan(0);
    // Optional properties left out, unknown ones added.
    expect(page.value.some((i: any) => Object.keys(i).some((k) => k.startsWith('x_sandbox_')))).toBe(true);
    expect(page.value.some((i: any) => i.webUrl === undefined || i.eTag === undefined)).toBe(true);
  });

  it('refuses the malware file every time and deletes the vanishing file on its first download', async () => {
    const { failingItem, vanishingItem } = sb.variance!;
    const content = (userId: string, id: string) => get(`${sb.graphUrl}/users/${userId}/drive/items/${id}/content`);
    for (let i = 0; i < 2; i++) {
      const redirect = await content(failingItem!.userId, failingItem!.item.id);
      expect(redirect.status).toBe(302);
      const refused = await fetch(redirect.headers.get('location')!);
      expect(refused.status).toBe(403);
      expect(refused.headers.get('x-virus-infected')).toBe('true');
      expect(((await refused.json()) as any).error.code).toBe('malwareDetected');
    }
    const gone = await content(vanishingItem!.userId, vanishingItem!.item.id);
    expect(gone.status).toBe(404);
    expect(sb.listItems(vanishingItem!.userId).map((i) => i.id)).not.toContain(vanishingItem!.item.id);
    expect((await content(vanishingItem!.userId, vanishingItem!.item.id)).status).toBe(404);
  });

  it('answers missing items with 404s of several codes and bodies', async () => {
    const bodies = new Set<string>();
    const user = sb.tenant.users[0];
    for (let i = 0; i < 12; i++) {
      const res = await get(`${sb.graphUrl}/users/${user.id}/drive/items/01MISSING${i}XYZ`);
      expect(res.status).toBe(404);
      bodies.add((await res.text()).replace(/"innerError":\{.*\}/, ''));
    }
    expect(bodies.size).toBeGreaterThan(1);
  });
});
