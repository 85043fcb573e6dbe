// edrive pairing in two provider steps, so that the tenant paired is the one whose administrator went through
// this flow: (1) sign-in with a code → verified id_token → tenant id and an admin role; (2) admin consent in
// that tenant, accepted only for that tenant and proven with an app-only token.
import { ProviderAuthError, type ConnectorOAuth } from '../types.ts';
import { APPLICATION_PERMISSIONS, type MicrosoftIdentity } from './identity.ts';
import type { MicrosoftSignIn } from './sign-in.ts';

export function oneDriveOAuth(identity: MicrosoftIdentity, signIn: MicrosoftSignIn): ConnectorOAuth {
  return {
    authorizationResponse: 'json',
    scopes: { default: APPLICATION_PERMISSIONS },
    authorizationUrl: ({ state, redirectUri, codeChallenge }) =>
      signIn.authorizeUrl({ state, redirectUri, codeChallenge }),
    async completeCallback({ query, redirectUri, codeVerifier, carried }) {
      if (carried === undefined) {
        const admin = await signIn.signedInAdmin({ query, redirectUri, codeVerifier });
        return {
          carry: { step: 'consent', tid: admin.tenantId },
          continueTo: (state) => identity.adminConsentUrl({ tenant: admin.tenantId, state, redirectUri }),
        };
      }
      if (carried.step !== 'consent' || !carried.tid) {
        throw new ProviderAuthError(
          'invalid_request',
          'This authorization step is unknown: start the authorization again.',
        );
      }
      return identity.proveConsent(query, carried.tid);
    },
    refresh: (grant) => identity.refresh(grant),
  };
}
