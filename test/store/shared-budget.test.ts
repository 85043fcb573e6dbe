import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createBudgetBackend,
  type BudgetBackend,
  type BudgetBackendConfig,
} from '../../src/provider/budget-backend.ts';
import { coalesced } from '../../src/provider/budget-coalesce.ts';
import { SharedBudget } from '../../src/provider/shared-budget.ts';
import { ProviderBudgetRepo } from '../../src/store/provider-budgets.ts';
import { openSharedConnections, type SharedConnections } from '../../src/store/shared-connections.ts';
import { testDatabases } from '../support/databases.ts';
import { FakeClock } from '../support/fake-clock.ts';

/** Fake time that tests move in small steps, letting real I/O (Redis, PostgreSQL) answer between steps. */
class SteppingClock extends FakeClock {
  constructor() {
    super(Math.floor(Date.now() / 1000) * 1000 + 1_000_000);
  }

  /** `realTime` false: only this process answers (nothing real to wait for), so steps take no real time. */
  async run(ms: number, stepMs = 5, realTime = true): Promise<void> {
    const end = this.t + ms;
    while (this.t < end) {
      this.t += stepMs;
      const due = this.timers.filter((x) => x.at <= this.t).sort((a, b) => a.at - b.at);
      this.timers = this.timers.filter((x) => x.at > this.t);
      for (const timer of due) timer.fn();
      // as much real time as fake: a store's answer that takes 10 ms is 10 ms late, as it would be in production
      // (at 2 ms a step it was 25 ms late, and a request pushed into the next second looked like an excess)
      await new Promise((r) => (realTime ? setTimeout(r, stepMs) : setImmediate(r)));
    }
  }
}

const redisUrl = process.env.TEST_REDIS_URL;

interface Fleet {
  name: string;
  /** A backend as another process would have it: its own connection to the shared store. */
  backend(): BudgetBackend;
  close(): Promise<void>;
}

const fleets: { name: string; open(): Promise<Fleet> }[] = [
  {
    name: 'in-process (embedded default)',
    async open() {
      const shared = createBudgetBackend({ kind: 'memory' });
      return { name: 'memory', backend: () => shared, close: async () => {} };
    },
  },
  ...(redisUrl
    ? [
        {
          name: 'Redis',
          async open(): Promise<Fleet> {
            const made: SharedConnections[] = [];
            const prefix = `custody-test:${randomUUID()}`;
            return {
              name: 'redis',
              backend: () => {
                const connections = openSharedConnections({ redisUrl });
                made.push(connections);
                return createBudgetBackend({ kind: 'redis', client: connections.redis!, prefix });
              },
              close: async () => void (await Promise.all(made.map((c) => c.close()))),
            };
          },
        },
      ]
    : []),
  ...testDatabases
    .filter((d) => d.name === 'postgres')
    .map((d) => ({
      name: 'PostgreSQL',
      async open(): Promise<Fleet> {
        const opened = await d.open();
        const made: SharedConnections[] = [];
        return {
          name: 'postgres',
          backend: () => {
            const connections = openSharedConnections({ databaseUrl: opened.url, pgSchema: opened.schema });
            made.push(connections);
            const config: BudgetBackendConfig = {
              kind: 'postgres',
              pool: connections.pgPool!,
              repo: new ProviderBudgetRepo(opened.db),
            };
            return createBudgetBackend(config);
          },
          close: async () => {
            await Promise.all(made.map((c) => c.close()));
            await opened.close();
          },
        };
      },
    })),
];

