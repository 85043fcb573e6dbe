import type { App } from '../../../app.ts';
import listChannels from './listChannels.ts';
import listFolders from './listFolders.ts';
import listUsers from './listUsers.ts';

/** Spec endpoints 6, 7 and 8: what a client chooses from when writing sync filters. */
export default function register(app: App) {
  listUsers(app);
  listChannels(app);
  listFolders(app);
}
