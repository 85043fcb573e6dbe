import type { Logger } from 'pino';
import { createOAuthStates, OAuthStateError, type OAuthStates } from '../auth/oauth-state.ts';
import { isOAuthContinuation, ProviderAuthError, type Grant, type OAuthContinuation } from '../connectors/types.ts';
import { invalidInput } from '../domain/errors.ts';
import { randomToken, sha256Hex } from '../domain/seal.ts';
import { ProviderError } from '../provider/provider-error.ts';
import type { CollectionReads } from '../read/collections.ts';
import { PairingRepo } from '../store/pairings.ts';
import { providerAccountOf } from '../sync/events/provider-events.ts';
import type { ServiceDeps } from './deps.ts';
import { announceScopeGaps } from './scope-gaps.ts';

/** A pairing code (the `code` sent to `redirect_to`) must reach pair_credentials within this time. */
export const PAIRING_TTL_MS = 10 * 60_000;

/** The redirect URI registered with the provider for a collection type. */
export function callbackUri(publicUrl: string, type: string): string {
  return `${publicUrl}/v1/oauth/callback/${encodeURIComponent(type)}`;
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

/** The provider's error code is relayed as a plain token; anything else in it is dropped. */
function errorCode(value: string): string {
  return value.replace(/[^A-Za-z0-9_.-]/g, '').slice(0, 100) || 'access_denied';
}

function clip(value: string | undefined): string | undefined {
  return value ? value.slice(0, 500) : undefined;
}

/** Where the browser goes after the callback: back to `redirect_to` with these parameters, or on to the provider. */
export type CallbackOutcome =
  { back: { redirectTo: string; params: Record<string, string | undefined> } } | { continueTo: string };

/** Pairing: the authorization URL, the provider's callback (a one-time pairing code), and binding the code's grant. */
export function createPairingService(deps: ServiceDeps, reads: { collections: CollectionReads }) {
  const pairings = new PairingRepo(deps.db);
  const states: OAuthStates = createOAuthStates({ sealer: deps.sealer, pairings });

  const connectorOfType = (type: string) => {
    const connector = deps.connectors.get(type);
    if (!connector) throw invalidInput(`type must be one of ${deps.connectors.types().join(', ')}.`, 'type');
    return connector;
  };

  return {
    /** The provider's authorization URL, bound to the caller, `redirect_to` (allowlisted) and the client's state. */
    async authorize(
      accountId: string,
      type: string,
      q: { redirectTo: string; state?: string; scopesType?: string },
    ): Promise<{ url: string; redirect: boolean }> {
      const connector = connectorOfType(type);
      // The web console served by this process is always a valid destination (under any loopback name when local).
      const toConsole = isConsoleRedirect(deps.config.publicUrl, q.redirectTo);
      if (!toConsole && !(await deps.repos.accounts.isRedirectAllowed(accountId, q.redirectTo))) {
        throw invalidInput(
          'redirect_to is not on the allowlist of this account (exact match required).',
          'redirect_to',
        );
      }
      const scopeSets = Object.keys(connector.oauth.scopes);
      if (q.scopesType !== undefined && !scopeSets.includes(q.scopesType)) {
        throw invalidInput(
          `scopes_type must be one of ${scopeSets.join(', ') || '(none)'} for ${type}.`,
          'scopes_type',
        );
      }
      await pairings.purgeExpired(new Date().toISOString());
      const issued = await states.issue({ accountId, type, redirectTo: q.redirectTo, clientState: q.state });
      const url = connector.oauth.authorizationUrl({
        state: issued.state,
        redirectUri: callbackUri(deps.config.publicUrl, type),
        codeChallenge: issued.codeChallenge,
        scopesType: q.scopesType,
      });
      return { url, redirect: connector.oauth.authorizationResponse === 'redirect' };
    },

    /**
     * The provider sent the browser back: the state must be one this server issued for the type (400 otherwise;
     * `verified` hears when it is). An error the provider reports wins over anything else it says; a grant becomes
     * a one-time pairing code; a continuation gets a state of its own for the next step.
     */
    async completeCallback(
      type: string,
      query: Record<string, string | undefined>,
      opts: { log: Pick<Logger, 'error'>; verified?: () => void },
    ): Promise<CallbackOutcome> {
      const connector = connectorOfType(type);
      let bound;
      try {
        bound = await states.consume(query.state, type);
      } catch (err) {
        if (err instanceof OAuthStateError) throw invalidInput(err.message, 'state');
        throw err;
      }
      opts.verified?.();
      const back = (params: Record<string, string | undefined>): CallbackOutcome => ({
        back: { redirectTo: bound.redirectTo, params: { ...params, state: bound.clientState } },
      });
      // Microsoft's admin-consent error redirect also carries admin_consent=True: an error wins over anything else.
      if (query.error !== undefined) {
        return back({ error: errorCode(query.error), error_description: clip(query.error_description) });
      }

      let result: Grant | OAuthContinuation;
      try {
        result = await connector.oauth.completeCallback({
          query,
          redirectUri: callbackUri(deps.config.publicUrl, type),
          codeVerifier: bound.codeVerifier,
          ...(bound.carry !== undefined && { carried: bound.carry }),
        });
      } catch (err) {
        if (err instanceof ProviderAuthError)
          return back({ error: errorCode(err.error), error_description: clip(err.description) });
        // ProviderError messages are built to be safe (no query strings, tokens redacted); other messages may not be.
        const safe =
          err instanceof ProviderError
            ? { err_message: err.message, status: err.status, provider_code: err.providerCode }
            : {};
        opts.log.error({ type, err_name: (err as Error)?.name, ...safe }, 'completing a provider authorization failed');
        return back({
          error: 'server_error',
          error_description: 'The provider could not complete the authorization. Try again later.',
        });
      }

      if (isOAuthContinuation(result)) {
        // The next step gets its own state: the one just verified is burned, and the new one binds the same
        // account, redirect_to and client state plus what this step established.
        const next = await states.issue({
          accountId: bound.accountId,
          type,
          redirectTo: bound.redirectTo,
          clientState: bound.clientState,
          carry: result.carry,
        });
        return { continueTo: result.continueTo(next.state) };
      }

      const code = randomToken(32);
      const now = new Date();
      await pairings.createPairing({
        codeHash: sha256Hex(code),
        accountId: bound.accountId,
        type,
        sealedGrant: deps.sealer.seal(result),
        expiresAt: new Date(now.getTime() + PAIRING_TTL_MS).toISOString(),
        now: now.toISOString(),
      });
      return back({ code });
    },

    /**
     * Binds the grant behind a pairing code to the caller's collection's wallet; a scope gap the saved filters
     * already have shows now (collection view and event), not at the next run.
     */
    async pair(accountId: string, collectionId: string, authCode: string): Promise<void> {
      const { collection, connector } = await reads.collections.load(accountId, collectionId);
      const sealed = await pairings.consumePairing({
        codeHash: sha256Hex(authCode),
        accountId,
        type: collection.type,
        now: new Date().toISOString(),
      });
      if (!sealed) {
        throw invalidInput(
          `auth_code is unknown, expired, already used, or was not issued to this account for a ${collection.type} collection: authorize again.`,
          'auth_code',
        );
      }
      await deps.repos.wallets.setGrant(
        collection.wallet_id,
        sealed,
        providerAccountOf(deps.sealer.open<Grant>(sealed)),
      );
      deps.providers.forget(collection.wallet_id);
      await announceScopeGaps(deps, collection, connector);
    },
  };
}