/** Keeps `loops` requests going through `budget` (each held `holdMs` of fake time) until stopped; records grants. */
function drive(
  budget: SharedBudget,
  clock: SteppingClock,
  loops: number,
  holdMs: number,
  grants: number[],
  inFlight: { now: number; max: number },
) {
  const ac = new AbortController();
  const done = Array.from({ length: loops }, async () => {
    while (!ac.signal.aborted) {
      let release: () => void;
      try {
        release = await budget.acquire(1, ac.signal);
      } catch {
        return;
      }
      grants.push(clock.now());
      // a provider that never throttles: every answer is clean, so a learning budget raises its rate
      budget.observe({ status: 200, headers: {} });
      inFlight.now += 1;
      inFlight.max = Math.max(inFlight.max, inFlight.now);
      await new Promise<void>((resolve) => clock.timer(holdMs, resolve));
      inFlight.now -= 1;
      release();
    }
  });
  return async () => {
    ac.abort();
    await Promise.all(done);
  };
}

/** Grants per aligned second [n*1000, (n+1)*1000), only for seconds wholly inside the run. */
function perSecond(grants: number[], from: number, to: number): number[] {
  const counts: number[] = [];
  for (let s = Math.ceil(from / 1000) * 1000; s + 1000 <= to; s += 1000)
    counts.push(grants.filter((t) => t >= s && t < s + 1000).length);
  return counts;
}

for (const kind of fleets) {
  describe(`one provider budget shared by two processes: ${kind.name}`, () => {
    let fleet: Fleet | undefined;
    afterEach(async () => {
      await fleet?.close();
      fleet = undefined;
    });

    const pair = (clock: SteppingClock, config: { ratePerSecond: number; concurrency: number }) => {
      const key = `conf:${randomUUID()}`;
      const ids = { provider: 'conf', credential: key.slice(5) };
      const make = () => new SharedBudget(key, ids, config, { backend: fleet!.backend(), clock, learn: false });
      return [make(), make()] as const;
    };

    it('never lets the two together exceed the rate in any second, and uses most of it', async () => {
      fleet = await kind.open();
      const clock = new SteppingClock();
      const [a, b] = pair(clock, { ratePerSecond: 20, concurrency: 100 });
      const grants: number[] = [];
      const inFlight = { now: 0, max: 0 };
      const start = clock.now();
      const stops = [drive(a, clock, 4, 1, grants, inFlight), drive(b, clock, 4, 1, grants, inFlight)];
      await clock.run(3000);
      const end = clock.now();
      const stopping = Promise.all(stops.map((s) => s()));
      await clock.run(100);
      await stopping;
      const seconds = perSecond(grants, start, end);
      expect(seconds.length).toBeGreaterThanOrEqual(2);
      for (const n of seconds) expect(n).toBeLessThanOrEqual(20);
      // Each instance alone would take 20/s: the pair together still gets about the budget, not twice it.
      expect(seconds.reduce((x, y) => x + y, 0) / seconds.length).toBeGreaterThanOrEqual(18);
    });

    it("holds both to the operator's ceiling, fleet-wide, however clean the provider's answers (learning on)", async () => {
      fleet = await kind.open();
      const clock = new SteppingClock();
      const key = `edrive:${randomUUID()}`;
      const ids = { provider: 'edrive', credential: key.slice(7) };
      // MS_RESOURCE_UNITS_PER_SECOND=10 and MS_MAX_RESOURCE_UNITS_PER_SECOND=10: learning may not raise it
      const make = () =>
        new SharedBudget(
          key,
          ids,
          { ratePerSecond: 10, maxRatePerSecond: 10, concurrency: 100 },
          { backend: fleet!.backend(), clock },
        );
      const [a, b] = [make(), make()];
      const grants: number[] = [];
      const inFlight = { now: 0, max: 0 };
      const start = clock.now();
      const stops = [drive(a, clock, 4, 1, grants, inFlight), drive(b, clock, 4, 1, grants, inFlight)];
      await clock.run(4000);
      const end = clock.now();
      const stopping = Promise.all(stops.map((s) => s()));
      await clock.run(100);
      await stopping;
      const seconds = perSecond(grants, start, end);
      expect(seconds.length).toBeGreaterThanOrEqual(3);
      for (const n of seconds) expect(n).toBeLessThanOrEqual(10);
      expect(a.rate).toBeLessThanOrEqual(10);
      expect(b.rate).toBeLessThanOrEqual(10);
    });

    it('caps the requests in flight across both instances', async () => {
      fleet = await kind.open();
      const clock = new SteppingClock();
      const [a, b] = pair(clock, { ratePerSecond: 1000, concurrency: 3 });
      const grants = { a: [] as number[], b: [] as number[] };
      const inFlight = { now: 0, max: 0 };
      // Held long enough (fake time) for every waiter to try, however slow the store answers on a busy machine.
      const stops = [drive(a, clock, 3, 400, grants.a, inFlight), drive(b, clock, 3, 400, grants.b, inFlight)];
      await clock.run(5000);
      const stopping = Promise.all(stops.map((s) => s()));
      await clock.run(500);
      await stopping;
      expect(inFlight.max).toBe(3);
      expect(grants.a.length + grants.b.length).toBeGreaterThanOrEqual(25);
      // both take turns: a process that keeps the slots busy gives each back within two seconds of taking it
      expect(grants.a.length).toBeGreaterThanOrEqual(3);
      expect(grants.b.length).toBeGreaterThanOrEqual(3);
    });

    it('pauses the credential for both when one is told to back off (429 with Retry-After)', async () => {
      fleet = await kind.open();
      const clock = new SteppingClock();
      const [a, b] = pair(clock, { ratePerSecond: 50, concurrency: 10 });
      (await a.acquire())();
      const pausedAt = clock.now();
      a.pause(pausedAt + 2000);
      await clock.run(20); // the pause reaches the shared store
      let grantedAt = 0;
      const waiting = b.acquire().then((release) => {
        grantedAt = clock.now();
        release();
      });
      await clock.run(1900);
      expect(grantedAt).toBe(0);
      await clock.run(300);
      await waiting;
      expect(grantedAt).toBeGreaterThanOrEqual(pausedAt + 2000);
    });
  });
}

