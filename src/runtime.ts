import type { Logger } from 'pino';
import { buildApp, type App } from './app.ts';
import type { Config } from './config.ts';
import { createContext, type AppContext } from './context.ts';
import { createRegistry } from './connectors/registry.ts';
import type { Connector } from './connectors/types.ts';
import { createDocumentReader } from './search/index.ts';
import { legalHoldGuard } from './store/holds.ts';
import type { Database } from './store/db.ts';
import { createSyncEngine, type SyncEngine } from './sync/engine.ts';
import { createEventLoop } from './sync/events/event-loop.ts';
import { createEventDispatcher, type EventDispatcher } from './sync/events/provider-events.ts';
import { ProviderSessions } from './sync/providers/provider-session.ts';
import { createSubscriptionManager, type SubscriptionManager } from './sync/events/subscription-manager.ts';
import { EventRepo } from './store/events.ts';
import { createMetrics, serveMetrics } from './metrics.ts';
import { countActiveRuns } from './store/run-states.ts';
import { createDispatcher } from './webhooks/dispatcher.ts';
import { createSender } from './webhooks/send.ts';
import { createBudgetBackend, type BudgetBackendConfig } from './provider/budget-backend.ts';
import { ProviderBudgets } from './provider/budget-registry.ts';
import { ProviderBudgetRepo } from './store/provider-budgets.ts';
import type { SharedConnections } from './store/shared-connections.ts';

export interface Runtime {
  ctx: AppContext;
  app: App;
  engine: SyncEngine;
  /** Provider events: inbox routing and targeted runs, and the change subscriptions (ticked by workers). */
  events: { dispatcher: EventDispatcher; subscriptions: SubscriptionManager };
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
  const documents = createDocumentReader();
  const metrics = createMetrics({
    typeOf: async (id) => (await ctx.repos.collections.getById(id))?.type,
    runStates: () => countActiveRuns(ctx.db),
    budgetRates: () => ctx.providers.learnedRates(),
    budgetConcurrency: () => ctx.providers.budgets.concurrencies(),
    onError: (err) => opts.log.warn({ err }, 'metrics: a run could not be counted'),
  });
  const ctx = await createContext(config, {
    log: opts.log,
    metrics,
    connectors: createRegistry(opts.connectors),
    db: opts.db,
    pgSchema: opts.pgSchema,
    services: (base) => {
      // discovery and runs share one request budget and one token refresh per credential
      const rates = new ProviderBudgetRepo(base.db);
      const budgets = new ProviderBudgets({
        backend: createBudgetBackend(budgetBackendConfig(base.connections, rates)),
        rates,
        onError: (err) => base.log.warn({ err }, 'provider budget store failed'),
      });
      const providers = new ProviderSessions({ db: base.db, sealer: base.sealer, log: base.log, budgets, metrics });
      engine = createSyncEngine({
        db: base.db,
        blobs: base.blobs,
        documents,
        connectors: base.connectors,
        config: base.config,
        log: base.log,
        sessions: providers,
        metrics,
        keys: base.signingKeys,
        // graphile-worker's schema sits beside ours: a test's schema gets its own queue
        jobs: config.databaseUrl
          ? {
              connectionString: config.databaseUrl,
              schema: jobsSchema(opts.pgSchema),
              poolSize: config.databasePoolSize,
            }
          : undefined,
        tuning: { schedulerTickMs: config.sync.sweepSeconds * 1000, leaseMs: config.sync.leaseSeconds * 1000 },
      });
      return { engine, providers };
    },
  });
  ctx.deletionGuards.push(legalHoldGuard(ctx.db));
  const app = await buildApp(ctx);
  const events = {
    dispatcher: createEventDispatcher({
      db: ctx.db,
      connectors: ctx.connectors,
      sealer: ctx.sealer,
      log: ctx.log,
      clock: () => new Date(),
      coalesceMs: config.events.coalesceMs,
      work: { queue: (collectionId, custodians) => engine.queueTargeted(collectionId, custodians) },
    }),
    subscriptions: createSubscriptionManager({
      db: ctx.db,
      sealer: ctx.sealer,
      connectors: ctx.connectors,
      sessions: ctx.providers,
      log: ctx.log,
      clock: () => new Date(),
      notificationUrl: () => `${config.publicUrl}/v1/webhooks/microsoft`,
      lifetimeMinutes: config.events.graphSubscriptionMinutes,
    }),
  };
  const eventLoop = createEventLoop({ ...events, log: ctx.log, subscriptionsMs: config.events.subscriptionCheckMs });
  if (opts.workers) {
    engine.startBackground();
    eventLoop.start();
  }
  const webhooks = createDispatcher({
    webhooks: ctx.repos.webhooks,
    events: new EventRepo(ctx.db),
    sealer: ctx.sealer,
    sender: createSender({ allowPrivate: config.webhooks.allowPrivate, timeoutMs: 10_000 }),
    log: ctx.log,
  });
  if (opts.workers) webhooks.start();
  const metricsServer =
    config.metricsPort === undefined ? undefined : await serveMetrics(metrics, config.host, config.metricsPort);
  const housekeeping = setInterval(() => void sweepExpiredTokens(ctx), 3600_000).unref();
  return {
    ctx,
    app,
    engine,
    events,
    async close() {
      clearInterval(housekeeping);
      await eventLoop.stop();
      await engine.stop();
      await webhooks.stop();
      await metricsServer?.close();
      await ctx.providers.close();
      await documents.stop();
      await app.close();
      await ctx.close();
    },
  };
}

/** One budget per provider credential across every process: in Redis when configured, else in PostgreSQL. */
function budgetBackendConfig(shared: SharedConnections, rates: ProviderBudgetRepo): BudgetBackendConfig {
  if (shared.redis) return { kind: 'redis', client: shared.redis };
  if (shared.pgPool) return { kind: 'postgres', pool: shared.pgPool, repo: rates };
  return { kind: 'memory' };
}

/** Expired service tokens are useless (an expired refresh token is refused anyway); a day's grace keeps audits simple. */
async function sweepExpiredTokens(ctx: AppContext): Promise<void> {
  try {
    await ctx.repos.tokens.deleteExpired(new Date(Date.now() - 24 * 3600_000).toISOString());
  } catch (err) {
    ctx.log.warn({ err }, 'could not sweep expired service tokens');
  }
}

/** graphile-worker's PostgreSQL schema: `custody_jobs`, or `<schema>_jobs` beside a named schema (tests). */
export function jobsSchema(pgSchema: string | undefined): string {
  return pgSchema ? `${pgSchema}_jobs` : 'custody_jobs';
}
