import type { Logger } from 'pino';
import { buildApp, type App } from './app.ts';
import type { Config } from './config.ts';
import { createContext, type AppContext } from './context.ts';
import { createRegistry } from './connectors/registry.ts';
import type { Connector } from './connectors/types.ts';
import { stopDocumentExtraction } from './search/index.ts';
import { legalHoldGuard } from './store/holds.ts';
import type { Database } from './store/db.ts';
import { createSyncEngine, type SyncEngine } from './sync/engine.ts';
import { providerResources } from './sync/provider-context.ts';

export interface Runtime {
  ctx: AppContext;
  app: App;
  engine: SyncEngine;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  log: Logger;
  connectors: Connector[];
  db?: Database;
  pgSchema?: string;
  /** Run sync workers (executor + scheduler) in this process: `serve` on the embedded default, and `worker`. */
  workers: boolean;
}

/** The one place that composes the service: context, engine, connectors, guards, HTTP app, workers. */
export async function createRuntime(config: Config, opts: RuntimeOptions): Promise<Runtime> {
  let engine!: SyncEngine;
  const ctx = await createContext(config, {
    log: opts.log,
    connectors: createRegistry(opts.connectors),
    db: opts.db,
    pgSchema: opts.pgSchema,
    engine: (base) =>
      (engine = createSyncEngine({
        db: base.db,
        sealer: base.sealer,
        blobs: base.blobs,
        connectors: base.connectors,
        config: base.config,
        log: base.log,
        // discovery and runs share one request budget and one token refresh per credential
        resources: providerResources(base),
      })),
  });
  ctx.deletionGuards.push(legalHoldGuard(ctx.db));
  const app = await buildApp(ctx);
  if (opts.workers) engine.startBackground();
  const housekeeping = setInterval(() => void sweepExpiredTokens(ctx), 3600_000).unref();
  return {
    ctx,
    app,
    engine,
    async close() {
      clearInterval(housekeeping);
      await engine.stop();
      await stopDocumentExtraction();
      await app.close();
      await ctx.close();
    },
  };
}

/** Expired service tokens are useless (an expired refresh token is refused anyway); a day's grace keeps audits simple. */
async function sweepExpiredTokens(ctx: AppContext): Promise<void> {
  try {
    await ctx.repos.tokens.deleteExpired(new Date(Date.now() - 24 * 3600_000).toISOString());
  } catch (err) {
    ctx.log.warn({ err }, 'could not sweep expired service tokens');
  }
}
