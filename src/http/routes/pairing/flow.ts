export { isConsoleRedirect, PAIRING_TTL_MS } from '../../../services/pairing.ts';

/**
 * Adds parameters to a URL, keeping its existing query exactly as the allowlist holds it (no re-encoding)
 * and any fragment at the end.
 */
export function appendQuery(url: string, params: Record<string, string | undefined>): string {
  const hashAt = url.indexOf('#');
  const base = hashAt < 0 ? url : url.slice(0, hashAt);
  const fragment = hashAt < 0 ? '' : url.slice(hashAt);
  const entries = Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined);
  const query = new URLSearchParams(entries).toString();
  if (!query) return url;
  const separator = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${separator}${query}${fragment}`;
}
