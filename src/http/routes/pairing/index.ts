import type { App } from '../../../app.ts';
import completeOAuthCallback from './completeOAuthCallback.ts';
import getAuthorizationUrl from './getAuthorizationUrl.ts';
import pairCredentials from './pairCredentials.ts';

/** Spec endpoints 4 and 5 and the provider callback between them. */
export default function register(app: App) {
  getAuthorizationUrl(app);
  completeOAuthCallback(app);
  pairCredentials(app);
}
