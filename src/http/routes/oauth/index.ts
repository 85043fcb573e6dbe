import type { App } from '../../../app.ts';
import issueToken from './issueToken.ts';

export default function register(app: App) {
  issueToken(app);
}
