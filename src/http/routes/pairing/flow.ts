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
