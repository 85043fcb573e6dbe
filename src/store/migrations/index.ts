import type { Migration } from 'kysely';
import * as core from './001_core.ts';
import * as sync from './002_sync.ts';

/** Every migration, in order. Names are stable: they are recorded in the database. */
export const migrations: Record<string, Migration> = {
  '001_core': core,
  '002_sync': sync,
};
