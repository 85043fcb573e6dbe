import type { App } from '../../../app.ts';
import serveConsole from './serveConsole.ts';

export default function register(app: App) {
  serveConsole(app);
}
