import crypto from 'node:crypto';

/** JSON with object keys sorted at every level, so equal values always serialize to the same text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** Stable hash of a collection's filters: a checkpoint or cursor taken under other filters is not reused. */
export function filtersFingerprint(filters: unknown): string {
  return `sha256:${crypto.createHash('sha256').update(canonicalJson(filters)).digest('hex')}`;
}
