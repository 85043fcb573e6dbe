// The fleet-wide store that the API's rate limits (http/rate-limits.ts) and the provider budgets
// (provider/budget-backend.ts) keep their counters in: one Redis client when REDIS_URL is set, else one PostgreSQL
// pool for rate-limiter-flexible's tables (migrations 013 and 029), else none (this process only). Opened once per
// process by createContext and closed with it; its users never close it.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type pg from 'pg';
import { newPgPool } from './db.ts';

export interface SharedConnections {
  redis?: Redis;
  pgPool?: pg.Pool;
  close(): Promise<void>;
}

/** Connects lazily: Redis queues commands until it is ready, the PostgreSQL pool opens on first use. */
export function openSharedConnections(opts: {
  redisUrl?: string;
  databaseUrl?: string;
  pgSchema?: string;
  /** PostgreSQL connections at most (default 8). */
  poolSize?: number;
  preparedStatements?: boolean;
}): SharedConnections {
  if (opts.redisUrl) {
    const redis = new Redis(opts.redisUrl, {
      enableOfflineQueue: true,
      maxRetriesPerRequest: 2,
      connectionName: `custody-${randomUUID().slice(0, 8)}`,
    });
    // Connection errors surface on the commands that fail; ioredis reconnects by itself.
    redis.on('error', () => undefined);
    return { redis, close: async () => void (await redis.quit().catch(() => redis.disconnect())) };
  }
  if (opts.databaseUrl) {
    const pgPool = newPgPool({
      url: opts.databaseUrl,
      max: opts.poolSize ?? 8,
      schema: opts.pgSchema,
      preparedStatements: opts.preparedStatements,
    });
    return { pgPool, close: () => pgPool.end() };
  }
  return { close: async () => {} };
}

/** Resolves once the Redis client is connected; rejects on its first connection error (a boot that cannot reach it). */
export function redisReady(redis: Redis): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const onError = (err: unknown) => {
      redis.off('ready', onReady);
      reject(err instanceof Error ? err : new Error(String(err)));
    };
    const onReady = () => {
      redis.off('error', onError);
      resolve();
    };
    redis.once('ready', onReady);
    redis.once('error', onError);
  });
}
