import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMicrosoftSandbox, type MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import type { Connector, Grant } from '../../src/connectors/types.ts';
import { quickXorHashBase64 } from '../../src/connectors/onedrive/quickxorhash.ts';
import {
  MiniEngine,
  descendantsOf,
  pair,
  providerContext,
  sandboxItems,
  selection,
  testConnector,
} from './onedrive-harness.ts';

let sandbox: MicrosoftSandbox;
let connector: Connector;
let grant: Grant;
let alice: string;
let bob: string;
let carol: string;
let driveless: string;

const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
const topFolders = (userId: string) =>
  sandbox
    .listItems(userId)
    .filter((i) => i.kind === 'folder' && i.parentId !== null && sandbox.listItems(userId)[0].id === i.parentId);

beforeAll(async () => {
  sandbox = await startMicrosoftSandbox({ seed: 7, users: 4, usersWithoutDrive: 1, deltaPageSize: 7 });
  connector = testConnector(sandbox);
  grant = await pair(connector);
  [alice, bob, carol, driveless] = sandbox.tenant.users.map((u) => u.id);
});

afterAll(async () => {
  await sandbox?.close();
});

function engine() {
  return new MiniEngine(connector, providerContext(connector, grant));
}

describe('OneDrive collection by filters', () => {
  it('collects a whole drive minus an excluded subtree, with paths, hashes and content', async () => {
    const excluded = topFolders(alice)[0];
    const skip = descendantsOf(sandbox, alice, excluded.id);
    const e = engine();
    const run = await e.run({ [alice]: selection({ all: true, excluded: [excluded.id] }) });

    const expected = sandboxItems(sandbox, alice).filter((i) => !skip.has(i.id));
    expect(run.errors).toEqual([]);
    expect(new Set(run.items.map((i) => i.sourceId))).toEqual(new Set(expected.map((i) => i.id)));
    for (const want of expected) {
      const got = run.items.find((i) => i.sourceId === want.id)!;
      expect({ kind: got.kind, path: got.path, custodian: got.custodian }).toEqual({
        kind: want.kind,
        path: want.path,
        custodian: alice,
      });
    }
    const files = e.files();
    expect(files.length).toBe(expected.filter((i) => i.kind === 'file').length);
    for (const f of files) {
      const bytes = sandbox.contentOf(alice, f.input.sourceId);
      expect(f.sha256).toBe(sha256(bytes));
      expect(f.verified).toBe(true);
      expect(f.actualHash).toBe(quickXorHashBase64(bytes));
      expect(f.input.size).toBe(bytes.length);
      // The content's own hash is the version (delta never carries the cTag on ODB).
      expect(f.input.version).toBe(quickXorHashBase64(bytes));
      expect(f.input.metadata.created_by).toMatchObject({ id: alice });
      expect(f.input.mimeType).toBeTruthy();
    }
    expect(run.checkpoints).toBeGreaterThan(2);
    // The bearer token never travels to the download host.
    expect(sandbox.requests.filter((r) => r.host === 'download' && r.auth !== undefined)).toEqual([]);
  });

  it('collects only the selected folders and everything beneath them', async () => {
    const [first] = topFolders(bob);
    const nested = sandbox.listItems(bob).find((i) => i.kind === 'folder' && i.parentId === topFolders(bob)[1].id)!;
    const want = new Set([...descendantsOf(sandbox, bob, first.id), ...descendantsOf(sandbox, bob, nested.id)]);
    const run = await engine().run({ [bob]: selection({ selected: [first.id, nested.id] }) });
    expect(new Set(run.items.map((i) => i.sourceId))).toEqual(want);
    const nestedItem = run.items.find((i) => i.sourceId === nested.id)!;
    expect(nestedItem.path).toBe(sandbox.itemPathOf(bob, nested.id));
  });

  it('keeps each user to their own selection and never touches users absent from the filters', async () => {
    const before = sandbox.requests.length;
    const aliceFolder = topFolders(alice)[1];
    const carolExcluded = topFolders(carol)[0];
    const run = await engine().run({
      [alice]: selection({ selected: [aliceFolder.id] }),
      [carol]: selection({ all: true, excluded: [carolExcluded.id] }),
    });
    const aliceWant = descendantsOf(sandbox, alice, aliceFolder.id);
    const carolSkip = descendantsOf(sandbox, carol, carolExcluded.id);
    const carolWant = sandboxItems(sandbox, carol).filter((i) => !carolSkip.has(i.id));
    expect(new Set(run.items.filter((i) => i.custodian === alice).map((i) => i.sourceId))).toEqual(aliceWant);
    expect(new Set(run.items.filter((i) => i.custodian === carol).map((i) => i.sourceId))).toEqual(
      new Set(carolWant.map((i) => i.id)),
    );
    expect(run.items.every((i) => i.custodian === alice || i.custodian === carol)).toBe(true);
    const bobDrive = sandbox.tenant.users.find((u) => u.id === bob)!.drive!.id;
    const touchedBob = sandbox.requests.slice(before).filter((r) => r.path.includes(bob) || r.path.includes(bobDrive));
    expect(touchedBob).toEqual([]);
    expect(Object.keys((run.cursors as { users: object }).users).sort()).toEqual([alice, carol].sort());
  });

  it('reports a selected user without a OneDrive as an error and collects the others', async () => {
    const run = await engine().run({
      [driveless]: selection({ all: true }),
      [bob]: selection({ all: true }),
    });
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0].sourceId).toBe(driveless);
    expect(run.errors[0].reason).toMatch(/no provisioned OneDrive/);
    expect(run.items.filter((i) => i.custodian === bob)).toHaveLength(sandboxItems(sandbox, bob).length);
    expect(Object.keys((run.cursors as { users: object }).users)).toEqual([bob]);
  });

  it('resumes an interrupted run from its last checkpoint without enumerating again', async () => {
    const e = engine();
    const partial = await e.run({ [carol]: selection({ all: true }) }, { stopAfterCheckpoints: 1 });
    expect(partial.items.length).toBeGreaterThan(0);
    const before = sandbox.requests.length;
    const rest = await e.run({ [carol]: selection({ all: true }) }, { resume: true });
    const fresh = sandbox.requests.slice(before).filter((r) => r.path.endsWith(`/users/${carol}/drive/root/delta`));
    expect(fresh).toEqual([]);
    const all = new Set([...partial.items, ...rest.items].map((i) => i.sourceId));
    expect(all).toEqual(new Set(sandboxItems(sandbox, carol).map((i) => i.id)));
    expect(rest.cursors).toBeTruthy();
  });

  it('charges SharePoint resource units: 2 for a token-less delta, 1 per delta page with a token, item read and download', async () => {
    const ctx = providerContext(connector, grant);
    const charged: Array<{ path: string; cost: number | undefined }> = [];
    const http = ctx.http as unknown as Record<
      'json' | 'stream',
      (url: string, opts?: { cost?: number }) => Promise<unknown>
    >;
    for (const method of ['json', 'stream'] as const) {
      const original = http[method].bind(ctx.http);
      http[method] = (url, opts) => {
        charged.push({ path: new URL(url).pathname.replace(/^\/v1\.0/, ''), cost: opts?.cost });
        return original(url, opts);
      };
    }
    const e = new MiniEngine(connector, ctx);
    await e.run({ [bob]: selection({ all: true }) });
    const tokenless = charged.filter((c) => c.path === `/users/${bob}/drive/root/delta`);
    expect(tokenless).toEqual([{ path: `/users/${bob}/drive/root/delta`, cost: 2 }]);
    const withToken = charged.filter((c) => c.path.endsWith('/root/delta') && !c.path.startsWith('/users/'));
    expect(withToken.length).toBeGreaterThan(0);
    expect(withToken.every((c) => c.cost === 1)).toBe(true);
    expect(charged.filter((c) => /\/items\/[^/]+(\/content)?$/.test(c.path)).every((c) => c.cost === 1)).toBe(true);
    // Each file is one request to its listed download URL (reference §2.7), charged like /content was.
    const downloads = charged.filter((c) => c.path.endsWith('/_layouts/15/download.aspx'));
    expect(downloads).toHaveLength(e.files().length);
    expect(downloads.every((c) => c.cost === 1)).toBe(true);
    expect(charged.filter((c) => c.path.endsWith('/content'))).toEqual([]);
  });
});
