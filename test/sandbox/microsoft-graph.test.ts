import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import type { MicrosoftSandbox, MsUser } from '../../sandbox/microsoft/index.ts';
import { consentAndGetAppToken } from '../../sandbox/microsoft/testing.ts';

type Json = Record<string, any>;

let clock = Date.UTC(2025, 4, 2, 10, 0, 0);
let sb: MicrosoftSandbox;
let token: string;
let owner: MsUser;

beforeAll(async () => {
  sb = await startMicrosoftSandbox({
    seed: 11,
    users: 7,
    usersWithoutDrive: 2,
    folderDepth: 1,
    foldersPerLevel: 3,
    filesPerFolder: 4,
    now: () => new Date(clock),
    resourceUnitsPerMinute: 60,
  });
  token = await consentAndGetAppToken(sb);
  owner = sb.tenant.users.find((u) => u.drive)!;
});
afterAll(() => sb.close());
beforeEach(() => {
  // Each test starts with a fresh resource-unit window.
  clock += 61_000;
});

async function get(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url.startsWith('http') ? url : `${sb.graphUrl}${url}`, {
    headers: { authorization: `Bearer ${token}`, ...headers },
    redirect: 'manual',
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: (text ? JSON.parse(text) : undefined) as Json,
  };
}

function expectGraphError(body: Json, code: string) {
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.innerError.date).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
  expect(body.error.innerError['request-id']).toMatch(/^[0-9a-f-]{36}$/);
  expect(body.error.innerError['client-request-id']).toEqual(expect.any(String));
}

