import type { App } from '../../../app.ts';
import getItem from './getItem.ts';
import getItemContent from './getItemContent.ts';
import getItemVersionContent from './getItemVersionContent.ts';
import getManifest from './getManifest.ts';
import getReconciliation from './getReconciliation.ts';
import getRun from './getRun.ts';
import cancelRun from './cancelRun.ts';
import listItemVersions from './listItemVersions.ts';
import listItems from './listItems.ts';
import listRuns from './listRuns.ts';

export default function register(app: App) {
  listItems(app);
  getItem(app);
  getItemContent(app);
  listItemVersions(app);
  getItemVersionContent(app);
  listRuns(app);
  getRun(app);
  getManifest(app);
  getReconciliation(app);
  cancelRun(app);
}
