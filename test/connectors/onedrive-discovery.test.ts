import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMicrosoftSandbox, type MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import type { Connector, ProviderContext } from '../../src/connectors/types.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { pair, providerContext, testConnector } from './onedrive-harness.ts';

let sandbox: MicrosoftSandbox;
let connector: Connector;
let ctx: ProviderContext;

interface UsersPage {
  entries: Array<Record<string, string | null>>;
  limit: number;
  next_marker: string | null;
}
interface FoldersPage {
  results: Array<{
    id: string;
    name: string;
    link: string;
    size: number;
    created_datetime: string;
    last_modified_datetime: string;
    sorted_path_elements: Array<{ id: string; name: string }>;
  }>;
  total_count_label: string;
  _next: string | null;
}

beforeAll(async () => {
  sandbox = await startMicrosoftSandbox({
    seed: 5,
    users: 7,
    usersWithoutDrive: 2,
    folderDepth: 3,
    foldersPerLevel: 3,
  });
  connector = testConnector(sandbox);
  ctx = providerContext(connector, await pair(connector));
});

afterAll(async () => {
  await sandbox?.close();
});

const users = (query: Record<string, string | undefined>) =>
  connector.discovery.users!(ctx, query) as Promise<UsersPage>;
const folders = (query: Record<string, string | undefined>) =>
  connector.discovery.folders!(ctx, query) as Promise<FoldersPage>;
const rejection = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as DomainError,
  );

describe('OneDrive discovery: users', () => {
  it('lists the tenant users in the spec shape, 100 by default', async () => {
    const page = await users({});
    expect(page.limit).toBe(100);
    expect(page.next_marker).toBeNull();
    expect(page.entries.map((e) => e.id)).toEqual(sandbox.tenant.users.map((u) => u.id));
    const first = sandbox.tenant.users[0];
    expect(page.entries[0]).toEqual({
      id: first.id,
      display_name: first.displayName,
      mail: first.mail,
      user_principal_name: first.userPrincipalName,
      job_title: first.jobTitle,
      department: first.department,
      office_location: first.officeLocation,
    });
  });

  it('pages with limit and next_marker until null, and clamps limit to 999', async () => {
    const seen: string[] = [];
    let marker: string | undefined;
    for (let i = 0; i < 10; i++) {
      const page = await users({ limit: '3', marker });
      expect(page.limit).toBe(3);
      seen.push(...page.entries.map((e) => e.id as string));
      if (!page.next_marker) break;
      marker = page.next_marker;
    }
    expect(seen).toEqual(sandbox.tenant.users.map((u) => u.id));
    expect((await users({ limit: '5000' })).limit).toBe(999);
    expect((await rejection(users({ limit: 'ten' })))?.status).toBe(400);
  });

  it('refuses a marker that does not lead back to the Graph users endpoint', async () => {
    const foreign = Buffer.from(JSON.stringify('http://attacker.example/v1.0/users?$skiptoken=x')).toString(
      'base64url',
    );
    for (const marker of [
      foreign,
      'not a marker',
      Buffer.from(JSON.stringify(`${sandbox.graphUrl}/users/x/drive`)).toString('base64url'),
    ]) {
      const error = await rejection(users({ marker }));
      expect(error).toBeInstanceOf(DomainError);
      expect(error?.status).toBe(400);
    }
  });
});

describe('OneDrive discovery: folders', () => {
  const owner = () => sandbox.tenant.users[0].id;
  const folderChildren = (parentId: string) =>
    sandbox.listItems(owner()).filter((i) => i.parentId === parentId && i.kind === 'folder');

  it('lists the folders directly under the drive root', async () => {
    const root = sandbox.listItems(owner())[0];
    const page = await folders({ user_id: owner() });
    const want = folderChildren(root.id);
    expect(page.results.map((r) => r.id)).toEqual(want.map((f) => f.id));
    expect(page._next).toBeNull();
    expect(page.total_count_label).toBe(`${want.length} folders`);
    expect(page.results[0]).toMatchObject({
      name: want[0].name,
      sorted_path_elements: [{ id: want[0].id, name: want[0].name }],
    });
    expect(page.results[0].link).toMatch(/^https:\/\//);
    expect(page.results[0].size).toBeGreaterThan(0);
    expect(page.results[0].created_datetime).toBe(want[0].createdDateTime);
  });

  it('browses below a folder with the path from the root to each folder', async () => {
    const root = sandbox.listItems(owner())[0];
    const top = folderChildren(root.id)[1];
    const mid = folderChildren(top.id)[2];
    const page = await folders({ user_id: owner(), parent_id: mid.id });
    const want = folderChildren(mid.id);
    expect(page.results.map((r) => r.id)).toEqual(want.map((f) => f.id));
    for (const r of page.results) {
      expect(r.sorted_path_elements).toEqual([
        { id: top.id, name: top.name },
        { id: mid.id, name: mid.name },
        { id: r.id, name: r.name },
      ]);
    }
  });

  it('answers 404 saying so for a user without a OneDrive, and for unknown users and folders', async () => {
    const driveless = sandbox.tenant.users.filter((u) => !u.drive);
    expect(driveless.length).toBe(2);
    for (const user of driveless) {
      const error = await rejection(folders({ user_id: user.id }));
      expect(error?.status).toBe(404);
      expect(error?.detail).toMatch(/no provisioned OneDrive/);
    }
    expect((await rejection(folders({ user_id: '00000000-0000-0000-0000-000000000000' })))?.detail).toMatch(
      /not found in the tenant/,
    );
    expect((await rejection(folders({ user_id: owner(), parent_id: '01NOSUCHITEM' })))?.status).toBe(404);
  });

  it('requires user_id and refuses a cursor made for another user', async () => {
    const missing = await rejection(folders({}));
    expect(missing?.status).toBe(400);
    expect(missing?.field).toBe('user_id');
    const cursor = Buffer.from(
      JSON.stringify({ l: `${sandbox.graphUrl}/users/x/drive/root/children`, u: 'someone-else', p: null, e: [], c: 0 }),
    ).toString('base64url');
    expect((await rejection(folders({ user_id: owner(), cursor })))?.status).toBe(400);
  });
});

describe('OneDrive discovery: folder paging', () => {
  it('pages through more folders than one Graph page with _next as the cursor', async () => {
    const big = await startMicrosoftSandbox({
      seed: 9,
      users: 1,
      usersWithoutDrive: 0,
      folderDepth: 1,
      foldersPerLevel: 250,
      filesPerFolder: 1,
    });
    try {
      const c = testConnector(big);
      const bigCtx = providerContext(c, await pair(c));
      const userId = big.tenant.users[0].id;
      const seen: string[] = [];
      const labels: string[] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 10; i++) {
        const page = (await c.discovery.folders!(bigCtx, { user_id: userId, cursor })) as FoldersPage;
        seen.push(...page.results.map((r) => r.id));
        labels.push(page.total_count_label);
        if (!page._next) break;
        cursor = page._next;
      }
      const want = big.listItems(userId).filter((i) => i.kind === 'folder' && i.parentId !== null);
      expect(new Set(seen)).toEqual(new Set(want.map((f) => f.id)));
      expect(seen).toHaveLength(250);
      expect(labels).toEqual(['200+ folders', '250 folders']);
    } finally {
      await big.close();
    }
  });
});
