// Delta entries may or may not carry createdBy/lastModifiedBy (reference Correction G2): an item is read again
// only when its entry lacks them, and the collected metadata names its authors either way.
import { afterEach, describe, expect, it } from 'vitest';
import { startMicrosoftSandbox, type MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import { consentAndGetAppToken } from '../../sandbox/microsoft/testing.ts';
import { MiniEngine, pair, providerContext, selection, testConnector } from './onedrive-harness.ts';

let sandbox: MicrosoftSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

type Entry = { id: string; root?: unknown; deleted?: unknown; createdBy?: unknown; lastModifiedBy?: unknown };

/** Every entry of one delta round of the user's drive, as the wire has it (the oracle: no connector code). */
async function deltaRound(
  sb: MicrosoftSandbox,
  userId: string,
  from?: string,
): Promise<{ entries: Entry[]; deltaLink: string }> {
  const token = await consentAndGetAppToken(sb);
  const entries: Entry[] = [];
  let link = from ?? `${sb.graphUrl}/users/${userId}/drive/root/delta`;
  for (;;) {
    const page = (await (await fetch(link, { headers: { authorization: `Bearer ${token}` } })).json()) as {
      value: Entry[];
      '@odata.nextLink'?: string;
      '@odata.deltaLink'?: string;
    };
    entries.push(...page.value);
    if (page['@odata.nextLink']) link = page['@odata.nextLink'];
    else return { entries, deltaLink: page['@odata.deltaLink']! };
  }
}

const lacksAuthors = (e: Entry) =>
  !e.root && !e.deleted && (e.createdBy === undefined || e.lastModifiedBy === undefined);
/** GET …/items/{id}: a single item read (not its content, children or delta). */
const itemReads = (sb: MicrosoftSandbox, from: number) =>
  sb.requests.slice(from).filter((r) => r.host === 'graph' && /\/items\/[^/]+$/.test(r.path.split('?')[0])).length;
const who = (identity: { user: { id: string; displayName: string; email: string } }) => ({
  id: identity.user.id,
  display_name: identity.user.displayName,
  email: identity.user.email,
});

describe.each(['include', 'omit', 'vary'] as const)('delta entries that %s their authors', (deltaAuthors) => {
  it('reads an item again only when delta left its authors out, and every item names its authors', async () => {
    sandbox = await startMicrosoftSandbox({
      seed: 31,
      users: 2,
      usersWithoutDrive: 0,
      folderDepth: 2,
      filesPerFolder: 3,
      fileSize: 2000,
      deltaAuthors,
    });
    const sb = sandbox;
    const alice = sb.tenant.users[0].id;
    const connector = testConnector(sb);
    const e = new MiniEngine(connector, providerContext(connector, await pair(connector)));

    const wire = await deltaRound(sb, alice);
    const missing = wire.entries.filter(lacksAuthors).length;
    const live = wire.entries.filter((x) => !x.root).length;
    if (deltaAuthors === 'include') expect(missing).toBe(0);
    if (deltaAuthors === 'omit') expect(missing).toBe(live);
    if (deltaAuthors === 'vary') {
      expect(missing).toBeGreaterThan(0);
      expect(missing).toBeLessThan(live);
    }

    let mark = sb.requests.length;
    await e.run({ [alice]: selection({ all: true }) });
    expect(itemReads(sb, mark)).toBe(missing);
    const check = () => {
      const stored = [...e.stored.values()].filter((s) => s.input.custodian === alice);
      expect(stored.length).toBe(live);
      for (const s of stored) {
        const item = sb.listItems(alice).find((i) => i.id === s.input.sourceId)!;
        expect(s.input.metadata).toMatchObject({
          created_by: who(item.createdBy),
          last_modified_by: who(item.lastModifiedBy),
        });
        if (s.input.kind === 'file') expect(s.verified).toBe(true);
      }
    };
    check();

    // A change round: the changed files (their unchanged ancestors are no news) are read again only when needed.
    const files = sb
      .listItems(alice)
      .filter((i) => i.kind === 'file')
      .slice(0, 4);
    const before = await deltaRound(sb, alice);
    for (const f of files) sb.mutate.modifyFile(alice, f.id);
    const changed = (await deltaRound(sb, alice, before.deltaLink)).entries.filter((x) =>
      files.some((f) => f.id === x.id),
    );
    expect(changed).toHaveLength(files.length);
    mark = sb.requests.length;
    await e.run({ [alice]: selection({ all: true }) });
    expect(itemReads(sb, mark)).toBe(changed.filter(lacksAuthors).length);
    check();
  });
});
