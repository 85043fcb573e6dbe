import { createOAuthStates, type OAuthStates } from '../../../auth/oauth-state.ts';
import type { AppContext } from '../../../context.ts';
import { PairingRepo } from '../../../store/pairings.ts';

/** A pairing code (the `code` sent to `redirect_to`) must reach pair_credentials within this time. */
export const PAIRING_TTL_MS = 10 * 60_000;

export function pairingsOf(ctx: Pick<AppContext, 'db'>): PairingRepo {
  return new PairingRepo(ctx.db);
}

export function statesOf(ctx: Pick<AppContext, 'db' | 'sealer'>): OAuthStates {
  return createOAuthStates({ sealer: ctx.sealer, pairings: pairingsOf(ctx) });
}

/** The redirect URI registered with the provider for a collection type. */
export function callbackUri(ctx: Pick<AppContext, 'config'>, type: string): string {
  return `${ctx.config.publicUrl}/v1/oauth/callback/${encodeURIComponent(type)}`;
}

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

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Whether `redirectTo` is the web console this process serves: `<PUBLIC_URL>/console/`, or, when PUBLIC_URL is a
 * loopback address, the same scheme, port and path under another loopback name (`localhost` for `127.0.0.1`). The
 * console asks to come back to its own origin, so that the consent window can hand the result to the window that
 * opened it (a window at another origin cannot), whichever loopback name the user typed.
 */
export function isConsoleRedirect(publicUrl: string, redirectTo: string): boolean {
  if (redirectTo === `${publicUrl}/console/`) return true;
  let pub: URL;
  let to: URL;
  try {
    pub = new URL(publicUrl);
    to = new URL(redirectTo);
  } catch {
    return false;
  }
  return (
    LOOPBACK.has(pub.hostname) &&
    LOOPBACK.has(to.hostname) &&
    to.protocol === pub.protocol &&
    to.port === pub.port &&
    to.username === '' &&
    to.password === '' &&
    to.search === '' &&
    to.hash === '' &&
    redirectTo === `${to.origin}${pub.pathname.replace(/\/+$/, '')}/console/`
  );
}
