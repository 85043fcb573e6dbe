import http from 'node:http';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** What a provider's HTTP client reports (bound to one provider). */
export interface ProviderMetrics {
  request(status: string): void;
  budgetWait(seconds: number): void;
}

/**
 * The process's Prometheus metrics (names and labels are a fixed contract). One instance per process, built in
 * the composition root and handed to the HTTP app, the engine and the provider sessions: no global registry.
 */
export interface Metrics {
  httpRequest(labels: { route: string; method: string; status: number }, seconds: number): void;
  /** A run ended: `outcome` is its status; only final statuses are counted. */
  runFinished(collectionId: string, outcome: string): void;
  itemCollected(type: string, kind: string): void;
  bytesCollected(type: string, bytes: number): void;
  provider(name: string): ProviderMetrics;
  tokenRefresh(provider: string, result: 'success' | 'failure' | 'revoked'): void;
  /** A unit was stopped for lack of progress (UNIT_STALL_SECONDS). */
  unitStalled(collectionId: string): void;
  readonly contentType: string;
  render(): Promise<string>;
}

export interface MetricsOptions {
  /** The collection's type (`conf`, `edrive`) for run counts. */
  typeOf(collectionId: string): Promise<string | undefined>;
  /** Runs queued and running now (read at scrape time). */
  runStates(): Promise<{ queued: number; running: number }>;
  /** The learned request rate per credential as stored for the fleet (`provider` is the collection type). */
  budgetRates?(): Promise<{ provider: string; credential: string; rate: number }[]>;
  /** The requests in flight per credential this process allows itself now (`provider` is the collection type). */
  budgetConcurrency?(): { provider: string; credential: string; concurrency: number }[];
  onError?(err: unknown): void;
}

const FINAL = new Set(['succeeded', 'completed_with_errors', 'failed', 'error', 'cancelled']);

/** `conf` → `zoom`, `edrive` → `microsoft`: the provider label of a collection type. */
export function providerOf(type: string): string {
  return ({ conf: 'zoom', edrive: 'microsoft' } as Record<string, string>)[type] ?? type;
}

export function createMetrics(opts: MetricsOptions): Metrics {
  const registry = new Registry();
  const httpDuration = new Histogram({
    name: 'custody_http_request_duration_seconds',
    help: 'API request duration by route template, method and status.',
    labelNames: ['route', 'method', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const runsTotal = new Counter({
    name: 'custody_runs_total',
    help: 'Finished runs by collection type and outcome.',
    labelNames: ['type', 'outcome'],
    registers: [registry],
  });
  const items = new Counter({
    name: 'custody_items_collected_total',
    help: 'Items collected by collection type and item kind.',
    labelNames: ['type', 'kind'],
    registers: [registry],
  });
  const bytes = new Counter({
    name: 'custody_bytes_collected_total',
    help: 'Content bytes downloaded by collection type.',
    labelNames: ['type'],
    registers: [registry],
  });
  const providerRequests = new Counter({
    name: 'custody_provider_requests_total',
    help: 'Requests to a provider by HTTP status (429 = rate limited; "error" = no answer).',
    labelNames: ['provider', 'status'],
    registers: [registry],
  });
  const budgetWait = new Histogram({
    name: 'custody_provider_budget_wait_seconds',
    help: "Time a provider request waited for its credential's request budget.",
    labelNames: ['provider'],
    buckets: [0.001, 0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60],
    registers: [registry],
  });
  new Gauge({
    name: 'custody_runs',
    help: 'Runs queued and running now (all processes: read from the database at scrape time).',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      const states = await opts.runStates();
      this.set({ state: 'queued' }, states.queued);
      this.set({ state: 'running' }, states.running);
    },
  });
  new Gauge({
    name: 'custody_provider_budget_rate',
    help: 'The learned request rate (per second) of each provider credential (wallet), as shared by every process and kept across runs.',
    labelNames: ['provider', 'credential'],
    registers: [registry],
    async collect() {
      let rates;
      try {
        rates = (await opts.budgetRates?.()) ?? [];
      } catch (err) {
        // The store is unreachable: the last figures stand, the rest of the scrape is served.
        opts.onError?.(err);
        return;
      }
      this.reset();
      for (const r of rates) this.set({ provider: providerOf(r.provider), credential: r.credential }, r.rate);
    },
  });
  new Gauge({
    name: 'custody_provider_budget_concurrency',
    help: 'The requests in flight each provider credential allows itself now in this process (it adapts between a start and the configured concurrency).',
    labelNames: ['provider', 'credential'],
    registers: [registry],
    collect() {
      this.reset();
      for (const c of opts.budgetConcurrency?.() ?? [])
        this.set({ provider: providerOf(c.provider), credential: c.credential }, c.concurrency);
    },
  });
  const refreshes = new Counter({
    name: 'custody_token_refreshes_total',
    help: 'Provider token refreshes by result (revoked = the user must pair again).',
    labelNames: ['provider', 'result'],
    registers: [registry],
  });
  const stalled = new Counter({
    name: 'custody_units_stalled_total',
    help: 'Units stopped because they made no progress for UNIT_STALL_SECONDS, by collection type.',
    labelNames: ['type'],
    registers: [registry],
  });
  const providers = new Map<string, ProviderMetrics>();
  return {
    httpRequest: ({ route, method, status }, seconds) =>
      httpDuration.observe({ route, method, status: String(status) }, seconds),
    runFinished(collectionId, outcome) {
      if (!FINAL.has(outcome)) return;
      opts
        .typeOf(collectionId)
        .then((type) => runsTotal.inc({ type: type ?? 'unknown', outcome }))
        .catch((err: unknown) => opts.onError?.(err));
    },
    itemCollected: (type, kind) => items.inc({ type, kind }),
    bytesCollected: (type, n) => void (n > 0 && bytes.inc({ type }, n)),
    provider(name) {
      let bound = providers.get(name);
      if (!bound) {
        bound = {
          request: (status) => providerRequests.inc({ provider: name, status }),
          budgetWait: (s) => budgetWait.observe({ provider: name }, s),
        };
        providers.set(name, bound);
      }
      return bound;
    },
    tokenRefresh: (provider, result) => refreshes.inc({ provider, result }),
    unitStalled(collectionId) {
      opts
        .typeOf(collectionId)
        .then((type) => stalled.inc({ type: type ?? 'unknown' }))
        .catch((err: unknown) => opts.onError?.(err));
    },
    contentType: registry.contentType,
    render: () => registry.metrics(),
  };
}

/** `METRICS_PORT`: the metrics on their own listener (also for `custody worker`, which has no API port). */
export async function serveMetrics(
  metrics: Metrics,
  host: string,
  port: number,
): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') return void res.writeHead(404).end();
    metrics.render().then(
      (text) => res.writeHead(200, { 'content-type': metrics.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