describe('one provider budget shared by two processes: a slow shared store', () => {
  /** A store the processes share, answering every count and pause read 10–90 ms (fake time) late, as a loaded database. */
  function slowStore(clock: SteppingClock): BudgetBackend {
    const inner = createBudgetBackend({ kind: 'memory' });
    let seed = 7;
    const late = <T>(answer: () => Promise<T>) =>
      new Promise<void>((resolve) => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        clock.timer(10 + (seed % 81), resolve);
      }).then(answer);
    return {
      ...inner,
      kind: 'postgres',
      count: (key, cost, ttl) => late(() => inner.count(key, cost, ttl)),
      pausedUntil: (key) => late(() => inner.pausedUntil(key)),
    };
  }

  it('never lets the two together exceed the rate in any second, though answers arrive a slot late', async () => {
    const clock = new SteppingClock();
    const store = slowStore(clock);
    const key = `conf:${randomUUID()}`;
    const ids = { provider: 'conf', credential: key.slice(5) };
    const config = { ratePerSecond: 20, concurrency: 100 };
    // each process asks the store through its own coalescing (counts asked at once share a trip)
    const [a, b] = [0, 1].map(
      () => new SharedBudget(key, ids, config, { backend: coalesced(store), clock, learn: false }),
    );
    const grants: number[] = [];
    const inFlight = { now: 0, max: 0 };
    const start = clock.now();
    const stops = [drive(a, clock, 4, 1, grants, inFlight), drive(b, clock, 4, 1, grants, inFlight)];
    await clock.run(20_000, 1, false);
    const end = clock.now();
    const stopping = Promise.all(stops.map((s) => s()));
    await clock.run(200, 1, false);
    await stopping;
    const seconds = perSecond(grants, start, end);
    expect(seconds.length).toBeGreaterThanOrEqual(19);
    for (const n of seconds) expect(n).toBeLessThanOrEqual(20);
    expect(seconds.reduce((x, y) => x + y, 0) / seconds.length).toBeGreaterThanOrEqual(16);
  });
});
