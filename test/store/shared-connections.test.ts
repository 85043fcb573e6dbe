import { afterEach, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';

/** Every Redis client and pg pool the service's modules construct, counted as they are (the modules below). */
const opened = vi.hoisted(() => ({ pools: 0, redis: 0 }));

vi.mock('pg', async (importOriginal) => {
  const pg = await importOriginal<typeof import('pg') & { default: typeof import('pg') }>();
  // named as pg names its pool class: rate-limiter-flexible tells a pool from a client by that name
  class BoundPool extends pg.default.Pool {
    constructor(...args: ConstructorParameters<typeof pg.default.Pool>) {
      super(...args);
      opened.pools += 1;
    }
  }
  return { ...pg, Pool: BoundPool, default: { ...pg.default, Pool: BoundPool } };
});

vi.mock('ioredis', async (importOriginal) => {
  const ioredis = await importOriginal<typeof import('ioredis')>();
  class CountedRedis extends ioredis.Redis {
    constructor(...args: unknown[]) {
      super(...(args as []));
      opened.redis += 1;
    }
  }
  return { ...ioredis, Redis: CountedRedis, default: CountedRedis };
});

const postgres = testDatabases.find((d) => d.name === 'postgres');
const redisUrl = process.env.TEST_REDIS_URL;

/**
 * One shared Redis client, else one PostgreSQL pool, per process (store/shared-connections.ts): the API's rate
 * limits and the provider budgets keep their counters on it; neither opens its own. The service's database pool
 * is opened by the test before counting (the app is given it, as `serve` opens it once).
 */
describe.skipIf(!postgres)('one shared Redis client or pg pool per process', () => {
  let app: TestApp | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  /** Builds the app on an open database, then asks for a token and a few reads (rate-limited requests). */
  const buildAndUse = async (env: Record<string, string>) => {
    const database = await postgres!.open();
    opened.pools = 0;
    opened.redis = 0;
    const started = await startTestApp({ shared: database, env, workers: false });
    app = { ...started, close: async () => (await started.close(), await database.close()) };
    const token = await started.token('acme');
    for (let i = 0; i < 3; i++) expect((await started.call(token, 'GET', '/v1/workspaces')).status).toBe(200);
    return started;
  };

  it('on PostgreSQL: one pool serves the rate limits and the provider budgets', async () => {
    const started = await buildAndUse({});
    expect(started.runtime.ctx.connections.pgPool).toBeDefined();
    expect(opened).toEqual({ pools: 1, redis: 0 });
  });

  it.skipIf(!redisUrl)('with Redis: one client serves them, and no pool is opened for them', async () => {
    const started = await buildAndUse({ REDIS_URL: redisUrl! });
    expect(started.runtime.ctx.connections.redis).toBeDefined();
    expect(opened).toEqual({ pools: 0, redis: 1 });
  });
});
