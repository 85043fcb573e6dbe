import crypto from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startMicrosoftSandbox, type MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import type { Connector, Grant } from '../../src/connectors/types.ts';
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

const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

beforeEach(async () => {
  sandbox = await startMicrosoftSandbox({ seed: 11, users: 3, usersWithoutDrive: 1, deltaPageSize: 6 });
  connector = testConnector(sandbox);
  grant = await pair(connector);
  [alice, bob] = sandbox.tenant.users.map((u) => u.id);
});

afterEach(async () => {
  await sandbox?.close();
});

function children(userId: string, parentId: string, kind: 'file' | 'folder') {
  return sandbox.listItems(userId).filter((i) => i.parentId === parentId && i.kind === kind);
}
const rootOf = (userId: string) => sandbox.listItems(userId)[0].id;

/** The engine's store must now mirror the sandbox: same ids, paths and bytes. */
function expectMirror(e: MiniEngine, userId: string, want: Set<string>, kept: Set<string> = new Set()) {
  const stored = [...e.stored.values()].filter((s) => s.input.custodian === userId);
  expect(new Set(stored.map((s) => s.input.sourceId))).toEqual(new Set([...want, ...kept]));
  for (const s of stored.filter((s) => !kept.has(s.input.sourceId))) {
    expect(s.input.path).toBe(sandbox.itemPathOf(userId, s.input.sourceId));
    if (s.input.kind === 'file') {
      expect(s.sha256).toBe(sha256(sandbox.contentOf(userId, s.input.sourceId)));
      expect(s.verified).toBe(true);
    }
  }
}

const downloadsSince = (mark: number) =>
  sandbox.requests.slice(mark).filter((r) => r.host === 'download' && r.status === 200).length;

