import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import type { CollectContext, CollectEvent, Connector, Grant, UnitSpec } from '../../src/connectors/types.ts';
import { ALL_CHATS, filters, pair, sel, session, testConnector } from './zoom-harness.ts';

/**
 * One-to-one conversations between two selected owners in a run fanned out into units (one per owner): each is
 * collected once, by whichever unit lists it first (a claim), and never lost because the other owner's unit fails.
 */
describe('Zoom one-to-one conversations across the units of a run', () => {
  let sandbox: ZoomSandbox;
  let connector: Connector;
  let grant: Grant;

  beforeAll(async () => {
    sandbox = await startZoomSandbox({ seed: 11, users: 4, meetingsPerUser: 1, channels: 1 });
    connector = testConnector(sandbox);
    grant = await pair(connector);
  });
  afterAll(() => sandbox?.close());

  /** The run's claims (what unit_claims holds): the first unit to claim a piece keeps it. */
  function claims() {
    const held = new Map<string, string>();
    return (unit: string) => async (piece: string) => {
      if (!held.has(piece)) held.set(piece, unit);
      return held.get(piece) === unit;
    };
  }

  async function unitRun(unit: string, plan: UnitSpec[], claim: (piece: string) => Promise<boolean>) {
    const ctx: CollectContext = {
      ...session(connector, grant).ctx,
      collectionId: 'col_units',
      filters: filters({ account_owners: sel({ all: true }), chats: ALL_CHATS }),
      checkpoint: null,
      cursors: null,
      scope: [unit],
      units: plan,
      claim,
    };
    const events: CollectEvent[] = [];
    for await (const ev of connector.collect(ctx)) events.push(ev);
    return events;
  }
  const messagesIn = (events: CollectEvent[], ids: Set<string>) =>
    events
      .filter((e) => e.type === 'item' && ids.has(e.item.sourceId))
      .map((e) => (e as { item: { sourceId: string } }).item.sourceId);

  it('collects each conversation between two owners once, in whichever unit lists it first, whatever the order', async () => {
    const plan = sandbox.tenant.users
      .filter((u) => u.status !== 'pending')
      .map((u) => ({ key: u.id, kind: 'custodian' as const, email: u.email }));
    const shared = sandbox.tenant.oneToOne.filter(
      (c) => c.messages.length > 0 && c.userIds.every((id) => plan.some((p) => p.key === id)),
    );
    expect(shared.length).toBeGreaterThan(0);
    const ids = new Set(shared.flatMap((c) => c.messages.map((m) => m.id)));
    for (const order of [
      plan.map((p) => p.key).sort(),
      plan
        .map((p) => p.key)
        .sort()
        .reverse(),
    ]) {
      const claim = claims();
      const collected: string[] = [];
      for (const unit of order) collected.push(...messagesIn(await unitRun(unit, plan, claim(unit)), ids));
      expect(collected.sort()).toEqual([...ids].sort());
    }
  });

  it('an owner deleted after the plan does not take the conversations with the other owners away', async () => {
    const plan = sandbox.tenant.users
      .filter((u) => u.status !== 'pending')
      .map((u) => ({ key: u.id, kind: 'custodian' as const, email: u.email }));
    const conversation = sandbox.tenant.oneToOne.find(
      (c) => c.messages.length > 0 && c.userIds.every((id) => plan.some((p) => p.key === id)),
    )!;
    const [first, second] = [...conversation.userIds].sort() as [string, string];
    const ids = new Set(conversation.messages.map((m) => m.id));
    sandbox.deleteUser(first);
    const claim = claims();
    // the deleted owner's unit stops on its user being gone; the other owner's unit collects the conversation
    const gone = await unitRun(first, plan, claim(first));
    expect(gone.some((e) => e.type === 'error' && /deleted/.test(e.reason))).toBe(true);
    expect(messagesIn(await unitRun(second, plan, claim(second)), ids).sort()).toEqual([...ids].sort());
  });
});
