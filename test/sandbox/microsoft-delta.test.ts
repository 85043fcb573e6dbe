import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import type { MicrosoftSandbox, MsUser } from '../../sandbox/microsoft/index.ts';
import { consentAndGetAppToken } from '../../sandbox/microsoft/testing.ts';

type Json = Record<string, any>;

let sb: MicrosoftSandbox;
let token: string;
let owner: MsUser;

beforeAll(async () => {
  sb = await startMicrosoftSandbox({
    seed: 23,
    users: 2,
    folderDepth: 2,
    foldersPerLevel: 2,
    filesPerFolder: 3,
    deltaPageSize: 5,
  });
  token = await consentAndGetAppToken(sb);
  owner = sb.tenant.users.find((u) => u.drive)!;
});
afterAll(() => sb.close());
beforeEach(() => {
  sb.faults.duplicateDeltaItems = false;
  sb.faults.emptyDeltaPages = false;
  sb.faults.deltaTokenExpired = false;
});

async function get(url: string) {
  const response = await fetch(url.startsWith('http') ? url : `${sb.graphUrl}${url}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Json };
}

/** Follows nextLinks verbatim until a deltaLink, as a connector must. */
async function round(start: string): Promise<{ items: Json[]; pages: Json[]; deltaLink: string }> {
  const items: Json[] = [];
  const pages: Json[] = [];
  let url = start;
  for (let guard = 0; guard < 100; guard++) {
    const page = await get(url);
    expect(page.status).toBe(200);
    pages.push(page.body);
    items.push(...page.body.value);
    if (page.body['@odata.deltaLink']) {
      expect(page.body['@odata.nextLink']).toBeUndefined();
      return { items, pages, deltaLink: page.body['@odata.deltaLink'] };
    }
    url = page.body['@odata.nextLink'];
    expect(url.startsWith(`${sb.graphUrl}/`)).toBe(true);
  }
  throw new Error('delta round did not end');
}

const initialUrl = () => `/users/${owner.id}/drive/root/delta`;

describe('Microsoft Graph sandbox: delta', () => {
  it('enumerates the whole drive in pages, parents before children, without paths, authors sometimes (seeded)', async () => {
    const { items, pages } = await round(initialUrl());
    const live = sb.listItems(owner.id);
    expect(pages.length).toBe(Math.ceil(live.length / 5));
    expect(items.map((i) => i.id).sort()).toEqual(live.map((i) => i.id).sort());
    expect(items[0]).toMatchObject({ id: owner.drive!.rootId, root: {} });
    const seen = new Set<string>();
    for (const item of items) {
      if (!item.root) expect(seen.has(item.parentReference.id)).toBe(true);
      seen.add(item.id);
      expect(item.parentReference).not.toHaveProperty('path');
      expect(item).not.toHaveProperty('cTag');
      const model = owner.drive!.items.get(item.id)!;
      if (item.createdBy) expect(item.createdBy).toEqual(model.createdBy);
      if (item.lastModifiedBy) expect(item.lastModifiedBy).toEqual(model.lastModifiedBy);
    }
    // Correction G2: the delta reference no longer names the authors among what ODB omits; older revisions did.
    expect(items.some((i) => i.createdBy) && items.some((i) => !i.createdBy)).toBe(true);
    expect(items.some((i) => i.lastModifiedBy) && items.some((i) => !i.lastModifiedBy)).toBe(true);
    const file = items.find((i) => i.file)!;
    expect(file.file.hashes.quickXorHash).toBe(owner.drive!.items.get(file.id)!.quickXorHash);
  });

  it('a deltaLink returns nothing when nothing changed, and only the changes (with ancestors) after mutations', async () => {
    const first = await round(initialUrl());
    const quiet = await round(first.deltaLink);
    expect(quiet.items).toEqual([]);

    const all = sb.listItems(owner.id);
    const folders = all.filter((i) => i.kind === 'folder' && i.parentId !== null);
    const deep = folders.find((f) => all.some((c) => c.parentId === f.id && c.kind === 'folder'))!;
    const deepChild = all.find((c) => c.parentId === deep.id && c.kind === 'folder')!;
    const files = all.filter((i) => i.kind === 'file');
    const toModify = files[0];
    const toMove = files[1];
    const toRename = files[2];
    const doomedFolder = folders.find(
      (f) =>
        f.id !== deep.id &&
        f.id !== deepChild.id &&
        !sb.pathOf(owner.id, deepChild.id).startsWith(sb.pathOf(owner.id, f.id)),
    )!;
    const doomedDescendants = all.filter((i) =>
      sb.pathOf(owner.id, i.id).startsWith(`${sb.pathOf(owner.id, doomedFolder.id)}/`),
    );

    const added = sb.mutate.addFile(owner.id, deepChild.id, 'new evidence.txt', Buffer.from('fresh bytes'));
    const oldHash = toModify.quickXorHash;
    sb.mutate.modifyFile(owner.id, toModify.id, Buffer.from('changed content'));
    sb.mutate.moveItem(owner.id, toMove.id, deepChild.id);
    sb.mutate.renameItem(owner.id, toRename.id, 'renamed.txt');
    sb.mutate.deleteItem(owner.id, doomedFolder.id);

    const changes = await round(first.deltaLink);
    const byId = new Map(changes.items.map((i) => [i.id, i]));
    expect(byId.get(added.id)).toMatchObject({
      name: 'new evidence.txt',
      size: 11,
      parentReference: { id: deepChild.id },
    });
    expect(byId.get(toModify.id)!.file.hashes.quickXorHash).not.toBe(oldHash);
    expect(byId.get(toModify.id)!.file.hashes.quickXorHash).toBe(owner.drive!.items.get(toModify.id)!.quickXorHash);
    expect(byId.get(toMove.id)!.parentReference.id).toBe(deepChild.id);
    expect(byId.get(toRename.id)!.name).toBe('renamed.txt');
    // Ancestors of changed items come along so they can be placed.
    expect(byId.has(deep.id)).toBe(true);
    expect(byId.has(owner.drive!.rootId)).toBe(true);
    for (const gone of [doomedFolder, ...doomedDescendants]) {
      const entry = byId.get(gone.id)!;
      expect(entry.deleted).toEqual({ state: 'deleted' });
      expect(entry).not.toHaveProperty('name');
    }
    const untouched = files.filter((f) => ![toModify, toMove, toRename].includes(f) && !doomedDescendants.includes(f));
    for (const file of untouched) expect(byId.has(file.id)).toBe(false);

    const again = await round(changes.deltaLink);
    expect(again.items).toEqual([]);
  });

  it('answers 410 resyncRequired once when the token expired, with a Location that starts a full enumeration', async () => {
    const first = await round(initialUrl());
    sb.faults.deltaTokenExpired = true;
    const gone = await get(first.deltaLink);
    expect(gone.status).toBe(410);
    expect(gone.body.error.code).toBe('resyncRequired');
    expect(gone.body.error.innerError['request-id']).toEqual(expect.any(String));
    const location = gone.headers.get('location')!;
    expect(location.startsWith(`${sb.graphUrl}/`)).toBe(true);
    const resync = await round(location);
    expect(resync.items.map((i) => i.id).sort()).toEqual(
      sb
        .listItems(owner.id)
        .map((i) => i.id)
        .sort(),
    );
    expect(sb.faults.deltaTokenExpired).toBe(false);
    expect((await get(first.deltaLink)).status).toBe(200);
  });

  it('rejects a tampered token with 400', async () => {
    const first = await round(initialUrl());
    const tampered = first.deltaLink.replace(/token=([^&]+)/, (_m, t: string) => `token=${t.slice(0, -3)}xyz`);
    expect((await get(tampered)).status).toBe(400);
  });

  it('duplicate and empty-page faults: items repeat (same state) and a page may be empty but still have a nextLink', async () => {
    sb.faults.duplicateDeltaItems = true;
    sb.faults.emptyDeltaPages = true;
    const { items, pages } = await round(initialUrl());
    expect(pages[0].value).toEqual([]);
    expect(pages[0]['@odata.nextLink']).toEqual(expect.any(String));
    const ids = items.map((i) => i.id);
    expect(ids.length).toBeGreaterThan(new Set(ids).size);
    expect([...new Set(ids)].sort()).toEqual(
      sb
        .listItems(owner.id)
        .map((i) => i.id)
        .sort(),
    );
  });

  it('token=latest gives an empty page and a deltaLink from now', async () => {
    const latest = await get(`${initialUrl()}?token=latest`);
    expect(latest.body.value).toEqual([]);
    const folder = sb.listItems(owner.id).find((i) => i.kind === 'folder' && i.parentId !== null)!;
    const added = sb.mutate.addFolder(owner.id, folder.id, 'Later');
    const changes = await round(latest.body['@odata.deltaLink']);
    expect(changes.items.map((i) => i.id)).toContain(added.id);
    expect(changes.items.find((i) => i.id === added.id)!.folder).toEqual({ childCount: 0 });
  });

  it('charges 2 resource units without a token and 1 with one', async () => {
    const first = await get(initialUrl());
    expect(first.headers.get('x-ms-resource-unit')).toBe('2');
    const next = await get(first.body['@odata.nextLink']);
    expect(next.headers.get('x-ms-resource-unit')).toBe('1');
  });
});
