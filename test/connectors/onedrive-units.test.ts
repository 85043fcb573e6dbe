import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startMicrosoftSandbox, type MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import type { CollectEvent, Connector, Grant } from '../../src/connectors/types.ts';
import { MiniEngine, pair, providerContext, selection, testConnector } from './onedrive-harness.ts';

let sandbox: MicrosoftSandbox;
let connector: Connector;
let grant: Grant;
let users: string[];

beforeEach(async () => {
  sandbox = await startMicrosoftSandbox({ seed: 5, users: 4, usersWithoutDrive: 0, deltaPageSize: 50 });
  connector = testConnector(sandbox);
  grant = await pair(connector);
  users = sandbox.tenant.users.map((u) => u.id);
});

afterEach(async () => {
  await sandbox?.close();
});

/** `target` with every enumeration of its keys counted, and every property read by name. */
function watched<T extends object>(target: T) {
  const seen = { enumerations: 0, read: new Set<string>() };
  const proxy = new Proxy(target, {
    ownKeys(t) {
      seen.enumerations += 1;
      return Reflect.ownKeys(t);
    },
    get(t, key, receiver) {
      if (typeof key === 'string') seen.read.add(key);
      return Reflect.get(t, key, receiver) as unknown;
    },
    getOwnPropertyDescriptor(t, key) {
      if (typeof key === 'string') seen.read.add(key);
      return Reflect.getOwnPropertyDescriptor(t, key);
    },
  });
  return { proxy, seen };
}

describe('a OneDrive unit of a run fanned out per user', () => {
  // At 10,000 custodians every unit walking every user's filters and cursors made a run N² (#25).
  it("reads only its own user's filters and previous cursor, and its cursors hold only that user", async () => {
    const filters = Object.fromEntries(users.map((u) => [u, selection({ all: true })]));
    const first = await new MiniEngine(connector, providerContext(connector, grant)).run(filters);
    expect(first.errors).toEqual([]);
    const previous = first.cursors as { v: 1; users: Record<string, unknown> };
    expect(Object.keys(previous.users).sort()).toEqual([...users].sort());

    const me = users[2];
    const f = watched(filters);
    const c = watched(previous.users);
    const mark = sandbox.requests.length;
    const events: CollectEvent[] = [];
    for await (const ev of connector.collect({
      ...providerContext(connector, grant),
      collectionId: 'col_test',
      filters: f.proxy,
      checkpoint: null,
      cursors: { ...previous, users: c.proxy },
      scope: [me],
      units: users.map((key) => ({ key, kind: 'custodian' as const })),
    }))
      events.push(ev);

    const others = users.filter((u) => u !== me);
    expect([f.seen.enumerations, c.seen.enumerations]).toEqual([0, 0]);
    expect(others.filter((u) => f.seen.read.has(u) || c.seen.read.has(u))).toEqual([]);
    const cursors = events.filter((e) => e.type === 'cursors').map((e) => e.value as { users: object });
    expect(cursors.map((v) => Object.keys(v.users))).toEqual([[me]]);
    // a no-change unit: one delta request, from the previous run's link, and nothing else
    const graph = sandbox.requests.slice(mark).filter((r) => r.host === 'graph');
    expect(graph.map((r) => r.path.endsWith('/root/delta'))).toEqual([true]);
  });
});
