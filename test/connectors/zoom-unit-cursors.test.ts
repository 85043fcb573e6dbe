import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import type { CollectContext, Connector, Grant, UnitSpec } from '../../src/connectors/types.ts';
import { ALL_CHATS, filters, pair, sel, session, testConnector } from './zoom-harness.ts';

/**
 * The marks a fanned-out run leaves for the next one (what the no-change re-run of thousands of owners starts from):
 * each unit hands over only what it changed, and the run's end puts them together with what the previous run left.
 */
describe('the cursors of a Zoom run fanned out into units', () => {
  let sandbox: ZoomSandbox;
  let connector: Connector;
  let grant: Grant;

  beforeAll(async () => {
    sandbox = await startZoomSandbox({ seed: 11, users: 4, meetingsPerUser: 1, channels: 2 });
    connector = testConnector(sandbox);
    grant = await pair(connector);
  });
  afterAll(() => sandbox?.close());

  it("each unit hands over its own owner's mark and the channels it collected, not every mark the run started from", async () => {
    const plan: UnitSpec[] = sandbox.tenant.users
      .filter((u) => u.status !== 'pending')
      .map((u) => ({ key: u.id, kind: 'custodian', email: u.email }));
    const before = Date.parse('2026-01-01T00:00:00Z');
    // The previous run's marks (the stored cursors' version 2 format): these owners, 300 owners no longer selected,
    // and a channel nobody collects now.
    const others = Array.from({ length: 300 }, (_, i) => `gone-${i}`);
    const previous = {
      v: 2,
      owners: Object.fromEntries([...plan.map((p) => p.key), ...others].map((id) => [id, before])),
      channels: { 'old-channel': before },
    };
    const held = new Map<string, string>();
    const parts: Array<{ unit: string; cursors: unknown }> = [];
    for (const { key } of plan) {
      const ctx: CollectContext = {
        ...session(connector, grant).ctx,
        collectionId: 'col_unit_cursors',
        filters: filters({ account_owners: sel({ all: true }), chats: ALL_CHATS }),
        checkpoint: null,
        cursors: previous,
        scope: [key],
        units: plan,
        claim: async (piece) => (held.get(piece) ?? (held.set(piece, key), key)) === key,
      };
      let cursors: unknown;
      for await (const ev of connector.collect(ctx)) if (ev.type === 'cursors') cursors = ev.value;
      const part = cursors as { owners: Record<string, number>; channels: Record<string, number> };
      expect(Object.keys(part.owners)).toEqual([key]);
      expect(part.owners[key]).toBeGreaterThan(before);
      // the channels this unit claimed, and no other
      const claimed = [...held].filter(([, unit]) => unit === key).map(([piece]) => piece);
      expect(Object.keys(part.channels).sort()).toEqual(claimed.filter((p) => p in part.channels).sort());
      expect(Object.keys(part.channels).every((id) => sandbox.tenant.channels.some((c) => c.id === id))).toBe(true);
      parts.push({ unit: key, cursors: JSON.parse(JSON.stringify(part)) });
    }
    const merged = connector.units!.mergeCursors(previous, parts, false) as {
      owners: Record<string, number>;
      channels: Record<string, number>;
    };
    // every selected owner collected by this run; owners no longer selected are dropped, as by a run in one job
    expect(Object.keys(merged.owners).sort()).toEqual(plan.map((p) => p.key).sort());
    expect(Object.values(merged.owners).every((mark) => mark > before)).toBe(true);
    // the channel nobody collected keeps its mark; those collected have this run's
    const collected = sandbox.tenant.channels.filter((c) => c.id in merged.channels).map((c) => c.id);
    expect(collected.length).toBeGreaterThan(0);
    expect(merged.channels['old-channel']).toBe(before);
    for (const id of collected) expect(merged.channels[id]).toBeGreaterThan(before);
  });
});
