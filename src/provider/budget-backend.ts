// Where the fleet-wide state of provider budgets lives: Redis when REDIS_URL is set, else PostgreSQL, else this
// process (the embedded default). Counters and pauses are rate-limiter-flexible limiters on that store; the
// concurrency cap is a semaphore of expiring leases (a Redis sorted set, or rows in PostgreSQL) so that a killed
// process gives its slots back.
import type pg from 'pg';
import type { Redis } from 'ioredis';
import { RateLimiterPostgres, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { ProviderBudgetRepo } from '../store/provider-budgets.ts';
import { coalesced } from './budget-coalesce.ts';

export interface BudgetBackend {
  readonly kind: 'memory' | 'redis' | 'postgres';
  /** Adds `cost` to the counter `key` (fleet-wide, atomically) and returns its new total. */
  count(key: string, cost: number, ttlSeconds: number): Promise<number>;
  /** The end of the credential's pause (epoch ms on the budget clock), 0 when none. */
  pausedUntil(key: string): Promise<number>;
  pause(key: string, untilMs: number, ttlSeconds: number): Promise<void>;
  /** Takes one of `cap` slots unless all are held; a lease not renewed within `ttlMs` lapses. */
  tryLease(key: string, cap: number, leaseId: string, ttlMs: number): Promise<boolean>;
  renewLeases(key: string, leaseIds: string[], ttlMs: number): Promise<void>;
  releaseLeases(key: string, leaseIds: string[]): Promise<void>;
  close(): Promise<void>;
}

export type BudgetBackendConfig =
  | { kind: 'memory' }
  | { kind: 'redis'; client: Redis; prefix?: string }
  | { kind: 'postgres'; pool: pg.Pool; repo: ProviderBudgetRepo };

// Counters never refuse: the budget compares totals with its own allowance (which changes as it learns).
const UNLIMITED = Number.MAX_SAFE_INTEGER;

/** On the process's shared connections (store/shared-connections.ts), which the backend never closes. */
export function createBudgetBackend(config: BudgetBackendConfig): BudgetBackend {
  switch (config.kind) {
    case 'memory':
      return memoryBackend();
    case 'redis':
      return coalesced(redisBackend(config.client, config.prefix ?? 'custody:budget'));
    case 'postgres':
      return coalesced(postgresBackend(config.pool, config.repo));
    default: {
      const unknown: never = config;
      throw new Error(`unknown budget backend ${JSON.stringify(unknown)}`);
    }
  }
}

/** Counters and pauses on any rate-limiter-flexible store: `make(prefix, duration)` builds a limiter. */
function limiterOps(make: (prefix: string) => RateLimiterAbstract) {
  const counters = make('count');
  const pauses = make('pause');
  return {
    async count(key: string, cost: number, ttlSeconds: number) {
      return (await counters.consume(key, cost, { customDuration: ttlSeconds })).consumedPoints;
    },
    async pausedUntil(key: string) {
      return (await pauses.get(key))?.consumedPoints ?? 0;
    },
    async pause(key: string, untilMs: number, ttlSeconds: number) {
      // A later pause extends; an earlier one seen at the same time by another process must not shorten it.
      const current = (await pauses.get(key))?.consumedPoints ?? 0;
      if (untilMs > current) await pauses.set(key, Math.ceil(untilMs), ttlSeconds);
    },
  };
}

/** An expiring value per key; expired ones are dropped when read, and all of them now and then. */
class ExpiringMap<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();
  private nextPurge = 0;

  get(key: string, now: number): V | undefined {
    const entry = this.entries.get(key);
    return entry && entry.expires > now ? entry.value : undefined;
  }

  set(key: string, value: V, ttlMs: number, now: number): void {
    this.entries.set(key, { value, expires: now + ttlMs });
    if (now < this.nextPurge) return;
    this.nextPurge = now + 10_000;
    for (const [k, e] of this.entries) if (e.expires <= now) this.entries.delete(k);
  }
}

/**
 * This process alone: counters, pauses and leases in plain maps, read and written without a timer or a storage
 * round trip (every provider request passes here; a store's limiter object per call was most of what a request
 * cost the budget when it does not bind).
 */
