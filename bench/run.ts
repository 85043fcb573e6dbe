import { benchApi } from './api.ts';
import { benchBigFileSyncs, benchBlobStore, benchQuickXor, benchS3BlobStore } from './blobstore.ts';

/**
 * `npm run bench`: prints figures; passes or fails on nothing. Sizes can be scaled with BENCH_SCALE (default 1).
 * Run one with `npm run bench -- blob` (names: blob, qxh, api, sync, events, budget, scale, soak, export, allowance, leases, head [custodians…], scale-items [sizes…], small-items [sizes…]; scale needs PostgreSQL; soak runs SOAK_SECONDS, default 600, SOAK_SETUP=sqlite|postgres for one store).
 */
const scale = Number(process.env.BENCH_SCALE ?? 1);
const only = process.argv[2];
const benches: Record<string, () => Promise<Record<string, string>> | Record<string, string>> = {
  qxh: () => benchQuickXor(Math.round(256 * scale)),
  blob: async () => ({
    ...(await benchBlobStore(Math.round(1024 * scale))),
    ...(await benchS3BlobStore(Math.round(1024 * scale))),
    ...(await benchBigFileSyncs(Math.round(1024 * scale))),
  }),
  api: () => benchApi(Math.max(2, Math.round(4 * scale))),
  sync: async () => (await import('./sync.ts')).benchSync(scale),
  events: async () => (await import('./events.ts')).benchEvents(scale),
  budget: async () => (await import('./budget.ts')).benchBudget(scale),
  scale: async () => (await import('./scale.ts')).benchScale(scale),
  soak: async () => (await import('./soak.ts')).benchSoak(),
  export: async () => (await import('./export.ts')).benchExport(scale),
  allowance: async () => (await import('./allowance.ts')).benchAllowance(),
  leases: async () => (await import('./leases.ts')).benchLeases(),
  'scale-items': async () =>
    (await import('./scale-items.ts')).benchScaleItems(
      process.argv.length > 3 ? process.argv.slice(3).map(Number) : [10_000, 100_000],
    ),
  head: async () =>
    (await import('./collection-head.ts')).benchCollectionHead(
      process.argv.length > 3 ? process.argv.slice(3).map(Number) : [0, 1_000, 10_000],
    ),
  'small-items': async () =>
    (await import('./small-items.ts')).benchSmallItems(
      process.argv.length > 3 ? process.argv.slice(3).map(Number) : [2_000, 20_000],
    ),
};
console.log(`node ${process.version}, ${process.platform}/${process.arch}`);
for (const [name, run] of Object.entries(benches)) {
  if (only && only !== name) continue;
  try {
    for (const [k, v] of Object.entries(await run())) console.log(`${k}: ${v}`);
  } catch (err) {
    console.log(`${name}: failed: ${(err as Error).message}`);
  }
}
