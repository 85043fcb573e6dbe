import crypto from 'node:crypto';

/** Opaque, prefixed, URL-safe identifiers: the prefix tells a reader what kind of object an id names. */
export type IdPrefix =
  | 'acc'
  | 'cli'
  | 'ws'
  | 'wal'
  | 'col'
  | 'run'
  | 'itm'
  | 'err'
  | 'hold'
  | 'aud'
  | 'pair'
  | 'exc'
  | 'pev'
  | 'gsub'
  | 'whe'
  | 'dlv'
  | 'exp';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${crypto.randomBytes(12).toString('hex')}`;
}

export function nowIso(clock: () => Date = () => new Date()): string {
  return clock().toISOString();
}