function memoryBackend(): BudgetBackend {
  const counters = new ExpiringMap<{ total: number }>();
  const pauses = new ExpiringMap<number>();
  const leases = new Map<string, Map<string, number>>();
  const live = (key: string) => {
    const held = leases.get(key) ?? new Map<string, number>();
    leases.set(key, held);
    const now = Date.now();
    for (const [id, until] of held) if (until < now) held.delete(id);
    return held;
  };
  return {
    kind: 'memory',
    async count(key, cost, ttlSeconds) {
      const now = Date.now();
      let counter = counters.get(key, now);
      // as the stores' limiters do: the window starts with the first count and later counts do not extend it
      if (!counter) counters.set(key, (counter = { total: 0 }), ttlSeconds * 1000, now);
      counter.total += cost;
      return counter.total;
    },
    async pausedUntil(key) {
      return pauses.get(key, Date.now()) ?? 0;
    },
    async pause(key, untilMs, ttlSeconds) {
      const now = Date.now();
      // A later pause extends; an earlier one must not shorten it.
      if (untilMs > (pauses.get(key, now) ?? 0)) pauses.set(key, Math.ceil(untilMs), ttlSeconds * 1000, now);
    },
    async tryLease(key, cap, leaseId, ttlMs) {
      const held = live(key);
      if (held.size >= cap) return false;
      held.set(leaseId, Date.now() + ttlMs);
      return true;
    },
    async renewLeases(key, ids, ttlMs) {
      const held = live(key);
      for (const id of ids) if (held.has(id)) held.set(id, Date.now() + ttlMs);
    },
    async releaseLeases(key, ids) {
      for (const id of ids) leases.get(key)?.delete(id);
    },
    async close() {},
  };
}

const LEASE_SCRIPT = `
redis.call('zremrangebyscore', KEYS[1], '-inf', ARGV[1])
if redis.call('zcard', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('zadd', KEYS[1], ARGV[3], ARGV[4])
  redis.call('pexpire', KEYS[1], ARGV[5])
  return 1
end
return 0`;

// Every provider request reads the pause and takes a lease: one round trip each, and the script by its SHA
// (EVALSHA; ioredis loads it on a NOSCRIPT) instead of its text.
const LEASE_COMMAND = 'custodyBudgetLease';
type LeaseCommand = (key: string, ...args: string[]) => Promise<number>;

function redisBackend(redis: Redis, prefix: string): BudgetBackend {
  const ops = limiterOps(
    (kind) =>
      new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}:${kind}`, points: UNLIMITED, duration: 60 }),
  );
  const leaseKey = (key: string) => `${prefix}:lease:${key}`;
  if (!(LEASE_COMMAND in redis)) redis.defineCommand(LEASE_COMMAND, { numberOfKeys: 1, lua: LEASE_SCRIPT });
  const leaseCommand = (redis as unknown as Record<typeof LEASE_COMMAND, LeaseCommand>)[LEASE_COMMAND].bind(redis);
  return {
    kind: 'redis',
    ...ops,
    // The pause as rate-limiter-flexible stores it (`<prefix>:pause:<key>` holding the points), read with one GET
    // instead of its MULTI of GET and PTTL.
    async pausedUntil(key) {
      const points = await redis.get(`${prefix}:pause:${key}`);
      return points === null ? 0 : Number(points) || 0;
    },
    async tryLease(key, cap, leaseId, ttlMs) {
      const now = Date.now();
      const granted = await leaseCommand(
        leaseKey(key),
        String(now),
        String(cap),
        String(now + ttlMs),
        leaseId,
        String(ttlMs * 2),
      );
      return granted === 1;
    },
    async renewLeases(key, ids, ttlMs) {
      if (ids.length === 0) return;
      const until = Date.now() + ttlMs;
      // XX: renew only leases still held (one that lapsed was given to someone else's count already).
      await redis.zadd(leaseKey(key), 'XX', ...ids.flatMap((id) => [String(until), id]));
      await redis.pexpire(leaseKey(key), ttlMs * 2);
    },
    async releaseLeases(key, ids) {
      if (ids.length > 0) await redis.zrem(leaseKey(key), ...ids);
    },
    async close() {},
  };
}

function postgresBackend(pool: pg.Pool, repo: ProviderBudgetRepo): BudgetBackend {
  const ops = limiterOps(
    (kind) =>
      new RateLimiterPostgres({
        storeClient: pool,
        tableName: 'provider_budget_counters',
        // created by migration 013 (points as bigint: a pause stores its end in epoch ms)
        tableCreated: true,
        clearExpiredByTimeout: true,
        keyPrefix: kind,
        points: UNLIMITED,
        duration: 60,
      }),
  );
  return {
    kind: 'postgres',
    ...ops,
    tryLease: (key, cap, leaseId, ttlMs) => repo.tryLease(key, cap, leaseId, Date.now() + ttlMs, Date.now()),
    renewLeases: (key, ids, ttlMs) => repo.renewLeases(key, ids, Date.now() + ttlMs),
    releaseLeases: (key, ids) => repo.releaseLeases(key, ids),
    close: async () => {},
  };
}
