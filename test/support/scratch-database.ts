// A PostgreSQL database of its own for a test that runs real `bin/custody` processes: Kysely's migrator finds its
// bookkeeping tables in any schema it can see, so a schema chosen through `search_path` alone is not isolated.
import crypto from 'node:crypto';
import pg from 'pg';
import { pgUrl } from './databases.ts';
import { microsoftEnv } from './sandbox-env.ts';

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: pgUrl });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

/** Creates `<prefix>_<random>`; `drop()` removes it, forcing out whoever is still connected. */
export async function scratchDatabase(prefix: string): Promise<ScratchDatabase> {
  const name = `${prefix}_${crypto.randomBytes(5).toString('hex')}`;
  // CREATE DATABASE copies template1 and fails (55006) while any other session is connected to it: try again.
  for (let attempt = 1; ; attempt++) {
    try {
      await admin(`create database ${name}`);
      break;
    } catch (err) {
      if ((err as { code?: string }).code !== '55006' || attempt === 5) throw err;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  const url = new URL(pgUrl!);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

/** The environment that points a `bin/custody` process at the Zoom and Microsoft simulators. */
export function simulatorEnv(
  zoom?: { clientId: string; clientSecret: string; oauthUrl: string; apiUrl: string },
  ms?: { clientId: string; clientSecret: string; loginUrl: string; graphUrl: string },
): Record<string, string> {
  return {
    ...(zoom && {
      ZOOM_CLIENT_ID: zoom.clientId,
      ZOOM_CLIENT_SECRET: zoom.clientSecret,
      ZOOM_OAUTH_URL: zoom.oauthUrl,
      ZOOM_API_URL: zoom.apiUrl,
    }),
    ...(ms && microsoftEnv(ms)),
  };
}
