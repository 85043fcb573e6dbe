import type { App } from '../../../app.ts';
import health from './health.ts';
import getSigningKeys from './getSigningKeys.ts';
import metrics from './metrics.ts';

export default function register(app: App) {
  health(app);
  metrics(app);
  getSigningKeys(app);
}
