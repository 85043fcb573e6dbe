import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { httpCaller, tokenFor, type Call } from './app.ts';
import { createClient, freePort, startCustody, type ServeProcess } from './process.ts';
import { scratchDatabase, type ScratchDatabase } from './scratch-database.ts';

/** One API process (`WORKERS=none`) and `custody worker` processes, separate OS processes on one PostgreSQL. */
export interface Fleet {
  api: ServeProcess;
  workers: ServeProcess[];
  /** The environment every process got. */
  env: Record<string, string>;
  call: Call;
  /** A service token of account `acme`, whose redirect allowlist holds the given callbacks. */
  token: string;
  query<T extends Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

/** The pid in a lease owner `<host>:<scope>:<pid>:<nonce>`. */
export const pidOfLeaseOwner = (owner: string) => Number(owner.split(':').at(-2));

/** Starts the fleet on a scratch database and DATA_DIR; `env` is added to every process's environment. */
export async function startFleet(opts: {
  prefix: string;
  workers: number;
  env: Record<string, string>;
  redirects: string[];
}): Promise<Fleet> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `${opts.prefix}-`));
  const db: ScratchDatabase = await scratchDatabase(opts.prefix.replace(/\W/g, '_'));
  const port = await freePort();
  const env = {
    DATABASE_URL: db.url,
    DATA_DIR: dataDir,
    CUSTODY_SECRET_KEY: crypto.randomBytes(24).toString('base64'),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'info',
    // Small pools: two fleet test files at once stay well inside PostgreSQL's 100 connections (at the default 10,
    // they ran out and the API answered 503).
    DATABASE_POOL_SIZE: '4',
    ...opts.env,
  };
  const started: ServeProcess[] = [];
  const close = async () => {
    await Promise.all(started.map((p) => p.stop('SIGTERM', 10_000)));
    await db.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const api = await startCustody('api', { ...env, WORKERS: 'none' }, { port });
    started.push(api);
    const workers = await Promise.all(
      Array.from({ length: opts.workers }, (_, i) => startCustody(`worker-${i + 1}`, env, { worker: true })),
    );
    started.push(...workers);
    const call = httpCaller(api.url);
    const token = await tokenFor(
      call,
      await createClient({ DATABASE_URL: db.url, DATA_DIR: dataDir }, 'acme', opts.redirects),
    );
    const query = async <T extends Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> => {
      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      try {
        return (await c.query(sql, params)).rows as T[];
      } finally {
        await c.end();
      }
    };
    return { api, workers, env, call, token, query, close };
  } catch (err) {
    await close();
    throw err;
  }
}