describe('OneDrive incremental collection', () => {
  it('fetches only the changes on a second run: added, modified, deleted, moved and renamed items', async () => {
    const [excluded, kept] = children(alice, rootOf(alice), 'folder');
    const filters = { [alice]: selection({ all: true, excluded: [excluded.id] }) };
    const e = new MiniEngine(connector, providerContext(connector, grant));
    const first = await e.run(filters);
    expect(first.errors).toEqual([]);

    const [keptA, keptB] = children(alice, kept.id, 'folder');
    const [modified, deleted, movedOut, renamed] = [
      ...children(alice, kept.id, 'file'),
      ...children(alice, keptA.id, 'file'),
    ];
    const movedIn = children(alice, excluded.id, 'file')[0];
    const excludedSub = children(alice, excluded.id, 'folder')[0];
    const added = sandbox.mutate.addFile(alice, keptA.id, 'new notes.txt', Buffer.from('brand new'));
    sandbox.mutate.modifyFile(alice, modified.id, Buffer.from('changed content'));
    sandbox.mutate.deleteItem(alice, deleted.id);
    sandbox.mutate.moveItem(alice, movedOut.id, excluded.id, 'moved out.bin');
    sandbox.mutate.moveItem(alice, movedIn.id, kept.id, 'moved in.bin');
    sandbox.mutate.renameItem(alice, keptA.id, 'Renamed');
    // A file renamed and moved within the selection keeps its content: no download, only a new path.
    sandbox.mutate.moveItem(alice, renamed.id, kept.id, 'renamed file.bin');
    const leaving = descendantsOf(sandbox, alice, keptB.id);
    sandbox.mutate.moveItem(alice, keptB.id, excluded.id, 'Moved away');
    const outOfScopeDeleted = descendantsOf(sandbox, alice, excludedSub.id);
    sandbox.mutate.deleteItem(alice, excludedSub.id);

    const mark = sandbox.requests.length;
    const second = await e.run(filters);
    expect(second.errors).toEqual([]);
    expect(second.items.find((i) => i.sourceId === renamed.id)?.path).toBe(sandbox.itemPathOf(alice, renamed.id));
    // Added, modified and moved-in files are the only downloads.
    expect(second.downloads).toBe(3);
    expect(downloadsSince(mark)).toBe(3);
    // Only the stored deltaLink was used: no new full enumeration.
    expect(sandbox.requests.slice(mark).filter((r) => r.path === `/v1.0/users/${alice}/drive/root/delta`)).toEqual([]);
    const deletedIds = new Set(second.deleted.map((d) => d.sourceId));
    expect(deletedIds.has(deleted.id)).toBe(true);
    // Moved out of the selection is not deleted at the source: what was collected of it stays as collected.
    for (const id of [movedOut.id, ...leaving, ...outOfScopeDeleted]) expect(deletedIds.has(id)).toBe(false);
    expect(second.items.find((i) => i.sourceId === added.id)?.path).toBe(sandbox.itemPathOf(alice, added.id));
    // The renamed folder's descendants are placed under the new name.
    for (const child of children(alice, keptA.id, 'file')) {
      expect(second.items.find((i) => i.sourceId === child.id)?.path).toMatch(/\/Renamed\//);
    }

    const skip = descendantsOf(sandbox, alice, excluded.id);
    expectMirror(
      e,
      alice,
      new Set(
        sandboxItems(sandbox, alice)
          .filter((i) => !skip.has(i.id))
          .map((i) => i.id),
      ),
      new Set([movedOut.id, ...leaving]),
    );

    const third = await e.run(filters);
    expect(third.items).toEqual([]);
    expect(third.deleted).toEqual([]);
  });

  it('asks only for the delta when nothing changed, and reads the owner again once their drive changes', async () => {
    const filters = { [alice]: selection({ all: true }), [bob]: selection({ all: true }) };
    const e = new MiniEngine(connector, providerContext(connector, grant));
    expect((await e.run(filters)).errors).toEqual([]);
    const graphPaths = (mark: number) =>
      sandbox.requests
        .slice(mark)
        .filter((r) => r.host === 'graph')
        .map((r) => r.path);
    const directoryReads = (paths: string[], userId: string) => paths.filter((p) => p === `/v1.0/users/${userId}`);

    // Graph's delta: the stored deltaLink answers "no changes" in one page; the issue allows one request per user.
    let mark = sandbox.requests.length;
    const quiet = await e.run(filters);
    expect(quiet.items).toEqual([]);
    let paths = graphPaths(mark);
    expect(paths).toHaveLength(2);
    expect(paths.every((p) => p.endsWith('/delta'))).toBe(true);

    const renamed = sandbox.tenant.users.find((u) => u.id === alice)!;
    renamed.displayName = 'Alice Renamed';
    const added = sandbox.mutate.addFile(alice, rootOf(alice), 'after the rename.txt', Buffer.from('new'));
    mark = sandbox.requests.length;
    const changed = await e.run(filters);
    paths = graphPaths(mark);
    expect(directoryReads(paths, alice)).toHaveLength(1);
    expect(directoryReads(paths, bob)).toEqual([]);
    expect(changed.items.find((i) => i.sourceId === added.id)?.custodianName).toBe('Alice Renamed');
  });

  it('collects a folder moved into a selected folder and re-paths a renamed selected folder', async () => {
    const [selected, other] = children(bob, rootOf(bob), 'folder');
    const filters = { [bob]: selection({ selected: [selected.id] }) };
    const e = new MiniEngine(connector, providerContext(connector, grant));
    await e.run(filters);

    const incoming = children(bob, other.id, 'folder')[0];
    const incomingFiles = [...descendantsOf(sandbox, bob, incoming.id)].filter(
      (id) => sandbox.listItems(bob).find((i) => i.id === id)?.kind === 'file',
    );
    sandbox.mutate.moveItem(bob, incoming.id, selected.id, 'Moved in');
    sandbox.mutate.renameItem(bob, selected.id, 'Selected renamed');

    const second = await e.run(filters);
    expect(second.errors).toEqual([]);
    expect(second.downloads).toBe(incomingFiles.length);
    expectMirror(e, bob, descendantsOf(sandbox, bob, selected.id));
  });

  it('starts over after a 410 on the stored deltaLink without downloading unchanged files again', async () => {
    const filters = { [alice]: selection({ all: true }) };
    const e = new MiniEngine(connector, providerContext(connector, grant));
    await e.run(filters);
    const doomed = children(alice, rootOf(alice), 'folder')[0];
    sandbox.mutate.deleteItem(alice, doomed.id);
    sandbox.faults.deltaTokenExpired = true;

    const mark = sandbox.requests.length;
    const second = await e.run(filters);
    const requests = sandbox.requests.slice(mark);
    expect(requests.some((r) => r.status === 410)).toBe(true);
    expect(requests.filter((r) => r.path === `/v1.0/users/${alice}/drive/root/delta`)).toHaveLength(1);
    expect(second.downloads).toBe(0);
    expect(second.deleted).toContainEqual({ kind: 'folder', sourceId: doomed.id });
    expect(second.errors).toEqual([]);

    const third = await e.run(filters);
    expect(third.items).toEqual([]);
  });

  it('keeps the last occurrence of repeated delta items and survives empty pages', async () => {
    sandbox.faults.duplicateDeltaItems = true;
    sandbox.faults.emptyDeltaPages = true;
    const e = new MiniEngine(connector, providerContext(connector, grant));
    const run = await e.run({ [bob]: selection({ all: true }) });
    const ids = run.items.map((i) => i.sourceId);
    expect(new Set(ids).size).toBe(ids.length);
    expectMirror(e, bob, new Set(sandboxItems(sandbox, bob).map((i) => i.id)));
  });
});
