import type { App } from '../../../app.ts';
import getAuthorizationServerMetadata from './getAuthorizationServerMetadata.ts';
import issueToken from './issueToken.ts';

export default function register(app: App) {
  getAuthorizationServerMetadata(app);
  issueToken(app);
}
