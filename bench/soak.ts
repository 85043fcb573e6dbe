// `npm run bench -- soak`: repeated `conf` and `edrive` syncs against simulators failing at issue 19's rates plus
// bodies that stall mid-way and 429 storms, for SOAK_SECONDS (default 600), on the embedded default and (with
// TEST_DATABASE_URL) on PostgreSQL with two worker runtimes. Prints runs started and finished, runs stuck, items
// missing or corrupt against the simulators' own listings, RSS and open handles at start and end.
import { PROVIDER_FAULT_RATES, startFaultedSync } from '../test/support/faulted-sync.ts';
import { testDatabases } from '../test/support/databases.ts';

// Longer than UNIT_STALL_SECONDS (default 300) so a unit stopped for lack of progress gets its retry before a run counts as stuck.
const STUCK_AFTER_MS = 420_000;

export async function benchSoak(): Promise<Record<string, string>> {
  const seconds = Number(process.env.SOAK_SECONDS ?? 600);
  const out: Record<string, string> = {};
  const only = process.env.SOAK_SETUP;
  const setups = testDatabases
    .filter((d) => !only || only === d.name)
    .map((d) => ({
      name: d.name === 'sqlite' ? 'embedded' : 'postgres-2-workers',
      database: d,
      runtimes: d.name === 'sqlite' ? 1 : 2,
    }));
  for (const setup of setups) {
    const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MiB`;
    const handles = () => process.getActiveResourcesInfo().length;
    const s = await startFaultedSync({ database: setup.database, runtimes: setup.runtimes, seed: 1919 });
    s.faults({
      seed: 1919,
      ...PROVIDER_FAULT_RATES,
      stalledBodies: 0.01,
      stallMs: 90_000,
      storms: 0.002,
      stormLength: 15,
    });
    global.gc?.();
    const rssStart = process.memoryUsage().rss;
    const handlesStart = handles();
    let started = 0;
    let finished = 0;
    let stuck = 0;
    const t0 = Date.now();
    const end = t0 + seconds * 1000;
    // RSS and open handles every sixth of the soak (after a collection): growth that levels off is a warm-up, a
    // steady climb a leak.
    const samples: string[] = [];
    let nextSample = t0 + (seconds * 1000) / 6;
    while (Date.now() < end) {
      if (Date.now() >= nextSample) {
        global.gc?.();
        const { rss, heapUsed } = process.memoryUsage();
        samples.push(`${Math.round((Date.now() - t0) / 1000)} s: ${mb(rss)} (heap ${mb(heapUsed)}), ${handles()}`);
        nextSample += (seconds * 1000) / 6;
      }
      started += 2;
      try {
        await s.syncBoth(STUCK_AFTER_MS);
        finished += 2;
        // The simulators log every request they answer: that is their memory, not the service's.
        s.zoom.requests.length = 0;
        s.ms.requests.length = 0;
      } catch (err) {
        stuck += 1;
        console.log(`soak ${setup.name}: ${(err as Error).message.slice(0, 300)}`);
        break;
      }
    }
    // What the faulted runs could not get, one run without faults must collect: then nothing is missing.
    s.faults(null);
    let missing = -1;
    let corrupt = -1;
    if (stuck === 0) {
      await s.syncBoth(STUCK_AFTER_MS);
      const check = await s.check();
      missing = check.missing.length;
      corrupt = check.corrupt.length;
    }
    global.gc?.();
    const rssEnd = process.memoryUsage().rss;
    const handlesEnd = handles();
    await s.close();
    const k = `soak ${setup.name} (${seconds} s)`;
    out[`${k} runs started / finished / stuck`] = `${started} / ${finished} / ${stuck}`;
    out[`${k} items missing / corrupt`] = `${missing} / ${corrupt}`;
    out[`${k} RSS start -> end`] = `${mb(rssStart)} -> ${mb(rssEnd)}`;
    out[`${k} open handles start -> end`] = `${handlesStart} -> ${handlesEnd}`;
    out[`${k} RSS (heap), open handles along the way`] = samples.join('; ');
  }
  return out;
}
