import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { Config } from '../config.ts';
import { redisReady, type SharedConnections } from '../store/shared-connections.ts';

/** The spec's budgets. `none` (legal holds, health, docs) is never limited. */
export type Bucket = 'default' | 'search' | 'token';

export interface LimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** seconds until the window resets (>= 1 when refused) */
  resetSeconds: number;
}

export interface RateLimits {
  consume(bucket: Bucket, key: string): Promise<LimitResult>;
  close(): Promise<void>;
}

/**
 * Fixed one-minute windows per key, in the process's shared store (store/shared-connections.ts): Redis, else
 * PostgreSQL, else memory (one process). Shared stores make N API processes enforce one budget, not N.
 */
export async function createRateLimits(config: Config, shared: SharedConnections): Promise<RateLimits> {
  const points: Record<Bucket, number> = {
    default: config.rateLimits.defaultPerMinute,
    search: config.rateLimits.searchPerMinute,
    token: config.rateLimits.tokenPerMinute,
  };
  const { redis, pgPool } = shared;
  let make: (bucket: Bucket) => RateLimiterAbstract;
  if (redis) {
    await redisReady(redis);
    make = (bucket) =>
      new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `custody:rl:${bucket}`,
        points: points[bucket],
        duration: 60,
      });
  } else if (pgPool) {
    make = (bucket) =>
      new RateLimiterPostgres({
        storeClient: pgPool,
        // created by migration 029
        tableName: 'rate_limits',
        tableCreated: true,
        // the library deletes rows expired for an hour, every five minutes (unref'd timer)
        clearExpiredByTimeout: true,
        keyPrefix: `rl:${bucket}`,
        points: points[bucket],
        duration: 60,
      });
  } else {
    make = (bucket) => new RateLimiterMemory({ keyPrefix: bucket, points: points[bucket], duration: 60 });
  }
  const limiters = {} as Record<Bucket, RateLimiterAbstract>;
  for (const bucket of Object.keys(points) as Bucket[]) limiters[bucket] = make(bucket);

  return {
    async consume(bucket, key) {
      const limit = points[bucket];
      try {
        const res = await limiters[bucket].consume(key, 1);
        return {
          allowed: true,
          limit,
          remaining: res.remainingPoints,
          resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
        };
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) throw err;
        return { allowed: false, limit, remaining: 0, resetSeconds: Math.max(1, Math.ceil(err.msBeforeNext / 1000)) };
      }
    },
    // the shared connections are closed by their owner (createContext)
    close: async () => {},
  };
}
