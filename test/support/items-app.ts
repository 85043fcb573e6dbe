import { runUnits } from './sync-fixtures.ts';
import type { Connector } from '../../src/connectors/types.ts';
import type { AppContext } from '../../src/context.ts';
import type { SyncEngine } from '../../src/sync/engine.ts';
import { startTestApp, type Call } from './app.ts';
import type { TestDatabase } from './databases.ts';

export interface ItemsApp {
  url: string;
  ctx: AppContext;
  engine: SyncEngine;
  token(account: string): Promise<string>;
  call: Call;
  close(): Promise<void>;
}

/** The real runtime on 127.0.0.1:0 with the given connectors and no background workers: the test executes runs. */
export async function startItemsApp(database: TestDatabase, connectors: Connector[]): Promise<ItemsApp> {
  const t = await startTestApp({ database, connectors: () => connectors, workers: false, env: { WORKERS: 'none' } });
  return {
    url: t.url,
    ctx: t.runtime.ctx,
    engine: t.runtime.engine,
    token: (account) => t.token(account),
    call: t.call,
    close: () => t.close(),
  };
}

/**
 * Sends `request` (a DELETE) and holds the purge it triggers until `release` is called: the target is then marked
 * deleting and nothing of it is purged yet — a deterministic window for a racing request.
 */
export async function pausedPurge(
  app: ItemsApp,
  request: () => Promise<Response>,
): Promise<{ done: Promise<Response>; release: () => void }> {
  const engine = app.ctx.engine;
  const purge = engine.purgeCollection;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let entered!: () => void;
  const inside = new Promise<void>((r) => (entered = r));
  engine.purgeCollection = async (id) => {
    entered();
    await gate;
    return purge.call(engine, id);
  };
  const done = request();
  await inside;
  engine.purgeCollection = purge;
  return { done, release };
}

/**
 * Executes a queued run to its end in this process: the run's job, then (a run split into units) each of its unit
 * jobs one after the other. Returns the run's final status.
 */
export async function runToEnd(app: ItemsApp, runId: string): Promise<string> {
  const first = await app.engine.runOnce(runId);
  if (first.status !== 'fanned_out') return first.status;
  await runUnits(app.engine, runId);
  return (await app.ctx.db.selectFrom('runs').select('status').where('id', '=', runId).executeTakeFirstOrThrow())
    .status;
}
