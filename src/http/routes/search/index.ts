import type { App } from '../../../app.ts';
import searchItems from './searchItems.ts';

export default function register(app: App) {
  searchItems(app);
}
