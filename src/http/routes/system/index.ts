import type { App } from '../../../app.ts';
import health from './health.ts';

export default function register(app: App) {
  health(app);
}
