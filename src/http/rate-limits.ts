import pg from 'pg';
import { Redis } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { Config } from '../config.ts';

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
 * Fixed one-minute windows per key. With REDIS_URL the budget lives in Redis; with DATABASE_URL in PostgreSQL;
 * otherwise in memory (one process). Shared stores make N API processes enforce one budget, not N.
 */
export async function createRateLimits(config: Config, pgSchema?: string): Promise<RateLimits> {
  const points: Record<Bucket, number> = {
    default: config.rateLimits.defaultPerMinute,
    search: config.rateLimits.searchPerMinute,
    token: config.rateLimits.tokenPerMinute,
  };
  let close = async () => {};
  let make: (bucket: Bucket) => RateLimiterAbstract;
  if (config.redisUrl) {
    const redis = new Redis(config.redisUrl, {
      enableOfflineQueue: false,
      lazyConnect: false,
      maxRetriesPerRequest: 1,
    });
    await new Promise<void>((resolve, reject) => {
      redis.once('ready', () => resolve());
      redis.once('error', reject);
    });
    make = (bucket) =>
      new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `custody:rl:${bucket}`,
        points: points[bucket],
        duration: 60,
      });
    close = async () => void redis.disconnect();
  } else if (config.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: config.databaseUrl,
      max: 5,
      options: pgSchema ? `-c search_path=${pgSchema}` : undefined,
    });
    make = (bucket) =>
      new RateLimiterPostgres({
        storeClient: pool,
        // created by migration 029
        tableName: 'rate_limits',
        tableCreated: true,
        // the library deletes rows expired for an hour, every five minutes (unref'd timer)
        clearExpiredByTimeout: true,
        keyPrefix: `rl:${bucket}`,
        points: points[bucket],
        duration: 60,
      });
    close = () => pool.end();
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
    close: () => close(),
  };
}
