import type { Logger } from 'pino';
import { buildApp, type App } from './app.ts';
import type { Config } from './config.ts';
import { createContext, type AppContext } from './context.ts';
import { createRegistry } from './connectors/registry.ts';
import type { Connector } from './connectors/types.ts';
import type { Database } from './store/db.ts';
import type { EngineApi } from './sync/engine-api.ts';

export interface Runtime {
  ctx: AppContext;
  app: App;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  log: Logger;
  connectors: Connector[];
  db?: Database;
  pgSchema?: string;
  /** Run sync workers in this process (the embedded default does). */
  workers: boolean;
}

/** The one place that composes the service: context, engine, connectors, HTTP app, workers. */
export async function createRuntime(config: Config, opts: RuntimeOptions): Promise<Runtime> {
  const ctx = await createContext(config, {
    log: opts.log,
    connectors: createRegistry(opts.connectors),
    db: opts.db,
    pgSchema: opts.pgSchema,
    engine: () => pendingEngine,
  });
  const app = await buildApp(ctx);
  return {
    ctx,
    app,
    async close() {
      await app.close();
      await ctx.close();
    },
  };
}

// Replaced by the sync engine (src/sync/engine.ts) once it lands.
const pendingEngine: EngineApi = {
  queue: async () => {},
  start: async () => {
    throw new Error('engine not wired');
  },
  cancel: async () => {},
  purgeCollection: async () => {},
  latestRun: async () => null,
};
