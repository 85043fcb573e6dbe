import type { App } from '../../../app.ts';
import createHold from './createHold.ts';
import getHold from './getHold.ts';
import listHolds from './listHolds.ts';
import releaseHold from './releaseHold.ts';

export default function register(app: App) {
  createHold(app);
  listHolds(app);
  getHold(app);
  releaseHold(app);
}