describe('Microsoft Graph sandbox: users and drives', () => {
  it('pages /users with $top and $select through opaque absolute nextLinks', async () => {
    const seen: Json[] = [];
    let url: string | undefined = '/users?$select=id,displayName,mail,userPrincipalName&$top=3';
    let pages = 0;
    while (url) {
      const page = await get(url);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('application/json;odata.metadata=minimal');
      expect(page.headers.get('request-id')).toMatch(/^[0-9a-f-]{36}$/);
      for (const user of page.body.value)
        expect(Object.keys(user).sort()).toEqual(['displayName', 'id', 'mail', 'userPrincipalName']);
      seen.push(...page.body.value);
      url = page.body['@odata.nextLink'];
      if (url) {
        expect(url.startsWith(`${sb.graphUrl}/users?`)).toBe(true);
        expect(url).toContain('$top=3');
      }
      pages++;
    }
    expect(pages).toBe(3);
    expect(seen.map((u) => u.id)).toEqual(sb.tenant.users.map((u) => u.id));
  });

  it('returns the default property set without $select and validates $top and $select', async () => {
    const page = await get('/users');
    expect(page.body['@odata.nextLink']).toBeUndefined();
    expect(page.body.value[0]).toMatchObject({
      id: sb.tenant.users[0].id,
      businessPhones: [],
      preferredLanguage: 'en-US',
    });
    expect(page.body.value[0]).not.toHaveProperty('department');
    expectGraphError((await get('/users?$top=1000')).body, 'Request_UnsupportedQuery');
    expectGraphError((await get('/users?$select=id,shoeSize')).body, 'Request_BadRequest');
    const single = await get(`/users/${owner.id}?$select=id,mySite,department`);
    expect(single.body.mySite).toContain('-my.sharepoint.com/personal/');
    expect(single.body.department).toBe(owner.department);
  });

  it('answers 404 with the documented bodies for users without a OneDrive and for unknown users', async () => {
    const missing = sb.tenant.users.filter((u) => !u.drive);
    expect(missing).toHaveLength(2);
    const first = await get(`/users/${missing[0].id}/drive`);
    expect(first.status).toBe(404);
    expectGraphError(first.body, 'ResourceNotFound');
    expect(first.body.error.message).toBe("User's mysite not found.");
    const second = await get(`/users/${missing[1].id}/drive/root/delta`);
    expect(second.status).toBe(404);
    expect(second.body.error.message).toBe('404 FILE NOT FOUND');
    const guest = missing.find((u) => u.userType === 'Guest')!;
    expect(guest.userPrincipalName).toContain('#EXT#');
    expect((await get(`/users/${encodeURIComponent(guest.userPrincipalName)}`)).body.id).toBe(guest.id);
    const unknown = await get('/users/00000000-1111-4222-8333-444444444444/drive');
    expect(unknown.status).toBe(404);
    expectGraphError(unknown.body, 'Request_ResourceNotFound');
  });

  it('serves the drive, addressable by owner and by id', async () => {
    const byUser = await get(`/users/${owner.id}/drive`);
    expect(byUser.body).toMatchObject({
      id: owner.drive!.id,
      driveType: 'business',
      owner: { user: { id: owner.id } },
    });
    const byId = await get(`/drives/${encodeURIComponent(owner.drive!.id)}`);
    expect(byId.body.id).toBe(owner.drive!.id);
  });

  it('lists children with paging and full driveItem fields', async () => {
    const drive = owner.drive!;
    const expected = sb
      .listItems(owner.id)
      .filter((i) => i.parentId === drive.rootId)
      .map((i) => i.id)
      .sort();
    const got: Json[] = [];
    let url: string | undefined = `/users/${owner.id}/drive/root/children?$top=2`;
    while (url) {
      const page = await get(url);
      expect(page.status).toBe(200);
      got.push(...page.body.value);
      url = page.body['@odata.nextLink'];
    }
    expect(got.map((i) => i.id).sort()).toEqual(expected);
    const file = got.find((i) => i.file)!;
    const model = drive.items.get(file.id)!;
    expect(file).toMatchObject({
      name: model.name,
      size: model.size,
      file: { mimeType: model.mimeType, hashes: { quickXorHash: model.quickXorHash } },
      parentReference: { driveId: drive.id, id: drive.rootId, path: `/drives/${drive.id}/root:` },
      createdBy: { user: { id: owner.id } },
      lastModifiedBy: { user: { displayName: owner.displayName } },
      createdDateTime: model.createdDateTime,
    });
    expect(file.eTag).toMatch(/^"\{[0-9A-F-]{36}\},\d+"$/);
    expect(file.cTag).toMatch(/^"c:\{[0-9A-F-]{36}\},\d+"$/);
    expect(file['@microsoft.graph.downloadUrl'].startsWith(`${sb.downloadOrigin}/`)).toBe(true);
    const folder = got.find((i) => i.folder)!;
    expect(folder.folder.childCount).toBe(4);
    const nested = await get(`/users/${owner.id}/drive/items/${folder.id}/children`);
    expect(nested.body.value[0].parentReference.path).toBe(
      `/drives/${drive.id}/root:/${encodeURIComponent(folder.name)}`,
    );
    const root = await get(`/users/${owner.id}/drive/root`);
    expect(root.body).toMatchObject({ id: drive.rootId, root: {}, folder: { childCount: expected.length } });
    const selected = await get(`/users/${owner.id}/drive/items/${file.id}?$select=id,name`);
    expect(Object.keys(selected.body).filter((k) => !k.startsWith('@odata'))).toEqual(['id', 'name']);
  });

  it('requires a valid bearer token', async () => {
    const none = await fetch(`${sb.graphUrl}/users`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toContain('Bearer');
    expectGraphError((await none.json()) as Json, 'InvalidAuthenticationToken');
    const forged = await get('/users', { authorization: `Bearer ${token.slice(0, -4)}AAAA` });
    expect(forged.status).toBe(401);
    expectGraphError(forged.body, 'InvalidAuthenticationToken');
  });
});

describe('Microsoft sandbox: seeded tenant', () => {
  it('is identical for the same seed and options, and differs for another seed', async () => {
    const shape = (other: MicrosoftSandbox) =>
      other.tenant.users.map((u) => ({
        id: u.id,
        upn: u.userPrincipalName,
        items: u.drive
          ? other
              .listItems(u.id)
              .map((i) => [i.id, other.pathOf(u.id, i.id), i.size, i.quickXorHash, i.createdDateTime])
          : null,
      }));
    const options = { seed: 99, users: 3, folderDepth: 1, filesPerFolder: 2 };
    const [a, b, c] = await Promise.all([
      startMicrosoftSandbox(options),
      startMicrosoftSandbox(options),
      startMicrosoftSandbox({ ...options, seed: 100 }),
    ]);
    try {
      expect(shape(a)).toEqual(shape(b));
      expect(a.tenantId).toBe(b.tenantId);
      expect(shape(a)).not.toEqual(shape(c));
      const user = a.tenant.users[0];
      const file = a.listItems(user.id).find((i) => i.kind === 'file')!;
      expect(a.contentOf(user.id, file.id).equals(b.contentOf(user.id, file.id))).toBe(true);
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
    }
  });
});

describe('Microsoft Graph sandbox: throttling and injected failures', () => {
  it('429 and 503 faults carry a fractional Retry-After; the 503 has an empty body', async () => {
    sb.faults.throttle429 = 1;
    sb.faults.throttle503 = 1;
    sb.faults.retryAfterSeconds = 2.128;
    const first = await get(`/users/${owner.id}/drive`);
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('2.128');
    expectGraphError(first.body, 'TooManyRequests');
    const second = await get(`/users/${owner.id}/drive`);
    expect(second.status).toBe(503);
    expect(second.headers.get('retry-after')).toBe('2.128');
    expect(second.text).toBe('');
    expect((await get(`/users/${owner.id}/drive`)).status).toBe(200);
  });

  it('serverErrors answer 500 generalException n times', async () => {
    sb.faults.serverErrors = 2;
    expectGraphError((await get(`/users/${owner.id}/drive`)).body, 'generalException');
    expect((await get(`/users/${owner.id}/drive`)).status).toBe(500);
    expect((await get(`/users/${owner.id}/drive`)).status).toBe(200);
  });

  it('budgets resource units per minute: warns at 80 %, then 429 activityLimitReached until the window frees', async () => {
    // 60 RU per minute; children listing costs 2 RU.
    let last;
    let calls = 0;
    do {
      last = await get(`/users/${owner.id}/drive/root/children`);
      calls++;
      if (calls === 25) {
        expect(last.headers.get('x-ms-resource-unit')).toBe('2');
        expect(Number(last.headers.get('ratelimit-remaining'))).toBe(10);
        expect(last.headers.get('ratelimit-limit')).toBe('60');
      }
    } while (last.status === 200 && calls < 40);
    expect(calls).toBe(31);
    expect(last.status).toBe(429);
    expectGraphError(last.body, 'activityLimitReached');
    const retryAfter = Number(last.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    clock += Math.ceil(retryAfter * 1000);
    expect((await get(`/users/${owner.id}/drive/root/children`)).status).toBe(200);
  });

  it('counts throttled requests against the window too: refused pages take room a later page would have had', async () => {
    // 60 RU per minute, 2 RU per children page: 30 pages fill the window at t0.
    for (let i = 0; i < 30; i++) expect((await get(`/users/${owner.id}/drive/root/children`)).status).toBe(200);
    clock += 1000;
    const first = await get(`/users/${owner.id}/drive/root/children`);
    expect(first.status).toBe(429);
    clock += 1000;
    // Ignoring Retry-After: refused again.
    expect((await get(`/users/${owner.id}/drive/root/children`)).status).toBe(429);
    // When t0's pages leave the window the two refused pages (4 RU) are still in it: 28 pages fit, not 30.
    clock += 58_001;
    let fitted = 0;
    while ((await get(`/users/${owner.id}/drive/root/children`)).status === 200) fitted++;
    expect(fitted).toBe(28);
  });
});
