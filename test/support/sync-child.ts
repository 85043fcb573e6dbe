// Child process for the crash test: executes one run against a shared database and blob folder.
// Usage: node --import tsx sync-child.ts <runId> <blobRoot> <sqlitePath | postgres-url> [pgSchema]
import { createFsBlobStore } from '../../src/blobs/index.ts';
import type { CollectContext } from '../../src/connectors/types.ts';
import { openDatabase } from '../../src/store/db.ts';
import { crashSource } from './crash-source.ts';
import { createFakeConnector } from './fake-connector.ts';
import { engineFor } from './sync-fixtures.ts';

const [runId, blobRoot, target, schema] = process.argv.slice(2) as [string, string, string, string | undefined];
const db = target.startsWith('postgres')
  ? openDatabase({ url: target, schema, poolSize: 2 })
  : openDatabase({ sqlitePath: target });
const fake = createFakeConnector({ source: crashSource, chunkDelayMs: 2, chunkSize: 16 * 1024 });
const connector = {
  ...fake,
  collect(ctx: CollectContext) {
    process.stdout.write(`COLLECT ${JSON.stringify({ checkpoint: ctx.checkpoint })}\n`);
    return fake.collect(ctx);
  },
};
const engine = engineFor(db, createFsBlobStore({ root: blobRoot }), [connector], {
  workers: 'none',
  tuning: { leaseMs: 60_000 },
});
const outcome = await engine.runOnce(runId);
process.stdout.write(`OUTCOME ${JSON.stringify(outcome)}\n`);
await db.destroy();
