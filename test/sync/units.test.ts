import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CollectionRepo } from '../../src/store/collections.ts';
import { CursorRepo } from '../../src/store/items.ts';
import { RunRepo } from '../../src/store/runs.ts';
import { UnitJobRepo } from '../../src/store/unit-jobs.ts';
import { testDatabases } from '../support/databases.ts';
import { bytesOf, createFakeConnector, type FakeSource } from '../support/fake-connector.ts';
import { startItemsApp, type ItemsApp } from '../support/items-app.ts';
import { seedCollection } from '../support/sync-fixtures.ts';
import { NeedsUserActionError } from '../../src/domain/run-failures.ts';

type Json = Record<string, any>;
const file = (sourceId: string, custodian: string, size = 100) => ({
  kind: 'file',
  sourceId,
  custodian,
  content: bytesOf(sourceId, size),
});

/** Runs split into one unit job per custodian, executed in this process (the embedded default's unit model). */
for (const database of testDatabases) {
  describe(`runs split into unit jobs (${database.name})`, () => {
    let app: ItemsApp;
    let token: string;
    let source: FakeSource;
    const connector = createFakeConnector({ source: () => source, chunkSize: 1024, chunkDelayMs: 10, split: true });

    beforeAll(async () => {
      app = await startItemsApp(database, [connector]);
      token = await app.token('acme');
    });
    afterAll(async () => app?.close());

    const json = async (res: Response, status: number) => {
      expect(res.status).toBe(status);
      return (await res.json()) as Json;
    };
    /** Starts a run of a new collection; the planner fans it out. */
    const fannedOut = async () => {
      const { collectionId } = await seedCollection(app.ctx.db, { account: 'acme', sealer: app.ctx.sealer });
      const start = await json(await app.call(token, 'POST', `/v1/collections/${collectionId}/start`), 200);
      expect(await app.engine.runOnce(start.run_id)).toEqual({ status: 'fanned_out', error: null });
      return { collectionId, runId: start.run_id as string };
    };
    const runUnits = (runId: string, keys: string[]) => Promise.all(keys.map((k) => app.engine.runUnit(runId, k)));
    const latestRun = async (collectionId: string) =>
      (await json(await app.call(token, 'GET', `/v1/collections/${collectionId}/runs`), 200)).runs[0] as Json;
    const finished = async (collectionId: string) =>
      (await app.ctx.repos.events.listForCollection(collectionId, 0))
        .filter((e) => e.type === 'run.finished')
        .map((e) => (e.data as { status?: string }).status);

    it('fans a run out into one job per custodian; the last unit to end finishes the run, with every unit’s cursors', async () => {
      source = {
        units: ['u1', 'u2', 'u3'].map((key, i) => ({
          custodian: { key },
          items: [file(`f${i}`, key), file(`g${i}`, key)],
        })),
        cursors: 'mark-1',
      };
      const { collectionId, runId } = await fannedOut();
      const planned = await new UnitJobRepo(app.ctx.db).list(runId);
      expect(planned.map((u) => [u.unit_key, u.status])).toEqual([
        ['u1', 'queued'],
        ['u2', 'queued'],
        ['u3', 'queued'],
      ]);
      // The run is not claimable as one job any more; its units are.
      expect(await app.engine.claimableRunIds(10)).toEqual(['u1', 'u2', 'u3'].map((k) => `unit:${runId}:${k}`));

      const outcomes = await runUnits(runId, ['u1', 'u2', 'u3']);
      expect(outcomes.map((o) => o.status)).toEqual(['done', 'done', 'done']);
      expect(outcomes.filter((o) => (o as { last?: boolean }).last)).toHaveLength(1);
      const run = await latestRun(collectionId);
      expect([run.status, run.counters.collected, run.counters.listed]).toEqual(['succeeded', 6, 6]);
      const items = await json(await app.call(token, 'GET', `/v1/collections/${collectionId}/items`), 200);
      expect(items.items.map((i: Json) => i.source_id).sort()).toEqual(['f0', 'f1', 'f2', 'g0', 'g1', 'g2']);
      const c = await json(await app.call(token, 'GET', `/v1/collections/${collectionId}`), 200);
      expect(c.sync_status).toBe('synced');
      expect((await app.ctx.repos.cursors.get(collectionId))?.value).toEqual({
        u1: 'mark-1',
        u2: 'mark-1',
        u3: 'mark-1',
      });
      expect(await finished(collectionId)).toEqual(['succeeded']);
      const r = await json(
        await app.call(token, 'GET', `/v1/collections/${collectionId}/runs/${runId}/reconciliation`),
        200,
      );
      expect(r.balanced).toBe(true);
      expect((r.custodians as Json[]).map((x) => [x.custodian, x.listed, x.collected])).toEqual([
        ['u1', 2, 2],
        ['u2', 2, 2],
        ['u3', 2, 2],
      ]);
      // A unit job delivered again after the run ended does nothing.
      expect(await app.engine.runUnit(runId, 'u1')).toEqual({ status: 'not_claimed' });
    });

    // The run's row and the collection's carry the filters, a key per custodian: megabytes at 10,000 custodians.
    it("reads the run's row, the collection's filters and the previous cursors as often for 6 units as for 2", async () => {
      const reads = async (keys: string[]) => {
        source = { units: keys.map((key) => ({ custodian: { key }, items: [file(`${key}-f`, key)] })), cursors: 'm' };
        const { collectionId, runId } = await fannedOut();
        const spies = [
          vi.spyOn(RunRepo.prototype, 'get'),
          vi.spyOn(CollectionRepo.prototype, 'getById'),
          vi.spyOn(CollectionRepo.prototype, 'filtersOf'),
          vi.spyOn(CursorRepo.prototype, 'get'),
        ];
        try {
          const outcomes = await runUnits(runId, keys);
          expect(outcomes.map((o) => o.status)).toEqual(keys.map(() => 'done'));
          return spies.map((s) => s.mock.calls.filter(([id]) => id === runId || id === collectionId).length);
        } finally {
          for (const s of spies) s.mockRestore();
        }
      };
      const two = await reads(['a1', 'a2']);
      const six = await reads(['b1', 'b2', 'b3', 'b4', 'b5', 'b6']);
      expect(six).toEqual(two);
    });

    it('a cancel stops every unit: the run ends cancelled, keeps what was collected, reconciles the rest as not_reached', async () => {
      source = {
        units: [
          { custodian: { key: 'u1' }, items: [file('kept', 'u1', 1000)] },
          // Slow enough to be cancelled midway: 256 chunks, 10 ms apart.
          { custodian: { key: 'u2' }, items: [file('slow', 'u2', 256 * 1024)] },
          { custodian: { key: 'u3' }, items: [file('slower', 'u3', 300 * 1024)] },
        ],
      };
      const { collectionId, runId } = await fannedOut();
      const running = runUnits(runId, ['u1', 'u2', 'u3']);
      // Cancel once u1 has ended, while u2 and u3 download.
      for (let i = 0; i < 500; i++) {
        if ((await new UnitJobRepo(app.ctx.db).get(runId, 'u1'))?.status === 'done') break;
        await new Promise((r) => setTimeout(r, 10));
      }
      await json(await app.call(token, 'POST', `/v1/collections/${collectionId}/runs/${runId}/cancel`), 202);
      expect((await running).map((o) => o.status)).toEqual(['done', 'cancelled', 'cancelled']);
      const items = await json(await app.call(token, 'GET', `/v1/collections/${collectionId}/items`), 200);
      expect(items.items.map((i: Json) => i.source_id)).toEqual(['kept']);
      const r = await json(
        await app.call(token, 'GET', `/v1/collections/${collectionId}/runs/${runId}/reconciliation`),
        200,
      );
      expect(r.status).toBe('cancelled');
      const outcome = (c: string) =>
        (r.custodians as Json[]).find((x) => x.custodian === c)?.exceptions.map((e: Json) => e.outcome);
      expect([outcome('u1'), outcome('u2'), outcome('u3')]).toEqual([[], ['not_reached'], ['not_reached']]);
      expect((await new UnitJobRepo(app.ctx.db).list(runId)).map((u) => u.status)).toEqual([
        'done',
        'cancelled',
        'cancelled',
      ]);
      expect(await finished(collectionId)).toEqual(['cancelled']);
    });

    it("the run's totals on the API are what its units collected: live while a unit is midway, and once the run ended", async () => {
      // u2 flushes after its first 200 items (a page), then downloads a slow file: a unit midway with progress
      const small = Array.from({ length: 200 }, (_, i) => file(`s${i}`, 'u2', 10));
      source = {
        units: [
          { custodian: { key: 'u1' }, items: [file('a', 'u1', 1000)] },
          { custodian: { key: 'u2' }, items: [...small, file('big', 'u2', 300 * 1024)] },
        ],
      };
      const { collectionId, runId } = await fannedOut();
      const running = runUnits(runId, ['u1', 'u2']);
      const jobs = new UnitJobRepo(app.ctx.db);
      for (let i = 0; i < 500; i++) {
        const [u1, u2] = [await jobs.get(runId, 'u1'), await jobs.get(runId, 'u2')];
        if (u1?.status === 'done' && Number(u2?.collected) >= 200) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      const counters = async () => {
        const run = await json(await app.call(token, 'GET', `/v1/collections/${collectionId}/runs/${runId}`), 200);
        const c = await json(await app.call(token, 'GET', `/v1/collections/${collectionId}`), 200);
        const listed = (await latestRun(collectionId)).counters as Json;
        expect(c.latest_run.counters).toEqual(run.counters);
        expect(listed).toEqual(run.counters);
        // the manifest's runs too: its counters are the run's, with `errors` for error_count
        const manifest = await json(await app.call(token, 'GET', `/v1/collections/${collectionId}/manifest`), 200);
        const inManifest = (manifest.runs as Json[]).find((r) => r.run_id === runId)!;
        expect(inManifest.counters).toEqual({ ...run.counters, errors: run.error_count });
        return { ...(run.counters as Json), status: run.status as string } as Json;
      };
      const midway = await counters();
      expect(midway.status).toBe('running');
      expect([midway.collected, midway.bytes]).toEqual([201, 1000 + 200 * 10]);
      expect((await running).map((o) => o.status)).toEqual(['done', 'done']);
      const ended = await counters();
      expect([ended.status, ended.listed, ended.collected, ended.bytes]).toEqual([
        'succeeded',
        202,
        202,
        1000 + 200 * 10 + 300 * 1024,
      ]);
    });

    it('a cancelled unit tells its last progress: not_reached with its reconciliation numbers, before run.finished', async () => {
      source = {
        units: [
          { custodian: { key: 'u1' }, items: [file('kept', 'u1', 1000)] },
          // Slow enough to be cancelled midway: 256 chunks, 10 ms apart.
          { custodian: { key: 'u2' }, items: [file('slow', 'u2', 256 * 1024)] },
        ],
      };
      const { collectionId, runId } = await fannedOut();
      const running = runUnits(runId, ['u1', 'u2']);
      for (let i = 0; i < 500; i++) {
        if ((await new UnitJobRepo(app.ctx.db).get(runId, 'u1'))?.status === 'done') break;
        await new Promise((r) => setTimeout(r, 10));
      }
      await json(await app.call(token, 'POST', `/v1/collections/${collectionId}/runs/${runId}/cancel`), 202);
      expect((await running).map((o) => o.status)).toEqual(['done', 'cancelled']);
      const events = await app.ctx.repos.events.listForCollection(collectionId, 0);
      const progress = events.filter((e) => e.type === 'run.progress').map((e) => e.data as Json);
      const last = (c: string) => progress.filter((p) => p.custodian === c).at(-1);
      const r = await json(
        await app.call(token, 'GET', `/v1/collections/${collectionId}/runs/${runId}/reconciliation`),
        200,
      );
      const entry = (r.custodians as Json[]).find((x) => x.custodian === 'u2')!;
      expect(last('u1')?.status).toBe('done');
      expect(last('u2')).toMatchObject({
        run_id: runId,
        status: 'not_reached',
        listed: entry.listed,
        collected: entry.collected,
        failed: entry.failed,
      });
      // the stream tells the unit's end before the run's
      const seqOf = (pred: (e: (typeof events)[number]) => boolean) => events.findLastIndex(pred);
      expect(seqOf((e) => e.type === 'run.progress' && (e.data as Json).custodian === 'u2')).toBeLessThan(
        seqOf((e) => e.type === 'run.finished'),
      );
    });

    it('a unit that fails leaves the run completed_with_errors; all failing: failed; one needing a person: error', async () => {
      const cases: Array<[unknown[], string]> = [
        [[new Error('the provider fell over')], 'completed_with_errors'],
        [[new Error('down'), new Error('down'), new Error('down')], 'failed'],
        [[new NeedsUserActionError('re-pair credentials: consent revoked')], 'error'],
      ];
      for (const [errors, status] of cases) {
        source = {
          units: ['u1', 'u2', 'u3'].map((key, i) => ({
            custodian: { key },
            items: errors[i] ? [] : [file(`${status}${i}`, key)],
            throws: errors[i],
          })),
        };
        const { collectionId, runId } = await fannedOut();
        for (const k of ['u1', 'u2', 'u3']) await app.engine.runUnit(runId, k);
        const run = await latestRun(collectionId);
        expect(run.status, status).toBe(status);
        expect(await finished(collectionId)).toEqual([status]);
        // the failed unit's last progress says it ended, with its entry's numbers: the custodian itself, failed
        const progress = (await app.ctx.repos.events.listForCollection(collectionId, 0))
          .filter((e) => e.type === 'run.progress' && (e.data as { custodian: string }).custodian === 'u1')
          .at(-1)?.data;
        expect(progress, status).toMatchObject({
          custodian: 'u1',
          status: 'failed',
          listed: 1,
          collected: 0,
          failed: 1,
        });
      }
    });

    it('a unit claimed while its process shuts down is given back at once, its attempt not counted', async () => {
      source = { units: [{ custodian: { key: 'u1' }, items: [file('sd-0', 'u1')] }] };
      const { collectionId, runId } = await fannedOut();
      const stopped = new AbortController();
      stopped.abort();
      expect(await app.engine.runUnit(runId, 'u1', { signal: stopped.signal })).toEqual({ status: 'not_claimed' });
      const job = await new UnitJobRepo(app.ctx.db).get(runId, 'u1');
      expect(job?.attempt).toBe(0);
      expect(Date.parse(job!.lease_expires_at!)).toBeLessThanOrEqual(Date.now());
      // another process takes it up as its first attempt
      expect((await app.engine.runUnit(runId, 'u1')).status).toBe('done');
      expect((await new UnitJobRepo(app.ctx.db).get(runId, 'u1'))?.attempt).toBe(1);
      expect((await latestRun(collectionId)).status).toBe('succeeded');
    });

    it('a unit the database turned away (too many clients) is tried again from its checkpoint, up to 3 attempts', async () => {
      const overloaded = () => Object.assign(new Error('sorry, too many clients already'), { code: '53300' });
      /** As the sweep does: a unit whose lease was just released is taken again once claimable (a millisecond on). */
      const again = async (runId: string, key: string) => {
        for (let i = 0; ; i++) {
          const outcome = await app.engine.runUnit(runId, key);
          if (outcome.status !== 'not_claimed' || i === 50) return outcome.status;
          await new Promise((r) => setTimeout(r, 5));
        }
      };
      const units = (throws: unknown) =>
        ['u1', 'u2'].map((key) => ({
          custodian: { key },
          items: [file(`busy-${key}-${String(throws !== undefined)}`, key)],
          throws: key === 'u1' ? throws : undefined,
        }));
      // once: the second attempt collects it, and the run succeeds
      source = { units: units(overloaded()) };
      const first = await fannedOut();
      expect((await app.engine.runUnit(first.runId, 'u1')).status).toBe('interrupted');
      source = { units: units(undefined) };
      for (const k of ['u1', 'u2']) expect(await again(first.runId, k)).toBe('done');
      expect((await latestRun(first.collectionId)).status).toBe('succeeded');
      expect((await new UnitJobRepo(app.ctx.db).get(first.runId, 'u1'))?.attempt).toBe(2);
      // every time: the third attempt fails the custodian, as any other error would
      source = { units: units(overloaded()) };
      const always = await fannedOut();
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push(await again(always.runId, 'u1'));
      expect(statuses).toEqual(['interrupted', 'interrupted', 'failed']);
      await app.engine.runUnit(always.runId, 'u2');
      const run = await latestRun(always.collectionId);
      expect(run.status).toBe('completed_with_errors');
      expect(run.errors[0]).toMatchObject({ source_id: 'u1', reason: 'sorry, too many clients already' });
    });

    it('a sync asked for while an event run is queued follows that run as a full run, with the filters then saved', async () => {
      source = { units: ['u1', 'u2'].map((key) => ({ custodian: { key }, items: [file(`e-${key}`, key)] })) };
      const { collectionId } = await seedCollection(app.ctx.db, { account: 'acme', sealer: app.ctx.sealer });
      const { run: event } = await app.engine.enqueue(collectionId, 'event', ['u1']);
      const patch = await app.call(token, 'PATCH', `/v1/collections/${collectionId}`, {
        json: { sync_filters: { everything: true, v: 2 }, sync_status: 'pending' },
      });
      expect(patch.status).toBe(204);
      expect(await app.engine.runOnce(event.id)).toEqual({ status: 'fanned_out', error: null });
      await runUnits(event.id, ['u1']);
      const c = await json(await app.call(token, 'GET', `/v1/collections/${collectionId}`), 200);
      expect(c.sync_status).toBe('pending');
      const next = c.latest_run as Json;
      expect([next.status, next.custodians]).toEqual(['queued', null]);
      expect(next.run_id).not.toBe(event.id);
      expect(await app.engine.runOnce(next.run_id)).toEqual({ status: 'fanned_out', error: null });
      await runUnits(next.run_id, ['u1', 'u2']);
      expect((await latestRun(collectionId)).status).toBe('succeeded');
      const run = await app.ctx.repos.runs.get(next.run_id);
      expect(JSON.parse(run!.sync_filters!)).toEqual({ everything: true, v: 2 });
      expect((await json(await app.call(token, 'GET', `/v1/collections/${collectionId}`), 200)).sync_status).toBe(
        'synced',
      );
    });

    it('a run claimed again after a crash keeps the filters it started with', async () => {
      source = { units: [{ custodian: { key: 'u1' }, items: [file('crash', 'u1')] }] };
      const { collectionId } = await seedCollection(app.ctx.db, {
        account: 'acme',
        sealer: app.ctx.sealer,
        filters: { everything: true, v: 1 },
      });
      const start = await json(await app.call(token, 'POST', `/v1/collections/${collectionId}/start`), 200);
      // the first attempt recorded its filters, then its process died (the lease lapses); filters are saved since
      await app.ctx.db
        .updateTable('runs')
        .set({ sync_filters: JSON.stringify({ everything: true, v: 1 }) })
        .where('id', '=', start.run_id)
        .execute();
      await app.ctx.repos.collections.update(collectionId, {
        sync_filters: JSON.stringify({ everything: true, v: 2 }),
      });
      expect(await app.engine.runOnce(start.run_id)).toEqual({ status: 'fanned_out', error: null });
      expect(JSON.parse((await app.ctx.repos.runs.get(start.run_id))!.sync_filters!)).toEqual({
        everything: true,
        v: 1,
      });
    });
  });
}
