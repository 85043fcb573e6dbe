import type { App } from '../../../app.ts';

/** Routes of this area register here. */
export default function register(app: App) {
  void app;
}
